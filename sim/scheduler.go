package sim

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// errStopped unwinds a suspended kernel when its launch is torn down.
var errStopped = errors.New("sim: launch torn down")

// abortKernel unwinds the thread that hit a fatal finding (out of bounds);
// the finding is already recorded.
type abortKernel struct{}

// launch is one kernel launch in flight: what all its workers share.
type launch struct {
	dev     *Device
	kernel  Kernel
	opts    Options
	grid    Dim3
	block   Dim3
	tpb     int // threads per block
	nblocks int
	dynSh   int
	gidBase uint32 // thread id of the grid's first thread
	detect  bool
	spec    *Spec

	resident   int    // blocks one worker may hold at once
	residentBy string // what bounds resident: "warps", "registers", ...

	maxDepth     int   // Options.MaxDepth: 0 is no limit
	shadowBudget int64 // Options.ShadowBudget: 0 is no budget

	aborted atomic.Bool // read by every thread start: kept off the lines written below
	// stop says why the launch is being stopped from outside (stopCancel,
	// stopBudget, stopHang), 0 if it is not; aborted is set with it.
	stop atomic.Int32
	// ended is set once the launch has returned: a Thread used after it
	// is a misuse (see retireThreads).
	ended atomic.Bool

	// nextBlock and progress are written once a block by every parallel
	// worker; the padding keeps them off the cache lines of the fields
	// every thread reads.
	_         [64]byte
	nextBlock atomic.Int64
	progress  atomic.Uint64 // cross-worker progress, for parallel stuck checks
	_         [64]byte
	// limit is the first block not to admit: the grid's size, or 1 while
	// block 0 runs alone before speculation (speculate.go).
	limit atomic.Int64
	// epoch is the speculation running, while detection runs on several
	// workers (speculate.go).
	epoch *specState

	mu       sync.Mutex // guards findings and syncVars in parallel mode
	findings findingSet
	// sealed is set (under mu) once the launch has made its report
	// (result): a finding after it, of a goroutine the kernel started
	// that outlived the launch, goes to the Device (Device.late).
	sealed   bool
	syncVars map[syncKey]*syncVar
	races    map[raceKey]int // reported races, by key: their index in findings (see countRace)
	// guesses and casDone are the workers' held-back races of plain reads
	// with atomics and the elements threads compare-and-swapped, gathered
	// as the workers finish (see guessRace).
	guesses []guessRace
	casDone map[casKey]int

	// ctxs is the table of access contexts shadow records index (see
	// shadow.go); ctxIndex finds a context's id. Made when detection is on.
	ctxs     []accessCtx
	ctxIndex map[accessCtx]uint32
	coop     *coopState // cooperative groups and grid sync (coop.go), made on first use
	prof     *Profile
	prog     *Progress
	stats    Counters

	workers   []*worker       // for the watchdog and retireThreads
	labels    context.Context // pprof labels naming the launch's coroutines
	stopped   error           // the context's error, when it stopped the launch
	abandoned bool            // the watchdog gave up on a thread (see supervise)
}

// Reasons a launch is stopped from outside (launch.stop).
const (
	stopCancel = 1 + iota // the context was cancelled or its deadline passed
	stopBudget            // Options.WithTimeLimit ran out
	stopHang              // the watchdog gave up on a thread
)

// coro is a pooled coroutine that runs threads: it starts the next
// unstarted thread as a plain call, and only when a thread suspends does the
// scheduler need another coroutine. Barrier-free kernels therefore run a
// whole block on one coroutine with one switch.
type coro struct {
	next  func() (*Thread, bool)
	stop  func()
	yield func(*Thread) bool
	dead  bool
	// w is the worker the coroutine runs threads for; coroutines outlive
	// workers in idlePool.
	w *worker
	// idle is set while the coroutine waits between runs of threads (at
	// the top of its loop), the only place it can move to another worker.
	idle bool
	// g is the coroutine's goroutine (curG), the only one that may use
	// the Threads it runs (owner.go).
	g unsafe.Pointer
}

// idlePool keeps coroutines between launches, process-wide: creating a
// goroutine per coroutine per launch cost more than the short launches
// the tests make by the thousand, and under the race detector, whose
// per-goroutine state grows with every goroutine ever created, it took
// gigabytes. At most maxIdle wait here; the rest are stopped.
var idlePool struct {
	sync.Mutex
	coros []*coro
}

const maxIdle = 2048

// block is a resident block: its threads, warps, barrier and shared memory.
// Blocks are recycled within a worker.
type block struct {
	// The padding at both ends keeps another worker's block, perhaps
	// allocated next to this one, off the cache lines its threads write.
	_       [64]byte
	idx     Dim3
	linear  int
	threads []Thread
	extra   []threadExtra
	warps   []warp
	started int // threads started so far
	live    int // threads started or not, not exited
	bar     barrierState
	static  []sharedArray
	// staticSite is where each static array is declared (its Shared
	// call's line): one array per declaration, as CUDA has.
	staticSite []site
	staticB    int
	declared   int // static arrays declared in this block so far
	budget     int // initial access budget of its threads
	opsStart   int // accesses its threads run before their first spin check
	// acquired is set once a thread of the block has acquired knowledge
	// through atomics and a fence: until then barriers have none to share.
	acquired bool
	// phase counts the barriers the block has passed. It is every live
	// thread's barrier phase too: a barrier is released only when all live
	// threads wait at it.
	phase      uint32
	gidBase    uint32      // gid of thread 0
	dynamic    sharedArray // the first DynamicShared declaration's memory
	dynViews   []any       // views of dynamic under other types or names (DynamicShared)
	exitedPast int         // threads that exited in the current barrier phase with a past (detection)
	// barChain is where the barrier being waited at stands in each kernel
	// function on the stack (detection): its own line, and the line that
	// called the helper it sits in, and so on out to the kernel.
	barChain []pastOp
	// barPCs holds the return addresses above barrier of the first
	// arrival at the barrier being waited at (recordBarPath): a later
	// arrival by the same machine-level path needs no barChain of its own.
	barPCs [maxFrames]uintptr
	barPCn int
	// lastChain is barChain of the barrier the block passed last: where
	// every live thread's last barrier stands.
	lastChain []pastOp
	_         [64]byte
}

