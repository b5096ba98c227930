package kernels_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"pgregory.net/rapid"
)

// tagged is a key with the segment and position it came from, so that a
// merge's stability can be seen.
type tagged struct{ key, seg, pos int }

func byKey(a, b tagged) int { return cmp.Compare(a.key, b.key) }

// drawSegments draws k sorted segments of tagged keys from a small range,
// so that equal keys across segments are common.
func drawSegments(t *rapid.T, k int) [][]tagged {
	segs := make([][]tagged, k)
	for s := range segs {
		keys := rapid.SliceOfN(rapid.IntRange(-5, 5), 0, 40).Draw(t, fmt.Sprint("seg", s))
		slices.Sort(keys)
		for p, key := range keys {
			segs[s] = append(segs[s], tagged{key, s, p})
		}
	}
	return segs
}

// stableSorted is what a stable merge must give: the concatenation in
// segment order, sorted stably by key.
func stableSorted(segs [][]tagged) []tagged {
	return slices.SortedStableFunc(slices.Values(slices.Concat(segs...)), byKey)
}

func TestMerge2(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		segs := drawSegments(t, 2)
		if got, want := kernels.Merge2(segs[0], segs[1], byKey), stableSorted(segs); !slices.Equal(got, want) {
			t.Fatalf("Merge2:\n got %v\nwant %v", got, want)
		}
	})
}

func TestMergeK(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		segs := drawSegments(t, rapid.IntRange(0, 9).Draw(t, "k"))
		got := kernels.MergeK(segs, byKey)
		if want := stableSorted(segs); !slices.Equal(got, want) {
			t.Fatalf("MergeK:\n got %v\nwant %v", got, want)
		}
		if len(segs) == 2 && !slices.Equal(got, kernels.Merge2(segs[0], segs[1], byKey)) {
			t.Fatalf("MergeK and Merge2 differ on two segments")
		}
	})
}

// TestMergeKFloat32 merges sorted float32 segments holding NaNs and signed
// zeros under CompareF32: the result is the whole input sorted, bit for bit.
func TestMergeKFloat32(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawF32s(t, rapid.IntRange(0, 300).Draw(t, "n"), true)
		size := rapid.IntRange(1, 64).Draw(t, "size")
		segs := kernels.Segments(slices.Clone(in), size)
		for _, s := range segs {
			slices.SortFunc(s, kernels.CompareF32)
		}
		got := kernels.MergeK(segs, kernels.CompareF32)
		if err := kernels.CheckMerged(got, in, kernels.CompareF32); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSegments(t *testing.T) {
	x := []int{0, 1, 2, 3, 4, 5, 6}
	got := fmt.Sprint(kernels.Segments(x, 3), kernels.Segments(x, 7), kernels.Segments(x, 10), kernels.Segments(x[:0], 3))
	if want := "[[0 1 2] [3 4 5] [6]] [[0 1 2 3 4 5 6]] [[0 1 2 3 4 5 6]] []"; got != want {
		t.Errorf("Segments: %s, want %s", got, want)
	}
}

// TestMergeHits is the seed's example, partial_indices = [12, -1, -1, 78,
// -1], as block-local results of blocks of 100 threads, plus a second
// search over a window from 300 that finds 378 again.
func TestMergeHits(t *testing.T) {
	one := kernels.BlockHits{Block: 100, Hits: []int32{12, -1, -1, 78, -1}}
	if got := kernels.MergeHits(one); !slices.Equal(got, []int{12, 378}) {
		t.Errorf("MergeHits(seed example) = %v, want [12 378]", got)
	}
	two := kernels.BlockHits{Start: 300, Block: 100, Hits: []int32{78, 5}}
	if got := kernels.MergeHits(one, two); !slices.Equal(got, []int{12, 378, 405}) {
		t.Errorf("MergeHits over overlapping windows = %v, want [12 378 405]", got)
	}
	if got := kernels.MergeHits(kernels.BlockHits{Block: 32, Hits: []int32{-1, -1}}); len(got) != 0 {
		t.Errorf("MergeHits(no hits) = %v, want none", got)
	}
}

// TestChecksReject: the post-merge checks catch each kind of wrong answer.
func TestChecksReject(t *testing.T) {
	data := []int32{5, 7, 5, 1, 5}
	for _, tt := range []struct {
		label string
		hits  []int
		want  string // substring of the error; "" for none
	}{
		{"all hits", []int{0, 2, 4}, ""},
		{"first only", []int{0}, ""},
		{"not the target", []int{0, 1}, "not the target"},
		{"out of range", []int{0, 9}, "out of range"},
		{"duplicate", []int{0, 2, 2}, "duplicate"},
		{"missed the first", []int{2, 4}, "first occurs at 0"},
		{"none", nil, "no hits"},
	} {
		err := kernels.CheckHits(data, 5, tt.hits)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: CheckHits(%v) = %v, want %q", tt.label, tt.hits, err, tt.want)
		}
	}
	if err := kernels.CheckHits(data, 3, []int{1}); err == nil {
		t.Errorf("CheckHits accepts a hit for an absent target")
	}
	negZero := float32(math.Copysign(0, -1))
	in := []float32{1, negZero, 0}
	if err := kernels.CheckMerged([]float32{0, negZero, 1}, in, kernels.CompareF32); err == nil {
		t.Errorf("CheckMerged accepts +0 before -0")
	}
	if err := kernels.CheckMerged([]float32{negZero, 0}, in, kernels.CompareF32); err == nil {
		t.Errorf("CheckMerged accepts a short result")
	}
	if err := kernels.CheckMerged([]float32{negZero, 0, 1}, in, kernels.CompareF32); err != nil {
		t.Errorf("CheckMerged rejects the sorted input: %v", err)
	}
}

// ExampleMergeK merges three sorted segments, as a host merges the tiles a
// segmented GPU sort leaves.
func ExampleMergeK() {
	segs := [][]int{{1, 4, 9}, {2, 3, 10}, {0, 5}}
	fmt.Println(kernels.MergeK(segs, cmp.Compare[int]))
	// Output: [0 1 2 3 4 5 9 10]
}

// ExampleMergeHits turns the seed's per-block search results into global
// indices: blocks of 100 threads, block 3's first match at local index 78.
func ExampleMergeHits() {
	hits := kernels.MergeHits(kernels.BlockHits{Block: 100, Hits: []int32{12, -1, -1, 78, -1}})
	fmt.Println(hits, "first:", hits[0])
	// Output: [12 378] first: 12
}
