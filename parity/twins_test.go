package parity

import (
	"slices"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
)

// TestEveryKernelHasGeneratedTwin checks, without a GPU, that every kernel
// function the registry launches has a generated twin: registered under its
// function value, declaring an extern "C" __global__ entry point of its
// name whose parameters are the Go function's, in order.
func TestEveryKernelHasGeneratedTwin(t *testing.T) {
	entries := registryEntries()
	if len(entries) == 0 {
		t.Fatal("the registry launches no kernel functions")
	}
	for _, e := range entries {
		tw, err := twin.Of(e.fn)
		if err != nil {
			t.Errorf("%s: %v", e.kernel, err)
			continue
		}
		src := []byte(tw.Source)
		if got := cuda.EntryPoints(src); !slices.Equal(got, []string{tw.Entry}) {
			t.Errorf("%s: twin of %s declares entry points %v, want [%s]", e.kernel, tw.GoName, got, tw.Entry)
		}
		if !cuda.ExternC(src) {
			t.Errorf("%s: twin has no extern \"C\": the driver API finds entry points by their C names", tw.Entry)
		}
		names, err := cuda.ParamNames(src, tw.Entry)
		if err != nil {
			t.Errorf("%s: %v", tw.Entry, err)
			continue
		}
		if want := kernels.ParamNames(e.fn); !slices.Equal(names, want) {
			t.Errorf("%s: CUDA parameters %q, Go parameters %q", tw.Entry, names, want)
		}
	}
}

func TestEntryPoints(t *testing.T) {
	src := []byte(`
// __global__ void commented_out(int *x) {}
/* __global__ void also_not(int *x) {} */
extern "C" __global__ void plain(float *x, int n) {}
extern "C" __global__ __launch_bounds__(256) void bounded(float *x) {}
extern "C" {
__global__ void
in_block(const float * __restrict__ x, int n);
}
template <int B> __device__ void helper(float *x) {}
`)
	got := cuda.EntryPoints(src)
	want := []string{"plain", "bounded", "in_block"}
	if !slices.Equal(got, want) {
		t.Errorf("EntryPoints = %v, want %v", got, want)
	}
}

func TestTwinFlags(t *testing.T) {
	src := []byte("// gpusim:nvcc -fmad=true -Xptxas=-v\nextern \"C\" __global__ void f() {}\n")
	got := cuda.TwinFlags(cuda.ParityFlags, src)
	if !slices.Contains(got, "-fmad=true") || slices.Contains(got, "-fmad=false") || !slices.Contains(got, "-Xptxas=-v") {
		t.Errorf("TwinFlags = %v", got)
	}
	if got := cuda.TwinFlags(cuda.ParityFlags, []byte("__global__ void f() {}")); !slices.Equal(got, cuda.ParityFlags) {
		t.Errorf("TwinFlags without directive = %v", got)
	}
}
