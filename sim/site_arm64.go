package sim

// The frame-pointer walk on arm64 (site_arm64.s). Go keeps R29 a valid chain
// of frame records on arm64 as on amd64: a function with a frame saves its
// link register (its return address) at 0(RSP) and the caller's R29 just
// below, and points R29 at the pair, so 0(R29) holds the caller's frame
// pointer and 8(R29) the return address into the caller (the execution
// tracer unwinds the same way on both). The assembly functions have no frame
// of their own (NOFRAME), so R29 is still their caller's.

// framePCs stores up to max (at most maxFrames) return addresses, starting
// with its caller's own return address, and returns how many it stored.
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
