package kernels

import (
	"math"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Reductions from seeds 000 and 004: shared-memory trees that leave one
// partial sum per block (reduce_sum, reduce_v1..v3), a full reduction that
// relaunches reduce_sum on its own partials (reduce_full), the warp-
// synchronous last-warp unroll with and without __syncwarp, and seed 004's
// warp shuffle demo.
//
// Every float reduction here has a fixed association order (the tree's), so
// the references replay that order and the rules are exact.

// pow2Blocks are the legal block sizes of a halving tree over blockDim.x.
var pow2Blocks = []int{32, 64, 128, 256, 512, 1024}

// halvingTree is the sequential-addressing tree
//
//	for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }
//
// run on s in place; it returns s[0].
func halvingTree(s []float32) float32 {
	for stride := len(s) / 2; stride > 0; stride >>= 1 {
		for tid := 0; tid < stride; tid++ {
			s[tid] += s[tid+stride]
		}
	}
	return s[0]
}

// interleavedTree is reduce_v1's tree:
//
//	for (stride = 1; stride < blockDim.x; stride *= 2) { if (tid % (2*stride) == 0) sdata[tid] += sdata[tid + stride]; __syncthreads(); }
func interleavedTree(s []float32) float32 {
	for stride := 1; stride < len(s); stride *= 2 {
		for tid := 0; tid < len(s); tid++ {
			if tid%(2*stride) == 0 {
				s[tid] += s[tid+stride]
			}
		}
	}
	return s[0]
}

// loadOne is the per-thread load of reduce_v1/v2: sdata[tid] = idx < n ? in[idx] : 0.
func loadOne(in []float32, block, blk int) []float32 {
	s := make([]float32, block)
	for tid := range s {
		if idx := blk*block + tid; idx < len(in) {
			s[tid] = in[idx]
		}
	}
	return s
}

// loadTwo is the per-thread load of reduce_sum/reduce_v3: sum = 0; sum +=
// in[i] if i < n; sum += in[i + blockDim.x] if in range; with i =
// blockIdx.x * blockDim.x * 2 + tid. The adds start from +0, which turns a
// -0 input into +0, as the kernels do.
func loadTwo(in []float32, block, blk int) []float32 {
	s := make([]float32, block)
	for tid := range s {
		i := blk*block*2 + tid
		var sum float32
		if i < len(in) {
			sum += in[i]
		}
		if i+block < len(in) {
			sum += in[i+block]
		}
		s[tid] = sum
	}
	return s
}

// ---- reduce_sum and reduce_full (seed 000) ----

// ReduceSum is seed 000's
//
//	extern "C" __global__ void reduce_sum(float *g_idata, float *g_odata, int n)
//
// with extern __shared__ float sdata[] of blockDim.x floats: each thread
// adds (up to) two elements blockDim.x apart, then a halving tree leaves the
// block's sum in g_odata[blockIdx.x].
func ReduceSum(g_idata, g_odata *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.DynamicShared[float32](t, "sdata")
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*t.BlockDim.X*2 + t.ThreadIdx.X
		var sum float32
		if i < n {
			sum += g_idata.Load(t, i)
		}
		if i+t.BlockDim.X < n {
			sum += g_idata.Load(t, i+t.BlockDim.X)
		}
		sdata.Store(t, tid, sum)
		t.SyncThreads()
		for s := t.BlockDim.X / 2; s > 0; s >>= 1 {
			if tid < s {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+s))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			g_odata.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// treePartials is a per-block tree reduction's result on the CPU: for each
// of blocks blocks of block threads, the values its threads load (load) are
// reduced by tree, in the order the kernel's shared-memory tree adds them.
func treePartials(in []float32, blocks, block int, load func(in []float32, block, blk int) []float32, tree func(s []float32) float32) []float32 {
	out := make([]float32, blocks)
	for blk := range out {
		out[blk] = tree(load(in, block, blk))
	}
	return out
}

// reduceSumPartials is reduce_sum's result on the CPU: one sum per block of
// 2*block elements.
func reduceSumPartials(in []float32, block int) []float32 {
	return treePartials(in, cover(len(in), 2*block), block, loadTwo, halvingTree)
}

// launchReduceSum runs one reduce_sum pass over the first n elements of in,
// as the seed launches it: (n + 2T - 1) / (2T) blocks of T threads and T
// floats of dynamic shared memory. It returns the number of partials.
func launchReduceSum(b Backend, in, out Mem, n, block int) (int, error) {
	blocks := cover(n, 2*block)
	return blocks, b.Launch(ReduceSum, sim.Dim(blocks), sim.Dim(block), block*4, in, out, int32(n))
}

func genReduceInput(r *rand.Rand, n, block int) Case {
	return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e30)}}
}

