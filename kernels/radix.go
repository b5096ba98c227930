package kernels

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpusim/gpusim/sim"
)

// LSD radix sort of int32 and uint32 keys, seed 001's cp.sort of 2^20 int32
// written out as kernels. Each pass sorts stably by one radixBits-bit digit,
// least significant first, in three launches:
//
//  1. RadixHistogram: each block counts the digits of its tile of
//     blockDim.x*radixItems keys in a shared histogram (atomicAdd, as seed
//     000's histogram) and writes it to counts[d*gridDim.x + blockIdx.x],
//     digit-major.
//  2. RadixScan: one block scans counts in place, exclusive. Digit-major
//     order makes counts[d*blocks + b] the number of keys that go before
//     block b's first key of digit d: all keys of smaller digits, then
//     those of digit d in earlier blocks.
//  3. RadixScatter (or RadixScatterPairs, which moves an int32 value with
//     each key): each thread takes radixItems consecutive keys of its
//     block's tile and counts their digits; a barrier; thread d < 16 turns
//     row d of those counts into each thread's start for digit d (an
//     exclusive scan over the block's threads, in thread order, from the
//     block's offset); a barrier; each thread writes its keys in order to
//     its starts. Keys of one digit keep their order within a thread, across
//     threads and across blocks, so the pass is stable, and so is the sort.
//
// int32 keys are sorted by their bits with the sign bit flipped (radixKey),
// which orders them as signed integers: MinInt32 first.
//
// The passes alternate between the key buffer and a scratch buffer;
// radixPasses is even, so the sorted keys end where they started.

const (
	radixBits    = 4
	radixDigits  = 1 << radixBits  // digit values per pass
	radixPasses  = 32 / radixBits  // passes over a 32-bit key
	radixItems   = 8               // keys per thread in a tile
	radixMaxTPB  = 512             // largest block of RadixScatter (its s_rank)
	radixScanTB  = 256             // RadixScan's block: threads and s_scan's half
	radixDefTPB  = 256             // default threads per block
	radixSignBit = uint32(1) << 31 // int32's sign bit
)

// radixBlocks are RadixHistogram's and RadixScatter's legal block sizes:
// multiples of 32 of at least radixDigits threads, up to radixMaxTPB.
var radixBlocks = []int{32, 64, 96, 128, 256, 384, 512}

// isSigned reports whether K is a signed integer type: K's zero minus one
// is below zero only then (for uint32 it wraps to MaxUint32).
func isSigned[K int32 | uint32]() bool {
	var zero K
	return zero-1 < zero
}

// radixKey is k's bits in an order in which unsigned comparison sorts as K
// does: unchanged for uint32, the sign bit flipped for int32 (MinInt32 is
// 0, -1 is 0x7fffffff, 0 is 0x80000000).
func radixKey[K int32 | uint32](k K) uint32 {
	u := uint32(k)
	if isSigned[K]() {
		u ^= radixSignBit
	}
	return u
}

// radixDigit is the pass's digit of k: radixBits bits of radixKey(k) from
// bit shift.
func radixDigit[K int32 | uint32](k K, shift int) int {
	return int(radixKey(k)>>shift) & (radixDigits - 1)
}

// RadixHistogram counts the digits (radixDigit(key, shift)) of block b's
// tile keys[b*tile : (b+1)*tile], tile = blockDim.x*radixItems, cut at n,
// into a shared s_hist with atomicAdd, and writes s_hist[d] to
// counts[d*gridDim.x + b]. Threads read the tile with stride blockDim.x
// (coalesced); the counts do not depend on who reads which key.
//
//	__global__ void RadixHistogram_int32(const int *keys, unsigned *counts, int n, int shift)
func RadixHistogram[K int32 | uint32](keys *sim.Buffer[K], counts *sim.Buffer[uint32], n, shift int) sim.Kernel {
	return func(t *sim.Thread) {
		s_hist := sim.Shared[uint32](t, "s_hist", radixDigits)
		tid := t.ThreadIdx.X
		if tid < radixDigits {
			s_hist.Store(t, tid, 0)
		}
		t.SyncThreads()
		base := t.BlockIdx.X * t.BlockDim.X * radixItems
		for i := 0; i < radixItems; i++ {
			idx := base + i*t.BlockDim.X + tid
			if idx < n {
				sim.AtomicAdd(t, s_hist, radixDigit(keys.Load(t, idx), shift), 1)
			}
		}
		t.SyncThreads()
		if tid < radixDigits {
			counts.Store(t, tid*t.GridDim.X+t.BlockIdx.X, s_hist.Load(t, tid))
		}
	}
}

