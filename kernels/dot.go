package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Dot products from seed 003 (Numba, example 4.6): a grid-stride loop per
// thread, a shared-memory halving tree per block, and then either one
// partial per block (dot_partial) or a mutex-guarded add of every block's
// sum into a global scalar (dot_mutex). The seed's dot_mutex reads
// s_block[tid + 1] where s_block[tid + i] was meant; it is kept as
// dot_mutex_faulty.
//
// Numba types s_thread = 0.0 as float64, so each thread accumulates its
// float32 products a[i]*b[i] in float64 (the product is rounded to float32
// first: it is a float32 multiply, then widened) and stores the float64 sum
// into the float32 shared array. The Go kernels and CUDA twins do the same.

// dotThreads is the seed's threads_per_block = 256, also the length of the
// static s_block = cuda.shared.array((threads_per_block,), float32).
const dotThreads = 256

// dotGrid is the seed's blocks_per_grid = 32 * 20, capped at the number of
// blocks that have an element to start with, so small cases do not launch
// hundreds of idle blocks.
func dotGrid(n, block int) int { return min(32*20, cover(n, block)) }

// dotBlocks are the power-of-two blocks that fit s_block.
var dotBlocks = []int{32, 64, 128, 256}

// The kernels share their first part (the seed: "above this line, the code
// will remain exactly the same"): the thread's grid-stride sum into
// s_block[tid], then the halving tree, which leaves the block's sum in
// s_block[0]. Each kernel spells it out, as the seed does.

// DotPartial is example 4.6's dot_partial(a, b, partial_c), with a.size
// passed as n.
func DotPartial(a, b, partial_c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		igrid := t.GlobalX()
		threadsPerGrid := t.GridStrideX()
		var sThread float64
		for iarr := igrid; iarr < n; iarr += threadsPerGrid {
			sThread += float64(a.Load(t, iarr) * b.Load(t, iarr))
		}
		s_block := sim.Shared[float32](t, "s_block", dotThreads)
		tid := t.ThreadIdx.X
		s_block.Store(t, tid, float32(sThread))
		t.SyncThreads()
		for i := t.BlockDim.X / 2; i > 0; i /= 2 {
			if tid < i {
				s_block.Store(t, tid, s_block.Load(t, tid)+s_block.Load(t, tid+i))
			}
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 0 {
			partial_c.Store(t, t.BlockIdx.X, s_block.Load(t, 0))
		}
	}
}

// KernelZeroInit is the seed's kernel_zero_init(arr), launched [1, 1]
// on the scalar c: a grid-stride loop of zeros (arr.size passed as n).
func KernelZeroInit(arr *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for iarr := t.GlobalX(); iarr < n; iarr += t.GridStrideX() {
			arr.Store(t, iarr, 0)
		}
	}
}

// DotMutex is example 4.6's dot_mutex(mutex, a, b, c), with example
// 4.5's lock and unlock:
//
//	def lock(mutex):
//	    while cuda.atomic.compare_and_swap(mutex, 0, 1) != 0: pass
//	    cuda.threadfence()
//	def unlock(mutex):
//	    cuda.threadfence()
//	    cuda.atomic.exch(mutex, 0, 0)
//
// Thread 0 of each block adds the block's sum to c[0] under the lock.
func DotMutex(mutex *sim.Buffer[int32], a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		igrid := t.GlobalX()
		threadsPerGrid := t.GridStrideX()
		var sThread float64
		for iarr := igrid; iarr < n; iarr += threadsPerGrid {
			sThread += float64(a.Load(t, iarr) * b.Load(t, iarr))
		}
		s_block := sim.Shared[float32](t, "s_block", dotThreads)
		tid := t.ThreadIdx.X
		s_block.Store(t, tid, float32(sThread))
		t.SyncThreads()
		for i := t.BlockDim.X / 2; i > 0; i /= 2 {
			if tid < i {
				s_block.Store(t, tid, s_block.Load(t, tid)+s_block.Load(t, tid+i))
			}
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 0 {
			for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
			c.Store(t, 0, c.Load(t, 0)+s_block.Load(t, 0))
			t.ThreadFence()
			sim.AtomicExch(t, mutex, 0, 0)
		}
	}
}

// DotMutexFaulty is dot_mutex as the seed prints it, whose tree reads
// s_block[tid + 1] where s_block[tid + i] was meant: thread tid reads the
// slot thread tid + 1 writes in the same step.
func DotMutexFaulty(mutex *sim.Buffer[int32], a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		igrid := t.GlobalX()
		threadsPerGrid := t.GridStrideX()
		var sThread float64
		for iarr := igrid; iarr < n; iarr += threadsPerGrid {
			sThread += float64(a.Load(t, iarr) * b.Load(t, iarr))
		}
		s_block := sim.Shared[float32](t, "s_block", dotThreads)
		tid := t.ThreadIdx.X
		s_block.Store(t, tid, float32(sThread))
		t.SyncThreads()
		for i := t.BlockDim.X / 2; i > 0; i /= 2 {
			if tid < i {
				s_block.Store(t, tid, s_block.Load(t, tid)+s_block.Load(t, tid+1))
			}
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 0 {
			for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
			c.Store(t, 0, c.Load(t, 0)+s_block.Load(t, 0))
			t.ThreadFence()
			sim.AtomicExch(t, mutex, 0, 0)
		}
	}
}