var reduceSum = register(&Kernel{
	Name: "reduce_sum",
	Doc: "reduce_sum: per-block partial sums, two elements per thread then a shared-memory halving tree (seed 000).\n\n" +
		"Result is the (N + 2T - 1) / (2T) partial sums for T threads per block (default 512, as the\n" +
		"seed; a power of two) with T floats of dynamic shared memory.",
	Seed:  "000",
	Funcs: []any{ReduceSum},
	Run: func(b Backend, c Case) (Result, error) {
		return runPartials(b, c, ReduceSum, 512, 2, 4)
	},
	Reference: func(c Case) Result { return Result{reduceSumPartials(f32s(c, 0), orDefault(c.Block, 512))} },
	Generate:  genReduceInput,
	Blocks:    pow2Blocks,
	SeedN:     1 << 20,
})

var reduceFull = register(&Kernel{
	Name: "reduce_full",
	Doc: "reduce_full: the whole sum, relaunching reduce_sum on its own partial sums until one value remains (seed 000).\n\n" +
		"Every pass is a reduce_sum launch with T threads per block (default 512); there is at least\n" +
		"one pass, and pass k+1 reads pass k's partials. Result is the single float32.",
	Seed:  "000",
	Funcs: []any{ReduceSum},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 512)
		// Two partial buffers, ping-ponged: the first holds pass 1's
		// partials, the second pass 2's, and so on alternately. Which of
		// them ends with the sum depends on the number of passes, so it is
		// read after the last pass rather than declared an output.
		first := cover(c.N, 2*block)
		var sum []float32
		_, err := runBuffers(b, []devBuf{input(f32s(c, 0)), scratch[float32](first), scratch[float32](cover(first, 2*block))},
			func(m []Mem) error {
				src, n := m[0], c.N
				for pass := 0; ; pass++ {
					dst := m[1+pass%2]
					var err error
					if n, err = launchReduceSum(b, src, dst, n, block); err != nil {
						return err
					}
					src = dst
					if n == 1 {
						break
					}
				}
				out := make([]float32, src.Len())
				sum = out[:1]
				return b.Read(src, out)
			})
		if err != nil {
			return nil, err
		}
		return Result{sum}, nil
	},
	Reference: func(c Case) Result {
		block := orDefault(c.Block, 512)
		s := reduceSumPartials(f32s(c, 0), block)
		for len(s) > 1 {
			s = reduceSumPartials(s, block)
		}
		return Result{s}
	},
	Generate: genReduceInput,
	Blocks:   pow2Blocks,
	SeedN:    1 << 20,
})

// ---- reduce_v1, reduce_v2, reduce_v3 (seed 004) ----

// reduceBlockSize is seed 004's #define BLOCK_SIZE 256, the length of the
// static __shared__ float sdata[BLOCK_SIZE]: blocks may be smaller (the
// trees run over blockDim.x) but not larger.
const reduceBlockSize = 256

