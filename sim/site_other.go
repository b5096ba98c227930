//go:build !amd64 && !arm64

package sim

import "runtime"

// Where Go keeps no frame-pointer chain (every architecture but amd64 and
// arm64), source lines come from the runtime's unwinder: correct, but about
// 200 ns a lookup and more on deep stacks, so detection and profiling cost
// several times what they cost on amd64 and arm64.

// framePCs stores up to max return addresses, starting with its caller's
// own, and returns how many it stored.
func framePCs(pcs *[maxFrames]uintptr, max int) int {
	return runtime.Callers(3, pcs[:max]) // Callers, framePCs, its caller
}

// callerPCs01 has no frame-pointer walk here. It returns 1, an address no
// code has (0 would match the empty entries of the site cache), which sends
// the caller to callerSkip.
func callerPCs01() (pc0, pc1 uintptr) { return 1, 1 }

// callerPCs12 is callerPCs01 one frame further up.
func callerPCs12() (pc1, pc2 uintptr) { return 1, 1 }
