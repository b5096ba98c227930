package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// A size whose inputs cannot be held is bad input, refused before any input
// is generated, with a line that says how large the inputs would be and
// what they exceed.
func TestExitTwoOnSizesTooLarge(t *testing.T) {
	dir := t.TempDir()
	noN := filepath.Join(dir, "no_n.json")
	if err := os.WriteFile(noN, []byte(`{"Block": 256}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bigN := filepath.Join(dir, "big_n.json")
	if err := os.WriteFile(bigN, []byte(`{"N": 3000000000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "vector_add", "-n", "9223372036854775807"},
			"gpusim run: -n 9223372036854775807: vector_add's inputs alone would take about 64.0 EiB, more than the 80.0 GiB of global memory of the simulated NVIDIA H100 SXM (sm_90); sizes up to about 10737418240 fit"},
		{[]string{"run", "vector_add", "-n", "3000000000", "-arch", "sm_75"},
			"-n 3000000000: vector_add's inputs alone would take about 22.4 GiB, more than the 15.0 GiB of global memory of the simulated Tesla T4 (sm_75)"},
		// An n x n matrix grows as n squared (n rounded up to a multiple of 32
		// at the probes: 2 x 2016^2 x 4 bytes at 2000).
		{[]string{"run", "matmul_tiled32", "-n", "200000"}, "matmul_tiled32's inputs alone would take about 302.8 GiB"},
		// The file's N, or -n where the file gives none, is bounded too.
		{[]string{"race", "vector_add", "-in", bigN, "-arch", "sm_75"}, "input " + bigN + ": N 3000000000: vector_add's inputs alone would take about 22.4 GiB"},
		{[]string{"run", "vector_add", "-in", noN, "-n", "9223372036854775807"}, "-n 9223372036854775807: vector_add's inputs alone"},
		// A sweep stops at it, instead of listing it for each block size.
		{[]string{"sweep", "vector_add", "-n", "9223372036854775807", "-blocks", "64,128"}, "gpusim sweep: -n 9223372036854775807: vector_add's inputs alone"},
	} {
		wantRefusedFast(t, tc.args, tc.stderr)
	}
}

// The memory this process can allocate bounds the size too, where it is
// less than the device's: a run holds about runCopies times its inputs.
func TestExitTwoOnSizesBeyondHostMemory(t *testing.T) {
	defer func(u func() (int64, string, bool)) { usable = u }(usable)
	usable = func() (int64, string, bool) { return 1 << 30, "a test's limit", true }
	code, _, stderr := run(t, "run", "vector_add", "-n", "50000000", "-race=false")
	want := "-n 50000000: vector_add's inputs would take about 381.5 MiB, and a run holds about 3 times its inputs (on the host, in the simulated device's memory, and outputs): more than the 1.0 GiB this process can still allocate (a test's limit); sizes up to about 44739242 fit"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	// With detection on, its shadow memory (48 bytes an element for
	// vector_add's three float32 buffers) must fit as well: 3 x 8 bytes of
	// inputs and 48 of shadow an element in 1 GiB is 14913080 elements.
	code, _, stderr = run(t, "run", "vector_add", "-n", "20000000")
	want = "-n 20000000: vector_add's inputs would take about 152.6 MiB, a run holds about 3 times its inputs (on the host, in the simulated device's memory, and outputs), and detection's shadow memory about 915.5 MiB: more than the 1.0 GiB this process can still allocate (a test's limit); sizes up to about 14913080 fit; run a smaller -n, or -race=false (no detection)"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if code, out, stderr := run(t, "run", "vector_add", "-n", "40000000", "-race=false", "-profile=false"); code != 0 {
		t.Errorf("-n 40000000 fits 1 GiB: exit %d\n%s%s", code, out, stderr)
	}
}

