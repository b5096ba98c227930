package sim

import (
	"fmt"
	"runtime"
)

// Kernel is the body one CUDA thread runs: a __global__ function. The
// simulator calls it once for every thread of the grid. Kernel arguments are
// captured by the closure:
//
//	func add(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
//		return func(t *sim.Thread) {
//			if i := t.GlobalX(); i < n {
//				c.Store(t, i, a.Load(t, i)+b.Load(t, i))
//			}
//		}
//	}
type Kernel func(t *Thread)

type threadState uint8

const (
	stUnstarted threadState = iota
	stRunning
	stRunnable // suspended, in the run queue
	stSpinning // suspended after making no progress, in the spin queue
	stBarrier  // waiting at SyncThreads
	stWarp     // waiting at a warp collective
	stLockstep // held back by the lockstep warp model
	stStopped  // parked because the launch is being stopped (see halt)
	stDone
)

// waitKind is what a stSpinning thread waits for, for deadlock reports:
// memory to change, or one of the syncs whose waiters are parked as
// spinners so that the scheduler keeps running (and admitting) the others.
type waitKind uint8

const (
	waitMemory   waitKind = iota // a poll, Nanosleep, ActiveMask's convergence
	waitGridSync                 // its block's arrival at grid.sync (GridGroup.Sync)
	waitTileSync                 // the sync of a tile of more than 32 threads
)

// Thread is one simulated CUDA thread, passed to the kernel. Its exported
// fields are CUDA's built-in variables; read them, never write them.
// A Thread is only valid inside the kernel call it was passed to, on the
// goroutine that runs it (see the package doc's # Misuse).
type Thread struct {
	ThreadIdx Dim3 // threadIdx
	BlockIdx  Dim3 // blockIdx
	BlockDim  Dim3 // blockDim
	GridDim   Dim3 // gridDim

	tid   int    // linear index in the block
	gid   uint32 // linear index in the grid, plus one (0 is the host)
	lane  int
	warp  int
	state threadState
	// waitFor is what the thread waits for while stSpinning.
	waitFor waitKind
	// stopCalls counts the calls into sim since the thread was unwound
	// by a stopped launch (see halt).
	stopCalls uint16

	budget int // accesses left before the slow path runs
	ops    int // accesses left before the next spin check
	watch  int // accesses left in the current spin check

	blk *block
	w   *worker
	co  *coro

	waitSite site // where the thread is blocked, for deadlock reports
	shDecl   int  // static shared arrays declared so far

	// results handed back by a barrier or collective
	barCount int
	collRes  uint64

	// x holds the state that only detection and spin checks touch, kept
	// out of line so that the hot fields of a block's threads stay dense.
	x *threadExtra
}

// threadExtra is a thread's cold state, one per thread slot of a block.
type threadExtra struct {
	hb   hbState // detection: happens-before knowledge; hot with detection on
	view hbView  // detection: what the happens-before test needs of the thread
	// spin is allocated when the thread first watches for spinning: held
	// inline it made a block's threadExtra four times larger, out of the
	// first-level cache.
	spin *spinWatch
	// spanHit says what the current access reported on the cells checked
	// so far, spanMute what it no longer reports (see muteRace).
	spanHit, spanMute uint8
	// strong is the strong access being checked (strongAccess): its
	// flags with atomicBit, for the race report; 0 for a plain access.
	strong uint32
	// poll is the element (of poll, at pollIdx) the thread's latest
	// checked access read with a volatile load; nil after any other
	// access (see warpVolatile).
	poll    *mem
	pollIdx int
	// seen holds writes the thread's strong reads read from: allocated on
	// the first (a polling thread's), kept for the slot's later threads
	// and valid only for the thread whose gid it names.
	seen *seenWrites
}

// LaneID is the thread's lane within its warp (threadIdx linearised mod 32).
func (t *Thread) LaneID() int { return t.lane }

// WarpID is the thread's warp within its block.
func (t *Thread) WarpID() int { return t.warp }