// dotPartials is dot_partial's result on the CPU, in the kernel's order.
func dotPartials(a, b []float32, block int) []float32 {
	n := len(a)
	grid := dotGrid(n, block)
	stride := grid * block
	out := make([]float32, grid)
	for blk := range out {
		s := make([]float32, block)
		for tid := range s {
			var sThread float64
			for iarr := blk*block + tid; iarr < n; iarr += stride {
				sThread += float64(a[iarr] * b[iarr])
			}
			s[tid] = float32(sThread)
		}
		out[blk] = halvingTree(s)
	}
	return out
}

func runDotPartial(b Backend, c Case) (Result, error) {
	block := orDefault(c.Block, dotThreads)
	grid := dotGrid(c.N, block)
	return launchOnce(b, DotPartial, sim.Dim(grid), sim.Dim(block), 0,
		[]devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](grid)}, int32(c.N))
}

// runDotMutex zeroes c with kernel_zero_init[1, 1] as the seed does, then
// launches dot_mutex. The seed leaves the mutex as cuda.device_array, which
// is uninitialised; the driver sets it to 0 (unlocked) first.
func runDotMutex(fn any) func(b Backend, c Case) (Result, error) {
	return func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, dotThreads)
		bufs := []devBuf{input(f32s(c, 0)), input(f32s(c, 1)), output[float32](1), zeroedScratch[int32](1)}
		return runBuffers(b, bufs, func(m []Mem) error {
			da, db, dc, mutex := m[0], m[1], m[2], m[3]
			if err := b.Launch(KernelZeroInit, sim.Dim(1), sim.Dim(1), 0, dc, int32(1)); err != nil {
				return err
			}
			return b.Launch(fn, sim.Dim(dotGrid(c.N, block)), sim.Dim(block), 0, mutex, da, db, dc, int32(c.N))
		})
	}
}

// dotMutexReference adds the block sums in block order. The blocks take
// the lock in whatever order they reach it, so the cases dot_mutex is
// tested on (genExactDot) are ones where every sum is exact in float32 and
// the order cannot show.
func dotMutexReference(c Case) Result {
	var sum float32
	for _, p := range dotPartials(f32s(c, 0), f32s(c, 1), orDefault(c.Block, dotThreads)) {
		sum += p
	}
	return Result{[]float32{sum}}
}

// genExactDot draws a and b as multiples of 1/4 in [-2, 2] (zeros and
// negatives included): every product is a multiple of 1/16 and every sum
// of them stays exact in float32 while its magnitude is below 2^20, far
// above what random signs reach for the seed's 10M elements. Then the sum
// does not depend on the order in which blocks take the lock.
func genExactDot(r *rand.Rand, n, block int) Case {
	q := func() []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.IntN(17)-8) / 4
		}
		return v
	}
	return Case{N: n, Block: block, Inputs: []any{q(), q()}}
}

var dotPartial = register(&Kernel{
	Name: "dot_partial",
	Doc: "dot_partial: per-block partial dot products, grid-stride loop then a shared-memory tree (seed 003, example 4.6).\n\n" +
		"Inputs a, b of N float32; min(32*20, (N + T - 1) / T) blocks of T threads (default 256, the\n" +
		"seed's threads_per_block, which sizes s_block; a power of two). Threads sum in float64 as\n" +
		"Numba types them. Result is the per-block partials.",
	Seed:  "003",
	Funcs: []any{DotPartial},
	Run:   runDotPartial,
	Reference: func(c Case) Result {
		return Result{dotPartials(f32s(c, 0), f32s(c, 1), orDefault(c.Block, dotThreads))}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e15), randF32s(r, n, 1, 1e15)}}
	},
	Blocks: dotBlocks,
	SeedN:  10_000_000,
})

var dotMutex = register(&Kernel{
	Name: "dot_mutex",
	Doc: "dot_mutex: a full dot product, each block adding its sum to c[0] under an atomicCAS spin lock with fences (seed 003, example 4.6, corrected).\n\n" +
		"Shaped as dot_partial, plus kernel_zero_init[1, 1] on c first. Result is c. Inputs are drawn\n" +
		"so that every partial sum is exact, since the lock order is not fixed.",
	Seed:      "003",
	Funcs:     []any{KernelZeroInit, DotMutex},
	Run:       runDotMutex(DotMutex),
	Reference: dotMutexReference,
	Generate:  genExactDot,
	Blocks:    dotBlocks,
	SeedN:     10_000_000,
})

var dotMutexFaulty = register(&Kernel{
	Name: "dot_mutex_faulty",
	Doc: "dot_mutex_faulty: seed 003's dot_mutex as printed, whose tree reads s_block[tid + 1]: a shared-memory race.\n\n" +
		"Thread tid reads s_block[tid + 1] while thread tid + 1 writes it in the same step. Shaped as\n" +
		"dot_mutex; its Reference is what the kernel means to compute.",
	Seed:      "003",
	Funcs:     []any{KernelZeroInit, DotMutexFaulty},
	Run:       runDotMutex(DotMutexFaulty),
	Reference: dotMutexReference,
	Generate:  genExactDot,
	Blocks:    dotBlocks,
	SeedN:     10_000_000,
	Faulty:    true,
	Expect:    []sim.Kind{sim.DataRace},
	FixedBy:   "dot_mutex",
})
