package kernels

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Elementwise kernels (the map pattern) from seeds 000 and 002: one thread
// per element, c[i] = f(a[i], b[i]) behind an i < n bounds check.
//
// Seed 000 runs its arithmetic through CuPy (a + b, a - b, a * b,
// a / (b + 1e-8)) and its broadcast as array_2d + a[:, None]; those have no
// CUDA C in the seed, so the kernels here are the obvious one-thread-per-
// element versions, written as seed 002's vector_add is. Its sigmoid map is
// the seed's parallel_map.

// randF32 draws one float32 from a mix that exercises IEEE corners: mostly
// ordinary values in (-scale, scale), plus signed zeros, small integers,
// subnormals and large magnitudes up to big.
func randF32(r *rand.Rand, scale, big float64) float32 {
	sign := float32(1)
	if r.IntN(2) == 0 {
		sign = -1
	}
	switch k := r.IntN(20); {
	case k < 12:
		return float32((2*r.Float64() - 1) * scale)
	case k < 14:
		return sign * 0
	case k < 16:
		return sign * float32(r.IntN(9))
	case k < 18: // subnormal: below 2^-126
		return sign * math.Float32frombits(uint32(1+r.IntN(1<<23-1)))
	default: // large: 2^20 .. big
		return sign * float32(math.Exp2(20+r.Float64()*(math.Log2(big)-20)))
	}
}

// randF32s is n draws of randF32.
func randF32s(r *rand.Rand, n int, scale, big float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = randF32(r, scale, big)
	}
	return out
}

// ---- binary elementwise: vec_add, vec_sub, vec_mul, vec_div, vector_add ----

// divEpsilon is seed 000's epsilon = 1e-8, which CuPy adds to the float32
// array b as a float32 (b + epsilon stays float32).
const divEpsilon float32 = 1e-8

// The binary kernels are one thread per element behind an i < n bounds
// check, c[i] = op(a[i], b[i]), with op a __device__ helper.

// VecAdd is c[i] = a[i] + b[i] (seed 000's CuPy a + b, seed 002's vector_add).
func VecAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if idx := t.GlobalX(); idx < n {
			c.Store(t, idx, opAdd(a.Load(t, idx), b.Load(t, idx)))
		}
	}
}

// VecSub is c[i] = a[i] - b[i] (seed 000's CuPy a - b).
func VecSub(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if idx := t.GlobalX(); idx < n {
			c.Store(t, idx, opSub(a.Load(t, idx), b.Load(t, idx)))
		}
	}
}

// VecMul is c[i] = a[i] * b[i] (seed 000's CuPy a * b).
func VecMul(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if idx := t.GlobalX(); idx < n {
			c.Store(t, idx, opMul(a.Load(t, idx), b.Load(t, idx)))
		}
	}
}

// VecDiv is c[i] = a[i] / (b[i] + 1e-8f) (seed 000's CuPy a / (b + epsilon)).
func VecDiv(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if idx := t.GlobalX(); idx < n {
			c.Store(t, idx, opDiv(a.Load(t, idx), b.Load(t, idx)))
		}
	}
}

func opAdd(a, b float32) float32 { return a + b }
func opSub(a, b float32) float32 { return a - b }
func opMul(a, b float32) float32 { return a * b }
func opDiv(a, b float32) float32 { return a / (b + divEpsilon) }

// binaryKernel is the registry entry of a binary elementwise kernel: inputs
// a, b of N float32, output c, launched with (N + block - 1) / block blocks
// of Case.Block threads (default 256).
func binaryKernel(name, doc, seed string, fn any, op func(a, b float32) float32, blocks []int) *Kernel {
	return &Kernel{
		Name:  name,
		Doc:   doc,
		Seed:  seed,
		Funcs: []any{fn},
		Run: func(b Backend, c Case) (Result, error) {
			return runBinary(b, c, fn)
		},
		Reference: func(c Case) Result {
			a, bb := f32s(c, 0), f32s(c, 1)
			out := make([]float32, c.N)
			for i := range out {
				out[i] = op(a[i], bb[i])
			}
			return Result{out}
		},
		Generate: func(r *rand.Rand, n, block int) Case {
			return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e30), randF32s(r, n, 1, 1e30)}}
		},
		Blocks: blocks,
		SeedN:  10_000_000,
	}
}

func runBinary(b Backend, c Case, fn any) (Result, error) {
	block := orDefault(c.Block, 256)
	return launchOnce(b, fn, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
		[]devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](c.N)}, int32(c.N))
}

var vecAdd = register(binaryKernel("vec_add",
	"vec_add: c = a + b elementwise on float32 (seed 000's CuPy a + b).\n\nN elements; default 256 threads per block.",
	"000", VecAdd, opAdd, nil))

var vecSub = register(binaryKernel("vec_sub",
	"vec_sub: c = a - b elementwise on float32 (seed 000's CuPy a - b).\n\nN elements; default 256 threads per block.",
	"000", VecSub, opSub, nil))

var vecMul = register(binaryKernel("vec_mul",
	"vec_mul: c = a * b elementwise on float32 (seed 000's CuPy a * b).\n\nN elements; default 256 threads per block.",
	"000", VecMul, opMul, nil))

var vecDiv = register(binaryKernel("vec_div",
	"vec_div: c = a / (b + 1e-8f) elementwise on float32 (seed 000's CuPy a / (b + epsilon)).\n\n"+
		"The epsilon is added in float32, as CuPy does for a float32 array plus a Python scalar; the\n"+
		"division is IEEE round-to-nearest (nvcc's default -prec-div=true), so the result is exact.",
	"000", VecDiv, opDiv, nil))