// RadixScan replaces counts[0:m] by its exclusive prefix sums, in one block
// of at most radixScanTB threads: chunk after chunk of blockDim.x elements,
// a double-buffered Hillis-Steele scan of the chunk in s_scan (seed 004's
// scan), plus the running total of the chunks before it.
//
//	__global__ void RadixScan(unsigned *counts, int m)
func RadixScan(counts *sim.Buffer[uint32], m int) sim.Kernel {
	return func(t *sim.Thread) {
		s_scan := sim.Shared[uint32](t, "s_scan", 2*radixScanTB)
		tid := t.ThreadIdx.X
		T := t.BlockDim.X
		var carry uint32
		for base := 0; base < m; base += T {
			var x uint32
			if base+tid < m {
				x = counts.Load(t, base+tid)
			}
			s_scan.Store(t, tid, x)
			t.SyncThreads()
			p := 0
			for stride := 1; stride < T; stride *= 2 {
				v := s_scan.Load(t, p*radixScanTB+tid)
				if tid >= stride {
					v += s_scan.Load(t, p*radixScanTB+tid-stride)
				}
				s_scan.Store(t, (1-p)*radixScanTB+tid, v)
				p = 1 - p
				t.SyncThreads()
			}
			if base+tid < m {
				counts.Store(t, base+tid, carry+s_scan.Load(t, p*radixScanTB+tid)-x)
			}
			carry += s_scan.Load(t, p*radixScanTB+T-1)
			// Everyone has read this chunk's total before the next chunk
			// overwrites s_scan.
			t.SyncThreads()
		}
	}
}

// RadixScatter moves keysIn to keysOut by the pass's digit, stably, block b
// handling the tile RadixHistogram counted: thread tid owns the radixItems
// consecutive keys from (b*blockDim.x + tid)*radixItems. It counts their
// digits, stores the counts to s_rank[d*blockDim.x + tid], and after a
// barrier thread d < radixDigits scans row d in place, exclusive, starting
// from offsets[d*gridDim.x + b] (RadixScan's output): s_rank[d*blockDim.x +
// u] becomes where thread u's first key of digit d goes. After a second
// barrier each thread writes its keys in order, advancing its start for
// each digit. blockDim.x <= radixMaxTPB.
//
//	__global__ void RadixScatter_int32(const int *keysIn, int *keysOut, const unsigned *offsets, int n, int shift)
func RadixScatter[K int32 | uint32](keysIn, keysOut *sim.Buffer[K], offsets *sim.Buffer[uint32], n, shift int) sim.Kernel {
	return func(t *sim.Thread) {
		s_rank := sim.Shared[uint32](t, "s_rank", radixDigits*radixMaxTPB)
		tid := t.ThreadIdx.X
		T := t.BlockDim.X
		first := (t.BlockIdx.X*T + tid) * radixItems
		var cnt [radixDigits]uint32
		for i := 0; i < radixItems; i++ {
			if first+i < n {
				cnt[radixDigit(keysIn.Load(t, first+i), shift)]++
			}
		}
		for d := 0; d < radixDigits; d++ {
			s_rank.Store(t, d*T+tid, cnt[d])
		}
		t.SyncThreads()
		if tid < radixDigits {
			run := offsets.Load(t, tid*t.GridDim.X+t.BlockIdx.X)
			for u := 0; u < T; u++ {
				c := s_rank.Load(t, tid*T+u)
				s_rank.Store(t, tid*T+u, run)
				run += c
			}
		}
		t.SyncThreads()
		var pos [radixDigits]uint32
		for d := 0; d < radixDigits; d++ {
			if cnt[d] > 0 {
				pos[d] = s_rank.Load(t, d*T+tid)
			}
		}
		for i := 0; i < radixItems; i++ {
			if first+i < n {
				k := keysIn.Load(t, first+i)
				d := radixDigit(k, shift)
				keysOut.Store(t, int(pos[d]), k)
				pos[d]++
			}
		}
	}
}