// ReduceV1 is seed 004's reduce_v1(float *input, float *output, int n):
// one element per thread into sdata[BLOCK_SIZE], then the interleaved
// tid % (2*stride) tree.
func ReduceV1(input, output *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.Shared[float32](t, "sdata", reduceBlockSize)
		tid := t.ThreadIdx.X
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		var v float32
		if idx < n {
			v = input.Load(t, idx)
		}
		sdata.Store(t, tid, v)
		t.SyncThreads()
		for stride := 1; stride < t.BlockDim.X; stride *= 2 {
			if tid%(2*stride) == 0 { // divergent branch
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+stride))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			output.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// ReduceV2 is seed 004's reduce_v2(float *input, float *output, int n):
// one element per thread, then the sequential-addressing tid < stride tree.
func ReduceV2(input, output *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.Shared[float32](t, "sdata", reduceBlockSize)
		tid := t.ThreadIdx.X
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		var v float32
		if idx < n {
			v = input.Load(t, idx)
		}
		sdata.Store(t, tid, v)
		t.SyncThreads()
		for stride := t.BlockDim.X / 2; stride > 0; stride >>= 1 {
			if tid < stride {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+stride))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			output.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// ReduceV3 is seed 004's reduce_v3(float *input, float *output, int n): two
// elements per thread added during the load, then the halving tree.
func ReduceV3(input, output *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.Shared[float32](t, "sdata", reduceBlockSize)
		tid := t.ThreadIdx.X
		idx := t.BlockIdx.X*(t.BlockDim.X*2) + t.ThreadIdx.X
		var sum float32
		if idx < n {
			sum += input.Load(t, idx)
		}
		if idx+t.BlockDim.X < n {
			sum += input.Load(t, idx+t.BlockDim.X)
		}
		sdata.Store(t, tid, sum)
		t.SyncThreads()
		for stride := t.BlockDim.X / 2; stride > 0; stride >>= 1 {
			if tid < stride {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+stride))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			output.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// runPartials runs a per-block reduction fn(input, output, n) on Case
// input 0: blocks of Case.Block threads (default def) that each cover
// per*block elements and have sharedPerThread*block bytes of dynamic shared
// memory. It returns the partial sums, one per block.
func runPartials(b Backend, c Case, fn any, def, per, sharedPerThread int) (Result, error) {
	block := orDefault(c.Block, def)
	blocks := cover(c.N, per*block)
	return launchOnce(b, fn, sim.Dim(blocks), sim.Dim(block), sharedPerThread*block,
		[]devBuf{input(f32s(c, 0)), output[float32](blocks)}, int32(c.N))
}

// v123Blocks are the power-of-two blocks that fit sdata[BLOCK_SIZE].
var v123Blocks = []int{32, 64, 128, 256}

// reduceV123Kernel is the registry entry of seed 004's reduce_v1, v2 or v3:
// fn's blocks of Case.Block threads (default reduceBlockSize) each cover
// per*block elements of Case input 0 with static shared memory only, and
// the reference replays the kernel's load and tree block by block.
func reduceV123Kernel(name, doc string, fn any, per int, load func(in []float32, block, blk int) []float32, tree func(s []float32) float32) *Kernel {
	return &Kernel{
		Name:  name,
		Doc:   doc,
		Seed:  "004",
		Funcs: []any{fn},
		Run: func(b Backend, c Case) (Result, error) {
			return runPartials(b, c, fn, reduceBlockSize, per, 0)
		},
		Reference: func(c Case) Result {
			in, block := f32s(c, 0), orDefault(c.Block, reduceBlockSize)
			return Result{treePartials(in, cover(c.N, per*block), block, load, tree)}
		},
		Generate: genReduceInput,
		Blocks:   v123Blocks,
		SeedN:    1 << 20,
	}
}

var reduceV1 = register(reduceV123Kernel("reduce_v1",
	"reduce_v1: per-block sums by interleaved addressing, the divergent tid % (2*stride) tree (seed 004).\n\n"+
		"One element per thread, (N + T - 1) / T blocks of T threads (default and maximum 256, the seed's\n"+
		"BLOCK_SIZE, which sizes the static sdata; a power of two). Result is the partial sums.",
	ReduceV1, 1, loadOne, interleavedTree))

var reduceV2 = register(reduceV123Kernel("reduce_v2",
	"reduce_v2: per-block sums by sequential addressing, tid < stride halving tree (seed 004).\n\n"+
		"One element per thread, (N + T - 1) / T blocks of T threads (default and maximum 256, the seed's\n"+
		"BLOCK_SIZE; a power of two). Result is the partial sums.",
	ReduceV2, 1, loadOne, halvingTree))

var reduceV3 = register(reduceV123Kernel("reduce_v3",
	"reduce_v3: per-block sums with the first add during the load, then a halving tree (seed 004).\n\n"+
		"Two elements per thread, (N + 2T - 1) / (2T) blocks of T threads (default and maximum 256, the\n"+
		"seed's BLOCK_SIZE; a power of two). Result is the partial sums.",
	ReduceV3, 2, loadTwo, halvingTree))

// ---- last-warp unroll: reduce_warp_unsync_faulty and reduce_warp_sync ----

// The last-warp kernels are reduce_sum with the classic last-warp unroll:
// the block tree stops at 64 elements and warp 0 finishes without
// __syncthreads, in the unrolled tail that each kernel spells out.

// ReduceWarpUnsync's tail is the pre-Volta idiom
//
//	__device__ void warpReduce(volatile float *sdata, int tid) {
//	    sdata[tid] += sdata[tid + 32]; sdata[tid] += sdata[tid + 16]; sdata[tid] += sdata[tid + 8];
//	    sdata[tid] += sdata[tid + 4];  sdata[tid] += sdata[tid + 2];  sdata[tid] += sdata[tid + 1];
//	}
//
// which relies on the warp's lanes running in lockstep. Since Volta they do
// not: lane tid reads sdata[tid + 16] while lane tid + 16 writes it, with
// nothing ordering the two, a data race.
func ReduceWarpUnsync(g_idata, g_odata *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.DynamicShared[float32](t, "sdata")
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*t.BlockDim.X*2 + t.ThreadIdx.X
		var sum float32
		if i < n {
			sum += g_idata.Load(t, i)
		}
		if i+t.BlockDim.X < n {
			sum += g_idata.Load(t, i+t.BlockDim.X)
		}
		sdata.Store(t, tid, sum)
		t.SyncThreads()
		for s := t.BlockDim.X / 2; s > 32; s >>= 1 {
			if tid < s {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+s))
			}
			t.SyncThreads()
		}
		if tid < 32 {
			for off := 32; off > 0; off >>= 1 {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+off))
			}
		}
		if tid == 0 {
			g_odata.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// ReduceWarpSync's tail is the fix from NVIDIA's "Using CUDA Warp-Level
// Primitives": each step reads into a register, __syncwarp, writes,
// __syncwarp, so every lane's reads of a step precede every write of it.
//
//	float v = sdata[tid];
//	v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
//	v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
//	... 8, 4, 2, 1
//
// (A __syncwarp between the unsynced version's steps alone is not enough:
// within one step lane tid still reads the slot lane tid + off writes.)
func ReduceWarpSync(g_idata, g_odata *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.DynamicShared[float32](t, "sdata")
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*t.BlockDim.X*2 + t.ThreadIdx.X
		var sum float32
		if i < n {
			sum += g_idata.Load(t, i)
		}
		if i+t.BlockDim.X < n {
			sum += g_idata.Load(t, i+t.BlockDim.X)
		}
		sdata.Store(t, tid, sum)
		t.SyncThreads()
		for s := t.BlockDim.X / 2; s > 32; s >>= 1 {
			if tid < s {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+s))
			}
			t.SyncThreads()
		}
		if tid < 32 {
			v := sdata.Load(t, tid)
			for off := 32; off > 0; off >>= 1 {
				v += sdata.Load(t, tid+off)
				t.SyncWarp(sim.FullMask)
				sdata.Store(t, tid, v)
				t.SyncWarp(sim.FullMask)
			}
		}
		if tid == 0 {
			g_odata.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// warpTailKernel is the registry entry of a last-warp kernel, launched as
// reduce_sum is. Its reference is what both kernels mean to compute: with
// every read of a step before every write (lockstep or __syncwarp), lane
// 0's chain of adds is exactly the halving tree's, so the partials equal
// reduce_sum's. The tail reads sdata[tid + 32], so blocks have at least 64
// threads.
func warpTailKernel(name, doc string, fn any) *Kernel {
	return &Kernel{
		Name:  name,
		Doc:   doc,
		Seed:  "004",
		Funcs: []any{fn},
		Run: func(b Backend, c Case) (Result, error) {
			return runPartials(b, c, fn, 512, 2, 4)
		},
		Reference: func(c Case) Result {
			return Result{reduceSumPartials(f32s(c, 0), orDefault(c.Block, 512))}
		},
		Generate: genReduceInput,
		Blocks:   []int{64, 128, 256, 512, 1024},
		SeedN:    1 << 20,
	}
}

var reduceWarpSync = register(warpTailKernel("reduce_warp_sync",
	"reduce_warp_sync: reduce_sum with the last warp unrolled, made correct with __syncwarp between reads and writes.\n\n"+
		"Two elements per thread, (N + 2T - 1) / (2T) blocks of T threads (default 512; a power of\n"+
		"two of at least 64) and T floats of dynamic shared memory. Result is the partial sums.",
	ReduceWarpSync))

var reduceWarpUnsyncFaulty = register(faulty(warpTailKernel("reduce_warp_unsync_faulty",
	"reduce_warp_unsync_faulty: the volatile last-warp unroll without __syncwarp, a data race since Volta.\n\n"+
		"Shaped as reduce_warp_sync; its Reference is what the kernel means to compute.",
	ReduceWarpUnsync), "reduce_warp_sync", sim.DataRace))

// ---- warp_shuffle_reduce (seed 004's warp_sync_demo) ----

// randI32s draws n int32 values: small of either sign, zeros, and values
// near the extremes, whose sums wrap.
func randI32s(r *rand.Rand, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		switch k := r.IntN(10); {
		case k < 6:
			out[i] = int32(r.IntN(2001) - 1000)
		case k < 7:
			out[i] = 0
		case k < 8:
			out[i] = math.MaxInt32 - int32(r.IntN(100))
		case k < 9:
			out[i] = math.MinInt32 + int32(r.IntN(100))
		default:
			out[i] = int32(r.Uint32())
		}
	}
	return out
}

