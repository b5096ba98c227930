package parity

import (
	"github.com/gpusim/gpusim/kernels"
)

// entryPoint is one kernel function of the registry, with the registry
// kernel that first launches it.
type entryPoint struct {
	kernel string // registry kernel
	name   string // entry point (kernels.KernelName)
	fn     any
}

// registryEntries lists every kernel function the registry launches, once
// each, in registry order.
func registryEntries() []entryPoint {
	var out []entryPoint
	seen := map[string]bool{}
	for _, k := range kernels.All() {
		for _, f := range k.Funcs {
			name := kernels.KernelName(f)
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, entryPoint{kernel: k.Name, name: name, fn: f})
		}
	}
	return out
}
