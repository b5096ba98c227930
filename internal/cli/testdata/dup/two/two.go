// Package two has a kernel named like package one's, for the test of
// gpusim cuda -o with a pattern that matches both.
package two

import "github.com/gpusim/gpusim/sim"

// Scale multiplies x by 3.
func Scale(x *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X; i < n {
			x.Store(t, i, 3*x.Load(t, i))
		}
	}
}
