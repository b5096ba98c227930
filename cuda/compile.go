package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Compiler turns twins into cubins with nvcc, for one architecture, and
// caches them on disk by a hash of the source, the flags and nvcc's version.
type Compiler struct {
	NVCC    string   // path of nvcc
	Version string   // nvcc --version's last line
	Arch    string   // sm_XY
	Flags   []string // ParityFlags plus extras, without -arch
	Dir     string   // cache directory
}

// FindNVCC returns nvcc on PATH, else $CUDA_HOME/bin/nvcc, else
// /usr/local/cuda/bin/nvcc.
func FindNVCC() (string, error) {
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, nil
	}
	var tried []string
	for _, dir := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "bin", "nvcc")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("cuda: nvcc not found on PATH nor at %v", tried)
}

// CacheDir returns $GPUSIM_CUDA_CACHE, else <os.UserCacheDir>/gpusim/cuda.
func CacheDir() (string, error) {
	if d := os.Getenv("GPUSIM_CUDA_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cuda: no cache directory (set GPUSIM_CUDA_CACHE): %w", err)
	}
	return filepath.Join(d, "gpusim", "cuda"), nil
}

// NewCompiler finds nvcc (cfg.NVCC if set) and the cache directory.
func NewCompiler(cfg Config, arch string) (*Compiler, error) {
	c := &Compiler{NVCC: cfg.NVCC, Arch: arch, Dir: cfg.CacheDir,
		Flags: append(append([]string(nil), ParityFlags...), cfg.ExtraFlags...)}
	var err error
	if c.NVCC == "" {
		if c.NVCC, err = FindNVCC(); err != nil {
			return nil, err
		}
	}
	if c.Dir == "" {
		if c.Dir, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	out, err := exec.Command(c.NVCC, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("cuda: %s --version: %v: %s", c.NVCC, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c.Version = strings.TrimSpace(lines[len(lines)-1])
	return c, nil
}

var flagDirective = regexp.MustCompile(`(?m)^//\s*gpusim:nvcc\s+(.+)$`)

// TwinFlags applies a twin's own flag directives to flags: a line
// "// gpusim:nvcc -fmad=true" in the source replaces the flag of the same
// name (the part before '=') or adds it. A twin whose Go body models nvcc's
// default contraction (fma32) would say -fmad=true; explicit fmaf() calls
// need no directive, as -fmad=false does not affect them.
func TwinFlags(flags []string, src []byte) []string {
	out := append([]string(nil), flags...)
	for _, m := range flagDirective.FindAllSubmatch(src, -1) {
		for _, f := range strings.Fields(string(m[1])) {
			name, _, _ := strings.Cut(f, "=")
			i := slices.IndexFunc(out, func(g string) bool { n, _, _ := strings.Cut(g, "="); return n == name })
			if i >= 0 {
				out[i] = f
			} else {
				out = append(out, f)
			}
		}
	}
	return out
}

// Compile returns the cubin of kernel's twin src and how it was built.
func (c *Compiler) Compile(kernel string, src []byte) ([]byte, Build, error) {
	flags := append([]string{"-cubin", "-arch=" + c.Arch}, TwinFlags(c.Flags, src)...)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", c.Version, strings.Join(flags, " "))
	h.Write(src)
	sum := hex.EncodeToString(h.Sum(nil))
	b := Build{Kernel: kernel, Flags: flags, Hash: sum[:16]}
	path := filepath.Join(c.Dir, kernel+"-"+b.Hash+".cubin")
	if img, err := os.ReadFile(path); err == nil && len(img) > 0 {
		b.Cached = true
		return img, b, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, b, fmt.Errorf("cuda: cache: %w", err)
	}
	tmp, err := os.MkdirTemp(c.Dir, "build-")
	if err != nil {
		return nil, b, fmt.Errorf("cuda: cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	cu := filepath.Join(tmp, kernel+".cu")
	if err := os.WriteFile(cu, src, 0o644); err != nil {
		return nil, b, err
	}
	out := filepath.Join(tmp, kernel+".cubin")
	cmd := exec.Command(c.NVCC, append(append([]string(nil), flags...), "-o", out, cu)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, b, fmt.Errorf("cuda: nvcc %s %s.cu: %v\n%s", strings.Join(flags, " "), kernel, err, stderr.String())
	}
	img, err := os.ReadFile(out)
	if err != nil {
		return nil, b, err
	}
	if len(img) == 0 {
		return nil, b, errors.New("cuda: nvcc wrote an empty cubin")
	}
	// Rename is atomic: concurrent processes sharing the cache never see
	// half a file.
	if err := os.Rename(out, path); err != nil {
		return nil, b, fmt.Errorf("cuda: cache: %w", err)
	}
	return img, b, nil
}
