package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// stencilRadius is the seed's RADIUS: each output averages 2*3+1 inputs.
const stencilRadius = 3

// Stencil1D is seed 002's
//
//	__global__ void stencil_1d(const float *input, float *output, int N)
//
// Each block stages its blockDim.x elements plus RADIUS halo elements on
// each side in dynamic shared memory: thread tid loads its own element into
// smem[tid+RADIUS], the first RADIUS threads also load the left halo, the
// last RADIUS threads the right halo; after the barrier each interior output
// sums smem[tid .. tid+2*RADIUS] from left to right and divides by 2*RADIUS+1.
// The seed writes BLOCK_SIZE (256); here it is blockDim.x, the same at the
// seed's launch. (The seed's "extern __shared__ float smem[BLOCK_SIZE + 2 *
// RADIUS]" does not compile: an extern shared array has no size; the launch
// passes (BLOCK_SIZE + 2*RADIUS)*4 bytes.)
func Stencil1D(input, output *sim.Buffer[float32], N int) sim.Kernel {
	return func(t *sim.Thread) {
		smem := sim.DynamicShared[float32](t, "smem")
		blockSize := t.BlockDim.X
		tid := t.ThreadIdx.X
		globalIdx := t.BlockIdx.X*blockSize + tid
		smemIdx := tid + stencilRadius

		if globalIdx < N {
			smem.Store(t, smemIdx, input.Load(t, globalIdx))
		}
		if tid < stencilRadius && globalIdx >= stencilRadius {
			smem.Store(t, smemIdx-stencilRadius, input.Load(t, globalIdx-stencilRadius))
		}
		if tid >= blockSize-stencilRadius && globalIdx+stencilRadius < N {
			smem.Store(t, smemIdx+stencilRadius, input.Load(t, globalIdx+stencilRadius))
		}
		t.SyncThreads()

		if globalIdx >= stencilRadius && globalIdx < N-stencilRadius {
			var sum float32
			for j := -stencilRadius; j <= stencilRadius; j++ {
				sum += smem.Load(t, smemIdx+j)
			}
			output.Store(t, globalIdx, sum/(2*stencilRadius+1))
		}
	}
}

var stencil1D = register(&Kernel{
	Name: "stencil_1d",
	Doc: `1-D stencil of radius 3 over float32: each interior output is the mean of 7 neighbours, staged in a shared tile with halo.

Seed 002's stencil_1d. The first and last 3 outputs are not written; the
driver zeroes the output first, so they read 0. Launch: ceil(N/block) blocks
(the seed: 256 threads), (block + 6)*4 bytes of dynamic shared memory; blocks
need at least 3 threads. Case: Inputs[0] []float32; Result: []float32 output.
Exact: the reference adds the same 7 float32 values in the same order and
divides by 7 (IEEE division, as nvcc without --use_fast_math).`,
	Seed:  "002",
	Funcs: []any{Stencil1D},
	Run: func(b Backend, c Case) (Result, error) {
		in := c.Inputs[0].([]float32)
		n, block := len(in), orDefault(c.Block, 256)
		shared := (block + 2*stencilRadius) * 4
		return launchOnce(b, Stencil1D, sim.Dim(cover(n, block)), sim.Dim(block), shared,
			[]devBuf{input(in), zeroedOutput[float32](n)}, int32(n))
	},
	Reference: func(c Case) Result {
		const R = stencilRadius
		in := c.Inputs[0].([]float32)
		out := make([]float32, len(in))
		for i := R; i < len(in)-R; i++ {
			var sum float32
			for j := -R; j <= R; j++ {
				sum += in[i+j]
			}
			out[i] = sum / (2*R + 1)
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: orDefault(block, 256), Inputs: []any{genFloat32s(r, n)}}
	},
	SeedN: 1024 * 1024,
})

// genFloat32s returns n float32 values: mostly uniform in [0, 1) as the
// seeds' np.random.rand, with zeros, negatives, tiny and large magnitudes
// (finite, and small enough that a sum of seven cannot overflow).
func genFloat32s(r *rand.Rand, n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		switch r.IntN(8) {
		case 0:
			d[i] = 0
		case 1:
			d[i] = -r.Float32() * 1000
		case 2:
			d[i] = (r.Float32() - 0.5) * 1e30
		case 3:
			d[i] = (r.Float32() - 0.5) * 1e-30
		default:
			d[i] = r.Float32()
		}
	}
	return d
}
