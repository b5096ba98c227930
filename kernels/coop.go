package kernels

import (
	"math/rand/v2"
	"slices"

	"github.com/gpusim/gpusim/sim"
)

// Cooperative-groups kernels (issue 12): a tile reduction with cg::reduce,
// a two-phase reduction synchronised by grid.sync() under a cooperative
// launch, and a warp-aggregated atomic with coalesced_threads.

// ---- tile_reduce ----

// TileReduce sums each warp's 32 elements of in with cg::reduce over a
// thread_block_tile<32>:
//
//	auto tile = cg::tiled_partition<32>(cg::this_thread_block());
//	float s = cg::reduce(tile, i < n ? in[i] : 0.0f, cg::plus<float>());
//	if (tile.thread_rank() == 0 && i < n) out[i / 32] = s;
//
// The float order is cg::reduce's butterfly (sim.Reduce follows the
// H100's): the reference replays it, so the rule is exact.
func TileReduce(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.TiledPartitionOf[sim.Size32](sim.ThisThreadBlock(t))
		i := t.GlobalX()
		var v float32
		if i < n {
			v = in.Load(t, i)
		}
		s := sim.Reduce(tile, v, sim.Plus[float32]{})
		if tile.ThreadRank() == 0 && i < n {
			out.Store(t, i/32, s)
		}
	}
}

// butterfly32 is cg::reduce(tile32, v, plus) on the CPU: for offsets 16,
// 8, ..., 1 every lane adds the value of lane ^ offset to its own; all
// lanes end with the same sum, lane 0's is returned.
func butterfly32(v []float32) float32 {
	cur := slices.Clone(v)
	next := make([]float32, 32)
	for off := 16; off > 0; off /= 2 {
		for l := range 32 {
			next[l] = cur[l] + cur[l^off]
		}
		cur, next = next, cur
	}
	return cur[0]
}

func referenceTileReduce(c Case) Result {
	in := f32s(c, 0)
	out := make([]float32, cover(len(in), 32))
	for w := range out {
		v := make([]float32, 32)
		for l := range v {
			if i := w*32 + l; i < len(in) {
				v[l] = in[i]
			}
		}
		out[w] = butterfly32(v)
	}
	return Result{out}
}

var tileReduce = register(&Kernel{
	Name: "tile_reduce",
	Doc: "tile_reduce: one sum per warp of 32 elements with cg::reduce over cg::tiled_partition<32> (issue 12).\n\n" +
		"Blocks of T threads (default 256) cover N floats; Result is the (N + 31) / 32 warp sums, each in\n" +
		"cg::reduce's butterfly order (shfl_xor 16, 8, 4, 2, 1), which the reference replays: exact.",
	Funcs: []any{TileReduce},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		return launchOnce(b, TileReduce, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
			[]devBuf{input(f32s(c, 0)), output[float32](cover(c.N, 32))}, int32(c.N))
	},
	Reference: referenceTileReduce,
	Generate:  genReduceInput,
})

// ---- grid_reduce ----

// gridReduceBlocks caps grid_reduce's grid: every block must be resident
// at once under a cooperative launch, and 128 blocks of up to 1024 threads
// fit on an H100 or H200 (132 SMs) and on the simulator's H100.
const gridReduceBlocks = 128

// GridReduce is a two-phase reduction in one launch:
//
//	phase 1: each thread sums a grid-stride slice of in; cg::reduce over
//	         its warp; lane 0 puts the warp's sum in shared memory; the
//	         block's thread 0 adds those into partial[blockIdx.x];
//	grid.sync();
//	phase 2: thread 0 of block 0 adds the partials into out[0].
//
// Integer sums wrap (int32, as Go's and CUDA's), and wrapping addition is
// associative, so the result does not depend on the order: the rule is
// exact. It needs a cooperative launch (kernels.LaunchCooperative).
func GridReduce(in, partial, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		warpSums := sim.Shared[int32](t, "warpSums", 32)
		block := sim.ThisThreadBlock(t)
		tile := sim.TiledPartitionOf[sim.Size32](block)
		grid := sim.ThisGrid(t)
		var s int32
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			s += in.Load(t, i)
		}
		s = sim.Reduce(tile, s, sim.Plus[int32]{})
		if tile.ThreadRank() == 0 {
			warpSums.Store(t, tile.MetaGroupRank(), s)
		}
		block.Sync()
		if block.ThreadRank() == 0 {
			var b int32
			for w := range tile.MetaGroupSize() {
				b += warpSums.Load(t, w)
			}
			partial.Store(t, grid.BlockRank(), b)
		}
		grid.Sync()
		if grid.ThreadRank() == 0 {
			var total int32
			for b := range grid.NumBlocks() {
				total += partial.Load(t, b)
			}
			out.Store(t, 0, total)
		}
	}
}