// worker runs blocks one after another (or a few at once, when threads spin
// waiting for another block) on one goroutine.
//
// A device keeps the workers of its last launch for the next one
// (Device.spareWorkers): a launch of a few small blocks spent a third of
// its time allocating, clearing and warming a worker's 21 KB. What a
// launch starts from is reset (workerState); the site cache, whose entries
// depend on return addresses alone, is kept warm.
type worker struct {
	workerState
	sites siteCache
	// spare are blocks the worker's last launch recycled (up to
	// spareThreads threads' worth): a launch whose blocks have as many
	// threads takes them (spareBlock) rather than allocating its own.
	// Their Thread slots are new: a *Thread kept past its launch must
	// go on failing as one whose launch ended.
	spare []*block
}

// workerState is the part of a worker that every launch starts afresh.
type workerState struct {
	l      *launch
	pool   []*coro
	all    []*coro
	runq   []*Thread
	runqHd int
	spinq  []*Thread
	blocks []*block // resident, in admission order
	free   []*block
	live   int // live threads over resident blocks

	progress uint64 // bumped by every change of memory, thread exit and block admission
	spinMark uint64
	stuck    int
	// stuckOps estimates the accesses spinners ran since the last
	// progress; plainSpinners counts the spinners parked since the last
	// spin round that polled with plain loads only (see spinRound).
	stuckOps      int
	plainSpinners int
	// idleSince is set when a thread parked at a call that polls without
	// changing memory (an atomic that changed nothing, __nanosleep: one
	// poll a round, not a watched turn) since the last progress (see
	// spinRound).
	idleSince  bool
	idlePark   bool // such a park since the last spin round
	othersIdle bool // a wait for other workers' progress came to nothing
	// syncMark is progress at the last barrier or collective arrival that
	// saw it change; idleSyncs counts the arrivals since (syncArrival).
	syncMark  uint64
	idleSyncs int
	rng       *rand.Rand
	chain     []pastOp // detection: a barrier's call chain (helperBarrierCallers)
	ctxs      ctxCache // detection: context ids of recent accesses
	// ctxView is the launch's context table as far as this worker has
	// interned: what its records' ids index (see internCtx).
	ctxView []accessCtx
	// bfp and bmore are the footprints of the batch of blocks it runs in
	// an epoch, by buffer id (bmore when two ids share a slot), fps those
	// of its earlier batches in the epoch (speculate.go).
	bfp   [8]footprint
	bmore []footprint
	fps   []footprint
	// repeats are the races it counted last (see repeatedRace).
	repeats [4]repeatedRace
	// guesses are its held-back races of plain reads with atomics, indexed
	// by guessAt; casDone counts its threads' compare-and-swaps by element
	// (see guessRace).
	guesses    []guessRace
	guessAt    map[guessKey]int
	casDone    map[casKey]int
	repeatNext uint8
	// batchLo and batchHi are the blocks an epoch's worker took and has
	// not yet admitted (see admit).
	batchLo, batchHi int
	stats            Counters
	parallel         bool
	lastShare        uint64
	pw               *profWorker // profiling state, when profiling
	// special is set when a thread's exit has more to do than the
	// bookkeeping: detection, profiling or the lockstep warp model.
	special bool

	// spinOps is how many accesses a thread resumed from the spin queue,
	// or started in a block admitted for spinners, runs before it is
	// watched again (see spinRound); 0 means at once, and then a resumed
	// thread is only confirmed to keep to its addresses (rewatchOps).
	spinOps int
	turns   uint // scheduling turns and calls into sim, for the watchdog (progressMark)

	// cur is the thread last started or resumed: the one running when the
	// worker's goroutine is inside a coroutine. The watchdog reads it
	// without synchronisation, and only after the worker has stopped
	// beating (see peekRunning). g is the goroutine of cur's coroutine,
	// the only one that may use it (owner.go).
	cur *Thread
	g   unsafe.Pointer
	// stackMax is the stack size in bytes past which a call into sim
	// counts the thread's frames (checkDepth); no limit when MaxDepth is.
	// Read with cur and g by every call into sim.
	stackMax uintptr
	_        [48]byte // (64 less g and stackMax: beat and sites stay where they were, and the site cache's entries with them)
	// beat counts the rarer signs of progress: spin rounds, block
	// admissions, and each thread's periodic check in Load and Store. With
	// turns and stats.Threads it makes the worker's progress mark, which
	// the watchdog reads from another goroutine; a worker whose mark
	// stands still for the watchdog's timeout has a thread that runs
	// without calling into sim.
	beat     atomic.Uint64
	finished atomic.Bool // run has returned
	_        [64]byte
}

// initialStackMax is a worker's first stackMax: kernel threads' stacks
// stay far below it, and 10,000 frames of the smallest recursive function
// (DefaultMaxDepth) take more.
const initialStackMax = 128 << 10

