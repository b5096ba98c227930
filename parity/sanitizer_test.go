//go:build cuda

package parity

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// The detector-parity case: input seed 1, default block, the kernel's seed
// size where that is a small fixed launch (≤256), else MaxSize(k) (a few
// thousand elements, or a matrix side of 40): the simulator runs it with
// detection on.
func sanitizerCase(k *kernels.Kernel) kernels.Case {
	n := k.SeedN
	if n <= 0 || n > 256 {
		n = MaxSize(k)
	}
	return k.Generate(rand.New(rand.NewPCG(1, 0x5a)), n, 0)
}

// twinRun is the subprocess mode that compute-sanitizer runs: it opens the
// device, runs kernel's driver once on sanitizerCase and exits 0, or 3 if
// the driver failed (a fault the tool may also report).
func twinRun(kernel string) int {
	k, ok := kernels.Lookup(kernel)
	if !ok {
		fmt.Fprintf(os.Stderr, "twinrun: no kernel %q\n", kernel)
		return 2
	}
	d, err := openDevice()
	if err != nil {
		fmt.Fprintln(os.Stderr, "twinrun:", err)
		return 2
	}
	defer d.Close()
	res, err := k.Run(d, sanitizerCase(k))
	if err != nil {
		fmt.Printf("twinrun: %s: driver error: %v\n", kernel, err)
		return 3
	}
	s := fmt.Sprint(res)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	fmt.Printf("twinrun: %s: ok: %s\n", kernel, s)
	return 0
}

func findSanitizer() (string, error) {
	if p, err := exec.LookPath("compute-sanitizer"); err == nil {
		return p, nil
	}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "compute-sanitizer", "compute-sanitizer")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		p = filepath.Join(dir, "bin", "compute-sanitizer")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("compute-sanitizer not found on PATH or under $CUDA_HOME")
}

var (
	errorSummary = regexp.MustCompile(`ERROR SUMMARY: (\d+) error`)
	raceSummary  = regexp.MustCompile(`RACECHECK SUMMARY: (\d+) hazard`)
)

// TestSanitizerParity runs every kernel, faulty ones included, under
// compute-sanitizer's racecheck, synccheck, memcheck and initcheck, and
// compares each tool's verdict with the simulator's findings on the same
// case. A disagreement is recorded in the report and logged; it fails the
// test only for a faulty kernel's expected finding that the tool could see
// and did not, or for a correct kernel the tool flags.
func TestSanitizerParity(t *testing.T) {
	san, err := findSanitizer()
	if err != nil {
		t.Skip(err)
	}
	logs := os.Getenv("GPUSIM_PARITY_LOGS")
	if logs != "" {
		os.MkdirAll(logs, 0o755)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kernels.All() {
		// The simulator's findings on the same case, detection on.
		sb := kernels.NewSimBackend(sim.H100, sim.Options{})
		_, serr := k.Run(sb, sanitizerCase(k))
		byTool := map[string][]string{}
		var other []string
		for _, r := range sb.Reports {
			for _, f := range r.Findings {
				desc := f.Kind.String()
				if f.Memory != "" {
					desc += " on " + f.Memory
				}
				if tool := ToolFor(f); tool != "" {
					byTool[tool] = append(byTool[tool], desc)
				} else {
					other = append(other, desc)
				}
			}
		}
		if serr != nil && len(sb.Reports) == 0 {
			other = append(other, "sim error: "+serr.Error())
		}
		for _, tool := range []string{"racecheck", "synccheck", "memcheck", "initcheck"} {
			t.Run(k.Name+"/"+tool, func(t *testing.T) {
				t.Parallel()
				defer writeReport()
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				args := []string{"--tool", tool, "--print-limit", "20"}
				if tool == "racecheck" {
					args = append(args, "--racecheck-report", "all")
				}
				args = append(args, self, "-test.run=^$")
				cmd := exec.CommandContext(ctx, san, args...)
				cmd.Env = append(os.Environ(), "GPUSIM_TWINRUN="+k.Name)
				cmd.WaitDelay = 10 * time.Second // the target may outlive a killed sanitizer
				out, runErr := cmd.CombinedOutput()
				if logs != "" {
					os.WriteFile(filepath.Join(logs, k.Name+"."+tool+".log"), out, 0o644)
				}
				res := SanitizerResult{Kernel: k.Name, Tool: tool, Sim: byTool[tool], SimOther: other}
				// racecheck ends with a RACECHECK SUMMARY, the other tools
				// with an ERROR SUMMARY.
				em, rm := errorSummary.FindSubmatch(out), raceSummary.FindSubmatch(out)
				if em != nil {
					res.GPUErrors, _ = strconv.Atoi(string(em[1]))
				}
				if rm != nil {
					h, _ := strconv.Atoi(string(rm[1]))
					res.GPUErrors = max(res.GPUErrors, h)
				}
				if em == nil && rm == nil {
					res.RunErr = "no sanitizer summary"
				}
				if ctx.Err() != nil {
					res.RunErr = "timed out (hang?)"
				} else if runErr != nil {
					if ee, ok := runErr.(*exec.ExitError); ok && ee.ExitCode() == 3 {
						res.RunErr = "driver error (see log)"
					} else if res.RunErr == "" {
						res.RunErr = runErr.Error()
					}
				}
				res.Agree = (len(res.Sim) > 0) == (res.GPUErrors > 0)
				rep.AddSanitizer(res)
				if !res.Agree {
					t.Logf("%s under %s: sim %v, sanitizer %d errors; runner: %s", k.Name, tool, res.Sim, res.GPUErrors, res.RunErr)
				}
				if !k.Faulty && res.GPUErrors > 0 {
					t.Errorf("%s: correct kernel, %s reports %d errors:\n%s", k.Name, tool, res.GPUErrors, tail(out, 3000))
				}
				if k.Faulty && len(res.Sim) > 0 && res.GPUErrors == 0 {
					t.Logf("%s: sim finds %v, %s nothing (hardware timing may hide it)", k.Name, res.Sim, tool)
				}
			})
		}
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