// WarpSyncDemo is seed 004's warp_sync_demo as written:
//
//	__global__ void warp_sync_demo(int *data) {
//	    int tid = threadIdx.x; int lane = tid % 32;
//	    int val = data[tid];
//	    val = __shfl_sync(0xffffffff, val, 0);
//	    for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_down_sync(0xffffffff, val, offset);
//	    if (lane == 0) data[tid / 32] = val;
//	}
//
// In a block of more than one warp, warp w's lane 0 writes data[w] while
// lane w of warp 0 reads it: nothing orders the two.
func WarpSyncDemo(data *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		lane := tid % 32
		val := data.Load(t, tid)
		val = sim.ShflSync(t, sim.FullMask, val, 0)
		for offset := 16; offset > 0; offset >>= 1 {
			val += sim.ShflDownSync(t, sim.FullMask, val, offset)
		}
		if lane == 0 {
			data.Store(t, tid/32, val)
		}
	}
}

// WarpShuffleReduce is warp_sync_demo corrected and generalised to a grid:
// the warp sums go to a separate output, so no warp overwrites what another
// reads, and lanes past n load 0 (they still take part in the shuffles, whose
// full mask needs all 32 lanes).
//
//	extern "C" __global__ void warp_shuffle_reduce(const int *data, int *out, int n) {
//	    int tid = blockIdx.x * blockDim.x + threadIdx.x; int lane = threadIdx.x % 32;
//	    int val = tid < n ? data[tid] : 0;
//	    val = __shfl_sync(0xffffffff, val, 0);
//	    for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_down_sync(0xffffffff, val, offset);
//	    if (lane == 0 && tid < n) out[tid / 32] = val;
//	}
func WarpShuffleReduce(data, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		lane := t.ThreadIdx.X % 32
		var val int32
		if tid < n {
			val = data.Load(t, tid)
		}
		val = sim.ShflSync(t, sim.FullMask, val, 0)
		for offset := 16; offset > 0; offset >>= 1 {
			val += sim.ShflDownSync(t, sim.FullMask, val, offset)
		}
		if lane == 0 && tid < n {
			out.Store(t, tid/32, val)
		}
	}
}

