package sim

// The frame-pointer walk on amd64 (site_amd64.s). Go keeps BP a valid chain
// of frame records on amd64: 0(BP) holds the caller's BP and 8(BP) the
// return address into the caller (the execution tracer unwinds the same
// way). Each read costs a few nanoseconds, where runtime.Callers costs about
// 200 and more on deep stacks.

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
