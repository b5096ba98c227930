package kernels_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// convTwin is ConvConst1D's twin and the one constant it declares.
func convTwin(t *testing.T) (*twin.Twin, twin.Constant) {
	t.Helper()
	tw, err := twin.Of(kernels.ConvConst1D)
	if err != nil {
		t.Fatal(err)
	}
	if len(tw.Constants) != 1 {
		t.Fatalf("ConvConst1D's twin declares constants %+v, want one", tw.Constants)
	}
	return tw, tw.Constants[0]
}

// The twin declares the filter as a __constant__ array and records the
// *sim.Constant it stands for, which is what a backend's CopyToSymbol
// matches.
func TestConvConstTwinDeclaresFilter(t *testing.T) {
	tw, c := convTwin(t)
	if c.Name != "conv_filter" || c.Elem != "float32" || c.CType != "float" || c.Len != 9 || c.GoName != "kernels.convFilter" {
		t.Errorf("twin constant %+v", c)
	}
	if _, ok := c.Var.(*sim.Constant[float32]); !ok {
		t.Errorf("twin constant's Var is %T, want the *sim.Constant[float32]", c.Var)
	}
	if n := strings.Count(tw.Source, "__constant__ float conv_filter[9];"); n != 1 {
		t.Errorf("twin declares conv_filter %d times:\n%s", n, tw.Source)
	}
}

// The filter lives on the device between launches, as CUDA's does: a
// second run of the driver on the same backend with another filter reads
// the new one, and a run that writes only part of it keeps the rest.
func TestConvConstFilterPersists(t *testing.T) {
	k, ok := kernels.Lookup("conv1d_constant")
	if !ok {
		t.Fatal("no conv1d_constant")
	}
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	r := rand.New(rand.NewPCG(4, 5))
	for range 3 {
		c := k.Generate(r, 1000, 128)
		got, err := k.Run(b, c)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Rule.Check(got, k.Reference(c)); err != nil {
			t.Fatal(err)
		}
	}
	// An identity filter, then only its first tap rewritten: the driver's
	// launch sees taps 1..8 of the earlier write.
	c := k.Generate(r, 300, 64)
	ident := make([]float32, 9)
	ident[4] = 1
	c.Inputs[1] = ident
	got, err := k.Run(b, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].([]float32), c.Inputs[0].([]float32)) {
		t.Error("the identity filter does not copy the input")
	}
	c.Inputs[1] = []float32{0} // one element: tap 0 only
	got, err = k.Run(b, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].([]float32), c.Inputs[0].([]float32)) {
		t.Error("a write of tap 0 lost the taps after it")
	}
}

// CopyToSymbol refuses what cudaMemcpyToSymbol would: more elements than
// the constant has, another element type, something that is not a
// constant, and a backend that cannot write constants.
func TestCopyToSymbolRefuses(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	_, c := convTwin(t)
	filter := c.Var.(*sim.Constant[float32])
	if err := kernels.CopyToSymbol(b, filter, make([]float32, 10)); err == nil {
		t.Error("10 elements into a constant of 9: no error")
	}
	if err := b.CopyToSymbol(filter, []int32{1}); err == nil {
		t.Error("[]int32 into a float32 constant: no error")
	}
	if err := b.CopyToSymbol(filter, make([]float32, 10)); err == nil {
		t.Error("10 elements into a constant of 9 through the method: no error")
	}
	if err := b.CopyToSymbol(&struct{}{}, []float32{1}); err == nil {
		t.Error("a non-constant: no error")
	}
	if err := b.CopyToSymbol((*sim.Constant[float32])(nil), []float32{1}); err == nil {
		t.Error("a nil constant: no error")
	}
	if err := kernels.CopyToSymbol(plainBackend{b}, filter, []float32{1}); err == nil || !strings.Contains(err.Error(), "cannot write constant") {
		t.Errorf("a backend without CopyToSymbol: %v", err)
	}
	if err := kernels.CopyToSymbol(b, filter, make([]float32, 9)); err != nil {
		t.Errorf("a full write: %v", err)
	}
}
