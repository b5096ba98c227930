//go:build !amd64 && !arm64

package sim

import "unsafe"

// curG is nil where the running goroutine's g cannot be read cheaply
// (every architecture but amd64 and arm64): every goroutine looks alike,
// so the checks that a Thread is used on its own thread's goroutine
// (owner.go) see only what its state and its worker's running thread tell.
func curG() unsafe.Pointer { return nil }

// onStack reports true: every goroutine looks alike (see curG).
func onStack(g unsafe.Pointer) bool { return true }

// onStackWithin reports true: the stack is not seen (Load and Store's
// periodic check still counts its frames).
func onStackWithin(g unsafe.Pointer, max uintptr) bool { return true }

var _ = stackWithin // (used on amd64 and arm64)

var _ = stackHolds // (used on amd64 and arm64)
