package kernels

import (
	"math/rand/v2"
	"slices"

	"github.com/gpusim/gpusim/sim"
)

// Parallel linear search from seed 001: every thread checks one element for
// the target. parallel_search writes the smallest matching index with
// atomicMin into one int initialised to n (not found); parallel_search_blocks
// writes one hit per block, the block's first match as an offset into the
// block, or -1, for the host to merge (MergeHits).

// ParallelSearch is seed 001's
//
//	__global__ void parallel_search(const int *data, int *found_idx, int target, int n) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < n && data[idx] == target) atomicMin(found_idx, idx);
//	}
//
// found_idx[0] must hold n before the launch; after it, it holds the smallest
// matching index, or still n if there is none.
func ParallelSearch(data, found_idx *sim.Buffer[int32], target int32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < n && data.Load(t, idx) == target {
			sim.AtomicMin(t, found_idx, 0, int32(idx))
		}
	}
}

// ParallelSearchBlocks is the per-block search the seed's merging section
// reads back ("if the search wrote one matching index per block, -1 if none"):
//
//	__global__ void parallel_search_blocks(const int *data, int *block_hits, int target, int n) {
//	    __shared__ int s_first;
//	    if (threadIdx.x == 0) s_first = blockDim.x;
//	    __syncthreads();
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < n && data[idx] == target) atomicMin(&s_first, threadIdx.x);
//	    __syncthreads();
//	    if (threadIdx.x == 0) block_hits[blockIdx.x] = s_first == blockDim.x ? -1 : s_first;
//	}
//
// block_hits[b] is the offset of block b's first match from its first
// element b*blockDim.x (a local index: the host adds the block's start), or
// -1.
func ParallelSearchBlocks(data, block_hits *sim.Buffer[int32], target int32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		s_first := sim.Shared[int32](t, "s_first", 1)
		tid := t.ThreadIdx.X
		if tid == 0 {
			s_first.Store(t, 0, int32(t.BlockDim.X))
		}
		t.SyncThreads()
		idx := t.BlockIdx.X*t.BlockDim.X + tid
		if idx < n && data.Load(t, idx) == target {
			sim.AtomicMin(t, s_first, 0, int32(tid))
		}
		t.SyncThreads()
		if tid == 0 {
			first := s_first.Load(t, 0)
			if first == int32(t.BlockDim.X) {
				first = -1
			}
			block_hits.Store(t, t.BlockIdx.X, first)
		}
	}
}

// searchTarget is the case's target, Params[0].
func searchTarget(c Case) int32 { return int32(c.Params[0]) }

// genSearch makes n int32 values in [0, m) and a target, after the seed:
// arr = randint(0, 1_000_000, N); arr[randint(0, N)] = 123456. The range m
// is drawn so that the target occurs about n/m times at random (from many
// times to almost never); in three cases of four it is also planted at a
// random index.
func genSearch(r *rand.Rand, n, block int) Case {
	m := []int{4, 64, max(1, n/8), max(1, n), 1_000_000, 1 << 30}[r.IntN(6)]
	target := r.IntN(m)
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(r.IntN(m))
	}
	if n > 0 && r.IntN(4) != 0 {
		d[r.IntN(n)] = int32(target)
	}
	return Case{N: n, Block: block, Params: []int{target}, Inputs: []any{d}}
}

const searchCaseDoc = `
Case: Inputs[0] []int32 data, Params[0] the target, Block threads per block
(default 256, the seed's); one launch of ceil(n/Block) blocks.`

var parallelSearch = register(&Kernel{
	Name: "parallel_search",
	Doc: `parallel_search: the smallest index of a target in int32 data, by atomicMin (seed 001).

The seed's kernel: found_idx is initialised to n on the host, every thread
whose element matches does atomicMin(found_idx, idx). Result: []int32{the
first matching index, or n if the target does not occur}.` + searchCaseDoc,
	Seed:  "001",
	Funcs: []any{ParallelSearch},
	Run: func(b Backend, c Case) (Result, error) {
		d := c.Inputs[0].([]int32)
		block := orDefault(c.Block, 256)
		return launchOnce(b, ParallelSearch, sim.Dim(cover(len(d), block)), sim.Dim(block), 0,
			[]devBuf{input(d), inOut([]int32{int32(len(d))})}, searchTarget(c), int32(len(d)))
	},
	Reference: func(c Case) Result {
		d := c.Inputs[0].([]int32)
		i := slices.Index(d, searchTarget(c))
		if i < 0 {
			i = len(d)
		}
		return Result{[]int32{int32(i)}}
	},
	Generate: genSearch,
	SeedN:    2_000_000,
})

var parallelSearchBlocks = register(&Kernel{
	Name: "parallel_search_blocks",
	Doc: `parallel_search_blocks: each block's first match of a target in int32 data, as a local index or -1 (seed 001).

The per-block results the seed merges on the host: every block finds its
first match with atomicMin on a shared int and writes it, as an offset from
the block's first element, to block_hits[blockIdx.x], or -1 for none.
MergeHits turns them into global indices. Result: []int32 block_hits, one per
block.` + searchCaseDoc,
	Seed:  "001",
	Funcs: []any{ParallelSearchBlocks},
	Run: func(b Backend, c Case) (Result, error) {
		d := c.Inputs[0].([]int32)
		block := orDefault(c.Block, 256)
		grid := cover(len(d), block)
		return launchOnce(b, ParallelSearchBlocks, sim.Dim(grid), sim.Dim(block), 0,
			[]devBuf{input(d), output[int32](grid)}, searchTarget(c), int32(len(d)))
	},
	Reference: func(c Case) Result {
		d := c.Inputs[0].([]int32)
		block := orDefault(c.Block, 256)
		hits := make([]int32, cover(len(d), block))
		for b := range hits {
			seg := d[b*block : min((b+1)*block, len(d))]
			hits[b] = int32(slices.Index(seg, searchTarget(c)))
		}
		return Result{hits}
	},
	Generate: genSearch,
	SeedN:    2_000_000,
})
