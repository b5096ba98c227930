package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// A convolution whose filter lives in constant memory, as CUDA texts write
// one (`__constant__ float filter[2*R+1]`, cudaMemcpyToSymbol from the
// host): every thread of a warp reads the same tap at the same time, the
// access constant memory's broadcast serves in one transaction.

// convRadius is the filter's radius R: 2R+1 taps.
const convRadius = 4

// convMaxBlock is the largest block the static shared tile holds.
const convMaxBlock = 1024

// convFilter is the filter, __constant__ float conv_filter[9], written by
// the driver with CopyToSymbol before the launch.
var convFilter = sim.NewConstant[float32]("conv_filter", 2*convRadius+1)

// ConvConst1D is out[i] = sum over k = 0..2R of filter[k]*in[i+k-R], the
// input zero outside [0, n): each block stages its blockDim.x inputs and R
// halo elements on each side in a shared tile (zeros past either end), and
// after the barrier each thread adds its 2R+1 products, k ascending, each
// product rounded to float32 before the add (no FMA).
func ConvConst1D(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.Shared[float32](t, "tile", convMaxBlock+2*convRadius)
		tid := t.ThreadIdx.X
		base := t.BlockIdx.X*t.BlockDim.X - convRadius
		for k := tid; k < t.BlockDim.X+2*convRadius; k += t.BlockDim.X {
			var v float32
			if j := base + k; j >= 0 && j < n {
				v = in.Load(t, j)
			}
			tile.Store(t, k, v)
		}
		t.SyncThreads()
		if i := t.GlobalX(); i < n {
			var s float32
			for k := range convFilter.Len() {
				s += float32(convFilter.Load(t, k) * tile.Load(t, tid+k))
			}
			out.Store(t, i, s)
		}
	}
}

// convRef replays ConvConst1D's order: for each output, the 2R+1 products
// of the zero-padded input, each rounded, added k ascending from +0.
func convRef(c Case) Result {
	in, filter := f32s(c, 0), f32s(c, 1)
	out := make([]float32, len(in))
	for i := range out {
		var s float32
		for k := range filter {
			var v float32
			if j := i + k - convRadius; j >= 0 && j < len(in) {
				v = in[j]
			}
			s += float32(filter[k] * v)
		}
		out[i] = s
	}
	return Result{out}
}

var convConst1D = register(&Kernel{
	Name: "conv1d_constant",
	Doc: "conv1d_constant: 1-D convolution of float32 with a 9-tap filter in __constant__ memory, zero-padded.\n\n" +
		"out[i] = sum over k of filter[k]*in[i+k-4]. The driver writes the filter (Inputs[1], 9 floats)\n" +
		"with CopyToSymbol (cudaMemcpyToSymbol on the GPU), then launches ceil(N/block) blocks that stage\n" +
		"their inputs and a halo of 4 on each side in a static shared tile (blocks up to 1024 threads).\n" +
		"Case: Inputs[0] []float32 of N, Inputs[1] the filter; Result: []float32 of N. Exact: the\n" +
		"reference multiplies, rounds and adds in the kernel's order.",
	Funcs: []any{ConvConst1D},
	Run: func(b Backend, c Case) (Result, error) {
		if err := CopyToSymbol(b, convFilter, f32s(c, 1)); err != nil {
			return nil, err
		}
		block := orDefault(c.Block, 256)
		return launchOnce(b, ConvConst1D, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
			[]devBuf{input(f32s(c, 0)), output[float32](c.N)}, int32(c.N))
	},
	Reference: convRef,
	Generate: func(r *rand.Rand, n, block int) Case {
		// |filter| < 2^20 and |in| < 1e18: the sums stay far below float32's
		// range, so no infinity or NaN.
		return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e18), randF32s(r, 2*convRadius+1, 1, 1<<20)}}
	},
	SeedN: 1 << 20,
})