// warpBroadcastSum is the demo's arithmetic: lane 0's value broadcast to
// the 32 lanes and summed back, 32*v in wrapping int32.
func warpBroadcastSum(v int32) int32 {
	var s int32
	for range 32 {
		s += v
	}
	return s
}

var warpShuffleReduce = register(&Kernel{
	Name: "warp_shuffle_reduce",
	Doc: "warp_shuffle_reduce: __shfl_sync broadcast from lane 0, then a __shfl_down_sync warp sum (seed 004's warp_sync_demo, corrected).\n\n" +
		"N int32 elements, (N + T - 1) / T blocks of T threads (default 256, a multiple of 32). Result is\n" +
		"one int32 per warp that holds an element: 32 times the warp's first element, wrapping.",
	Seed:  "004",
	Funcs: []any{WarpShuffleReduce},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		return launchOnce(b, WarpShuffleReduce, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
			[]devBuf{input(c.Inputs[0].([]int32)), output[int32](cover(c.N, 32))}, int32(c.N))
	},
	Reference: func(c Case) Result {
		data := c.Inputs[0].([]int32)
		out := make([]int32, cover(c.N, 32))
		for w := range out {
			out[w] = warpBroadcastSum(data[32*w])
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randI32s(r, n)}}
	},
	SeedN: 256,
})

