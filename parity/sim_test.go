package parity

import (
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
