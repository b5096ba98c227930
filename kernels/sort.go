package kernels

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/gpusim/gpusim/sim"
)

// Bitonic sorts of float32 from seed 001. The seed's bitonic_step does one
// compare-exchange step of the network, one thread per element, and the host
// launches it for every (k, j) pair; it needs a power-of-two n.
//
//   - bitonic_sort is the seed's kernel, unchanged, under a host loop that
//     runs j from k/2 down to 1.
//   - bitonic_sort_seed_faulty is the seed's own host loop, which runs j from
//     k down to 1: at the last stage (k = n) the j = k step pairs every idx
//     with idx ^ n = idx + n, past the end of the array. The detectors report
//     the out-of-bounds read.
//   - bitonic_sort_any accepts any n: every comparator puts the smaller key at
//     the lower index (the first step of stage k compares i with i ^ (k-1),
//     the mirror of i in its k-block, instead of flipping the direction by
//     i & k), so a partner at or beyond n stands for a +max padding element
//     that no comparator would move, and the guard the seed lacks (partner <
//     n) is exactly the padded network.
//   - bitonic_sort_shared runs the same network with every step whose
//     partner distance is below 2*blockDim.x inside one block launch over a
//     shared-memory tile of 2*blockDim.x elements, one thread per pair.
//   - bitonic_segments_merged sorts each tile on the device and merges the
//     sorted tiles on the host with MergeK (the seed's segmented sort).
//
// # NaN and signed zeros
//
// bitonic_sort keeps the seed's float comparisons (>, <). They are false
// whenever a NaN is involved, so a NaN never moves a pair and the output is
// a permutation of the input that is not sorted where NaNs are present; -0
// and +0 compare equal, so they come out in whatever order the network leaves
// them. Its reference replays the network, so it matches the kernel bit for
// bit on any input; on NaN-free input that is the sorted order.
//
// The other bitonic kernels sort by CompareF32, a total order on float32
// bits: -Inf < ... < -0 < +0 < ... < +Inf < every NaN, NaNs of either sign
// last, ordered among themselves by their bits as unsigned integers
// (0x7fc00000 before 0xffc00000). No two different bit patterns tie, so the
// sorted output is unique and equals slices.SortFunc(x, CompareF32) bit for
// bit.

// f32Key maps x to an integer whose unsigned order is CompareF32's: a
// non-NaN value's bits with the sign bit set (positive) or all bits flipped
// (negative), which orders -Inf..-0 below +0..+Inf in 32 bits; a NaN
// (exponent all ones, fraction non-zero) gets bit 32 set above them, its own
// bits below.
func f32Key(x float32) uint64 {
	u := math.Float32bits(x)
	if u&0x7fffffff > 0x7f800000 {
		return 1<<32 | uint64(u)
	}
	if u>>31 != 0 {
		return uint64(^u)
	}
	return uint64(u | 1<<31)
}

// f32Before reports whether a sorts strictly before b under CompareF32.
func f32Before(a, b float32) bool { return f32Key(a) < f32Key(b) }

// CompareF32 is the total order the bitonic kernels other than the seed's
// sort by (see the NaN policy above): -Inf < ... < -0 < +0 < ... < +Inf <
// NaNs, NaNs ordered by their bits as unsigned integers. It returns -1, 0 or
// +1 as cmp.Compare does, and 0 only for identical bits.
func CompareF32(a, b float32) int { return cmp.Compare(f32Key(a), f32Key(b)) }

// ---- the seed's kernel ----

// BitonicStep is seed 001's
//
//	__global__ void bitonic_step(float *data, int j, int k, int n) {
//	    unsigned int idx = threadIdx.x + blockDim.x * blockIdx.x;
//	    if (idx >= n) return;
//	    unsigned int ixj = idx ^ j;
//	    if (ixj > idx) {
//	        if ((idx & k) == 0) { if (data[idx] > data[ixj]) swap(data[idx], data[ixj]); }
//	        else                { if (data[idx] < data[ixj]) swap(data[idx], data[ixj]); }
//	    }
//	}
//
// one compare-exchange step of the bitonic network: the pair (idx, idx ^ j)
// is put in ascending order where idx & k is 0, descending elsewhere. Only n
// a power of two and j < k keep ixj inside the array. The seed's swap loads
// both elements again; here they are read once into a and b (no other thread
// touches them in this launch, so the values are the same).
func BitonicStep(data *sim.Buffer[float32], j, k, n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := uint32(t.ThreadIdx.X + t.BlockDim.X*t.BlockIdx.X)
		if idx >= uint32(n) {
			return
		}
		ixj := idx ^ uint32(j)
		if ixj > idx {
			a := data.Load(t, int(idx))
			b := data.Load(t, int(ixj))
			if idx&uint32(k) == 0 {
				if a > b {
					data.Store(t, int(idx), b)
					data.Store(t, int(ixj), a)
				}
			} else {
				if a < b {
					data.Store(t, int(idx), b)
					data.Store(t, int(ixj), a)
				}
			}
		}
	}
}

