// Package mixed has kernels the translator takes and kernels it refuses,
// for the tests of gpusim cuda -o and -go.
package mixed

import "github.com/gpusim/gpusim/sim"

// Double translates.
func Double(x *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, 2*x.Load(t, i))
		}
	}
}

// Lookup reads a map, which CUDA has not.
func Lookup(x *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		m := map[int]int32{1: 2}
		if i := t.GlobalX(); i < n {
			x.Store(t, i, m[1])
		}
	}
}

// Negate translates.
func Negate(x *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, -x.Load(t, i))
		}
	}
}

// label is a helper that makes a string, which CUDA has not.
func label(i int) int {
	s := "ab"
	return len(s) + i
}

// Labels calls label.
func Labels(x *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, int32(label(i)))
		}
	}
}