const (
	defaultBudget = 4096 // accesses between spin checks
	strongOps     = 256  // strong accesses between spin checks, with detection or the profiler on
	watchOps      = 64   // accesses observed by one spin check
	rewatchOps    = 8    // accesses confirming that a resumed spinner still spins (large grids)
	maxStuck      = 64   // rounds of spinning without progress before deadlock
	minStuck      = 4    // the fewest such rounds, for grids of many spinning threads
	// stuckTurns bounds the thread turns the rounds without progress take
	// before a deadlock is declared: with more than stuckTurns/maxStuck
	// live threads, fewer rounds are run (never below minStuck).
	stuckTurns = 1 << 20
	// spinAccesses bounds the accesses one spin round takes: with more
	// than spinAccesses/defaultBudget live threads, a resumed spinner runs
	// fewer accesses before it is watched again.
	spinAccesses = 1 << 20
	// plainSpinThread and plainSpinAccesses bound the accesses polling
	// with plain loads only, without progress, that make a livelock (see
	// spinRound): 2^20 per live thread, 2^26 (a second or two of
	// simulation) in all; under the Go race detector, whose checked
	// accesses cost ten times as much, 2^23. plainSpinTurn is the fewest
	// accesses such a spinner runs per turn.
	plainSpinThread   = 1 << 20
	plainSpinAccesses = 1 << 26 >> (3 * raceShift)
	plainSpinTurn     = 32
	// idlePolls is the polls without progress, in all, that make a
	// livelock where threads park at each poll (an atomic that changed
	// nothing, __nanosleep), each poll a round: see idleRounds.
	// idlePollsThread is the polls per thread such a livelock waits for,
	// while the live threads' turns stay within idleTurns.
	idlePolls       = 4096
	idlePollsThread = 512
	idleTurns       = 1 << 20
)

// poolsCoros reports whether w takes its coroutines from idlePool and gives
// them back. Parallel workers make their own (a coroutine last run on
// another core's goroutine cost them a fifth of their speed-up), except
// under the race detector, which keeps memory for every goroutine ever
// started: a launch of 64 blocks of 256 threads with a barrier on two
// workers made 512 coroutines and grew the process by 23 MB.
func (w *worker) poolsCoros() bool { return !w.parallel || raceDetector }

// kernelGoroutines holds the goroutines of the coroutines that run
// kernel threads, by curG, while they live: a host call made on one
// (Device.inKernel) is a kernel calling the host API.
var kernelGoroutines sync.Map

// inKernel panics with a MisuseError (the thread's KernelPanic finding,
// naming the line) if the caller is a kernel thread of a launch on d: the
// host call op would wait for the launch it is part of, and the watchdog
// would call the launch hung.
func (d *Device) inKernel(op string) {
	g := curG()
	if g == nil {
		return
	}
	if c, ok := kernelGoroutines.Load(g); ok && c.(*coro).w.l.dev == d {
		panic(&MisuseError{Code: ErrInvalidValue, Op: op, What: "called by a kernel thread of a launch on the same Device: the host API waits for the launch to end (on the GPU, a kernel cannot call it)"})
	}
}

func (w *worker) newCoro() *coro {
	idlePool.Lock()
	if n := len(idlePool.coros); n > 0 && w.poolsCoros() {
		c := idlePool.coros[n-1]
		idlePool.coros = idlePool.coros[:n-1]
		idlePool.Unlock()
		c.w = w
		w.all = append(w.all, c)
		return c
	}
	idlePool.Unlock()
	w.l.dev.corosMade.Add(1)
	c := &coro{w: w}
	c.next, c.stop = iter.Pull(func(yield func(*Thread) bool) {
		c.yield = yield
		c.g = curG()
		if c.g != nil {
			kernelGoroutines.Store(c.g, c)
			defer kernelGoroutines.Delete(c.g)
		}
		for {
			// The launch's labels let the watchdog find this goroutine
			// in a goroutine profile (see sampleStuck).
			pprof.SetGoroutineLabels(c.w.l.labels)
			if !c.w.runThreads(c) {
				return
			}
			// A thread ended in a panic or abort, or none was left to
			// start: hand control back, then look again (perhaps for
			// another launch's worker).
			c.idle = true
			ok := yield(nil)
			c.idle = false
			if !ok {
				return
			}
		}
	})
	w.all = append(w.all, c)
	return c
}

// runThreads starts unstarted threads on coroutine c, one after another as
// plain calls, until none is left or one ends in a panic. One deferred
// recover covers the whole run, so a thread costs no defer of its own. It
// reports false when the launch is being torn down and the coroutine must
// end.
func (w *worker) runThreads(c *coro) (ok bool) {
	var t *Thread // the running thread; nil between threads
	defer func() {
		if t == nil {
			return
		}
		r := recover()
		switch r {
		case errStopped:
			ok = false
			return
		case abortKernel{}:
		case nil:
			// No panic, and the thread did not return: runtime.Goexit
			// (a *testing.T's FailNow, Fatal or SkipNow called in a
			// kernel). It ends this coroutine's goroutine, and the
			// launch with it.
			if t.state == stStopped {
				// A thread being stopped: Thread.stopLoop ended it,
				// or the kernel did as it unwound. The launch ends
				// anyway.
				ok = false
				return
			}
			w.kernelGoexit(t)
		default:
			w.kernelPanic(t, r)
		}
		w.abort()
		w.threadExit(t)
	}()
	l := w.l
	random := l.opts.schedule == RandomOrder
	w.g = c.g
	// b is the block the last thread started came from. Blocks join
	// w.blocks at its end and leave it only when done, so while b is the
	// same block (a retired block's struct is reused for another) and has
	// threads not yet started, it is still the first such block.
	var b *block
	bLinear := -1
	for {
		// The next thread to start, in block admission order and
		// threadIdx order within a block, prepared for its first run:
		// ThreadIdx, lane, warp and the dims were set once by newBlock;
		// only what changes from block to block is reset here. (Written
		// out: two calls were a tenth of a barrier-free thread.)
		t = nil // (between threads: the deferred recover has none to blame)
		if l.aborted.Load() {
			return true
		}
		if b == nil || b.started == len(b.threads) || b.linear != bLinear {
			if b = w.unstartedBlock(); b == nil {
				return true
			}
			bLinear = b.linear
		}
		k := b.started
		b.started++
		t = &b.threads[k]
		t.BlockIdx = b.idx
		t.gid = b.gidBase + uint32(k)
		t.ops = b.opsStart
		t.budget = min(b.budget, b.opsStart)
		t.watch = 0
		t.waitSite = 0
		t.shDecl = 0
		if l.detect {
			t.x.hb.reset()
			t.x.view.base = b.gidBase
		}
		t.co = c
		t.state = stRunning
		w.cur = t
		l.kernel(t)
		w.threadExit(t)
		if random {
			// Let the scheduler choose again after every thread.
			u := t
			t = nil
			if !c.yield(u) {
				return false
			}
			w.g = c.g
		}
	}
}

