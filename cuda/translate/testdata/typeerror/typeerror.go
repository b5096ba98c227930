// Package typeerror does not type-check: Load must say why once.
package typeerror

import "github.com/gpusim/gpusim/sim"

func K(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, undefinedName)
	}
}