// A case file is held to the kernel: its inputs must have the lengths its
// N and Params give (Kernel.InputLens where the Params shape them), its
// Params must be ones the kernel takes, and its N and Block must agree with
// -n and -block.
func TestCaseFileConsistency(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, json string
		args       []string
		code       int
		out        string // substring of stdout (code 0) or stderr
	}{
		{"params off vector_add", `{"N": 2, "Params": [2, 2], "Inputs": [[1, 2, 3, 4], [1, 0, 0, 1, 5]]}`, []string{"run", "vector_add"},
			2, "input 0 has 4 elements; the kernel takes 2 for N 2 and Params [2 2]"},
		{"matmul B too long", `{"N": 2, "Params": [2, 2], "Inputs": [[1, 2, 3, 4], [1, 0, 0, 1, 5]]}`, []string{"run", "matmul_naive"},
			2, "input 1 has 5 elements; the kernel takes 4 for N 2 and Params [2 2]"},
		{"matmul one param", `{"N": 2, "Params": [2], "Inputs": [[1, 2], [1, 2]]}`, []string{"run", "matmul_naive"},
			2, "Params [2]: Params are [M, K], two sizes from 0 to 2^31-1"},
		{"matmul params without inputs", `{"N": 4, "Params": [5, 5]}`, []string{"run", "matmul_naive"},
			2, "Params [5 5] need inputs of [25 20] elements; the generator made"},
		{"matmul own shape", `{"N": 2, "Params": [3, 2], "Inputs": [[1, 2, 3, 4, 5, 6], [1, 0, 0, 1]]}`, []string{"run", "matmul_naive"},
			0, "PASS"},
		{"broadcast rows and cols", `{"N": 3, "Params": [2], "Inputs": [[1, 2, 3, 4, 5, 6], [10, 20, 30]]}`, []string{"run", "broadcast_add"},
			0, "broadcast_add  n=3 "},
		// Params that do not shape the inputs: the generator's inputs serve.
		{"histogram grid", `{"N": 1000, "Params": [7]}`, []string{"run", "histogram_text"}, 0, "grid (7)"},
		{"Block the kernel does not take", `{"N": 10, "Block": 7}`, []string{"run", "vector_add"},
			2, "illegal launch shape: vector_add takes blocks of 64, 128, 256, 512, 1024 threads, not 7"},
		{"two cases in one file", `{"N": 4} {"N": 5}`, []string{"run", "vector_add"}, 2, "more follows the case's JSON object, which ends at byte 8: a file holds one case"},
		{"N against -n", `{"N": 4}`, []string{"run", "vector_add", "-n", "8"}, 2, "N 4, but -n 8"},
		{"Block against -block", `{"Block": 256}`, []string{"run", "vector_add", "-block", "128"}, 2, "Block 256, but the run asks for blocks of 128 threads"},
		{"Block against a sweep", `{"Block": 256}`, []string{"sweep", "vector_add", "-blocks", "128,256"}, 2, "Block 256, but the run asks for blocks of 128 threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := run(t, append(tc.args, "-in", path)...)
			got := out
			if tc.code != 0 {
				got = stderr
				if strings.Count(stderr, "\n") != 1 {
					t.Errorf("bad input should print one line, got %q", stderr)
				}
			}
			if code != tc.code || !strings.Contains(got, tc.out) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, stderr, tc.code, tc.out)
			}
		})
	}
	// An unreadable file ends a sweep too.
	if code, out, stderr := run(t, "sweep", "vector_add", "-blocks", "64,128", "-in", filepath.Join(dir, "none.json")); code != 2 || out != "" || !strings.Contains(stderr, "cannot read input") {
		t.Errorf("sweep with a missing input: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// With detection on, a size whose shadow memory would exceed detection's
// budget (-shadow-budget, sim.DefaultShadowBudget by default) is bad input,
// refused before the run, instead of a run that ends in a ShadowBudget
// finding and exit 1 as if the kernel had a bug.
func TestExitTwoOnShadowBudget(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		// 3 float32 buffers of 1e8 elements: 4.5 GiB of shadow; 4 GiB / 48 bytes.
		{[]string{"run", "vector_add", "-n", "100000000"},
			"gpusim run: -n 100000000: with detection on, vector_add's buffers would need about 4.5 GiB of shadow memory, more than detection's budget of 4.0 GiB (-shadow-budget); sizes up to about 89478485 fit; run a smaller -n, or -race=false (no detection), or raise -shadow-budget (the host must hold the shadow memory)"},
		// race cannot turn detection off.
		{[]string{"race", "vector_add", "-n", "100000000"},
			"gpusim race: -n 100000000: with detection on, vector_add's buffers would need about 4.5 GiB of shadow memory, more than detection's budget of 4.0 GiB (-shadow-budget); sizes up to about 89478485 fit; run a smaller -n, or raise -shadow-budget"},
		{[]string{"run", "vector_add", "-n", "100000", "-shadow-budget", "4MiB"}, "about 4.6 MiB of shadow memory, more than detection's budget of 4.0 MiB (-shadow-budget); sizes up to about 87381 fit"},
		{[]string{"sweep", "vector_add", "-n", "100000", "-shadow-budget", "4MiB", "-blocks", "64,128"}, "gpusim sweep: -n 100000: with detection on"},
		{[]string{"run", "vector_add", "-shadow-budget", "-1"}, `invalid value "-1" for flag -shadow-budget`},
	} {
		wantRefusedFast(t, tc.args, tc.stderr)
	}
	for _, args := range [][]string{
		{"run", "vector_add", "-n", "87381", "-shadow-budget", "4MiB", "-profile=false"},
		{"run", "vector_add", "-n", "100000", "-shadow-budget", "5MiB", "-profile=false"},
		{"run", "vector_add", "-n", "100000", "-shadow-budget", "0", "-profile=false"},
		{"run", "vector_add", "-n", "100000", "-shadow-budget", "1MiB", "-race=false", "-profile=false"},
	} {
		if code, out, stderr := run(t, args...); code != 0 {
			t.Errorf("gpusim %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
}

// The shadow memory checkSize counts for a kernel's buffers is what the
// simulator allocates: a budget of the estimate lets a detected run
// through, and, for kernels whose every buffer is live at once (the
// estimate is then exact), a byte less ends it with a ShadowBudget finding.
// Every registry kernel's driver runs on the counting backend.
func TestShadowEstimateIsTheSimulators(t *testing.T) {
	exact := map[string]bool{"vector_add": true, "reduce_sum": true}
	for _, k := range kernels.All() {
		c := k.Generate(rand.New(rand.NewPCG(1, 2)), 300, 0)
		est, ok := shadowBytes(k.Run, c)
		if !ok || est == 0 {
			t.Errorf("%s: no estimate (%v, %d)", k.Name, ok, est)
			continue
		}
		if !exact[k.Name] && testing.Short() {
			continue
		}
		budgets := []int64{est}
		if exact[k.Name] {
			budgets = append(budgets, est-1)
		}
		for _, budget := range budgets {
			be := kernels.NewSimBackend(sim.H100, sim.Options{}.WithShadowBudget(budget))
			k.Run(be, c)
			over := false
			for _, r := range be.Reports {
				for _, f := range r.Findings {
					over = over || f.Kind == sim.ShadowBudget
				}
			}
			if over != (budget < est) {
				t.Errorf("%s: a shadow budget of %d bytes, the estimate %d: ShadowBudget finding %v", k.Name, budget, est, over)
			}
		}
	}
}

// wantRefusedFast runs gpusim args and wants exit 2 within 10 s, nothing on
// stdout, and one line on stderr that contains msg.
func wantRefusedFast(t *testing.T, args []string, msg string) {
	t.Helper()
	start := time.Now()
	code, out, stderr := run(t, args...)
	if code != 2 || !strings.Contains(stderr, msg) || strings.Count(stderr, "\n") != 1 || out != "" {
		t.Errorf("gpusim %v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", args, code, out, stderr, msg)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gpusim %v took %v to refuse", args, d)
	}
}