func (w *worker) abort() { w.l.aborted.Store(true) }

// tick counts a call into sim that is no scheduling turn (an atomic, a
// fence, a barrier, a collective) for the watchdog (see progressMark).
func (w *worker) tick() { w.turns++ }

// unstartedBlock returns the first resident block with threads not yet
// started.
func (w *worker) unstartedBlock() *block {
	for _, b := range w.blocks {
		if b.started < len(b.threads) {
			return b
		}
	}
	return nil
}

func (w *worker) hasUnstarted() bool {
	for _, b := range w.blocks {
		if b.started < len(b.threads) {
			return true
		}
	}
	return false
}

// resume switches to c until it suspends a thread or runs out of work.
func (w *worker) resume(c *coro) {
	t, ok := c.next()
	if !ok {
		c.dead = true
		return
	}
	if t == nil || t.state == stDone {
		w.pool = append(w.pool, c)
	}
}

func (w *worker) startLazy() {
	var c *coro
	if n := len(w.pool); n > 0 {
		c = w.pool[n-1]
		w.pool = w.pool[:n-1]
	} else {
		c = w.newCoro()
	}
	w.resume(c)
}

// popRunnable takes the next thread to resume, or nil to start a new thread.
func (w *worker) popRunnable() *Thread {
	n := len(w.runq) - w.runqHd
	if n == 0 {
		return nil
	}
	i := w.runqHd
	if w.l.opts.schedule == RandomOrder {
		k := n
		if w.hasUnstarted() {
			k++
		}
		r := w.rng.IntN(k)
		if r == n {
			return nil
		}
		i += r
		w.runq[i], w.runq[w.runqHd] = w.runq[w.runqHd], w.runq[i]
		i = w.runqHd
	}
	t := w.runq[i]
	w.runq[i] = nil
	w.runqHd++
	if w.runqHd == len(w.runq) {
		w.runq = w.runq[:0]
		w.runqHd = 0
	}
	return t
}

// run executes blocks until the launch has none left or is aborted.
func (w *worker) run() {
	defer w.finished.Store(true)
	defer w.shutdown()
	w.runBlocks()
}

// runBlocks is run without the shutdown: an epoch's worker runs it once an
// epoch (speculate.go).
func (w *worker) runBlocks() {
	for !w.l.aborted.Load() {
		w.turns++
		if w.live == 0 {
			if !w.admit() {
				return
			}
			continue
		}
		if t := w.popRunnable(); t != nil {
			w.cur, w.g = t, t.co.g
			w.resume(t.co)
			continue
		}
		if w.hasUnstarted() {
			w.startLazy()
			continue
		}
		if w.spinRound() {
			continue
		}
		w.deadlock()
		return
	}
	if w.l.stop.Load() == stopBudget {
		w.budgetReport()
	}
}

// spinRound gives spinning threads another turn while anything changes. It
// reports false when nothing can make progress any more: a deadlock or
// livelock.
func (w *worker) spinRound() bool {
	if len(w.spinq) == 0 {
		return false
	}
	w.beat.Add(1)
	plain := w.plainSpinners > 0
	w.plainSpinners = 0
	if w.progress != w.spinMark {
		w.spinMark = w.progress
		w.stuck, w.stuckOps, w.othersIdle = 0, 0, false
		w.idleSince = w.idlePark
	} else {
		w.stuck++
	}
	if w.parallel && w.stuck > 2 {
		// Another worker may be about to release us.
		if g := w.l.progress.Load(); g != w.lastShare {
			w.lastShare = g
			w.stuck, w.stuckOps, w.othersIdle = 0, 0, false
		} else if w.stuck > maxStuck {
			if w.othersIdle || !w.waitForOthers() {
				w.othersIdle = true
				goto stuck
			}
			w.stuck, w.stuckOps = 0, 0
		} else {
			runtime.Gosched()
		}
	}
	if w.stuck >= 2 && w.admitMore() {
		w.stuck, w.stuckOps = 0, 0
	}
stuck:
	// A thread that polls a few addresses with plain loads, in the same
	// order over and over (spinWatch.periodic), and writes nothing may be
	// a spin wait or a long loop over a small read-only table in a fixed
	// order (a polynomial's coefficients): memory cannot tell them apart. While any spinner polls that way, the verdict waits
	// for plainSpinThread such accesses per live thread, or
	// plainSpinAccesses in all (and minStuck rounds), rather than
	// stuckRounds rounds; spin waits on volatile, atomic_ref and atomics
	// are judged after stuckRounds, or idleRounds where threads parked at
	// each poll (idleSince).
	waitIdle := false
	if plain {
		if w.stuck > minStuck && w.stuckOps >= min(plainSpinAccesses, w.live*plainSpinThread) {
			return false
		}
	} else if w.stuck > w.stuckRounds() {
		if !w.idleSince || w.stuck > w.idleRounds() {
			return false
		}
		waitIdle = true
	}
	w.spinOps = spinOpsFor(w.live)
	if waitIdle {
		// The rounds wait for the idle pollers' polls: threads watched
		// for spinning, which showed it, only confirm they still spin.
		w.spinOps = 0
	}
	if plain {
		// Longer turns: the verdict waits for accesses, not rounds.
		w.spinOps = max(w.spinOps, plainSpinTurn)
	}
	per := w.spinOps + watchOps
	if w.spinOps == 0 {
		per = rewatchOps
	}
	w.stuckOps += per * len(w.spinq)
	w.idlePark = false
	for _, t := range w.spinq {
		t.state = stRunnable
		w.runq = append(w.runq, t)
	}
	w.spinq = w.spinq[:0]
	return true
}