// RadixScatterPairs is RadixScatter moving valsIn[i] to valsOut with
// keysIn[i]: the key-value pass, which carries each key's original index
// along when vals starts as 0, 1, ..., n-1.
//
//	__global__ void RadixScatterPairs_int32(const int *keysIn, int *keysOut, const int *valsIn, int *valsOut,
//	                                        const unsigned *offsets, int n, int shift)
func RadixScatterPairs[K int32 | uint32](keysIn, keysOut *sim.Buffer[K], valsIn, valsOut *sim.Buffer[int32], offsets *sim.Buffer[uint32], n, shift int) sim.Kernel {
	return func(t *sim.Thread) {
		s_rank := sim.Shared[uint32](t, "s_rank", radixDigits*radixMaxTPB)
		tid := t.ThreadIdx.X
		T := t.BlockDim.X
		first := (t.BlockIdx.X*T + tid) * radixItems
		var cnt [radixDigits]uint32
		for i := 0; i < radixItems; i++ {
			if first+i < n {
				cnt[radixDigit(keysIn.Load(t, first+i), shift)]++
			}
		}
		for d := 0; d < radixDigits; d++ {
			s_rank.Store(t, d*T+tid, cnt[d])
		}
		t.SyncThreads()
		if tid < radixDigits {
			run := offsets.Load(t, tid*t.GridDim.X+t.BlockIdx.X)
			for u := 0; u < T; u++ {
				c := s_rank.Load(t, tid*T+u)
				s_rank.Store(t, tid*T+u, run)
				run += c
			}
		}
		t.SyncThreads()
		var pos [radixDigits]uint32
		for d := 0; d < radixDigits; d++ {
			if cnt[d] > 0 {
				pos[d] = s_rank.Load(t, d*T+tid)
			}
		}
		for i := 0; i < radixItems; i++ {
			if first+i < n {
				k := keysIn.Load(t, first+i)
				d := radixDigit(k, shift)
				keysOut.Store(t, int(pos[d]), k)
				valsOut.Store(t, int(pos[d]), valsIn.Load(t, first+i))
				pos[d]++
			}
		}
	}
}

// radixSortLoop sorts keys[0:n] (with vals, when non-nil) in radixPasses
// passes of three launches, hist (RadixHistogram[K]), RadixScan and scatter
// (RadixScatter[K], or RadixScatterPairs[K] with vals), ping-ponging with
// keysTmp (and valsTmp); the result ends in keys (and vals). The kernels
// come as the registry entry's instances, named in non-generic code, which
// is where the translator and the twins' registry find them.
func radixSortLoop(b Backend, hist, scatter any, keys, keysTmp, vals, valsTmp, counts Mem, n, block int) error {
	grid := cover(n, block*radixItems)
	m := radixDigits * grid
	for pass := 0; pass < radixPasses; pass++ {
		shift := int32(pass * radixBits)
		if err := b.Launch(hist, sim.Dim(grid), sim.Dim(block), 0, keys, counts, int32(n), shift); err != nil {
			return err
		}
		if err := b.Launch(RadixScan, sim.Dim(1), sim.Dim(radixScanTB), 0, counts, int32(m)); err != nil {
			return err
		}
		var err error
		if vals == nil {
			err = b.Launch(scatter, sim.Dim(grid), sim.Dim(block), 0, keys, keysTmp, counts, int32(n), shift)
		} else {
			err = b.Launch(scatter, sim.Dim(grid), sim.Dim(block), 0, keys, keysTmp, vals, valsTmp, counts, int32(n), shift)
			vals, valsTmp = valsTmp, vals
		}
		if err != nil {
			return err
		}
		keys, keysTmp = keysTmp, keys
	}
	return nil
}

// runRadix is the radix_sort drivers' body: Inputs[0] the keys, and for
// pairs Inputs[1] the int32 values; the Result is the sorted keys (and the
// values in the same order).
func runRadix[K int32 | uint32](b Backend, c Case, hist, scatter any, pairs bool) (Result, error) {
	keys := c.Inputs[0].([]K)
	n := len(keys)
	if n == 0 {
		if pairs {
			return Result{[]K{}, []int32{}}, nil
		}
		return Result{[]K{}}, nil
	}
	block := orDefault(c.Block, radixDefTPB)
	counts := scratch[uint32](radixDigits * cover(n, block*radixItems))
	if !pairs {
		return runBuffers(b, []devBuf{inOut(keys), scratch[K](n), counts}, func(m []Mem) error {
			return radixSortLoop(b, hist, scatter, m[0], m[1], nil, nil, m[2], n, block)
		})
	}
	vals := c.Inputs[1].([]int32)
	return runBuffers(b, []devBuf{inOut(keys), scratch[K](n), inOut(vals), scratch[int32](n), counts}, func(m []Mem) error {
		return radixSortLoop(b, hist, scatter, m[0], m[1], m[2], m[3], m[4], n, block)
	})
}

