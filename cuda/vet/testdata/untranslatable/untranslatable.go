// Package untranslatable pairs kernels the CUDA translator refuses (each
// refusal reported where it is) with the translatable kernel that does the
// same job (nothing reported).
package untranslatable

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// Printing from a kernel.
func PrintBad(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		fmt.Println(a.Load(t, t.GlobalX())) // want `^cannot translate to CUDA: fmt cannot run on the GPU`
	}
}

func PrintGood(a, out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), a.Load(t, t.GlobalX()))
	}
}

// A slice parameter.
func SliceBad(xs []float32, out *sim.Buffer[float32]) sim.Kernel { // want `^cannot translate to CUDA: kernel parameter xs: slices cannot be used on the GPU`
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), xs[t.GlobalX()]) // refused at the parameter: no second diagnostic
	}
}

func SliceGood(xs, out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), xs.Load(t, t.GlobalX()))
	}
}

// Reading host state.
var gain = float32(3)

const gainConst = float32(3)

func GlobalReadBad(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), gain) // want `^cannot translate to CUDA: kernels cannot read package-level variables`
	}
}

func GlobalReadGood(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), gainConst)
	}
}

// A closure inside a kernel, and the package-level helper that replaces it.
func ClosureBad(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		twice := func(x float32) float32 { return 2 * x } // want `^cannot translate to CUDA: closures inside a kernel cannot run on the GPU`
		out.Store(t, t.GlobalX(), twice(1))
	}
}

func twice(x float32) float32 { return 2 * x }

func ClosureGood(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), twice(1))
	}
}

// A helper the translator refuses: reported in the helper.
func allocHelper(n int) int {
	s := make([]int, n) // want `^cannot translate to CUDA: slices`
	return len(s)
}

func HelperBad(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), int32(allocHelper(4)))
	}
}

func HelperGood(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var a [4]int
		out.Store(t, t.GlobalX(), int32(len(a)))
	}
}

// A write both checks refuse is reported once, by the capture check.
var hits int

func CountBad(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		hits++ // want `^kernel increments package-level variable hits`
		out.Store(t, t.GlobalX(), 1)
	}
}

func CountGood(out *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		sim.AtomicAdd(t, out, 0, 1)
	}
}