// LinearThreadIdx is threadIdx linearised as CUDA numbers threads:
// x + y*blockDim.x + z*blockDim.x*blockDim.y.
func (t *Thread) LinearThreadIdx() int { return t.tid }

// GlobalX is blockIdx.x*blockDim.x + threadIdx.x (Numba's cuda.grid(1)).
func (t *Thread) GlobalX() int { return t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X }

// GlobalY is blockIdx.y*blockDim.y + threadIdx.y.
func (t *Thread) GlobalY() int { return t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y }

// GlobalZ is blockIdx.z*blockDim.z + threadIdx.z.
func (t *Thread) GlobalZ() int { return t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z }

// GridStrideX is blockDim.x*gridDim.x, the stride of a grid-stride loop
// (Numba's cuda.gridsize(1)).
func (t *Thread) GridStrideX() int { return t.BlockDim.X * t.GridDim.X }

// WarpSize is 32.
func (t *Thread) WarpSize() int { return warpSize }

const warpSize = 32

// suspend parks the thread's coroutine until the scheduler resumes it. The
// caller has already put the thread where it will be found (run queue,
// barrier, collective). If the launch is being torn down, the kernel's stack
// unwinds with errStopped. Only the thread's own coroutine may switch away
// from it: a Thread that got here used by another (see own) is reported
// instead.
func (t *Thread) suspend() {
	if !t.owned() {
		t.notOwner()
	}
	t.suspendOwned()
}

// suspendOwned is suspend for a caller that has checked the owner itself
// (barriers and collectives, which cannot spare the call): small enough to
// be inlined.
func (t *Thread) suspendOwned() {
	if !t.co.yield(t) {
		panic(errStopped)
	}
}

// yield puts the thread at the back of the run queue and lets others run.
func (t *Thread) yield() {
	t.state = stRunnable
	t.w.runq = append(t.w.runq, t)
	t.suspend()
	t.state = stRunning
}

// halt is where a thread that calls into sim learns that its launch is
// ending from outside (LaunchContext's cancellation, the time limit, a
// fatal finding) or has ended (a Thread kept past its launch). It does not
// return.
//
// A thread that was unwound already and calls into sim again (from a
// deferred call, as it unwinds, or because the kernel recovered the panic)
// is unwound again; after maxStopCalls such calls the kernel is taken to
// recover every panic in a loop, and its goroutine is ended (stopLoop).
//
//go:noinline
func (t *Thread) halt() {
	l := t.w.l
	if l.ended.Load() || !t.owned() {
		t.notOwner() // (a Thread of an ended launch is nobody's)
	}
	if t.state == stStopped {
		t.stopCalls++
		if t.stopCalls > maxStopCalls {
			t.stopLoop()
		}
	} else {
		t.stopCalls = 0
		// Where the report of a stopped launch finds the thread.
		t.waitSite = t.w.sites.callerSite()
	}
	t.state = stStopped
	if l.stop.Load() == stopHang {
		// The launch was abandoned: unwind the stray thread and let its
		// worker wind down.
		panic(errStopped)
	}
	// Park here; the scheduler ends the launch and unwinds the thread.
	t.suspend()
	panic(errStopped)
}

// maxStopCalls bounds the calls into sim a thread makes after it was
// unwound: a deferred call that calls into sim as the stack unwinds makes
// one each, and no kernel defers hundreds.
const maxStopCalls = 256

// stopLoop ends a thread that keeps recovering the panic that unwinds it
// and calling into sim again, a recover() in a retry loop: a panic cannot
// end it, so runtime.Goexit does (its deferred calls run, and recover
// cannot stop it). The finding says so.
//
//go:noinline
func (t *Thread) stopLoop() {
	t.w.l.addFinding(Finding{Kind: KernelPanic,
		Detail:  fmt.Sprintf("the thread called into sim %d times after its launch was stopped, recovering each time the panic that unwinds it (a recover() of every panic, in a retry loop?): sim ended its goroutine with runtime.Goexit", maxStopCalls),
		Current: threadAccess(t, "recover", t.waitSite)})
	runtime.Goexit()
}

