package kernels_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/gpusim/gpusim/cuda/translate"
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
