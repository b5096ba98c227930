//go:build amd64 || arm64

package sim

import "unsafe"

// curG identifies the running goroutine: the runtime's record of it (its
// g), read where the runtime keeps it (goroutine_amd64.s,
// goroutine_arm64.s). It costs a call, where runtime.Stack, the only
// portable way to tell goroutines apart, costs microseconds; onStack costs
// less. A g is reused once its goroutine ends, so it names a goroutine
// only while that goroutine lives, as a coroutine's does while it runs
// threads.
//
//go:noescape
func curG() unsafe.Pointer

// onStack reports whether the caller runs on goroutine g (stackHolds).
// Under the race detector every load in stackHolds calls into the
// detector, and a call may grow (move) the stack between reading the stack
// pointer and the bounds, so there it compares curG.
func onStack(g unsafe.Pointer) bool {
	if raceDetector {
		return curG() == g
	}
	return stackHolds(g)
}

// onStackWithin is onStack, and g's stack is at most max bytes
// (stackWithin).
func onStackWithin(g unsafe.Pointer, max uintptr) bool {
	if raceDetector {
		return curG() == g && stackSize(g) <= max
	}
	return stackWithin(g, max)
}
