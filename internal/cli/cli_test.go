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
		{"negative workers", []string{"race", "add_one", "-workers", "-2"}, 2, "-workers -2"},
		{"list with an argument", []string{"list", "reduce_sum"}, 2, "list takes no arguments"},
		{"help of two commands", []string{"help", "run", "race"}, 2, "help takes one command"},
		{"sweep with no legal block size", []string{"sweep", "add_one", "-blocks", "64,128"}, 2, "add_one takes blocks of 16 threads"},
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

// `gpusim run` runs the detectors by default (add_one is the registry's
// racy kernel: it used to say PASS and exit 0); -race=false turns them off.
func TestRunDetectsByDefault(t *testing.T) {
	code, out, _ := run(t, "run", "add_one")
	if code != 1 || !strings.Contains(out, "data race") || !strings.Contains(out, "race=true") {
		t.Errorf("run add_one: exit %d, want 1 and a data race:\n%s", code, out)
	}
	code, out, _ = run(t, "run", "add_one", "-race=false")
	if code != 0 || strings.Contains(out, "data race") {
		t.Errorf("run add_one -race=false: exit %d, want 0 and no finding:\n%s", code, out)
	}
}

// -workers changes nothing a detected run reports: on every core the
// findings and results are one worker's.
func TestRaceWorkersSameReport(t *testing.T) {
	for _, k := range []string{"add_one", "reduce_sum", "histogram_atomic"} {
		if _, ok := kernels.Lookup(k); !ok {
			continue
		}
		code1, out1, _ := run(t, "race", k, "-json")
		code4, out4, _ := run(t, "race", k, "-json", "-workers", "4")
		if code1 != code4 || out1 != out4 {
			t.Errorf("race %s: -workers 4 gave exit %d:\n%s\none worker gave %d:\n%s", k, code4, out4, code1, out1)
		}
	}
}

// Any finding is exit status 1 in every subcommand that runs a kernel.
func TestExitOneOnFindingsInEverySubcommand(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "add_one"},
		{"race", "add_one"},
		{"trace", "add_one", "-o", filepath.Join(dir, "t.json")},
		{"trace", "add_one", "-o", "-"},
		{"sweep", "add_one", "-blocks", "16"},
		{"run", "add_one", "-json"},
		{"trace", "add_one", "-o", filepath.Join(dir, "t2.json"), "-json"},
		{"sweep", "add_one", "-blocks", "16", "-json"},
	} {
		if code, out, stderr := run(t, args...); code != 1 {
			t.Errorf("gpusim %v: exit %d, want 1\n%s%s", args, code, out, stderr)
		}
	}
}

