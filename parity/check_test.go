package parity

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// saxpy is y = a*x + y over n elements, a user kernel of the form Check
// takes.
func saxpy(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			y.Store(t, i, float32(a*x.Load(t, i))+y.Load(t, i))
		}
	}
}

// racySum adds x[i] into out[0] without an atomic: a race.
func racySum(x, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			out.Store(t, 0, out.Load(t, 0)+x.Load(t, i))
		}
	}
}

func saxpyLaunch(n int, a float32) Launch {
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)/3, float32(n-i)
	}
	return Launch{Grid: sim.Dim(max(1, (n+63)/64)), Block: sim.Dim(64), Args: []any{x, y, a, n}}
}

func saxpyRef(l Launch) []any {
	x, y, a := l.Args[0].([]float32), append([]float32(nil), l.Args[1].([]float32)...), l.Args[2].(float32)
	for i := range y {
		y[i] = float32(a*x[i]) + y[i]
	}
	return []any{nil, y}
}

func TestCheckUserKernel(t *testing.T) {
	Check(t, Test{
		Kernel: saxpy,
		Draw: func(rt *rapid.T) Launch {
			return saxpyLaunch(rapid.IntRange(0, 300).Draw(rt, "n"), rapid.Float32().Draw(rt, "a"))
		},
		Reference: saxpyRef,
		// A test file's kernel has no generated twin.
		SimulatorOnly: true,
	})
}

func TestCheckLaunchFindsWrongReference(t *testing.T) {
	test := Test{Kernel: saxpy, Reference: func(l Launch) []any {
		r := saxpyRef(l)
		r[1].([]float32)[7]++
		return r
	}}
	err := checkLaunch(test, saxpyLaunch(100, 2), nil)
	if err == nil || !strings.Contains(err.Error(), "differs from Reference") {
		t.Fatalf("checkLaunch = %v, want a difference from the reference", err)
	}
}

func TestCheckLaunchRefusesRacyKernel(t *testing.T) {
	x := []int32{1, 2, 3, 4}
	err := checkLaunch(Test{Kernel: racySum}, Launch{Grid: sim.Dim(1), Block: sim.Dim(4), Args: []any{x, make([]int32, 1), 4}}, nil)
	if err == nil || !strings.Contains(err.Error(), "data race") {
		t.Fatalf("checkLaunch = %v, want the simulator's data race report", err)
	}
}

func TestRunLaunchRefusesBadArguments(t *testing.T) {
	for _, tt := range []struct {
		name   string
		kernel any
		l      Launch
		want   string
	}{
		{"not a kernel", func(int) {}, Launch{}, "not a function returning sim.Kernel"},
		{"no kernel", nil, Launch{}, "is <nil>, not a kernel function"},
		{"nil kernel function", (func(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel)(nil), Launch{}, "is a nil func("},
		{"too few", saxpy, Launch{Args: []any{[]float32{1}}}, "takes 4 arguments"},
		{"scalar overflow", saxpy, Launch{Grid: sim.Dim(1), Block: sim.Dim(1), Args: []any{[]float32{1}, []float32{1}, float32(1), 1 << 40}}, "32-bit int"},
		{"wrong buffer type", saxpy, Launch{Grid: sim.Dim(1), Block: sim.Dim(1), Args: []any{[]int32{1}, []float32{1}, float32(1), 1}}, "buffer"},
		{"not a slice", saxpy, Launch{Grid: sim.Dim(1), Block: sim.Dim(1), Args: []any{"x", []float32{1}, float32(1), 1}}, "not a host slice"},
		{"inexact float64 for float32", saxpy, Launch{Grid: sim.Dim(1), Block: sim.Dim(1), Args: []any{[]float32{1}, []float32{1}, 0.1, 1}}, "does not fit a float32 parameter exactly"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSim()
			_, err := RunLaunch(sb, tt.kernel, tt.l)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunLaunch = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func newSim() *kernels.SimBackend { return kernels.NewSimBackend(sim.H100, sim.Options{}) }
