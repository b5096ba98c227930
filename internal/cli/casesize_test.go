package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		start := time.Now()
		code, out, stderr := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.stderr) || strings.Count(stderr, "\n") != 1 || out != "" {
			t.Errorf("gpusim %v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, code, out, stderr, tc.stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("gpusim %v took %v to refuse", tc.args, d)
		}
	}
}

// The memory this process can allocate bounds the size too, where it is
// less than the device's: a run holds about runCopies times its inputs.
func TestExitTwoOnSizesBeyondHostMemory(t *testing.T) {
	defer func(u func() (int64, string, bool)) { usable = u }(usable)
	usable = func() (int64, string, bool) { return 1 << 30, "a test's limit", true }
	code, _, stderr := run(t, "run", "vector_add", "-n", "50000000")
	want := "-n 50000000: vector_add's inputs would take about 381.5 MiB, and a run holds about 3 times its inputs (on the host, in the simulated device's memory, and outputs): more than the 1.0 GiB this process can still allocate (a test's limit); sizes up to about 44739242 fit"
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
