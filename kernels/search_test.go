package kernels_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// drawSearch draws data of n values in [0, m) for a drawn m, a target in
// that range, and plants the target at up to three drawn indices (the first
// and last index among the candidates).
func drawSearch(t *rapid.T, n int) ([]int32, int32) {
	m := rapid.SampledFrom([]int{1, 2, 16, 1000, 1 << 30}).Draw(t, "range")
	target := int32(rapid.IntRange(0, m-1).Draw(t, "target"))
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 5))
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(r.IntN(m))
	}
	if n > 0 {
		for range rapid.IntRange(0, 3).Draw(t, "plants") {
			i := rapid.SampledFrom([]int{0, n - 1, r.IntN(n)}).Draw(t, "at")
			d[i] = target
		}
	}
	return d, target
}

// TestParallelSearchFirstIndex: the atomicMin search returns exactly the
// smallest index holding the target, or n when there is none.
func TestParallelSearchFirstIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := drawSize(t, *seed001MaxN)
		block := 32 * rapid.IntRange(1, 32).Draw(t, "warps")
		d, target := drawSearch(t, n)
		c := kernels.Case{N: n, Block: block, Params: []int{int(target)}, Inputs: []any{d}}
		got := runClean(t, "parallel_search", c, drawOptions(t))[0].([]int32)[0]
		want := slices.Index(d, target)
		if want < 0 {
			want = n
		}
		if int(got) != want {
			t.Fatalf("n=%d block=%d target=%d: found %d, want %d", n, block, target, got, want)
		}
	})
}

// TestParallelSearchBlocksMerged: each block's result is its first match as
// a local index, or -1; merged on the host they are the global first match
// of every block that has one, they pass the seed's checks, and their first
// is parallel_search's answer.
func TestParallelSearchBlocksMerged(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := drawSize(t, *seed001MaxN)
		block := 32 * rapid.IntRange(1, 32).Draw(t, "warps")
		d, target := drawSearch(t, n)
		c := kernels.Case{N: n, Block: block, Params: []int{int(target)}, Inputs: []any{d}}
		hits := runClean(t, "parallel_search_blocks", c, drawOptions(t))[0].([]int32)
		var want []int
		for b := range hits {
			if i := slices.Index(d[b*block:min((b+1)*block, n)], target); i >= 0 {
				want = append(want, b*block+i)
			}
		}
		got := kernels.MergeHits(kernels.BlockHits{Block: block, Hits: hits})
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d block=%d: merged hits %v, want %v (raw %v)", n, block, got, want, hits)
		}
		if err := kernels.CheckHits(d, target, got); err != nil {
			t.Fatal(err)
		}
		first := runClean(t, "parallel_search", c, sim.Options{})[0].([]int32)[0]
		if len(got) > 0 && int(first) != got[0] || len(got) == 0 && int(first) != n {
			t.Fatalf("first merged hit %v, parallel_search %d", got, first)
		}
	})
}

// TestSearchOverlappingWindows searches two windows of the data whose
// boundaries overlap, one launch each, as a host that streams a large array
// in chunks with a halo would: indices in the overlap are found twice, and
// MergeHits keeps each once, globally indexed and ascending.
func TestSearchOverlappingWindows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		block := 32 * rapid.IntRange(1, 4).Draw(t, "warps")
		n := rapid.IntRange(2*block, 8*block).Draw(t, "n")
		d, target := drawSearch(t, n)
		// Window 2 starts on a block boundary inside window 1, so blocks in
		// the overlap cover the same elements in both launches.
		start2 := block * rapid.IntRange(1, n/block-1).Draw(t, "start2")
		end1 := rapid.IntRange(start2+1, n).Draw(t, "end1")
		search := func(lo, hi int) kernels.BlockHits {
			w := d[lo:hi]
			c := kernels.Case{N: len(w), Block: block, Params: []int{int(target)}, Inputs: []any{w}}
			return kernels.BlockHits{Start: lo, Block: block, Hits: runClean(t, "parallel_search_blocks", c, sim.Options{})[0].([]int32)}
		}
		w1, w2 := search(0, end1), search(start2, n)
		got := kernels.MergeHits(w1, w2)
		if err := kernels.CheckHits(d, target, got); err != nil {
			t.Fatalf("windows [0,%d) and [%d,%d): %v", end1, start2, n, err)
		}
		all := append(w1.Global(), w2.Global()...)
		slices.Sort(all)
		if !slices.Equal(got, slices.Compact(all)) {
			t.Fatalf("merged %v, want the union %v", got, all)
		}
	})
}
