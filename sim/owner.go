package sim

import (
	"fmt"
	"runtime"
)

// A Thread belongs to the kernel call it was passed to: it may be used only
// while that call runs, by that call, on the goroutine the simulator runs
// it on (its coroutine's). Used otherwise, it would write another thread's
// state, switch a coroutine from the wrong goroutine, or have one thread's
// accesses checked as another's. The checks that it is not sit where a
// call into sim begins (own), in Load and Store's slow path and periodic
// check, and in every coroutine switch (suspend); Load and Store's fast
// path has none, so with detection off a Load or Store through a misused
// Thread is found at its periodic check, within 4096 accesses. (Barriers
// and collectives write own out: its call was a percent of a barrier.)

// own checks, where a call into sim from kernel code begins, that t is
// used by its own thread: t is the thread its worker runs, and the caller
// is the goroutine of the coroutine that runs it (then t runs: it has not
// returned, and waits at no barrier). A launch being stopped sends the
// thread to halt. Anything else is a misuse (notOwner).
func (t *Thread) own() {
	if w := t.w; w.cur != t || !onStackWithin(w.g, w.stackMax) || w.l.aborted.Load() {
		t.ownSlow()
	}
}

// ownSlow is own's verdict once a check failed. It returns only when the
// thread is its own and its stack grew past the worker's stackMax without
// reaching Options.MaxDepth frames.
//
//go:noinline
func (t *Thread) ownSlow() {
	if t.w.l.aborted.Load() {
		t.halt() // checks the owner itself
	}
	if !t.owned() {
		t.notOwner()
	}
	t.checkDepth()
}

// checkDepth counts the frames of t's stack, which has grown past the
// worker's stackMax bytes: past Options.MaxDepth it is a StackOverflow
// finding (which does not return); otherwise stackMax doubles past the
// stack's size, so that the count is made again only after the stack has
// doubled. Every call into sim checks the size (own), so recursion is
// caught whatever sim call it makes, and a kernel with large frames pays
// a count per doubling.
func (t *Thread) checkDepth() {
	w := t.w
	if d := w.l.maxDepth; d > 0 {
		var pc [1]uintptr
		if runtime.Callers(d, pc[:]) > 0 {
			t.stackOverflow(d)
		}
	}
	w.stackMax = 2 * max(w.stackMax, stackSize(w.g))
}

// owned reports whether the caller is t's thread on t's goroutine, whatever
// t's state.
func (t *Thread) owned() bool { return t.w.cur == t && onStack(t.w.g) }

// notOwner reports t used by another than its own thread, and does not
// return. Inside a kernel (another thread's call uses t) it panics with a
// *MisuseError, which the launch reports as that thread's KernelPanic. On a
// goroutine that runs no kernel thread (one a kernel started, or the host)
// it records the KernelPanic in t's launch itself, which it ends, then
// panics with the *MisuseError there: the panic ends that goroutine, or
// the process, unless it is recovered.
//
//go:noinline
func (t *Thread) notOwner() {
	l := t.w.l
	if l.ended.Load() {
		panic(t.usedAfterLaunch())
	}
	whose := fmt.Sprintf("thread %s of block %s", t.ThreadIdx.IndexString(), t.BlockIdx.IndexString())
	if t.state == stDone {
		whose += " (which has returned)"
	}
	const rule = "a Thread is valid only in the kernel call it was passed to, on the goroutine that runs it"
	g := curG()
	if u := t.w.cur; u != nil && u != t && u.co != nil && u.co.g == g {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Thread",
			What: fmt.Sprintf("thread %s of block %s uses the Thread of %s: %s", u.ThreadIdx.IndexString(), u.BlockIdx.IndexString(), whose, rule)})
	}
	if runsKernel() {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Thread",
			What: fmt.Sprintf("another kernel thread uses the Thread of %s: %s", whose, rule)})
	}
	err := &MisuseError{Code: ErrInvalidValue, Op: "Thread",
		What: fmt.Sprintf("the Thread of %s is used from a goroutine that runs no kernel thread (one the kernel started, or the host): %s", whose, rule)}
	l.addFinding(Finding{Kind: KernelPanic, Detail: err.Error(),
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "misuse", Site: outerSite(2)}}) // (fatal: it ends the launch)
	panic(err)
}

// usedAfterLaunch is the error of a Thread used once its launch has ended.
func (t *Thread) usedAfterLaunch() *MisuseError {
	return &MisuseError{Code: ErrInvalidValue, Op: "Thread",
		What: fmt.Sprintf("thread %s of block %s is used after its launch ended: a Thread is valid only inside the kernel call it was passed to", t.ThreadIdx.IndexString(), t.BlockIdx.IndexString())}
}

// runsKernel reports whether the calling goroutine is a coroutine running a
// kernel thread: whether the scheduler's call of the kernel is on its
// stack.
func runsKernel() bool {
	pcs := make([]uintptr, 256)
	for {
		n := runtime.Callers(1, pcs)
		frames := runtime.CallersFrames(pcs[:n])
		for {
			fr, more := frames.Next()
			if fr.Function == runThreadFunc {
				return true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
}
