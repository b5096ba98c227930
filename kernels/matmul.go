package kernels

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Matrix multiplies from seeds 000 (matmul_tiled32: square N x N, 32x32
// shared tiles, N divisible by 32) and 004 (matmul_naive and the
// bounds-checked matmul_tiled16, M x K times K x N). All matrices are
// row-major float32. Blocks are 2-D and square: Case.Block is their x
// extent and the drivers launch (Block, Block) threads.
//
// nvcc contracts `sum += a * b` into one fused multiply-add (--fmad=true is
// its default), so the Go kernels accumulate with sim.Fmaf, a correctly
// rounded float32 FMA, and the references replay the same chain.

// genMatrix is rows*cols draws for a matrix: ordinary values, zeros,
// subnormals and magnitudes up to 1e15, small enough that sums of products
// stay finite.
func genMatrix(r *rand.Rand, rows, cols int) []float32 { return randF32s(r, rows*cols, 1, 1e15) }

// ---- matmul_tiled32 (seed 000) ----

const tile32 = 32

// MatmulTiled32 is seed 000's matmul_tiled(A, B, C, N) with
// TILE_SIZE 32: no bounds checks, so N must be a multiple of 32.
func MatmulTiled32(A, B, C *sim.Buffer[float32], N int) sim.Kernel {
	return func(t *sim.Thread) {
		sA := sim.Shared[float32](t, "sA", tile32*tile32)
		sB := sim.Shared[float32](t, "sB", tile32*tile32)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile32 + ty
		col := t.BlockIdx.X*tile32 + tx
		var sum float32
		for tl := 0; tl < N/tile32; tl++ {
			// cooperative load of the two tiles
			sA.Store(t, ty*tile32+tx, A.Load(t, row*N+tl*tile32+tx))
			sB.Store(t, ty*tile32+tx, B.Load(t, (tl*tile32+ty)*N+col))
			t.SyncThreads()
			for k := 0; k < tile32; k++ {
				sum = sim.Fmaf(sA.Load(t, ty*tile32+k), sB.Load(t, k*tile32+tx), sum)
			}
			t.SyncThreads()
		}
		C.Store(t, row*N+col, sum)
	}
}

var matmulTiled32 = register(&Kernel{
	Name: "matmul_tiled32",
	Doc: "matmul_tiled32: C = A B for square N x N float32 matrices, 32x32 shared-memory tiles (seed 000).\n\n" +
		"Case.N is the side and must be a multiple of 32 (the kernel has no bounds checks); blocks are\n" +
		"32x32 threads, the grid N/32 x N/32. Result is C.",
	Seed:  "000",
	Funcs: []any{MatmulTiled32},
	Run: func(b Backend, c Case) (Result, error) {
		n := c.N
		return launchOnce(b, MatmulTiled32, sim.Dim2(n/tile32, n/tile32), sim.Dim2(tile32, tile32), 0,
			[]devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](n * n)}, int32(n))
	},
	Reference: func(c Case) Result {
		return Result{matmulRef(f32s(c, 0), f32s(c, 1), c.N, c.N, c.N, 1)}
	},
	// Generate rounds n up to a multiple of 32.
	Generate: func(r *rand.Rand, n, block int) Case {
		n = tile32 * cover(n, tile32)
		return Case{N: n, Block: block, Inputs: []any{genMatrix(r, n, n), genMatrix(r, n, n)}}
	},
	Blocks: []int{tile32},
	SeedN:  1024,
})

// matmulRef is C = A B (A is m x k, B is k x n) with each element's
// products accumulated by sim.Fmaf in k order, over k rounded up to a multiple
// of pad with zero products past k, as a tiled kernel's padded tiles add.
func matmulRef(a, b []float32, m, n, k, pad int) []float32 {
	c := make([]float32, m*n)
	kp := pad * cover(k, pad)
	for row := 0; row < m; row++ {
		for col := 0; col < n; col++ {
			var sum float32
			for kk := 0; kk < kp; kk++ {
				var av, bv float32
				if kk < k {
					av, bv = a[row*k+kk], b[kk*n+col]
				}
				sum = sim.Fmaf(av, bv, sum)
			}
			c[row*n+col] = sum
		}
	}
	return c
}

// ---- matmul_naive and matmul_tiled16 (seed 004) ----

const tile16 = 16

// MatmulNaive is seed 004's matmul_naive(A, B, C, M, N, K): one thread
// per element of C, reading A's row and B's column from global memory.
func MatmulNaive(A, B, C *sim.Buffer[float32], M, N, K int) sim.Kernel {
	return func(t *sim.Thread) {
		row := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
		col := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row < M && col < N {
			var sum float32
			for kk := 0; kk < K; kk++ {
				sum = sim.Fmaf(A.Load(t, row*K+kk), B.Load(t, kk*N+col), sum)
			}
			C.Store(t, row*N+col, sum)
		}
	}
}

