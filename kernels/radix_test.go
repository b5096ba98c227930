package kernels_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// radixBlocks are the block sizes the radix kernels accept.
var radixBlocks = []int{32, 64, 96, 128, 256, 384, 512}

// drawKeys draws n keys of K: from a small range around zero half the time
// (many duplicates and negatives), otherwise over all 32 bits with the
// extremes mixed in.
func drawKeys[K int32 | uint32](t *rapid.T, n int) []K {
	seed := rapid.Uint64().Draw(t, "seed")
	narrow := rapid.Bool().Draw(t, "narrow")
	r := rand.New(rand.NewPCG(seed, 3))
	d := make([]K, n)
	for i := range d {
		switch {
		case narrow:
			d[i] = K(int32(r.IntN(33) - 16))
		case r.IntN(8) == 0:
			d[i] = K([]uint32{0, 1, 1 << 31, 1<<31 - 1, math.MaxUint32}[r.IntN(5)])
		default:
			d[i] = K(r.Uint32())
		}
	}
	return d
}

// checkRadix runs one radix sort on drawn keys and checks it against
// slices.Sort (keys only) or slices.SortStableFunc on the keys' indices
// (pairs, whose values start as the indices 0..n-1).
func checkRadix[K int32 | uint32](t *rapid.T, name string, pairs bool) {
	n := drawSize(t, *seed001MaxN)
	block := rapid.SampledFrom(radixBlocks).Draw(t, "block")
	keys := drawKeys[K](t, n)
	c := kernels.Case{N: n, Block: block, Inputs: []any{slices.Clone(keys)}}
	if pairs {
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		c.Inputs = append(c.Inputs, idx)
	}
	got := runClean(t, name, c, drawOptions(t))
	want := slices.Sorted(slices.Values(keys))
	if !slices.Equal(got[0].([]K), want) {
		t.Fatalf("n=%d block=%d: keys not sorted:\n got %v\nwant %v", n, block, got[0], want)
	}
	if !pairs {
		return
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
	if vals := got[1].([]int32); !slices.Equal(vals, perm) {
		t.Fatalf("n=%d block=%d: values are not the stable sorting permutation:\n got %v\nwant %v", n, block, vals, perm)
	}
}

// TestRadixSortSorts: keys-only radix sorts equal slices.Sort, negative
// int32 keys included; the key-value sorts move the indices as
// slices.SortStableFunc does, which is stability.
func TestRadixSortSorts(t *testing.T) {
	t.Run("int32", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkRadix[int32](t, "radix_sort_int32", false) })
	})
	t.Run("uint32", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkRadix[uint32](t, "radix_sort_uint32", false) })
	})
	t.Run("pairs_int32", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkRadix[int32](t, "radix_sort_pairs_int32", true) })
	})
	t.Run("pairs_uint32", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkRadix[uint32](t, "radix_sort_pairs_uint32", true) })
	})
}

// TestRadixSortSigned pins the order of int32's extremes: the sign bit is
// flipped for the digits, so MinInt32 comes first and -1 just before 0; the
// same bits as uint32 sort the other way round.
func TestRadixSortSigned(t *testing.T) {
	in := []int32{0, -1, math.MaxInt32, math.MinInt32, 1, -2, math.MinInt32 + 1, math.MaxInt32 - 1, -1, 0}
	got := runClean(t, "radix_sort_int32", kernels.Case{N: len(in), Inputs: []any{slices.Clone(in)}}, sim.Options{})[0].([]int32)
	want := []int32{math.MinInt32, math.MinInt32 + 1, -2, -1, -1, 0, 0, 1, math.MaxInt32 - 1, math.MaxInt32}
	if !slices.Equal(got, want) {
		t.Errorf("int32: got %v, want %v", got, want)
	}
	u := make([]uint32, len(in))
	for i, x := range in {
		u[i] = uint32(x)
	}
	gotU := runClean(t, "radix_sort_uint32", kernels.Case{N: len(u), Inputs: []any{u}}, sim.Options{})[0].([]uint32)
	if !slices.IsSorted(gotU) || gotU[0] != 0 || gotU[len(gotU)-1] != math.MaxUint32 {
		t.Errorf("uint32: got %v", gotU)
	}
}
