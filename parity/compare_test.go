package parity

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpusim/gpusim/kernels"
	"pgregory.net/rapid"
)

// specials are float32 bit patterns where comparators tend to disagree:
// signed zeros, NaNs of either sign and several payloads, infinities, the
// largest and smallest values.
var specials = []uint32{0, 0x80000000, 0x7fc00000, 0xffc00000, 0x7fffffff, 0x7f800001,
	0x7f800000, 0xff800000, 0x7f7fffff, 0x00000001, 0x80000001}

// TestDiffPrintsWhatCheckDecides holds the printer to the verdict: on
// random results that differ in a few places (by a few ulp, or by a special
// value), Diff is empty exactly when rule.Check accepts, and go-cmp with
// Options finds a difference exactly when Check does.
func TestDiffPrintsWhatCheckDecides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rule := rapid.SampledFrom([]kernels.Rule{{}, {MaxULP: 2, Why: "t"}, {RelTol: 1e-3, Why: "t"}}).Draw(t, "rule")
		n := rapid.IntRange(0, 20).Draw(t, "n")
		f := make([]float32, n)
		for i := range f {
			if rapid.IntRange(0, 3).Draw(t, "special") == 0 {
				f[i] = math.Float32frombits(rapid.SampledFrom(specials).Draw(t, "bits"))
			} else {
				f[i] = math.Float32frombits(rapid.Uint32().Draw(t, "bits"))
			}
		}
		g := append([]float32(nil), f...)
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, max(n-1, 0)), 0, 3).Draw(t, "edits") {
			if n == 0 {
				break
			}
			if rapid.Bool().Draw(t, "toSpecial") {
				g[i] = math.Float32frombits(rapid.SampledFrom(specials).Draw(t, "to"))
			} else {
				g[i] = math.Float32frombits(math.Float32bits(g[i]) + uint32(rapid.IntRange(0, 3).Draw(t, "ulps")))
			}
		}
		ints := rapid.SliceOfN(rapid.Int32(), n, n).Draw(t, "ints")
		ints2 := append([]int32(nil), ints...)
		if n > 0 && rapid.Bool().Draw(t, "intEdit") {
			ints2[0]++
		}
		want, got := kernels.Result{f, ints}, kernels.Result{g, ints2}
		agree := rule.Check(got, want) == nil
		if d := Diff(rule, want, got); (d == "") != agree {
			t.Fatalf("Diff empty=%v, Check agrees=%v; diff:\n%s", d == "", agree, d)
		}
		if same := cmp.Equal(want, got, Options(rule)); same != agree {
			t.Fatalf("go-cmp with Options says equal=%v, Check agrees=%v", same, agree)
		}
	})
}

func TestDiffTypeMismatch(t *testing.T) {
	if d := Diff(kernels.Rule{}, kernels.Result{[]float32{1}}, kernels.Result{[]int32{1}}); d == "" {
		t.Fatal("[]float32 vs []int32: no difference reported")
	}
	if d := Diff(kernels.Rule{}, kernels.Result{[]float32{1, 2}}, kernels.Result{[]float32{1}}); d == "" {
		t.Fatal("different lengths: no difference reported")
	}
}

// The policy decided in RATIONALE.md, as the parity harness applies it: an
// exact rule tells -0 from +0, and no rule tells NaN payloads apart.
func TestDiffSignedZeroAndNaN(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	if Diff(kernels.Rule{}, kernels.Result{[]float32{0}}, kernels.Result{[]float32{negZero}}) == "" {
		t.Error("exact rule accepts -0 for +0")
	}
	cuda, x86 := math.Float32frombits(0x7fffffff), math.Float32frombits(0xffc00000)
	if d := Diff(kernels.Rule{}, kernels.Result{[]float32{cuda}}, kernels.Result{[]float32{x86}}); d != "" {
		t.Errorf("exact rule tells CUDA's NaN from x86's:\n%s", d)
	}
	next := math.Nextafter32(1, 2)
	if d := Diff(kernels.Rule{MaxULP: 2, Why: "test"}, kernels.Result{[]float32{1}}, kernels.Result{[]float32{next}}); d != "" {
		t.Errorf("1-ulp difference rejected under MaxULP 2:\n%s", d)
	}
}
