//go:build amd64

package sim

// framePCs is implemented in assembly: a frame-pointer walk costing a few
// nanoseconds, where runtime.Callers costs about 200.
//
//go:noescape
func framePCs(pcs *[maxFrames]uintptr, max int) int
