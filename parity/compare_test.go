package parity

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpusim/gpusim/kernels"
	"pgregory.net/rapid"
)

// TestDiffFastPathMatchesCmp holds Diff's loop to go-cmp's verdict: on
// random results that differ in a few places (or not at all), Diff is empty
// exactly when cmp.Equal says the results agree under the rule.
func TestDiffFastPathMatchesCmp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rule := rapid.SampledFrom([]kernels.Rule{{}, {MaxULP: 2, Why: "t"}, {RelTol: 1e-3, Why: "t"}}).Draw(t, "rule")
		n := rapid.IntRange(0, 20).Draw(t, "n")
		f := make([]float32, n)
		for i := range f {
			f[i] = math.Float32frombits(rapid.Uint32().Draw(t, "bits"))
		}
		g := append([]float32(nil), f...)
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, max(n-1, 0)), 0, 3).Draw(t, "edits") {
			if n > 0 {
				g[i] = math.Float32frombits(math.Float32bits(g[i]) + uint32(rapid.IntRange(0, 3).Draw(t, "ulps")))
			}
		}
		ints := rapid.SliceOfN(rapid.Int32(), n, n).Draw(t, "ints")
		ints2 := append([]int32(nil), ints...)
		if n > 0 && rapid.Bool().Draw(t, "intEdit") {
			ints2[0]++
		}
		want, got := kernels.Result{f, ints}, kernels.Result{g, ints2}
		same := cmp.Equal(want, got, Options(rule))
		if d := Diff(rule, want, got); (d == "") != same {
			t.Fatalf("Diff empty=%v, cmp.Equal=%v; diff:\n%s", d == "", same, d)
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