// waitForOthers waits up to 200ms for another worker to make progress.
func (w *worker) waitForOthers() bool {
	start := w.l.progress.Load()
	for i := 0; i < 200; i++ {
		time.Sleep(time.Millisecond)
		if w.l.progress.Load() != start || w.l.aborted.Load() {
			w.lastShare = w.l.progress.Load()
			return true
		}
	}
	return false
}

// stuckRounds is how many rounds without progress make a deadlock:
// maxStuck, or fewer (down to minStuck) when so many threads are live
// that maxStuck rounds would take more than stuckTurns thread turns.
func (w *worker) stuckRounds() int {
	return max(minStuck, min(maxStuck, stuckTurns/max(w.live, 1)))
}

// idleRounds is how many rounds without progress make a deadlock when a
// thread parked at a poll that changed nothing (an atomic that changed
// nothing, __nanosleep) since the last progress: such a thread polls once
// a round, where a thread the spin watch parked ran a turn of polls, so
// the rounds count polls: idlePolls in all (as many accesses as a thread
// makes before the spin watch first looks at it), idlePollsThread per
// live thread as long as that takes at most idleTurns turns, and never
// fewer than stuckRounds. stuckRounds alone let a single thread's finite
// loop of some 65 exchanges that leave the value be taken for a livelock,
// and idlePolls alone a block's bounded retry loops (256 threads, 100
// polls each with a __nanosleep after each, then a fallback path: 200
// parks per thread).
func (w *worker) idleRounds() int {
	live := max(w.live, 1)
	return max(w.stuckRounds(), idlePolls/live, min(idlePollsThread, idleTurns/live))
}

// spinOpsFor is the accesses a resumed spinner runs before it is watched
// again, when live threads share a round: defaultBudget for up to
// spinAccesses/defaultBudget threads, less for more, 0 from
// spinAccesses/watchOps on.
func spinOpsFor(live int) int {
	return max(0, min(defaultBudget, spinAccesses/max(live, 1)-watchOps))
}

// admitMore makes more blocks resident while spinning threads may be
// waiting for them: all the device could hold at once, as the GPU would
// have from the start (one block at a time cost a grid barrier over
// hundreds of blocks two spin rounds per block). Their threads start
// watched for spinning at once when the worker's live threads are many
// (spinOpsFor).
func (w *worker) admitMore() bool {
	if l := w.l; l.limit.Load() < int64(l.nblocks) {
		// Block 0 running alone spins, perhaps on other blocks: the
		// launch runs on this worker (speculate.go).
		l.limit.Store(int64(l.nblocks))
	}
	n := w.l.resident - len(w.blocks)
	admitted := false
	for ; n > 0; n-- {
		if !w.admit() {
			break
		}
		admitted = true
	}
	if admitted {
		w.spinOps = spinOpsFor(w.live)
		for _, b := range w.blocks {
			if b.started == 0 {
				b.opsStart = w.spinOps
			}
		}
	}
	return admitted
}

// admit makes the launch's next block resident on this worker.
func (w *worker) admit() bool {
	l := w.l
	var i int
	if s := l.epoch; s != nil {
		// Blocks are taken up to specBatch at a time, so that each
		// worker runs neighbouring blocks, and fewer near the end, so
		// that workers finish together; a batch taken is run to its end.
		if w.batchLo >= w.batchHi {
			if s.full.Load() || s.failed.Load() {
				return false
			}
			left := l.limit.Load() - l.nextBlock.Load()
			size := min(specBatch, max(1, left/int64(4*s.workers)))
			j := l.nextBlock.Add(size) - size
			if j >= l.limit.Load() {
				return false
			}
			w.batchLo, w.batchHi = int(j), min(int(j+size), l.nblocks)
			w.endBatch()
		}
		i = w.batchLo
		w.batchLo++
	} else if i = int(l.nextBlock.Add(1) - 1); i >= int(l.limit.Load()) {
		return false
	}
	var b *block
	if n := len(w.free); n > 0 {
		b = w.free[n-1]
		w.free = w.free[:n-1]
	} else if b = w.spareBlock(); b == nil {
		b = w.newBlock()
	}
	w.resetBlock(b, i)
	w.blocks = append(w.blocks, b)
	w.live += len(b.threads)
	w.progress++
	w.beat.Add(1)
	return true
}

func (w *worker) newBlock() *block {
	l := w.l
	b := &block{threads: make([]Thread, l.tpb), extra: make([]threadExtra, l.tpb),
		warps: make([]warp, (l.tpb+warpSize-1)/warpSize)}
	w.initBlock(b)
	return b
}

// spareBlock takes a block of the worker's last launch for this one, if
// one of its size is left, and prepares it as newBlock prepares a new
// one.
func (w *worker) spareBlock() *block {
	n := len(w.spare)
	if n == 0 {
		return nil
	}
	b := w.spare[n-1]
	w.spare = w.spare[:n-1]
	if len(b.threads) != w.l.tpb {
		clear(w.spare)
		w.spare = w.spare[:0] // another size: none fits
		return nil
	}
	// The last launch's shared arrays lapsed with it (and a kernel may
	// keep them, to be told so): this launch declares its own.
	clear(b.static)
	b.static, b.staticSite, b.dynamic, b.dynViews = b.static[:0], b.staticSite[:0], nil, nil
	b.threads = make([]Thread, len(b.threads)) // (see spare)
	for k := range b.extra {
		b.extra[k].poll = nil // (its buffer may be gone)
	}
	w.initBlock(b)
	return b
}

