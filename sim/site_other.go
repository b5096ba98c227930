//go:build !amd64

package sim

import "runtime"

// framePCs falls back to runtime.Callers where gpusim has no frame-pointer
// walk: correct, but about 200 ns a call, so detection is slower there.
func framePCs(pcs *[maxFrames]uintptr, max int) int {
	return runtime.Callers(2, pcs[:max])
}

// callerPCs01 has no frame-pointer walk here. It returns 1, an address no
// code has (0 would match the empty entries of the site cache), which sends
// the caller to callerSkip.
func callerPCs01() (pc0, pc1 uintptr) { return 1, 1 }

// callerPCs12 is callerPCs01 one frame further up.
func callerPCs12() (pc1, pc2 uintptr) { return 1, 1 }
