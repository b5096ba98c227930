package parity

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// TestSimMatchesReference is a small property over the whole registry on
// the simulator alone: a drawn correct kernel, shape and input give the CPU
// reference's result under the kernel's rule. (kernels/ tests each kernel at
// length; this checks the parity harness's own shapes and comparison.)
func TestSimMatchesReference(t *testing.T) {
	var correct []*kernels.Kernel
	for _, k := range kernels.All() {
		if !k.Faulty {
			correct = append(correct, k)
		}
	}
	if len(correct) == 0 {
		t.Skip("no correct kernels registered")
	}
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.SampledFrom(correct).Draw(t, "kernel")
		s := DrawShape(t, k)
		c := s.Case(k)
		b := kernels.NewSimBackend(sim.H100, sim.Options{}.WithDetection(false))
		got, err := k.Run(b, c)
		if err != nil {
			t.Fatalf("%s %+v: %v", k.Name, s, err)
		}
		if d := Diff(k.Rule, k.Reference(c), got); d != "" {
			t.Fatalf("%s %+v: sim differs from reference (-want +got):\n%s", k.Name, s, d)
		}
	})
}

func TestULP(t *testing.T) {
	next := math.Nextafter32(1, 2)
	for _, c := range []struct {
		a, b float32
		want uint64
	}{
		{1, 1, 0}, {1, next, 1}, {0, float32(math.Copysign(0, -1)), 0},
		{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 2},
		{float32(math.NaN()), float32(math.NaN()), 0},
		{float32(math.NaN()), 1, math.MaxUint64},
	} {
		if got := ULP32(c.a, c.b); got != c.want {
			t.Errorf("ULP32(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := ULP64(1, math.Nextafter(1, 0)); got != 1 {
		t.Errorf("ULP64 below 1 = %d", got)
	}
	exact := kernels.Rule{}
	if Diff(exact, kernels.Result{[]float32{0}}, kernels.Result{[]float32{float32(math.Copysign(0, -1))}}) == "" {
		t.Error("exact rule accepts -0 for +0")
	}
	loose := kernels.Rule{MaxULP: 2, Why: "test"}
	if d := Diff(loose, kernels.Result{[]float32{1}}, kernels.Result{[]float32{next}}); d != "" {
		t.Errorf("1-ulp difference rejected under MaxULP 2:\n%s", d)
	}
}
