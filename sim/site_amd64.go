//go:build amd64

package sim

// framePCs is implemented in assembly: a frame-pointer walk costing a few
// nanoseconds, where runtime.Callers costs about 200.
//
//go:noescape
func framePCs(pcs *[maxFrames]uintptr, max int) int

// callerPCs01 returns, for its caller F called by G, the return addresses
// F->G and G->G's caller.
//
//go:noescape
func callerPCs01() (pc0, pc1 uintptr)

// callerPCs12 returns, for its caller F called by G called by H, the return
// addresses G->H and H->H's caller.
//
//go:noescape
func callerPCs12() (pc1, pc2 uintptr)
