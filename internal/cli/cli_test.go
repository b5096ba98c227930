package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		label  string
		args   []string
		code   int
		stderr string // substring
	}{
		{"list", []string{"list"}, 0, ""},
		{"run ok", []string{"run", "copy_coalesced", "-n", "4096"}, 0, ""},
		{"race clean", []string{"race", "sync_demo"}, 0, ""},
		{"race faulty", []string{"race", "add_one"}, 1, ""},
		{"unknown kernel", []string{"run", "reduce_sun"}, 2, `did you mean "reduce_sum"?`},
		{"unknown command", []string{"rnu"}, 2, `did you mean "run"?`},
		{"illegal block", []string{"run", "copy_coalesced", "-block", "2048"}, 2, "threads per block"},
		{"missing input", []string{"run", "copy_coalesced", "-in", "/nonexistent/x.json"}, 2, "cannot read input"},
		{"bad flag", []string{"occupancy", "-bogus"}, 2, "flag provided but not defined"},
		{"occupancy refused", []string{"occupancy", "-block", "1024", "-regs", "128"}, 2, "registers per block"},
		{"amdahl", []string{"amdahl", "-p", "0.9", "-n", "1000"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			code, _, stderr := run(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("gpusim %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.stderr)
			}
			if tt.code == 2 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("bad input should print one line, got %q", stderr)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	for _, args := range [][]string{
		{"list", "-json"},
		{"run", "reduce_sum", "-n", "4096", "-json"},
		{"race", "add_one", "-json"},
		{"occupancy", "-block", "256", "-regs", "32", "-json"},
		{"sweep", "copy_coalesced", "-n", "4096", "-blocks", "64,256,2048", "-json"},
		{"amdahl", "-json"},
		{"trace", "sync_demo", "-o", filepath.Join(t.TempDir(), "t.json"), "-json"},
	} {
		_, out, stderr := run(t, args...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("gpusim %v: output is not JSON (%v): %q %s", args, err, out, stderr)
		}
	}
}

func TestRunProfileCoalescing(t *testing.T) {
	sectors := func(kernel string) float64 {
		_, out, _ := run(t, "run", kernel, "-n", "8192", "-json")
		var o struct {
			Status   string
			Launches []struct {
				Memory struct {
					GlobalLoad struct{ Requests, Sectors int64 }
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil || len(o.Launches) == 0 {
			t.Fatalf("%s: %v %q", kernel, err, out)
		}
		g := o.Launches[0].Memory.GlobalLoad
		return float64(g.Sectors) / float64(g.Requests)
	}
	co, st := sectors("copy_coalesced"), sectors("copy_strided")
	if co != 4 || st <= co {
		t.Errorf("sectors per request: coalesced %v, strided %v; want 4 and more", co, st)
	}
}

func TestTraceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	if code, _, stderr := run(t, "trace", "reduce_sum", "-n", "4096", "-o", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Errorf("trace: %v, %d events", err, len(doc.TraceEvents))
	}
}

func TestInputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(path, []byte(`{"N": 4, "Inputs": [[1, 2, 3, 4]]}`), 0o644)
	code, out, stderr := run(t, "run", "copy_coalesced", "-in", path)
	if code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
}

func TestSuggest(t *testing.T) {
	if got := suggest("histgram_text", []string{"histogram_text", "reduce_sum"}); !strings.Contains(got, "histogram_text") {
		t.Errorf("suggest: %q", got)
	}
	if got := suggest("zzzzzzzz", []string{"reduce_sum"}); got != "" {
		t.Errorf("suggest for nonsense: %q", got)
	}
}

// TestSweepGPUUnavailable: in a build without the cuda tag, sweep -gpu
// refuses in one line that says how to get a binary that can, before it
// runs anything.
func TestSweepGPUUnavailable(t *testing.T) {
	if cuda.Available {
		t.Skip("built with -tags cuda")
	}
	code, stdout, stderr := run(t, "sweep", "vector_add", "-gpu")
	if code != 2 || strings.Count(stderr, "\n") != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 2, nothing, one line", code, stdout, stderr)
	}
	for _, want := range []string{"-gpu", "without the cuda build tag", "scripts/build-parity.sh", ".devbin/gpusim"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not mention %q", stderr, want)
		}
	}
}

// fakeGPU is the simulator standing in for the CUDA backend in sweep -gpu:
// every launch "takes" 3µs, and wrong, if set, corrupts each float32 read.
type fakeGPU struct {
	*kernels.SimBackend
	wrong bool
	times []cuda.LaunchTime
}

func (f *fakeGPU) Launch(fn any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	f.times = append(f.times, cuda.LaunchTime{Func: kernels.KernelName(fn), GPU: 3 * time.Microsecond, Host: 10 * time.Microsecond})
	return f.SimBackend.Launch(fn, grid, block, sharedBytes, args...)
}

func (f *fakeGPU) Read(m kernels.Mem, dst any) error {
	err := f.SimBackend.Read(m, dst)
	if v, ok := dst.([]float32); ok && f.wrong && len(v) > 0 {
		v[0]++
	}
	return err
}

func (f *fakeGPU) LaunchTimes() []cuda.LaunchTime {
	t := f.times
	f.times = nil
	return t
}

func (f *fakeGPU) Info() cuda.Info {
	return cuda.Info{Name: "Fake GPU", Arch: "sm_90", CC: [2]int{9, 0}, SMs: 132}
}

func (f *fakeGPU) Close() error { return nil }

func withFakeGPU(t *testing.T, wrong bool) {
	old := openGPU
	t.Cleanup(func() { openGPU = old })
	openGPU = func(string) (gpuDevice, error) {
		return &fakeGPU{SimBackend: kernels.NewSimBackend(sim.H100, sim.Options{}.WithDetection(false)), wrong: wrong}, nil
	}
}

// TestSweepGPU runs sweep -gpu's table, JSON and exit status on a fake
// device: times are the fake's, the check is real.
func TestSweepGPU(t *testing.T) {
	withFakeGPU(t, false)
	code, out, stderr := run(t, "sweep", "vector_add", "-n", "4096", "-blocks", "64,256,2048", "-gpu", "-gpu-runs", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"GPU: Fake GPU (sm_90, 132 SMs)", "gpu-kern-med", "gpu-vs-sim", "3.0µs", "median of 3 timed runs", "bit-exact"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := strings.Count(out, "  same\n"); got != 2 {
		t.Errorf("%d rows say same, want 2 (the third block size is illegal):\n%s", got, out)
	}

	_, out, _ = run(t, "sweep", "vector_add", "-n", "4096", "-blocks", "256", "-gpu", "-json")
	var rows []struct {
		Block int
		GPU   *gpuTiming
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].GPU == nil {
		t.Fatalf("JSON: %v %q", err, out)
	}
	want := gpuTiming{Runs: 5, Launches: 1, KernelMedianNano: 3000, KernelMinNano: 3000, Check: "same", Against: "sim"}
	got := *rows[0].GPU
	got.DriverMedianNano = 0 // wall clock
	if got != want {
		t.Errorf("gpu: %+v, want %+v", got, want)
	}
}

// TestSweepGPUDiffers: a GPU result that differs from the simulator's is
// flagged in its row and explained below the table; the exit status is 1.
func TestSweepGPUDiffers(t *testing.T) {
	withFakeGPU(t, true)
	code, out, _ := run(t, "sweep", "vector_add", "-n", "4096", "-blocks", "128", "-gpu")
	if code != 1 || !strings.Contains(out, "DIFFERS") || !strings.Contains(out, "block 128: warm-up run, GPU vs sim: output 0") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
