package kernels

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
)

// Host-side merging, seed 001's last section: the device sorts segments or
// searches blocks in parallel, and the host merges the partial results and
// checks them. Merges take a three-way comparison (cmp.Compare for integers,
// CompareF32 for float32 keys) and are stable: of equal elements, those of
// an earlier segment come first.

// Merge2 merges the sorted slices a and b into a new sorted slice, the
// seed's two-way merge loop. On ties it takes a's element first (the seed's
// `if segment1[i] < segment2[j]` takes segment2's, which is not stable).
func Merge2[T any](a, b []T, compare func(x, y T) int) []T {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// MergeK merges sorted segments into one sorted slice with a min-heap of the
// segments' heads (container/heap, as the seed's heapq.merge): O(n log k)
// for n elements in k segments. Ties go to the lower segment index.
func MergeK[T any](segs [][]T, compare func(x, y T) int) []T {
	n := 0
	h := &headHeap[T]{segs: segs, compare: compare}
	for i, s := range segs {
		n += len(s)
		if len(s) > 0 {
			h.heads = append(h.heads, head{seg: i})
		}
	}
	heap.Init(h)
	out := make([]T, 0, n)
	for h.Len() > 0 {
		top := &h.heads[0]
		out = append(out, segs[top.seg][top.pos])
		top.pos++
		if top.pos == len(segs[top.seg]) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return out
}

// head is a segment's cursor in MergeK's heap: segs[seg][pos] is its next
// element.
type head struct{ seg, pos int }

// headHeap orders cursors by their next element, then by segment index.
type headHeap[T any] struct {
	segs    [][]T
	heads   []head
	compare func(x, y T) int
}

func (h *headHeap[T]) Len() int { return len(h.heads) }

func (h *headHeap[T]) Less(i, j int) bool {
	a, b := h.heads[i], h.heads[j]
	if c := h.compare(h.segs[a.seg][a.pos], h.segs[b.seg][b.pos]); c != 0 {
		return c < 0
	}
	return a.seg < b.seg
}

func (h *headHeap[T]) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *headHeap[T]) Push(x any)    { h.heads = append(h.heads, x.(head)) }

func (h *headHeap[T]) Pop() any {
	last := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return last
}

// Segments cuts x into consecutive segments of size elements, the last one
// shorter if size does not divide len(x). They share x's storage.
func Segments[T any](x []T, size int) [][]T {
	var segs [][]T
	for lo := 0; lo < len(x); lo += size {
		segs = append(segs, x[lo:min(lo+size, len(x))])
	}
	return segs
}

// BlockHits is what one parallel_search_blocks launch leaves: for each block
// b, the offset of its first match from the block's first element, or -1.
// The launch may have searched a window of a larger array that starts at
// Start; block b's first element is then Start + b*Block of that array.
type BlockHits struct {
	Start int     // global index of the launch's element 0
	Block int     // threads per block
	Hits  []int32 // per block: local index of its first match, or -1
}

// Global returns the launch's hits as global indices, ascending (block b's
// range precedes block b+1's).
func (l BlockHits) Global() []int {
	var g []int
	for b, h := range l.Hits {
		if h >= 0 {
			g = append(g, l.Start+b*l.Block+int(h))
		}
	}
	return g
}

// MergeHits merges the per-block results of one or more searches into
// global indices, ascending and each once: the seed's
// hits = partial_indices[partial_indices != -1], with its index correction
// (local to global) and its de-duplication, for searches over windows whose
// boundaries overlap and so find one index twice. Each launch's hits are
// already ascending, so they are k-way merged and the duplicates, now
// adjacent, dropped. The first element, if any, is the first occurrence.
func MergeHits(launches ...BlockHits) []int {
	lists := make([][]int, len(launches))
	for i, l := range launches {
		lists[i] = l.Global()
	}
	return slices.Compact(MergeK(lists, cmp.Compare[int]))
}

// CheckMerged is the seed's check after merging sorted segments,
// np.array_equal(merged, np.sort(input)): merged must equal input sorted by
// compare, element by element (compare(x, y) == 0 counts as equal, which for
// CompareF32 means the same bits).
func CheckMerged[T any](merged, input []T, compare func(x, y T) int) error {
	if len(merged) != len(input) {
		return fmt.Errorf("merged %d elements, input has %d", len(merged), len(input))
	}
	want := slices.Clone(input)
	slices.SortStableFunc(want, compare)
	for i := range want {
		if compare(merged[i], want[i]) != 0 {
			return fmt.Errorf("merged[%d] = %v, sorted input has %v", i, merged[i], want[i])
		}
	}
	return nil
}

// CheckHits is the seed's check after merging search results,
// all(data[idx] == target for idx in hits), with what the merge promises
// besides: the indices are in range, ascending and distinct, and, for hits
// from searches that together covered all of data, the first is target's
// first occurrence and there are none only if target does not occur.
func CheckHits(data []int32, target int32, hits []int) error {
	var errs []error
	for i, idx := range hits {
		switch {
		case idx < 0 || idx >= len(data):
			errs = append(errs, fmt.Errorf("hit %d: index %d out of range [0, %d)", i, idx, len(data)))
		case data[idx] != target:
			errs = append(errs, fmt.Errorf("hit %d: data[%d] = %d, not the target %d", i, idx, data[idx], target))
		}
		if i > 0 && idx <= hits[i-1] {
			errs = append(errs, fmt.Errorf("hit %d: index %d after %d: not ascending or a duplicate", i, idx, hits[i-1]))
		}
	}
	first := slices.Index(data, target)
	switch {
	case first < 0 && len(hits) > 0:
		errs = append(errs, fmt.Errorf("%d hits, but %d does not occur", len(hits), target))
	case first >= 0 && len(hits) == 0:
		errs = append(errs, fmt.Errorf("no hits, but %d occurs at %d", target, first))
	case first >= 0 && hits[0] != first:
		errs = append(errs, fmt.Errorf("first hit %d, but %d first occurs at %d", hits[0], target, first))
	}
	return errors.Join(errs...)
}