// resumeWatch sets how a thread that was parked as spinning goes on when
// it resumes: as before, with spinOps accesses before its next spin check,
// or, when the worker has so many live threads that spinOps is 0, watched
// at once for rewatchOps accesses that must keep to the addresses it spun
// on.
func (t *Thread) resumeWatch() {
	if ops := t.w.spinOps; ops > 0 {
		t.ops = ops
		return
	}
	sw := t.x.spin
	sw.confirm, sw.changed, sw.overflow = true, false, false
	t.watch = rewatchOps
}

// periodic is the work of a thread's spin-check period (every
// defaultBudget accesses, or spinOps), on its access of element i of m:
// the watchdog's beat, the stack-depth limit, and the checks that the fast
// path of Load and Store leaves out: that the Thread is used by its own
// thread's goroutine, that a global buffer belongs to the launch's Device,
// and that a shared array is the thread's block's.
func (t *Thread) periodic(m *mem, i int) {
	if !t.owned() {
		t.notOwner()
	}
	w := t.w
	w.beat.Add(1)
	if m.space == GlobalSpace && m.dev != w.l.dev {
		t.foreign(m)
	}
	if m.space == SharedSpace {
		t.checkShared(m, i, "access") // (a read or a write: the fast path does not say)
	}
	if d := w.l.maxDepth; d > 0 {
		var pc [1]uintptr
		if runtime.Callers(d, pc[:]) > 0 {
			t.stackOverflow(d)
		}
	}
}

//go:noinline
func (t *Thread) stackOverflow(depth int) {
	t.w.l.addFinding(Finding{Kind: StackOverflow,
		Detail:  fmt.Sprintf("the thread's stack is deeper than %d frames (Options.WithMaxDepth; on the GPU, cudaLimitStackSize): unbounded recursion?", depth),
		Current: threadAccess(t, "call", t.w.sites.callerSite())})
	panic(abortKernel{})
}

// foreignDetail says why m is not the launch Device's.
func foreignDetail(m *mem) string {
	if m.dev == nil {
		return "zero-value Buffer: make one with sim.Alloc or sim.FromHost"
	}
	return fmt.Sprintf("buffer %q belongs to another Device than the launch's", m.name)
}

//go:noinline
func (t *Thread) foreign(m *mem) {
	t.w.l.addFinding(Finding{Kind: ForeignBuffer, Space: m.space, Memory: m.name,
		Detail:  foreignDetail(m),
		Current: threadAccess(t, "access", t.w.sites.callerSite())})
	panic(abortKernel{})
}

// firstShadow is slowAccess's check of a buffer it has no shadow for, or
// that is not the launch Device's: a buffer of another Device is a
// ForeignBuffer finding; a buffer whose shadow memory the budget cannot
// hold is a ShadowBudget finding naming it. Both end the launch.
//
//go:noinline
func (t *Thread) firstShadow(m *mem, s site) {
	l := t.w.l
	if m.vroot != nil {
		m = m.vroot // a view uses its allocation's cells
	}
	if m.dev != l.dev {
		t.foreign(m)
	}
	if m.shadow != nil {
		return
	}
	if err := l.dev.allocShadow(m, l.shadowBudget); err != nil {
		l.addFinding(Finding{Kind: ShadowBudget, Space: m.space, Memory: m.name,
			Detail:  fmt.Sprintf("buffer %q: %v", m.name, err),
			Current: threadAccess(t, "access", s)})
		panic(abortKernel{})
	}
	if len(m.shadow) >= populateMin {
		// A slice at a time, beating, so that the watchdog does not
		// take the wait for a hung thread.
		for k := 0; k < len(m.shadow); k += populateMin {
			populate(m.shadow[k:min(k+populateMin, len(m.shadow))])
			t.w.beat.Add(1)
		}
	}
}

// populateMin is the cells from which a new shadow's pages are faulted in
// at once (populate), 64 MiB of them at a time: below it the faults cost
// little, and a kernel that touches a few elements of a small buffer need
// not hold all its shadow.
const populateMin = 64 << 20 / int(cellBytes)