// log2Floor is int(np.log2(n)) for n >= 1, the seed's stage count.
func log2Floor(n int) int { return bits.Len(uint(n)) - 1 }

// nextPow2 is the smallest power of two >= n (1 for n <= 1).
func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// bitonicSeedLoop is the seed's gpu_bitonic_sort host loop,
//
//	for k in [2**i for i in range(1, int(np.log2(n)) + 1)]:
//	    for j in [2**i for i in range(int(np.log2(k)), -1, -1)]:
//	        bitonic_step(arr_gpu, np.int32(j), np.int32(k), np.int32(n), block=(T,1,1), grid=(ceil(n/T),1))
//
// with j from k (fromK) as the seed writes it, or from k/2 (the fix).
func bitonicSeedLoop(b Backend, data Mem, n, block int, fromK bool) error {
	grid := cover(n, block)
	for s := 1; s <= log2Floor(max(n, 1)); s++ {
		k := 1 << s
		j := k / 2
		if fromK {
			j = k
		}
		for ; j > 0; j /= 2 {
			if err := b.Launch(BitonicStep, sim.Dim(grid), sim.Dim(block), 0, data, int32(j), int32(k), int32(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// bitonicSeedReference replays bitonic_sort's network on the CPU with the
// kernel's comparisons, so that it agrees with the kernel on NaNs and signed
// zeros too.
func bitonicSeedReference(in []float32) []float32 {
	d := slices.Clone(in)
	n := len(d)
	for k := 2; k <= n; k *= 2 {
		for j := k / 2; j > 0; j /= 2 {
			for idx := range n {
				ixj := idx ^ j
				if ixj <= idx {
					continue
				}
				if a, b := d[idx], d[ixj]; (idx&k == 0 && a > b) || (idx&k != 0 && a < b) {
					d[idx], d[ixj] = b, a
				}
			}
		}
	}
	return d
}

// ---- any n: the guarded network ----

// BitonicStepAny is bitonic_step for any n: one thread per element, each
// pair (idx, p) with p > idx put in CompareF32 order, smaller at idx. The
// partner p is idx ^ (k-1) in the first step of stage k (j = k/2), the
// mirror of idx in its k-block, and idx ^ j in the later steps. A partner at
// or beyond n is skipped: it stands for a padding element greater than any
// key, which the all-ascending network would never move.
//
//	__global__ void bitonic_step_any(float *data, int j, int k, int n) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx >= n) return;
//	    int p = idx ^ (2 * j == k ? k - 1 : j);
//	    if (p > idx && p < n && before(data[p], data[idx])) swap(data[idx], data[p]);
//	}
func BitonicStepAny(data *sim.Buffer[float32], j, k, n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx >= n {
			return
		}
		mask := j
		if 2*j == k {
			mask = k - 1
		}
		p := idx ^ mask
		if p > idx && p < n {
			a := data.Load(t, idx)
			b := data.Load(t, p)
			if f32Before(b, a) {
				data.Store(t, idx, b)
				data.Store(t, p, a)
			}
		}
	}
}

// bitonicAnyLoop sorts data[0:n] with BitonicStepAny alone: stages k = 2,
// 4, ..., nextPow2(n), steps j = k/2 down to 1, one launch each.
func bitonicAnyLoop(b Backend, data Mem, n, block int) error {
	grid := cover(n, block)
	for k := 2; k <= nextPow2(n); k *= 2 {
		for j := k / 2; j > 0; j /= 2 {
			if err := b.Launch(BitonicStepAny, sim.Dim(grid), sim.Dim(block), 0, data, int32(j), int32(k), int32(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- shared-memory variant ----

// compareExchangeShared puts s[lo] and s[hi] of a tile in CompareF32 order
// (smaller at lo) when hi is a real element, base+hi < n.
func compareExchangeShared(t *sim.Thread, s *sim.Buffer[float32], lo, hi, base, n int) {
	if base+hi < n {
		a := s.Load(t, lo)
		b := s.Load(t, hi)
		if f32Before(b, a) {
			s.Store(t, lo, b)
			s.Store(t, hi, a)
		}
	}
}

// BitonicSortShared sorts each tile of 2*blockDim.x elements (block b's is
// data[2*blockDim.x*b:], cut at n) in one launch: the tile is loaded into
// dynamic shared memory s (2*blockDim.x floats), the whole network up to k
// = 2*blockDim.x runs there, one thread per compare-exchange pair and a
// barrier after every step, and the tile is stored back.
//
// Thread tid's pair in step j is lo = 2j*(tid/j) + tid%j and lo + j, or the
// mirror lo ^ (k-1) in the first step of stage k. Pairs whose upper element
// lies at or beyond n are skipped, as in BitonicStepAny.
func BitonicSortShared(data *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "s")
		tid := t.ThreadIdx.X
		T := t.BlockDim.X
		base := 2 * T * t.BlockIdx.X
		if base+tid < n {
			s.Store(t, tid, data.Load(t, base+tid))
		}
		if base+T+tid < n {
			s.Store(t, T+tid, data.Load(t, base+T+tid))
		}
		t.SyncThreads()
		for k := 2; k <= 2*T; k *= 2 {
			for j := k / 2; j > 0; j /= 2 {
				lo := 2*j*(tid/j) + tid%j
				hi := lo + j
				if 2*j == k {
					hi = lo ^ (k - 1)
				}
				compareExchangeShared(t, s, lo, hi, base, n)
				t.SyncThreads()
			}
		}
		if base+tid < n {
			data.Store(t, base+tid, s.Load(t, tid))
		}
		if base+T+tid < n {
			data.Store(t, base+T+tid, s.Load(t, T+tid))
		}
	}
}

// BitonicMergeShared finishes a stage k > 2*blockDim.x after its global
// steps down to j = 2*blockDim.x: the remaining steps j = blockDim.x, ...,
// 1 pair elements inside one tile of 2*blockDim.x, so each block loads its
// tile into dynamic shared memory s, runs them there with a barrier after
// each, and stores it back. Every one of these steps is ascending (the
// mirror step is the stage's first), so the kernel needs no k.
func BitonicMergeShared(data *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "s")
		tid := t.ThreadIdx.X
		T := t.BlockDim.X
		base := 2 * T * t.BlockIdx.X
		if base+tid < n {
			s.Store(t, tid, data.Load(t, base+tid))
		}
		if base+T+tid < n {
			s.Store(t, T+tid, data.Load(t, base+T+tid))
		}
		t.SyncThreads()
		for j := T; j > 0; j /= 2 {
			lo := 2*j*(tid/j) + tid%j
			compareExchangeShared(t, s, lo, lo+j, base, n)
			t.SyncThreads()
		}
		if base+tid < n {
			data.Store(t, base+tid, s.Load(t, tid))
		}
		if base+T+tid < n {
			data.Store(t, base+T+tid, s.Load(t, T+tid))
		}
	}
}

// bitonicSharedLoop sorts data[0:n] with tiles of 2*block elements: one
// BitonicSortShared launch, then for each stage k = 4*block, ...,
// nextPow2(n) the global steps j = k/2 down to 2*block (BitonicStepAny) and
// one BitonicMergeShared launch for the rest.
func bitonicSharedLoop(b Backend, data Mem, n, block int) error {
	tile := 2 * block
	tiles, sh := cover(n, tile), tile*4
	if err := b.Launch(BitonicSortShared, sim.Dim(tiles), sim.Dim(block), sh, data, int32(n)); err != nil {
		return err
	}
	for k := 2 * tile; k <= nextPow2(n); k *= 2 {
		for j := k / 2; j >= tile; j /= 2 {
			if err := b.Launch(BitonicStepAny, sim.Dim(cover(n, block)), sim.Dim(block), 0, data, int32(j), int32(k), int32(n)); err != nil {
				return err
			}
		}
		if err := b.Launch(BitonicMergeShared, sim.Dim(tiles), sim.Dim(block), sh, data, int32(n)); err != nil {
			return err
		}
	}
	return nil
}

// sortF32Reference is the any-n kernels' result: slices.SortFunc by
// CompareF32.
func sortF32Reference(c Case) Result {
	d := slices.Clone(f32s(c, 0))
	slices.SortFunc(d, CompareF32)
	return Result{d}
}

// ---- generators ----

// randSortF32s draws n float32 keys for a sort: randF32's IEEE corners
// (signed zeros, subnormals, large magnitudes), about a quarter of them
// repeats of an earlier key, and, with nans, also infinities and NaNs of
// either sign with random payloads.
func randSortF32s(r *rand.Rand, n int, nans bool) []float32 {
	d := make([]float32, n)
	for i := range d {
		switch k := r.IntN(16); {
		case i > 0 && k < 4:
			d[i] = d[r.IntN(i)]
		case nans && k == 4:
			d[i] = float32(math.Inf(1 - 2*r.IntN(2)))
		case nans && k == 5:
			d[i] = math.Float32frombits(uint32(r.IntN(2))<<31 | 0x7f800000 | uint32(1+r.IntN(1<<23-1)))
		default:
			d[i] = randF32(r, 1, 1e30)
		}
	}
	return d
}

// pow2Floor is the largest power of two <= n (1 for n <= 1).
func pow2Floor(n int) int { return 1 << log2Floor(max(n, 1)) }

// ---- registry ----

const bitonicCaseDoc = `
Case: Inputs[0] []float32 of N keys, Block threads per block (default 256,
the seed's threads_per_block); Result: the sorted []float32.`

var bitonicSort = register(&Kernel{
	Name: "bitonic_sort",
	Doc: `bitonic_sort: seed 001's bitonic_step launched for every (k, j) pair, float32, power-of-two n.

The seed's kernel unchanged (one thread per element, direction by idx & k),
under the seed's host loop with j running from k/2 down to 1 (the seed starts
at k, which reads past the array: see bitonic_sort_seed_faulty). n =
2^L takes L(L+1)/2 launches. Comparisons are the seed's > and <: NaN-free
input comes out sorted; with NaNs the output is a permutation of the input,
not sorted, and the reference, a replay of the network, says which.` + bitonicCaseDoc,
	Seed:  "001",
	Funcs: []any{BitonicStep},
	Run: func(b Backend, c Case) (Result, error) {
		n := c.N
		if n&(n-1) != 0 {
			return nil, fmt.Errorf("bitonic_sort: n = %d is not a power of two", n)
		}
		if n == 0 {
			return Result{[]float32{}}, nil
		}
		block := orDefault(c.Block, 256)
		return runBuffers(b, []devBuf{inOut(f32s(c, 0))}, func(m []Mem) error {
			return bitonicSeedLoop(b, m[0], n, block, false)
		})
	},
	Reference: func(c Case) Result { return Result{bitonicSeedReference(f32s(c, 0))} },
	// Generate makes the largest power of two <= n keys, without NaNs.
	Generate: func(r *rand.Rand, n, block int) Case {
		n = pow2Floor(n)
		return Case{N: n, Block: block, Inputs: []any{randSortF32s(r, n, false)}}
	},
	SeedN: 1 << 15,
})

var bitonicSortSeedFaulty = register(faulty(&Kernel{
	Name: "bitonic_sort_seed_faulty",
	Doc: `Faulty: seed 001's bitonic sort with the seed's own host loop, which reads past the end of the array.

The seed's loop runs j over [2**i for i in range(int(np.log2(k)), -1, -1)],
from k down to 1. A j = k step is harmless for k < n (it compares two
k-blocks elementwise, ascending, which leaves each bitonic), but at the last
stage, k = n, every idx pairs with ixj = idx ^ n = idx + n >= n, and the
kernel, whose guard checks idx only, reads data[ixj] past the end (and on a
GPU may swap a value from beyond the allocation into the array). The
detectors report it as an out-of-bounds read. For n = 2^L the loop makes
L(L+3)/2 launches; on the simulator the first launch of the last stage is
reported and the driver stops there.` + bitonicCaseDoc,
	Seed:      "001",
	Funcs:     []any{BitonicStep},
	Run:       func(b Backend, c Case) (Result, error) { return runBitonicSeedFaulty(b, c) },
	Reference: sortF32Reference,
	// Generate makes the largest power of two <= n keys, and at least 2
	// (n = 1 has no stage, so nothing to report).
	Generate: func(r *rand.Rand, n, block int) Case {
		n = max(2, pow2Floor(n))
		return Case{N: n, Block: block, Inputs: []any{randSortF32s(r, n, false)}}
	},
}, "bitonic_sort", sim.OutOfBounds))

func runBitonicSeedFaulty(b Backend, c Case) (Result, error) {
	block := orDefault(c.Block, 256)
	return runBuffers(b, []devBuf{inOut(f32s(c, 0))}, func(m []Mem) error {
		return bitonicSeedLoop(b, m[0], c.N, block, true)
	})
}

var bitonicSortAny = register(&Kernel{
	Name: "bitonic_sort_any",
	Doc: `bitonic_sort_any: bitonic sort of float32 for any n, the seed's step with the guard it lacks.

One launch per (k, j) pair over k = 2 .. nextPow2(n), as in bitonic_sort, of
bitonic_step_any: all comparators ascending (the first step of stage k
compares i with its mirror i ^ (k-1)), and a partner at or beyond n skipped,
which is the network on the input padded to a power of two with keys greater
than every key. L = ceil(log2 n) gives L(L+1)/2 launches. Keys sort by
CompareF32 (NaNs last, -0 before +0), so the result equals
slices.SortFunc(keys, CompareF32) bit for bit.` + bitonicCaseDoc,
	Seed:  "001",
	Funcs: []any{BitonicStepAny},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		if c.N == 0 {
			return Result{[]float32{}}, nil
		}
		return runBuffers(b, []devBuf{inOut(f32s(c, 0))}, func(m []Mem) error {
			return bitonicAnyLoop(b, m[0], c.N, block)
		})
	},
	Reference: sortF32Reference,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randSortF32s(r, n, true)}}
	},
	SeedN: 1 << 15,
})

var bitonicSortShared = register(&Kernel{
	Name: "bitonic_sort_shared",
	Doc: `bitonic_sort_shared: bitonic sort of float32 for any n, every short step inside one shared-memory launch.

Tiles of 2T elements for T threads per block (a power of two, default 256),
2T floats of dynamic shared memory. bitonic_sort_shared runs every stage up
to k = 2T in one launch; each later stage k runs its steps j = k/2 .. 2T as
bitonic_step_any launches and the rest (j = T .. 1) in one bitonic_merge_shared
launch. With L = ceil(log2 n) and t = log2(2T), that is 1 + (L-t)(L-t+3)/2
launches for L > t, and 1 otherwise. Same order and guard as bitonic_sort_any.` + bitonicCaseDoc,
	Seed:  "001",
	Funcs: []any{BitonicSortShared, BitonicStepAny, BitonicMergeShared},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		if c.N == 0 {
			return Result{[]float32{}}, nil
		}
		return runBuffers(b, []devBuf{inOut(f32s(c, 0))}, func(m []Mem) error {
			return bitonicSharedLoop(b, m[0], c.N, block)
		})
	},
	Reference: sortF32Reference,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randSortF32s(r, n, true)}}
	},
	Blocks: pow2Blocks,
	SeedN:  1 << 15,
})

var bitonicSegmentsMerged = register(&Kernel{
	Name: "bitonic_segments_merged",
	Doc: `bitonic_segments_merged: sort tiles of float32 on the device, merge the sorted tiles on the host (k-way, container/heap).

Seed 001's "merging sorted segments": one bitonic_sort_shared launch sorts
each tile of 2T elements (T threads per block, a power of two, default 256),
the host reads them back and merges the ceil(n/2T) sorted tiles with MergeK
under CompareF32. One launch for any n.` + bitonicCaseDoc,
	Seed:  "001",
	Funcs: []any{BitonicSortShared},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		n := c.N
		if n == 0 {
			return Result{[]float32{}}, nil
		}
		res, err := runBuffers(b, []devBuf{inOut(f32s(c, 0))}, func(m []Mem) error {
			return b.Launch(BitonicSortShared, sim.Dim(cover(n, 2*block)), sim.Dim(block), 2*block*4, m[0], int32(n))
		})
		if err != nil {
			return res, err
		}
		return Result{MergeK(Segments(res[0].([]float32), 2*block), CompareF32)}, nil
	},
	Reference: sortF32Reference,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randSortF32s(r, n, true)}}
	},
	Blocks: pow2Blocks,
	SeedN:  1 << 15,
})
