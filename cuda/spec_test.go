package cuda_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/cuda/twin"
	_ "github.com/gpusim/gpusim/kernels" // registers the registry's twins
	"github.com/gpusim/gpusim/sim"
)

func TestSpecFor(t *testing.T) {
	s, err := cuda.SpecFor("sm_90")
	if err != nil || s.Name != sim.H100.Name {
		t.Errorf("SpecFor(sm_90) = %q, %v; want sim.H100 (H100 and H200 share the sm_90 SM)", s.Name, err)
	}
	for _, arch := range []string{"sm_89", "H100", ""} {
		if _, err := cuda.SpecFor(arch); err == nil {
			t.Errorf("SpecFor(%q) found a spec; want an error naming the modelled archs", arch)
		}
	}
}

// h100Limits are the H100's cuDeviceGetAttribute values.
var h100Limits = cuda.Limits{SMs: 132, WarpSize: 32, MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048,
	MaxBlocksPerSM: 32, RegsPerSM: 65536, RegsPerBlock: 65536, SharedPerSM: 233472, SharedPerBlock: 49152,
	SharedPerBlockOptin: 232448, SharedReservedBlock: 1024}

func TestLimitsCompare(t *testing.T) {
	if d := h100Limits.Compare(sim.H100); len(d) != 0 {
		t.Errorf("H100 limits differ from sim.H100: %v", d)
	}
	l := h100Limits
	l.SMs = 114 // an H100 PCIe: not an occupancy limit
	l.SharedPerSM = 100 << 10
	d := l.Compare(sim.H100)
	if len(d) != 1 || !strings.HasPrefix(d[0], "SharedPerSM: device 102400, sim sm_90 233472") {
		t.Errorf("Compare = %q; want only SharedPerSM", d)
	}
}

func TestUsesDynamicShared(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"extern \"C\" __global__ void f(float *x) { extern __shared__ float s[]; }", true},
		{"__global__ void f() {\n\textern  __shared__ int temp[];  // 2 * blockDim.x\n}", true},
		{"// the seed's \"extern __shared__ float smem[]\"\n__global__ void f() { __shared__ float s[64]; }", false},
		{"/* extern __shared__ */ __global__ void f() {}", false},
	} {
		if got := cuda.UsesDynamicShared([]byte(tt.src)); got != tt.want {
			t.Errorf("UsesDynamicShared(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
	// The generated twins that declare extern __shared__.
	var got []string
	for _, tw := range twin.All() {
		if cuda.UsesDynamicShared([]byte(tw.Source)) {
			got = append(got, tw.Entry)
		}
	}
	if !slices.Contains(got, "ReduceSum") {
		t.Errorf("generated twins with dynamic shared memory: %v; ReduceSum has some", got)
	}
}
