package kernels_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// Kernels of this file have no twin: their parameter names come from this
// source file.

func scaleBy(buf *sim.Buffer[float32], factor float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			buf.Store(t, i, buf.Load(t, i)*factor)
		}
	}
}

func fill[T int32 | float32](dst *sim.Buffer[T],
	v T,
) sim.Kernel {
	return func(t *sim.Thread) { dst.Store(t, t.GlobalX(), v) }
}

// counterRace has every thread add one to counter[0] without an atomic.
func counterRace(counter *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) { counter.Store(t, 0, counter.Load(t, 0)+1) }
}

// makeCopy returns a kernel function made at run time, a function literal.
func makeCopy() func(src, dst *sim.Buffer[int32], count int) sim.Kernel {
	return func(src, dst *sim.Buffer[int32], count int) sim.Kernel {
		return func(t *sim.Thread) {
			if i := t.GlobalX(); i < count {
				dst.Store(t, i, src.Load(t, i))
			}
		}
	}
}

func blankParam(out *sim.Buffer[int32], _ int) sim.Kernel {
	return func(t *sim.Thread) { out.Store(t, 0, 1) }
}

type scaler struct{ by int32 }

func (s scaler) Kernel(x *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, x.Load(t, i)*s.by)
		}
	}
}

func TestParamNamesWithoutTwin(t *testing.T) {
	tests := []struct {
		label string
		fn    any
		want  []string
	}{
		{"function", scaleBy, []string{"buf", "factor", "n"}},
		{"generic instance", fill[int32], []string{"dst", "v"}},
		{"function literal", makeCopy(), []string{"src", "dst", "count"}},
		// A blank parameter has no name: its position and type say which.
		{"blank parameter", blankParam, []string{"out", "parameter 2 (int)"}},
		// A method value's code is a wrapper the compiler writes, which
		// has no source.
		{"method value", scaler{2}.Kernel, []string{"parameter 1 (*sim.Buffer[int32])", "parameter 2 (int)"}},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			if got := kernels.ParamNames(tt.fn); !slices.Equal(got, tt.want) {
				t.Errorf("ParamNames = %q, want %q", got, tt.want)
			}
		})
	}
}

// A launch error names the parameter as the source does, not by a number.
func TestLaunchErrorNamesParamWithoutTwin(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	buf, err := kernels.Upload(b, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Launch(scaleBy, sim.Dim(1), sim.Dim(32), 0, buf, float32(2), 1<<40)
	if err == nil || !strings.Contains(err.Error(), "scaleBy: argument for n: 1099511627776 does not fit a int parameter") {
		t.Errorf("launch with n = 2^40: %v", err)
	}
	err = b.Launch(scaler{3}.Kernel, sim.Dim(1), sim.Dim(32), 0, buf, 2)
	if err == nil || !strings.Contains(err.Error(), "argument for parameter 1 (*sim.Buffer[int32]): a float32 buffer for a *sim.Buffer[int32] parameter") {
		t.Errorf("launch with a float32 buffer for an int32 one: %v", err)
	}
}

// Findings name a buffer after the source's parameter.
func TestFindingsNameParamWithoutTwin(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	c, err := kernels.Upload(b, []int32{0})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Launch(counterRace, sim.Dim(1), sim.Dim(64), 0, c)
	var r *sim.Report
	if !errors.As(err, &r) || !r.Has(sim.DataRace) {
		t.Fatalf("want a data race, got %v", err)
	}
	for _, f := range r.Of(sim.DataRace) {
		if f.Memory != "counter" {
			t.Errorf("race on %q, want counter:\n%v", f.Memory, f)
		}
	}
}