func runGridReduce(b Backend, c Case) (Result, error) {
	block := orDefault(c.Block, 256)
	blocks := min(cover(c.N, block), gridReduceBlocks)
	return runBuffers(b, []devBuf{input(c.Inputs[0].([]int32)), scratch[int32](blocks), output[int32](1)},
		func(m []Mem) error {
			return LaunchCooperative(b, GridReduce, sim.Dim(blocks), sim.Dim(block), 0, m[0], m[1], m[2], int32(c.N))
		})
}

func referenceIntSum(c Case) Result {
	var s int32
	for _, v := range c.Inputs[0].([]int32) {
		s += v
	}
	return Result{[]int32{s}}
}

func genIntInput(r *rand.Rand, n, block int) Case {
	return Case{N: n, Block: block, Inputs: []any{randI32s(r, n)}}
}

var gridReduce = register(&Kernel{
	Name: "grid_reduce",
	Doc: "grid_reduce: the whole int32 sum in one cooperative launch, two phases separated by grid.sync() (issue 12).\n\n" +
		"min((N + T - 1) / T, 128) blocks of T threads (default 256), launched with\n" +
		"cudaLaunchCooperativeKernel: each block's grid-stride sum (cg::reduce per warp, then shared memory)\n" +
		"goes to a partial, grid.sync(), and block 0 adds the partials. Result is the wrapping int32 sum: exact.",
	Funcs:     []any{GridReduce},
	Run:       runGridReduce,
	Reference: referenceIntSum,
	Generate:  genIntInput,
})

// ---- warp_aggregated_atomic ----

// WarpAggregatedAtomic compacts the positive elements of in into out with
// one atomicAdd per coalesced group instead of one per element:
//
//	if (i < n && in[i] > 0) {
//	    cg::coalesced_group g = cg::coalesced_threads();
//	    unsigned int base = 0;
//	    if (g.thread_rank() == 0) base = atomicAdd(count, g.num_threads());
//	    base = g.shfl(base, 0);
//	    out[base + g.thread_rank()] = in[i];
//	}
//
// Which slots the elements take depends on the order of the atomics, so the
// driver sorts out[:count] on the host; count and the sorted elements are
// exact.
func WarpAggregatedAtomic(in, out *sim.Buffer[int32], count *sim.Buffer[uint32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i < n {
			v := in.Load(t, i)
			if v > 0 {
				g := sim.CoalescedThreads(t)
				var base uint32
				if g.ThreadRank() == 0 {
					base = sim.AtomicAdd(t, count, 0, uint32(g.NumThreads()))
				}
				base = sim.CoalescedShfl(g, base, 0)
				out.Store(t, int(base)+g.ThreadRank(), v)
			}
		}
	}
}

func runWarpAggregatedAtomic(b Backend, c Case) (Result, error) {
	block := orDefault(c.Block, 256)
	in := c.Inputs[0].([]int32)
	res, err := launchOnce(b, WarpAggregatedAtomic, sim.Dim(cover(c.N, block)), sim.Dim(block), 0,
		[]devBuf{input(in), zeroedOutput[int32](max(1, len(in))), zeroedOutput[uint32](1)}, int32(c.N))
	if err != nil {
		return res, err
	}
	out, cnt := res[0].([]int32), res[1].([]uint32)
	if int(cnt[0]) > len(out) {
		// A count beyond the buffer is a wrong result, not a crash: return
		// it as it is, for the comparison to report.
		return Result{out, cnt}, nil
	}
	kept := slices.Clone(out[:cnt[0]])
	slices.Sort(kept)
	return Result{kept, cnt}, nil
}

func referenceWarpAggregatedAtomic(c Case) Result {
	var kept []int32
	for _, v := range c.Inputs[0].([]int32) {
		if v > 0 {
			kept = append(kept, v)
		}
	}
	slices.Sort(kept)
	if kept == nil {
		kept = []int32{}
	}
	return Result{kept, []uint32{uint32(len(kept))}}
}

var warpAggregatedAtomic = register(&Kernel{
	Name: "warp_aggregated_atomic",
	Doc: "warp_aggregated_atomic: stream compaction of the positive int32 elements with one atomicAdd per cg::coalesced_threads() group (issue 12).\n\n" +
		"Blocks of T threads (default 256) over N elements; each coalesced group's rank 0 reserves\n" +
		"num_threads() slots, shfl broadcasts the base. Result is the kept elements, sorted on the host\n" +
		"(their slots depend on the atomics' order), and the count: exact.",
	Funcs:     []any{WarpAggregatedAtomic},
	Run:       runWarpAggregatedAtomic,
	Reference: referenceWarpAggregatedAtomic,
	Generate:  genIntInput,
})
