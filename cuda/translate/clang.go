package translate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ClangArgs are the clang flags that compile one generated translation unit
// to PTX for sm_90 without the CUDA toolkit: Debian's clang-19 with the
// shim header (Shim) standing in for the CUDA headers. -ffp-contract=off
// is nvcc's -fmad=false, which the generated code is written for (Go rounds
// a*b+c twice); clang's CUDA default fuses it.
var ClangArgs = []string{"-x", "cuda", "--cuda-gpu-arch=sm_90", "--cuda-device-only", "-nocudainc", "-nocudalib",
	"-ffp-contract=off", "-Xclang", "-target-feature", "-Xclang", "+ptx80"}

// CompileWithClang compiles src, a generated CUDA translation unit, to PTX
// with the clang binary cc through the shim, in the scratch directory dir
// (files there are named after name), and returns the PTX. It is how CI,
// which has no GPU and no CUDA toolkit, checks that generated code
// compiles; on an error the PTX is clang's messages.
func CompileWithClang(cc, dir, name, src string) (string, error) {
	shim := filepath.Join(dir, "shim.h")
	if _, err := os.Stat(shim); err != nil {
		if err := os.WriteFile(shim, Shim, 0o644); err != nil {
			return "", err
		}
	}
	in := filepath.Join(dir, name+".cu")
	out := filepath.Join(dir, name+".s")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		return "", err
	}
	args := append(append([]string(nil), ClangArgs...), "-include", shim, "-S", "-o", out, in)
	msg, err := exec.Command(cc, args...).CombinedOutput()
	if err != nil {
		return string(msg), fmt.Errorf("clang %s.cu: %w", name, err)
	}
	ptx, err := os.ReadFile(out)
	return string(ptx), err
}