var warpShuffleReduceFaulty = register(&Kernel{
	Name: "warp_shuffle_reduce_faulty",
	Doc: "warp_shuffle_reduce_faulty: seed 004's warp_sync_demo verbatim, in place on data: warps race on data[0..T/32).\n\n" +
		"One block of T threads (default 256, at least 64) over N = T int32 elements, as the seed's\n" +
		"sync_demo<<<1, 256>>> shape. Result is data afterwards.",
	Seed:  "004",
	Funcs: []any{WarpSyncDemo},
	Run: func(b Backend, c Case) (Result, error) {
		return launchOnce(b, WarpSyncDemo, sim.Dim(1), sim.Dim(c.N), 0, []devBuf{inOut(c.Inputs[0].([]int32))})
	},
	Reference: func(c Case) Result {
		out := append([]int32(nil), c.Inputs[0].([]int32)...)
		for w := 0; w < c.N/32; w++ {
			out[w] = warpBroadcastSum(out[32*w])
		}
		return Result{out}
	},
	// Generate ignores n: the kernel has no bounds check and runs one
	// block, so N is the block size.
	Generate: func(r *rand.Rand, n, block int) Case {
		if block == 0 {
			block = 256
		}
		return Case{N: block, Block: block, Inputs: []any{randI32s(r, block)}}
	},
	Blocks:  []int{64, 128, 256, 512, 1024},
	SeedN:   256,
	Faulty:  true,
	Expect:  []sim.Kind{sim.DataRace},
	FixedBy: "warp_shuffle_reduce",
})
