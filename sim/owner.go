package sim

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync"
	"unsafe"
	"weak"
)

// A Thread belongs to the kernel call it was passed to: it may be used only
// while that call runs, by that call, on the goroutine the simulator runs
// it on (its coroutine's). Used otherwise, it would write another thread's
// state, switch a coroutine from the wrong goroutine, or have one thread's
// accesses checked as another's. The checks that it is not sit where a
// call into sim begins (own), in Load and Store's slow path (slowAccess,
// which every access takes with detection on) and periodic check, and in
// every coroutine switch (suspend); Load and Store's fast path has none,
// so with detection off a Load or Store through a misused Thread is found
// at its periodic check, within 4096 accesses. (Barriers and collectives
// write own out: its call was a percent of a barrier.)

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
// *MisuseError, which the launch reports as that thread's KernelPanic. On
// a goroutine a kernel started (kernelStarted) it records the KernelPanic
// and ends that goroutine (strayGoroutine): a panic there could end the
// process. On any other goroutine, the host's, it records the KernelPanic
// in t's launch while that runs, which ends it, and panics with the
// *MisuseError there, as the host API does on misuse.
//
//go:noinline
func (t *Thread) notOwner() {
	l := t.w.l
	ended := l.ended.Load()
	whose := fmt.Sprintf("thread %s of block %s", t.ThreadIdx.IndexString(), t.BlockIdx.IndexString())
	if t.state == stDone && !ended {
		whose += " (which has returned)"
	}
	const rule = "a Thread is valid only in the kernel call it was passed to, on the goroutine that runs it"
	g := curG()
	if u := t.w.cur; !ended && u != nil && u != t && u.co != nil && u.co.g == g {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Thread",
			What: fmt.Sprintf("thread %s of block %s uses the Thread of %s: %s", u.ThreadIdx.IndexString(), u.BlockIdx.IndexString(), whose, rule)})
	}
	if runsKernel() {
		if ended {
			panic(t.usedAfterLaunch())
		}
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Thread",
			What: fmt.Sprintf("another kernel thread uses the Thread of %s: %s", whose, rule)})
	}
	if kernelStarted() {
		t.strayGoroutine(whose, ended)
	}
	if ended {
		panic(t.usedAfterLaunch())
	}
	err := &MisuseError{Code: ErrInvalidValue, Op: "Thread",
		What: fmt.Sprintf("the Thread of %s is used from a goroutine that runs no kernel thread (the host's): %s", whose, rule)}
	l.addFinding(Finding{Kind: KernelPanic, Detail: err.Error(),
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "misuse", Site: outerSite(2)}}) // (fatal: it ends the launch)
	panic(err)
}

// strayGoroutine is notOwner on a goroutine a kernel started (directly or
// through others): it records the misuse as a KernelPanic of t's launch,
// which ends it, or, once that launch has made its report (ended is set,
// or the launch was abandoned), in the Device for its next launch's report
// or Close's error (Device.late); then it ends the goroutine with
// runtime.Goexit, and does not return.
//
// Goexit, not a panic: sim cannot recover a panic on a goroutine it did
// not start, so one that the kernel's code does not recover ends the
// process. Nor zero values: the goroutine would run on with them (a poll
// of a Load would spin for ever, a Shared would need a buffer, a
// SyncThreads would not synchronise), each call into sim reporting again.
// Goexit runs the goroutine's deferred calls, so a WaitGroup's Done (its
// Go method's too), an errgroup's, a deferred Unlock or close run and the
// kernel that waits for the goroutine goes on, to be stopped at its next
// call into sim; no recover stops it (Thread.stopLoop ends a recovering
// kernel thread so too). A kernel that waits for something the goroutine
// would have done after the call, not deferred, waits for ever: the
// watchdog reports it (a Hang), as any kernel blocked for good.
//
//go:noinline
func (t *Thread) strayGoroutine(whose string, ended bool) {
	var what string
	if ended {
		what = fmt.Sprintf("%s is used after its launch ended, from a goroutine a kernel started: a Thread is valid only inside the kernel call it was passed to", whose)
	} else {
		what = fmt.Sprintf("the Thread of %s is used from a goroutine the kernel started, not the one that runs the thread: a Thread is valid only in the kernel call it was passed to, on the goroutine that runs it", whose)
	}
	err := &MisuseError{Code: ErrInvalidValue, Op: "Thread", What: what}
	// (A launch that has made its report, the retired launch of an ended
	// one included, passes the finding to its Device: addFinding.)
	t.w.l.addFinding(Finding{Kind: KernelPanic, Detail: err.Error() + "; sim ended that goroutine (runtime.Goexit: its deferred calls ran)",
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "misuse", Site: outerSite(2)}})
	runtime.Goexit()
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

// Goroutines a kernel started are told by their profiler labels: a
// launch's coroutines carry its labels (launch.labels, for the watchdog's
// goroutine profile), and a goroutine inherits the labels of the one that
// starts it, so every goroutine a kernel thread starts, and every one
// those start, carries them. (A kernel that sets labels of its own, with
// pprof.Do, starts goroutines that carry those: sim takes them for the
// host's.)
//
// getProfLabel and setProfLabel are the runtime's accessors of the
// calling goroutine's labels, which runtime/pprof uses: the runtime keeps
// them, and their signatures, for the packages that reach them by
// linkname (go.dev/issue/67401).
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)

// kernelLabels holds the label sets (getProfLabel's pointers) of every
// launch's coroutines, weakly: an entry lives while a goroutine (or the
// launch) keeps its label set, so that a goroutine that outlives its
// launch is still known; the collected are dropped as the map grows.
var kernelLabels struct {
	sync.Mutex
	sets  map[uintptr]weak.Pointer[byte]
	prune int // the size at which the next registration drops the collected
}

// registerKernelLabels records the label set of ctx, a launch's labels,
// as one that kernel threads run with.
func registerKernelLabels(ctx context.Context) {
	old := getProfLabel()
	pprof.SetGoroutineLabels(ctx)
	p := getProfLabel()
	setProfLabel(old)
	if p == nil {
		return
	}
	kl := &kernelLabels
	kl.Lock()
	defer kl.Unlock()
	if kl.sets == nil {
		kl.sets = map[uintptr]weak.Pointer[byte]{}
	}
	if len(kl.sets) >= kl.prune {
		for k, wp := range kl.sets {
			if wp.Value() == nil {
				delete(kl.sets, k)
			}
		}
		kl.prune = max(64, 2*len(kl.sets))
	}
	kl.sets[uintptr(p)] = weak.Make((*byte)(p))
}

// kernelStarted reports whether the calling goroutine carries the labels
// of a launch's coroutines: a kernel thread started it, or started the
// goroutine that started it (or a coroutine, which runsKernel tells).
func kernelStarted() bool {
	p := getProfLabel()
	if p == nil {
		return false
	}
	kl := &kernelLabels
	kl.Lock()
	wp, ok := kl.sets[uintptr(p)]
	kl.Unlock()
	return ok && unsafe.Pointer(wp.Value()) == p
}