// initBlock sets what a block's threads and warps keep for a whole launch.
func (w *worker) initBlock(b *block) {
	l := w.l
	for i := range b.warps {
		n := l.tpb - i*warpSize
		if n > warpSize {
			n = warpSize
		}
		b.warps[i].present = uint32(uint64(1)<<n - 1)
	}
	for k := range b.threads {
		t := &b.threads[k]
		t.ThreadIdx = l.block.unlinear(k)
		t.BlockDim = l.block
		t.GridDim = l.grid
		t.tid = k
		t.lane = k & (warpSize - 1)
		t.warp = k / warpSize
		t.blk = b
		t.w = w
		t.x = &b.extra[k]
		t.x.view = hbView{n: uint32(l.tpb), tid: uint32(k), warp: uint32(t.warp), known: &t.x.hb.known, t: t}
	}
}

// resetBlock prepares a recycled block for block number i, field by field:
// a Thread literal per thread would cost twice as much.
func (w *worker) resetBlock(b *block, i int) {
	l := w.l
	b.linear = i
	b.idx = l.grid.unlinear(i)
	b.started = 0
	b.live = len(b.threads)
	b.bar = barrierState{}
	b.phase = 0
	b.acquired = false
	b.exitedPast = 0
	b.lastChain = b.lastChain[:0]
	b.staticB = 0
	b.declared = 0
	for k := range b.static {
		b.static[k].reset(l.detect)
	}
	if b.dynamic != nil {
		b.dynamic.reset(l.detect)
	}
	for k := range b.warps {
		b.warps[k].reset()
	}
	b.budget = defaultBudget
	b.opsStart = defaultBudget
	if l.detect || l.prof != nil {
		b.budget = 0
	}
	b.gidBase = l.gidBase + uint32(i*l.tpb)
	// The threads themselves are prepared one by one as they start
	// (runThreads): a pass over them here would bring every Thread into
	// the cache twice. Until then a thread slot keeps its previous block's
	// state, stDone, which no barrier or collective mistakes for a waiter;
	// b.started tells unstarted threads apart.
}

// threadExit retires t: the block's barrier may now be complete, and when
// the whole block is done it is recycled.
func (w *worker) threadExit(t *Thread) {
	t.state = stDone
	b := t.blk
	b.live--
	w.live--
	w.progress++
	w.stats.Threads++
	if w.special {
		if w.l.prof != nil {
			w.profExit(t)
		}
		if w.l.detect {
			w.exitCheck(t)
		}
	}
	if wp := &b.warps[t.warp]; len(wp.pending) == 0 && !w.special {
		wp.exited |= 1 << t.lane // warpExit's whole work when no lane waits
	} else {
		w.warpExit(t)
	}
	if b.bar.waiting > 0 && b.bar.waiting == b.live {
		w.releaseBarrier(b)
	}
	if b.live == 0 {
		w.retire(b)
	}
}

func (w *worker) retire(b *block) {
	if w.l.prof != nil {
		w.profRetire(b)
	}
	b.lapseShared()
	for i, x := range w.blocks {
		if x == b {
			w.blocks = append(w.blocks[:i], w.blocks[i+1:]...)
			break
		}
	}
	w.stats.Blocks++
	w.free = append(w.free, b)
	if w.parallel && w.l.epoch == nil {
		// (An epoch fails on spinning: no worker waits for another's
		// progress.)
		w.l.progress.Add(1)
	}
	if p := w.l.prog; p != nil {
		p.done.Add(1)
	}
}

// lapseShared ends the life of the shared arrays the block declared.
func (b *block) lapseShared() {
	for _, a := range b.static[:b.declared] {
		a.lapse()
	}
	if b.dynamic != nil {
		b.dynamic.lapse()
	}
}

// drainIdle stops every coroutine idle in idlePool (Device.Close).
func drainIdle() {
	idlePool.Lock()
	cs := idlePool.coros
	idlePool.coros = nil
	idlePool.Unlock()
	for _, c := range cs {
		c.stop()
	}
}

// shutdown stops every coroutine that still holds a thread, unwinding
// kernels suspended after an abort or a deadlock, and returns the idle ones
// to idlePool.
//
// Under the random schedule a coroutine parks after each thread it ends
// (runThreads), and the pool holds it there: it is resumed once, to find
// no thread left and go idle. Stopped instead, its goroutine would end and
// the next launch would start another: under the race detector each
// goroutine ever started kept memory (a test of 100 random-schedule radix
// sorts grew to 24 GB).
func (w *worker) shutdown() {
	finished := false
	defer func() {
		if !finished {
			// A kernel's runtime.Goexit (Thread.stopLoop's, or the
			// kernel's own as it unwound) ended the coroutine being
			// stopped, and iter.Pull passed it on to this goroutine:
			// finish on another, so that no coroutine is left behind.
			// (A coroutine is marked dead before it is stopped.)
			done := make(chan struct{})
			go func() {
				defer close(done)
				w.shutdown()
			}()
			<-done
		}
	}()
	if w.poolsCoros() && w.l.stop.Load() != stopHang {
		for _, c := range w.pool {
			if !c.idle && !c.dead {
				if _, ok := c.next(); !ok {
					c.dead = true
				}
			}
		}
	}
	// The thread each coroutine holds, suspended: the one that runs as
	// the coroutine is stopped and unwinds it (see own).
	var held map[*coro]*Thread
	for _, b := range w.blocks {
		for k := range b.started {
			if t := &b.threads[k]; t.state != stDone {
				if held == nil {
					held = map[*coro]*Thread{}
				}
				held[t.co] = t
			}
		}
	}
	var keep []*coro
	for _, c := range w.all {
		switch {
		case c.dead:
		case c.idle && w.poolsCoros() && w.l.stop.Load() != stopHang:
			// (An abandoned launch's coroutines are not pooled: its
			// goroutines end with its stray thread.)
			c.w = nil
			keep = append(keep, c)
		default:
			w.cur, w.g = held[c], c.g
			c.dead = true
			c.stop()
		}
	}
	idlePool.Lock()
	n := min(len(keep), maxIdle-len(idlePool.coros))
	idlePool.coros = append(idlePool.coros, keep[:max(n, 0)]...)
	idlePool.Unlock()
	for _, c := range keep[max(n, 0):] {
		c.stop()
	}
	w.all = nil
	w.pool = nil
	finished = true
}

