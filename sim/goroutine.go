package sim

import "unsafe"

// stackHolds reports whether the stack of goroutine g (as curG returns it)
// holds the caller's frame, that is, whether the caller runs on g. A
// goroutine's stack bounds are the first two words of its g, the layout
// every Go function's stack check relies on (its prologue compares the
// stack pointer with the word after them). It costs a few loads where curG
// costs a call, which in an atomic spilled every argument.
func stackHolds(g unsafe.Pointer) bool {
	var here byte
	sp := uintptr(unsafe.Pointer(&here))
	bounds := (*[2]uintptr)(g)
	return bounds[0] <= sp && sp < bounds[1]
}

// stackWithin is stackHolds, and g's stack is at most max bytes: the
// recursion watch of every call into sim (Thread.own), a few loads where
// counting the frames costs a walk of the stack.
func stackWithin(g unsafe.Pointer, max uintptr) bool {
	var here byte
	sp := uintptr(unsafe.Pointer(&here))
	bounds := (*[2]uintptr)(g)
	return bounds[0] <= sp && sp < bounds[1] && bounds[1]-bounds[0] <= max
}

// stackSize is the size of goroutine g's stack (curG's).
func stackSize(g unsafe.Pointer) uintptr {
	bounds := (*[2]uintptr)(g)
	return bounds[1] - bounds[0]
}