// radixReference sorts the keys (and the values with them) with
// slices.SortStableFunc, which is what a stable radix sort must give.
func radixReference[K int32 | uint32](c Case, pairs bool) Result {
	keys := c.Inputs[0].([]K)
	if !pairs {
		out := slices.Clone(keys)
		slices.SortStableFunc(out, cmp.Compare[K])
		return Result{out}
	}
	vals := c.Inputs[1].([]int32)
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	k, v := make([]K, len(keys)), make([]int32, len(keys))
	for i, j := range idx {
		k[i], v[i] = keys[j], vals[j]
	}
	return Result{k, v}
}

// randRadixKeys draws n keys: about a quarter repeats of earlier keys, some
// extremes (0, the type's minimum and maximum, -1), small values of either
// sign, and the rest uniform over all 32 bits.
func randRadixKeys[K int32 | uint32](r *rand.Rand, n int) []K {
	d := make([]K, n)
	for i := range d {
		switch k := r.IntN(16); {
		case i > 0 && k < 4:
			d[i] = d[r.IntN(i)]
		case k == 4:
			d[i] = K([]uint32{0, 1, 1 << 31, 1<<31 - 1, math.MaxUint32}[r.IntN(5)])
		case k < 8:
			d[i] = K(int32(r.IntN(201) - 100))
		default:
			d[i] = K(r.Uint32())
		}
	}
	return d
}

// iota32 is 0, 1, ..., n-1: the values of a key-value sort that carries
// indices.
func iota32(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

const radixCaseDoc = `
Launches: per pass, RadixHistogram and RadixScatter over ceil(n / (T*8))
blocks of T threads (default 256; T <= 512), each thread taking 8 keys, and
RadixScan in one block of 256; 8 passes of 4 bits, 24 launches for any n.`

// radixKernel is a radix sort's registry entry, sorting keys of K with the
// instances hist (RadixHistogram[K]) and scatter (RadixScatter[K], or
// RadixScatterPairs[K] for pairs).
func radixKernel[K int32 | uint32](name, doc string, hist, scatter any, pairs bool) *Kernel {
	return &Kernel{
		Name:      name,
		Doc:       doc + radixCaseDoc,
		Seed:      "001",
		Funcs:     []any{hist, RadixScan, scatter},
		Run:       func(b Backend, c Case) (Result, error) { return runRadix[K](b, c, hist, scatter, pairs) },
		Reference: func(c Case) Result { return radixReference[K](c, pairs) },
		Generate: func(r *rand.Rand, n, block int) Case {
			in := []any{randRadixKeys[K](r, n)}
			if pairs {
				in = append(in, iota32(n))
			}
			return Case{N: n, Block: block, Inputs: in}
		},
		Blocks: radixBlocks,
		SeedN:  1 << 20,
	}
}

var radixSortInt32 = register(radixKernel[int32]("radix_sort_int32",
	`radix_sort_int32: stable LSD radix sort of int32, 4 bits per pass (seed 001's cp.sort of 2^20 int32).

Per pass: per-block digit histograms, one exclusive scan over blocks, a
stable scatter. Negative keys sort first (the sign bit is flipped for the
digits). Case: Inputs[0] []int32 keys; Result: the sorted keys.`,
	RadixHistogram[int32], RadixScatter[int32], false))

var radixSortUint32 = register(radixKernel[uint32]("radix_sort_uint32",
	`radix_sort_uint32: stable LSD radix sort of uint32, 4 bits per pass.

radix_sort_int32's kernels instantiated for uint32 (no sign flip). Case:
Inputs[0] []uint32 keys; Result: the sorted keys.`,
	RadixHistogram[uint32], RadixScatter[uint32], false))

var radixSortPairsInt32 = register(radixKernel[int32]("radix_sort_pairs_int32",
	`radix_sort_pairs_int32: stable LSD radix sort of int32 keys carrying int32 values (indices).

radix_sort_int32 with RadixScatterPairs, which moves each key's value with
it. Case: Inputs[0] []int32 keys, Inputs[1] []int32 values (Generate: the
indices 0..n-1, so the result is the stable sorting permutation); Result: the
sorted keys, the values in the same order.`,
	RadixHistogram[int32], RadixScatterPairs[int32], true))

var radixSortPairsUint32 = register(radixKernel[uint32]("radix_sort_pairs_uint32",
	`radix_sort_pairs_uint32: stable LSD radix sort of uint32 keys carrying int32 values (indices).

radix_sort_pairs_int32 for uint32 keys. Case: Inputs[0] []uint32 keys,
Inputs[1] []int32 values; Result: the sorted keys, the values in the same
order.`, RadixHistogram[uint32], RadixScatterPairs[uint32], true))