// deadlock reports every live thread and where it waits.
func (w *worker) deadlock() {
	f := Finding{Kind: Deadlock}
	g, spinning := w.groupLive(f.Kind)
	stall := w.gridSyncStall()
	switch {
	case stall != "":
		f.Detail = stall
	case spinning:
		f.Detail = "livelock: threads spin on memory that no thread will change"
	default:
		f.Detail = "no thread can make progress"
	}
	if w.l.opts.warpModel == Lockstep {
		f.Detail = w.lockstepDetail(f.Detail, spinning && stall == "")
	}
	if waiting := w.l.nblocks - int(min(w.l.nextBlock.Load(), int64(w.l.nblocks))); waiting > 0 && stall == "" {
		f.Detail += fmt.Sprintf("; %d of the grid's %d blocks never started (at most %d resident, bounded by %s per SM)",
			waiting, w.l.nblocks, w.l.resident, w.l.residentBy)
	}
	g.finish(&f)
	w.l.addFinding(f)
	w.abort()
}

// gridSyncStall describes a grid.sync that can never complete, naming the
// blocks that have not arrived at it and why, or returns "" if no block
// waits at one. (A cooperative launch runs on one worker, which holds
// every resident block.)
func (w *worker) gridSyncStall() string {
	l := w.l
	if !l.opts.cooperative {
		return ""
	}
	resident := map[int]bool{}
	var arrived, elsewhere []int
	for _, b := range w.blocks {
		resident[b.linear] = true
		if b.atGridSync() {
			arrived = append(arrived, b.linear)
		} else {
			elsewhere = append(elsewhere, b.linear)
		}
	}
	if len(arrived) == 0 {
		return ""
	}
	started := int(min(l.nextBlock.Load(), int64(l.nblocks)))
	var exited []int
	for i := range started {
		if !resident[i] {
			exited = append(exited, i)
		}
	}
	slices.Sort(elsewhere)
	s := fmt.Sprintf("grid.sync never completes: %d of the grid's %d blocks arrived (%s), and a grid.sync waits for every block of the grid, as on a GPU",
		len(arrived), l.nblocks, blockList(arrived))
	if len(exited) > 0 {
		s += fmt.Sprintf("; %s returned without arriving", blockList(exited))
	}
	if len(elsewhere) > 0 {
		verb := "wait"
		if len(elsewhere) == 1 {
			verb = "waits"
		}
		s += fmt.Sprintf("; %s %s elsewhere (below)", blockList(elsewhere), verb)
	}
	if n := l.nblocks - started; n > 0 {
		s += fmt.Sprintf("; %d never started: at most %d blocks are resident at once, and grid.sync needs the whole grid co-resident",
			n, l.resident)
	}
	return s
}

// atGridSync reports whether b's threads are in grid.sync, its leader
// waiting at the grid barrier for the other blocks.
func (b *block) atGridSync() bool {
	for k := range b.threads[:b.started] {
		if t := &b.threads[k]; t.state == stSpinning && t.waitFor == waitGridSync {
			return true
		}
	}
	return false
}

// blockList is "block 3" or "blocks 0-1, 3": the linear indices ids, in
// increasing order, as ranges (the first eight, then how many more).
func blockList(ids []int) string {
	var spans []Span
	for _, id := range ids {
		if n := len(spans); n > 0 && spans[n-1].Last == id-1 {
			spans[n-1].Last = id
		} else {
			spans = append(spans, Span{id, id})
		}
	}
	parts := make([]string, 0, min(len(spans), maxSpans)+1)
	for i, sp := range spans {
		if i == maxSpans {
			parts = append(parts, fmt.Sprintf("... (%d blocks in all)", len(ids)))
			break
		}
		parts = append(parts, sp.String())
	}
	if len(ids) == 1 {
		return "block " + parts[0]
	}
	return "blocks " + strings.Join(parts, ", ")
}

// maxIdleSyncs is how many barrier and warp-collective arrivals in a row
// without progress (no memory changed, no thread exited, no block started)
// make a livelock: threads that loop through synchronisation for ever,
// which the spin watch, looking at memory, never sees. 2^24 arrivals (2^21
// under the race detector) are a few seconds; a kernel that passes that
// many barriers without changing a value (a solver iterating on past its
// exact fixed point) is taken for one.
const maxIdleSyncs = 1 << 24 >> (3 * raceShift)

// syncArrival counts t's arrival at a barrier or warp collective towards
// maxIdleSyncs.
func (w *worker) syncArrival(t *Thread) {
	if w.progress != w.syncMark {
		w.syncMark, w.idleSyncs = w.progress, 0
		return
	}
	w.idleSyncs++
	if w.idleSyncs > maxIdleSyncs {
		w.syncLivelock(t)
	}
}

