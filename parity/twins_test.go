package parity

import (
	"slices"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
)

// TestEveryKernelHasTwin checks, without a GPU, that every registry kernel
// has cuda/kernels/<name>.cu declaring each of its Func.Name entry points as
// an extern "C" __global__ function.
func TestEveryKernelHasTwin(t *testing.T) {
	for _, k := range kernels.All() {
		src, err := cuda.Twin(k.Name)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		entries := cuda.EntryPoints(src)
		for _, f := range k.Funcs {
			if !slices.Contains(entries, f.Name) {
				t.Errorf("%s: twin declares %v, not entry point %q", k.Name, entries, f.Name)
			}
		}
		if !cuda.ExternC(src) {
			t.Errorf("%s: twin has no extern \"C\": the driver API finds entry points by their C names", k.Name)
		}
	}
	for _, name := range cuda.TwinNames() {
		if _, ok := kernels.Lookup(name); !ok {
			t.Errorf("twin %s.cu has no registry kernel", name)
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
