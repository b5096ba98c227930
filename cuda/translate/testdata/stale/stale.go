// Package stale is a package whose kernel was renamed after its twins were
// generated: its gpusim_cuda.go still registers the old name, and must not
// keep the translator from loading the package.
package stale

import "github.com/gpusim/gpusim/sim"

// Renamed was OldName when gpusim_cuda.go was written.
func Renamed(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, t.ThreadIdx.X, 1)
	}
}
