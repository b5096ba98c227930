package kernels_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/translate"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
)

// TestTwinsAreGenerated checks that gpusim_cuda.go is what the translator
// makes of this package's kernels now, and that it refuses none of them:
// a kernel edited without `go generate ./kernels` would otherwise run old
// CUDA on the GPU.
func TestTwinsAreGenerated(t *testing.T) {
	res, err := translate.Load(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		t.Errorf("untranslatable: %s", d)
	}
	want, err := translate.WriteGo("kernels", res.Kernels)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("gpusim_cuda.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gpusim_cuda.go is out of date: run go generate ./kernels")
	}
}

// TestTwinsCompileWithClang compiles every generated twin of the registry
// to PTX with clang-19 through the shim, as CI does without a GPU: a twin
// that nvcc would refuse fails here first. Without clang it fails where
// GPUSIM_REQUIRE_CLANG=1 (CI) and is skipped elsewhere.
func TestTwinsCompileWithClang(t *testing.T) {
	cc, err := exec.LookPath("clang++-19")
	if err != nil {
		if os.Getenv("GPUSIM_REQUIRE_CLANG") == "1" {
			t.Fatal("clang++-19 is required (GPUSIM_REQUIRE_CLANG=1) but not installed: apt-get install -y clang-19")
		}
		t.Skip("clang++-19 not installed (apt-get install -y clang-19); the generated twins are not compiled")
	}
	dir := t.TempDir()
	seen := map[string]bool{}
	for _, k := range kernels.All() {
		for _, f := range k.Funcs {
			tw, err := twin.Of(f)
			if err != nil || seen[tw.Entry] {
				continue // TestKernelFuncs reports a missing twin
			}
			seen[tw.Entry] = true
			t.Run(tw.Entry, func(t *testing.T) {
				t.Parallel()
				ptx, err := translate.CompileWithClang(cc, dir, tw.Entry, tw.Source)
				if err != nil {
					t.Fatalf("%v\n%s", err, ptx)
				}
				if !strings.Contains(ptx, ".entry "+tw.Entry+"(") {
					t.Errorf("PTX has no .entry %s", tw.Entry)
				}
			})
		}
	}
	if len(seen) == 0 {
		t.Fatal("no twins compiled")
	}
}

// BenchmarkTranslateRegistry times what go generate does for the registry:
// loading and type-checking package kernels (go/packages, which runs go
// list) and translating every kernel. The target is under a second.
func BenchmarkTranslateRegistry(b *testing.B) {
	var n int
	for b.Loop() {
		res, err := translate.Load(".", ".")
		if err != nil {
			b.Fatal(err)
		}
		n = len(res.Kernels)
	}
	b.ReportMetric(float64(n), "kernels")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/registry")
}