// syncLivelock reports the launch's threads looping through barriers or
// collectives without progress, and unwinds t.
//
//go:noinline
func (w *worker) syncLivelock(t *Thread) {
	f := Finding{Kind: Deadlock,
		Detail: fmt.Sprintf("livelock: threads pass barriers or warp collectives over and over without changing memory (%d arrivals since anything changed)", w.idleSyncs)}
	g, _ := w.groupLive(f.Kind)
	g.finish(&f)
	w.l.addFinding(f)
	w.abort()
	t.halt()
}

// budgetReport reports the live threads of a launch whose time limit ran out.
func (w *worker) budgetReport() {
	f := Finding{Kind: BudgetExceeded,
		Detail: fmt.Sprintf("the launch ran past its time limit of %v (Options.WithTimeLimit): a livelock whose threads keep changing memory, or a launch that needs a longer limit", w.l.opts.timeLimit)}
	if waiting := w.l.nblocks - int(min(w.l.nextBlock.Load(), int64(w.l.nblocks))); waiting > 0 {
		f.Detail += fmt.Sprintf("; %d of the grid's %d blocks never started", waiting, w.l.nblocks)
	}
	g, _ := w.groupLive(f.Kind)
	g.finish(&f)
	if len(f.Waiting) > 0 {
		// The first live thread, which the first group holds: block 0
		// thread 0 may have exited long before.
		wt := f.Waiting[0]
		f.Current = Access{Block: wt.Block, Thread: wt.Thread, Op: wt.At, Site: wt.Site}
	} else if len(f.Groups) > 0 {
		f.Current = Access{Op: f.Groups[0].At, Site: f.Groups[0].Site}
	}
	w.l.addFinding(f)
}

// groupLive describes the worker's live threads, grouped by state and line,
// into f's Groups and Waiting (see grouper); it reports whether any of them
// spins. Blocks are resident in increasing order, so one pass does it.
func (w *worker) groupLive(kind Kind) (g *grouper, spinning bool) {
	g = newGrouper()
	for _, b := range w.blocks {
		gridSync := kind == Deadlock && w.l.opts.cooperative && b.atGridSync()
		for k := range b.threads {
			t := &b.threads[k]
			if k >= b.started {
				g.add(b.linear, b.idx, k, t.ThreadIdx, "not started", 0)
				continue
			}
			var at string
			switch t.state {
			case stDone:
				continue
			case stBarrier:
				at = "SyncThreads"
				if gridSync {
					// The __syncthreads after the leader's arrival
					// (GridGroup.Sync).
					at = "grid.sync"
				}
			case stWarp:
				at = "warp collective"
				if c := b.warps[t.warp].pendingOf(t.lane); c != nil {
					at = fmt.Sprintf("%s (mask %#08x, waiting for lanes %s)", c.kind, c.mask, laneList(c.mask&^c.arrived))
				}
			case stSpinning, stRunnable:
				switch {
				case kind != Deadlock:
					at = "runnable"
					spinning = true
				case t.state == stSpinning && t.waitFor == waitGridSync:
					at = "grid.sync"
				case t.state == stSpinning && t.waitFor == waitTileSync:
					at = "tile sync (a tile of more than 32 threads)"
				default:
					at = "spinning without progress"
					spinning = true
				}
			case stStopped:
				at = "running"
			case stLockstep:
				at = "held back: lockstep warp-mates spin"
			case stUnstarted:
				at = "not started"
			default:
				at = "running"
			}
			g.add(b.linear, t.BlockIdx, k, t.ThreadIdx, at, t.waitSite)
		}
	}
	return g, spinning
}

// Run the launch's blocks on the configured workers.
func (l *launch) run() {
	l.limit.Store(int64(l.nblocks))
	n := l.opts.workers
	if n < 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if l.speculates(n) {
		l.runSpeculative(n)
		return
	}
	// A cooperative launch runs on one worker: grid.sync's barrier parks
	// every block's leader until all have arrived, which the residency of
	// one worker's blocks models (scheduler.go); blocks spread over workers
	// would each wait on a barrier the others' schedulers never see.
	if n <= 1 || l.detect || l.nblocks == 1 || l.opts.cooperative {
		n = 1
	}
	if n > l.nblocks {
		n = l.nblocks
	}
	l.runWorkers(n)
}

// runWorkers runs n workers until no block below the limit is left, merges
// their counters, and reports whether the launch goes on (was not
// aborted).
func (l *launch) runWorkers(n int) bool {
	for _, w := range l.startWorkers(n, false) {
		l.mergeStats(w)
	}
	return !l.aborted.Load()
}

// startWorkers runs n workers (parallel ones if parallel or n > 1) to the
// end and returns them.
func (l *launch) startWorkers(n int, parallel bool) []*worker {
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = l.newWorker(parallel || n > 1)
	}
	l.mu.Lock()
	l.workers = append(l.workers, ws...)
	l.mu.Unlock()
	if n == 1 {
		ws[0].run()
		return ws
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	wg.Wait()
	return ws
}

func (l *launch) newWorker(parallel bool) *worker {
	d := l.dev
	var w *worker
	d.mu.Lock()
	if n := len(d.spareWorkers); n > 0 {
		w = d.spareWorkers[n-1]
		d.spareWorkers = d.spareWorkers[:n-1]
	}
	d.mu.Unlock()
	if w == nil {
		w = new(worker)
	}
	w.workerState = workerState{l: l, parallel: parallel, rng: rand.New(rand.NewPCG(l.opts.seed, 0x6770757369d)),
		special: l.detect || l.prof != nil || l.opts.warpModel == Lockstep, stackMax: initialStackMax}
	if l.maxDepth <= 0 {
		w.stackMax = ^uintptr(0)
	}
	w.sites.slow = 0
	if l.detect {
		if l.ctxIndex == nil {
			l.ctxs = []accessCtx{{}} // id 0 is no context
			l.ctxIndex = map[accessCtx]uint32{}
		}
		w.ctxView = l.ctxs
	}
	return w
}