// An invalid -in case file is bad input, exit status 2 with one line
// naming the problem: a negative N, a block of 0 threads, inputs of the
// wrong count or length, and JSON that is not a case.
func TestExitTwoOnInvalidCaseFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, json, stderr string
	}{
		{"negative N", `{"N": -5}`, "N -5 is negative"},
		{"block 0", `{"Block": 0}`, "Block 0: a block has at least 1 thread"},
		{"short input", `{"N": 8, "Inputs": [[1, 2, 3], [1, 2, 3, 4, 5, 6, 7, 8]]}`, "input 0 has 3 elements; the kernel takes 8 for N 8"},
		{"input count", `{"N": 2, "Inputs": [[1, 2]]}`, "1 inputs, the kernel takes 2"},
		{"not a case", `[1, 2]`, "cannot unmarshal"},
		{"misspelt key", `{"N": 8, "Input": [[1], [2]]}`, `unknown field "Input"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := run(t, "run", "vector_add", "-in", path)
			if code != 2 || !strings.Contains(stderr, tc.stderr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, stderr, tc.stderr)
			}
		})
	}
}

// JSON output names finding kinds and memory spaces, not their numbers.
func TestJSONFindingKindsAndSpacesAreStrings(t *testing.T) {
	_, out, _ := run(t, "race", "add_one", "-json")
	var v struct {
		Findings []struct {
			Kind  string
			Space string
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(v.Findings) == 0 || v.Findings[0].Kind != "data race" || v.Findings[0].Space != "global" {
		t.Errorf("findings %+v, want kind \"data race\" in space \"global\"", v.Findings)
	}
}

// `gpusim help CMD` shows the command's synopsis and flags.
func TestHelpCommandShowsFlags(t *testing.T) {
	for cmd, flag := range map[string]string{"run": "-race", "sweep": "-blocks", "trace": "-o", "occupancy": "-smem", "amdahl": "-p"} {
		code, out, _ := run(t, "help", cmd)
		if code != 0 || !strings.Contains(out, "usage: gpusim "+cmd) || !strings.Contains(out, "  "+flag) {
			t.Errorf("help %s: exit %d, want 0 and the flag %s:\n%s", cmd, code, flag, out)
		}
	}
	if code, _, stderr := run(t, "help", "rnu"); code != 2 || !strings.Contains(stderr, `did you mean "run"?`) {
		t.Errorf("help rnu: exit %d, %q", code, stderr)
	}
}

// Messages start with the subcommand once: "gpusim run: ...".
func TestMessagesNameTheSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"run", "-bogus", "vector_add"}, "gpusim run: flag provided but not defined"},
		{[]string{"run", "reduce_sun"}, "gpusim run: unknown kernel"},
		{[]string{"run"}, "gpusim run: want one kernel name"},
		{[]string{"sweep", "vector_add", "-blocks", "x"}, "gpusim sweep: -blocks"},
		{[]string{"occupancy", "-block", "1024", "-regs", "128"}, "gpusim occupancy: illegal launch shape"},
		{[]string{"amdahl", "-p", "2"}, "gpusim amdahl: want 0 <= p <= 1"},
		{[]string{"cuda", "-o", t.TempDir(), "./testdata/nonexistent"}, "gpusim cuda: translate: "},
		{[]string{"cuda", "-o", t.TempDir(), "./testdata/nokernels"}, "gpusim cuda: no kernels in ./testdata/nokernels"},
		{[]string{"cuda", "-go", "./testdata/nonexistent"}, "gpusim cuda: -go: "},
	} {
		_, _, stderr := run(t, tc.args...)
		if !strings.HasPrefix(stderr, tc.prefix) || strings.Contains(stderr, "gpusim: gpusim") {
			t.Errorf("gpusim %v: stderr %q, want it to start %q", tc.args, stderr, tc.prefix)
		}
		// Once: not "gpusim cuda: cuda: ...".
		if cmd := tc.args[0]; strings.HasPrefix(stderr, "gpusim "+cmd+": "+cmd) {
			t.Errorf("gpusim %v: stderr %q repeats the subcommand", tc.args, stderr)
		}
	}
}

// A path or a Go name given to run or race is no registry kernel: the
// message says that those take the registry's names, and how a user runs
// a kernel of their own.
func TestUnknownKernelSaysHowToRunYourOwn(t *testing.T) {
	for _, args := range [][]string{{"run", "./testdata/mixed"}, {"race", "Saxpy"}} {
		code, _, stderr := run(t, args...)
		for _, want := range []string{"unknown kernel", "take a registry kernel's name", "parity.Check", "go test"} {
			if code != 2 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("gpusim %v: exit %d, stderr %q; want 2 and one line with %q", args, code, stderr, want)
			}
		}
	}
	// A typo of a registry name gets the suggestion alone.
	if _, _, stderr := run(t, "run", "reduce_sun"); strings.Contains(stderr, "parity.Check") {
		t.Errorf("a typo: %q", stderr)
	}
}

// gpusim help says which subcommands take -json, truly.
func TestHelpSaysWhichSubcommandsTakeJSON(t *testing.T) {
	var without []string
	for _, c := range commands {
		_, out, _ := run(t, "help", c.name)
		if !strings.Contains(out, "  -json") {
			without = append(without, c.name)
			if code, _, stderr := run(t, c.name, "-json"); code != 2 || !strings.Contains(stderr, "flag provided but not defined: -json") {
				t.Errorf("%s -json: exit %d, %q", c.name, code, stderr)
			}
		}
	}
	want := "Every subcommand takes -json."
	if len(without) > 0 {
		want = "Every subcommand but " + strings.Join(without, ", ") + " takes -json."
	}
	if _, out, _ := run(t, "help"); !strings.Contains(out, want) {
		t.Errorf("gpusim help does not say %q:\n%s", want, out)
	}
}

// Without the profiler the header still names the block size the kernel
// ran with and counts its launches.
func TestRunHeaderWithoutProfile(t *testing.T) {
	for _, args := range [][]string{{"run", "vector_add", "-n", "4096"}, {"run", "vector_add", "-n", "4096", "-profile=false"}} {
		code, out, stderr := run(t, args...)
		if code != 0 || !strings.Contains(out, " block=256 ") || !strings.Contains(out, "(1 launch(es), ") {
			t.Errorf("gpusim %v: exit %d, want block=256 and 1 launch:\n%s%s", args, code, out, stderr)
		}
	}
	_, out, _ := run(t, "run", "reduce_sum", "-n", "4096", "-profile=false", "-json")
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if raw["block"] != float64(512) || raw["launch_count"] != float64(1) {
		t.Errorf("-json: block %v, launch_count %v; want 512 and 1", raw["block"], raw["launch_count"])
	}
}

// The terminal progress line shows the blocks done of those launched and an
// estimate of the time left.
func TestProgressLineShowsBlocksAndETA(t *testing.T) {
	got := progressLine("reduce_sum", 128, 512, 3*time.Second)
	want := "running reduce_sum on the simulator: 128/512 blocks, 3s, about 9s left"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := progressLine("x", 0, 512, time.Second); strings.Contains(got, "left") {
		t.Errorf("no estimate before a block is done: %q", got)
	}
	// The counter a run hands the simulator counts real blocks.
	p := new(sim.Progress)
	dev := sim.NewDevice(sim.H100)
	if err := dev.Launch(sim.Config{Grid: sim.Dim(7), Block: sim.Dim(32), Options: sim.Options{}.WithProgress(p)}, func(*sim.Thread) {}); err != nil {
		t.Fatal(err)
	}
	if done, total := p.Blocks(); done != 7 || total != 7 {
		t.Errorf("progress %d/%d, want 7/7", done, total)
	}
}
