package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Seed 002's coalesced and strided (uncoalesced) copies of a float32 array:
// the same bytes moved, one warp-wide transaction per 32 consecutive
// elements versus one per element. The profiler shows the difference.

// CopyCoalesced is
//
//	__global__ void copy_coalesced(const float *input, float *output, int N) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < N) output[idx] = input[idx];
//	}
func CopyCoalesced(input, output *sim.Buffer[float32], N int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < N {
			output.Store(t, idx, input.Load(t, idx))
		}
	}
}

// CopyStrided is the seed's copy_uncoalesced:
//
//	__global__ void copy_strided(const float *input, float *output, int N, int stride) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < N/stride) output[idx] = input[idx * stride];
//	}
func CopyStrided(input, output *sim.Buffer[float32], N, stride int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < N/stride {
			output.Store(t, idx, input.Load(t, idx*stride))
		}
	}
}

var copyCoalesced = register(&Kernel{
	Name: "copy_coalesced",
	Doc: `Copy a float32 array, thread i moving element i: coalesced loads and stores.

Seed 002's copy_coalesced. Launch: ceil(N/block) blocks (the seed: 256
threads). Case: Inputs[0] []float32; Result: []float32 copy.`,
	Seed:  "002",
	Funcs: []any{CopyCoalesced},
	Run: func(b Backend, c Case) (Result, error) {
		in := c.Inputs[0].([]float32)
		n, block := len(in), orDefault(c.Block, 256)
		return launchOnce(b, CopyCoalesced, sim.Dim(cover(n, block)), sim.Dim(block), 0,
			[]devBuf{input(in), output[float32](n)}, int32(n))
	},
	Reference: func(c Case) Result {
		return Result{append([]float32(nil), c.Inputs[0].([]float32)...)}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: orDefault(block, 256), Inputs: []any{genFloat32s(r, n)}}
	},
	SeedN: 1024 * 1024,
})

// copyStride is the seed's stride.
const copyStride = 32

var copyStrided = register(&Kernel{
	Name: "copy_strided",
	Doc: `Strided (uncoalesced) copy: output[i] = input[i*stride] for i < N/stride.

Seed 002's copy_uncoalesced (stride 32). The output has N elements like the
input, zeroed first; only the first N/stride are written. Launch: the seed
runs grid_size/stride blocks, which leaves elements uncopied when N is not a
multiple of block*stride; the driver uses ceil((N/stride)/block) blocks (at
least one), the same at the seed's size. Case: Inputs[0] []float32,
Params[0] the stride (default 32); Result: []float32 output.`,
	Seed:  "002",
	Funcs: []any{CopyStrided},
	Run: func(b Backend, c Case) (Result, error) {
		in := c.Inputs[0].([]float32)
		n, block, stride := len(in), orDefault(c.Block, 256), copyStrideOf(c)
		return launchOnce(b, CopyStrided, sim.Dim(cover(n/stride, block)), sim.Dim(block), 0,
			[]devBuf{input(in), zeroedOutput[float32](n)}, int32(n), int32(stride))
	},
	Reference: func(c Case) Result {
		in := c.Inputs[0].([]float32)
		stride := copyStrideOf(c)
		out := make([]float32, len(in))
		for i := 0; i < len(in)/stride; i++ {
			out[i] = in[i*stride]
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		strides := []int{1, 2, 3, 7, 32, 32}
		return Case{N: n, Block: orDefault(block, 256), Params: []int{strides[r.IntN(len(strides))]},
			Inputs: []any{genFloat32s(r, n)}}
	},
	SeedN: 1024 * 1024,
})

func copyStrideOf(c Case) int {
	if len(c.Params) > 0 && c.Params[0] > 0 {
		return c.Params[0]
	}
	return copyStride
}