// MatmulTiled16 is seed 004's matmul_tiled(A, B, C, M, N, K) with
// TILE_SIZE 16: tiles past the matrices' edges are loaded as zeros, and
// only threads inside C store.
func MatmulTiled16(A, B, C *sim.Buffer[float32], M, N, K int) sim.Kernel {
	return func(t *sim.Thread) {
		tileA := sim.Shared[float32](t, "tileA", tile16*tile16)
		tileB := sim.Shared[float32](t, "tileB", tile16*tile16)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile16 + ty
		col := t.BlockIdx.X*tile16 + tx
		var sum float32
		for tl := 0; tl < (K+tile16-1)/tile16; tl++ {
			if row < M && tl*tile16+tx < K {
				tileA.Store(t, ty*tile16+tx, A.Load(t, row*K+tl*tile16+tx))
			} else {
				tileA.Store(t, ty*tile16+tx, 0)
			}
			if tl*tile16+ty < K && col < N {
				tileB.Store(t, ty*tile16+tx, B.Load(t, (tl*tile16+ty)*N+col))
			} else {
				tileB.Store(t, ty*tile16+tx, 0)
			}
			t.SyncThreads()
			for kk := 0; kk < tile16; kk++ {
				sum = sim.Fmaf(tileA.Load(t, ty*tile16+kk), tileB.Load(t, kk*tile16+tx), sum)
			}
			t.SyncThreads()
		}
		if row < M && col < N {
			C.Store(t, row*N+col, sum)
		}
	}
}

// runMatmulMNK launches fn(A, B, C, M, N, K) on (Block, Block) blocks
// covering the M x N result.
func runMatmulMNK(fn any, def int) func(b Backend, c Case) (Result, error) {
	return func(b Backend, c Case) (Result, error) {
		m, n, k := c.Params[0], c.N, c.Params[1]
		block := orDefault(c.Block, def)
		grid := sim.Dim2(cover(n, block), cover(m, block))
		return launchOnce(b, fn, grid, sim.Dim2(block, block), 0,
			[]devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](m * n)}, int32(m), int32(n), int32(k))
	}
}

// matmulMNKLens is the input lengths of a case of M x K times K x N: A
// (M*K) and B (K*N).
func matmulMNKLens(c Case) ([]int, error) {
	if len(c.Params) != 2 || c.Params[0] < 0 || c.Params[1] < 0 || c.Params[0] > math.MaxInt32 || c.Params[1] > math.MaxInt32 {
		return nil, errors.New("Params are [M, K], two sizes from 0 to 2^31-1 (the kernel takes them as int)")
	}
	m, k := c.Params[0], c.Params[1]
	return []int{m * k, k * c.N}, nil
}

// genMatmulMNK makes N = n and M, K drawn from 1..n, so that no side need
// be a multiple of the tile.
func genMatmulMNK(r *rand.Rand, n, block int) Case {
	m, k := 1+r.IntN(n), 1+r.IntN(n)
	return Case{N: n, Block: block, Params: []int{m, k}, Inputs: []any{genMatrix(r, m, k), genMatrix(r, k, n)}}
}

var matmulNaive = register(&Kernel{
	Name: "matmul_naive",
	Doc: "matmul_naive: C = A B (M x K times K x N float32), one thread per element of C, all reads global (seed 004).\n\n" +
		"Case.N is N, Params are [M, K]; inputs A (M*K) and B (K*N), row-major. Blocks are T x T\n" +
		"threads (default 16, as the seed's dim3 block(TILE_SIZE, TILE_SIZE)). Result is C.",
	Seed:  "004",
	Funcs: []any{MatmulNaive},
	Run:   runMatmulMNK(MatmulNaive, tile16),
	Reference: func(c Case) Result {
		return Result{matmulRef(f32s(c, 0), f32s(c, 1), c.Params[0], c.N, c.Params[1], 1)}
	},
	Generate:  genMatmulMNK,
	InputLens: matmulMNKLens,
	Blocks:    []int{8, 16, 32},
	SeedN:     512,
})

var matmulTiled16 = register(&Kernel{
	Name: "matmul_tiled16",
	Doc: "matmul_tiled16: C = A B (M x K times K x N float32) with bounds-checked 16x16 shared-memory tiles (seed 004).\n\n" +
		"Case.N is N, Params are [M, K]; inputs A (M*K) and B (K*N), row-major. Blocks are 16x16\n" +
		"threads, the grid ceil(N/16) x ceil(M/16). Result is C.",
	Seed:  "004",
	Funcs: []any{MatmulTiled16},
	Run:   runMatmulMNK(MatmulTiled16, tile16),
	Reference: func(c Case) Result {
		return Result{matmulRef(f32s(c, 0), f32s(c, 1), c.Params[0], c.N, c.Params[1], tile16)}
	},
	Generate:  genMatmulMNK,
	InputLens: matmulMNKLens,
	Blocks:    []int{tile16},
	SeedN:     512,
})