// vectorAdd is seed 002's vector_add, the kernel its block-size sweep times
// at 64, 128, 256, 512 and 1024 threads per block (default 256).
var vectorAdd = register(binaryKernel("vector_add",
	"vector_add: c = a + b on float32, seed 002's kernel for the block-size sweep.\n\n"+
		"Blocks are the sweep's 64, 128, 256, 512, 1024 threads; default 256 as in the seed.",
	"002", VecAdd, opAdd, []int{64, 128, 256, 512, 1024}))

// ---- broadcast_add ----

// BroadcastAdd is seed 000's array_2d + a[:, None] as a CUDA kernel:
// one thread per element of the rows x cols row-major array,
//
//	extern "C" __global__ void broadcast_add(const float *arr, const float *a, float *out, int rows, int cols) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < rows * cols) out[idx] = arr[idx] + a[idx / cols];
//	}
func BroadcastAdd(arr, a, out *sim.Buffer[float32], rows, cols int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < rows*cols {
			out.Store(t, idx, arr.Load(t, idx)+a.Load(t, idx/cols))
		}
	}
}

var broadcastAdd = register(&Kernel{
	Name: "broadcast_add",
	Doc: "broadcast_add: out[r][c] = arr[r][c] + a[r], a 1-D array added across each row of a 2-D array.\n\n" +
		"Seed 000's array_2d + a[:, None] with array_2d of shape (size, 100). Case.N is the number of\n" +
		"rows, Params[0] the number of columns; inputs are arr (rows*cols, row-major) and a (rows).\n" +
		"One thread per element of arr, default 256 threads per block.",
	Seed:  "000",
	Funcs: []any{BroadcastAdd},
	Run: func(b Backend, c Case) (Result, error) {
		rows, cols := c.N, c.Params[0]
		block := orDefault(c.Block, 256)
		return launchOnce(b, BroadcastAdd, sim.Dim(cover(rows*cols, block)), sim.Dim(block), 0,
			[]devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](rows * cols)}, int32(rows), int32(cols))
	},
	Reference: func(c Case) Result {
		rows, cols := c.N, c.Params[0]
		arr, a := f32s(c, 0), f32s(c, 1)
		out := make([]float32, rows*cols)
		for i := range out {
			out[i] = arr[i] + a[i/cols]
		}
		return Result{out}
	},
	// Generate makes about n elements: the seed's 100 columns half the
	// time, otherwise 1..100, and as many rows as that takes.
	Generate: func(r *rand.Rand, n, block int) Case {
		cols := 100
		if r.IntN(2) == 0 {
			cols = 1 + r.IntN(100)
		}
		rows := cover(n, cols)
		return Case{N: rows, Block: block, Params: []int{cols},
			Inputs: []any{randF32s(r, rows*cols, 1, 1e30), randF32s(r, rows, 1, 1e30)}}
	},
	InputLens: func(c Case) ([]int, error) {
		if len(c.Params) != 1 || c.Params[0] < 1 || c.Params[0] > math.MaxInt32 {
			return nil, errors.New("Params are [cols], a number of columns from 1 to 2^31-1")
		}
		return []int{c.N * c.Params[0], c.N}, nil
	},
	SeedN: 10_000_000,
})

// ---- sigmoid (parallel map) ----

// sigmoid32 is the seed's 1.0f / (1.0f + expf(-x)) in float32, with the
// exponential computed in float64 and rounded once to float32. The
// translator writes math.Exp as CUDA's double exp, so the GPU computes the
// same expression; exp and math.Exp are each within 1 ulp of float64, which
// almost never moves the float32 rounding, hence sigmoid's Rule.
func sigmoid32(x float32) float32 {
	e := float32(math.Exp(float64(-x)))
	return 1 / (1 + e)
}

// ParallelMap is seed 000's parallel_map:
//
//	__global__ void parallel_map(const float *input, float *output, int n) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < n) { float x = input[idx]; output[idx] = 1.0f / (1.0f + expf(-x)); }
//	}
func ParallelMap(input, output *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < n {
			x := input.Load(t, idx)
			output.Store(t, idx, sigmoid32(x))
		}
	}
}

var sigmoid = register(&Kernel{
	Name: "sigmoid",
	Doc: "sigmoid: the parallel map output[i] = 1/(1+expf(-input[i])) on float32 (seed 000's parallel_map).\n\n" +
		"N elements (the seed's 10M randn values), 256 threads per block as in the seed.",
	Seed:  "000",
	Funcs: []any{ParallelMap},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		return launchOnce(b, ParallelMap, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
			[]devBuf{input(f32s(c, 0)), output[float32](c.N)}, int32(c.N))
	},
	Reference: func(c Case) Result {
		in := f32s(c, 0)
		out := make([]float32, c.N)
		for i, x := range in {
			out[i] = sigmoid32(x)
		}
		return Result{out}
	},
	// Generate draws mostly from (-8, 8), where sigmoid is not saturated,
	// plus the corner values (subnormal, zero, large of either sign).
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 8, 1e30)}}
	},
	Rule: Rule{MaxULP: 2, Why: "e = exp(-x) is CUDA's double exp rounded to float32 on the GPU and Go's " +
		"math.Exp rounded to float32 on the simulator; the two doubles are each within 1 ulp of float64, so " +
		"their float32 roundings differ by at most 1 ulp (only when they straddle a rounding boundary), " +
		"which 1+e and 1/(1+e) pass on with factor e/(1+e) <= 1 and their own roundings: up to 2 ulp"},
	SeedN: 10_000_000,
})
