// Package sim is a simulated CUDA GPU that runs kernels written in Go.
//
// A kernel is a Go function, the body one CUDA thread runs (see Kernel). A
// Device launches it over a grid of blocks of threads with CUDA's semantics,
// on a deterministic scheduler, and reports what CUDA programmers fear most:
// data races, barrier divergence, deadlock, out-of-bounds and uninitialised
// reads, each with the threads, the memory element and the Go source lines.
//
// # Index
//
// Devices and launches: [NewDevice] makes a [Device] of a [Spec] ([H100],
// [A100], [T4], [LookupSpec]); [Device.Launch] and [Device.LaunchContext]
// run a [Kernel] over a [Config]'s grid and block ([Dim], [Dim2], [Dim3])
// under [Options] (schedule, seed, detection, workers, [WarpModel], the
// watchdog, a time limit, the stack depth and shadow-memory limits, a
// [Progress] counter); [Device.Validate] checks a Config as cudaLaunchKernel
// does; [Device.Close] releases a device; [Spec.CalcOccupancy] is the
// occupancy calculator.
//
// The thread: a kernel's [Thread] has CUDA's built-in indices (ThreadIdx,
// BlockIdx, BlockDim, GridDim) and [Thread.GlobalX], [Thread.GridStrideX],
// [Thread.LinearThreadIdx], [Thread.LaneID], [Thread.WarpID].
//
// Memory: [Buffer] of an [Elem] type; [Alloc], [FromHost], [Buffer.Memset],
// [Buffer.CopyFromHost], [Buffer.CopyToHost], [Buffer.ToHost] and
// [Buffer.Free] on the host; [Shared] and [DynamicShared] in a kernel;
// [Buffer.Load], [Buffer.Store], [Buffer.LoadVolatile] and
// [Buffer.StoreVolatile] for every access.
//
// Barriers: [Thread.SyncThreads], [Thread.SyncThreadsCount],
// [Thread.SyncThreadsAnd], [Thread.SyncThreadsOr].
//
// Warps: [Thread.SyncWarp], [ShflSync], [ShflUpSync], [ShflDownSync],
// [ShflXorSync], [Thread.BallotSync], [Thread.AnySync], [Thread.AllSync],
// [MatchAnySync], [MatchAllSync], [ReduceAddSync] and the other reductions,
// [Thread.ActiveMask], [FullMask].
//
// Atomics and fences: [AtomicAdd], [AtomicSub], [AtomicExch], [AtomicMin],
// [AtomicMax], [AtomicInc], [AtomicDec], [AtomicCAS], [AtomicAnd],
// [AtomicOr], [AtomicXor]; [AtomicRef] (cuda::atomic_ref, with a
// [MemoryOrder] and a [ThreadScope]); [Thread.ThreadFence],
// [Thread.ThreadFenceBlock], [Thread.ThreadFenceSystem],
// [Thread.AtomicThreadFence], [Thread.Nanosleep]. Math: [Fmaf].
//
// Findings: Launch returns a [Report] of [Finding] values, each of a [Kind]
// ([Kind.Fatal] says which abort the launch) with the [Access] values
// involved, or the [StateGroup] ranges ([Span]) and [WaitingThread] values
// of a deadlock or a stopped launch; a refused launch or allocation returns
// a [LaunchError] with CUDA's [ErrorCode], and host code misusing the
// simulator gets a [MisuseError].
//
// Profiling: [Device.LaunchProfile] returns a launch's [Profile]: its
// [Counters], [MemStats] ([GlobalStats] for coalescing, [SharedStats] for
// bank conflicts), [LineStats] per source line, [AtomicStats], [SyncStats],
// [Occupancy] ([Limiter]) and a timeline of [TraceEvent] values, which
// [WriteTrace] writes for chrome://tracing and Perfetto. [Device.Counters]
// sums the counters of every launch on a device.
//
// # Execution
//
// Launch runs the grid's blocks in blockIdx order (linear, x fastest). A
// block is resident from its first thread's start to its last thread's exit;
// normally one block is resident at a time, and more are admitted only when
// every resident thread is spinning without progress (a thread may wait for
// a flag another block sets), up to the number the device could hold (SMs x
// blocks per SM by the limits on threads and blocks, Config.Registers and
// Config.SharedBytes, as Spec.CalcOccupancy gives them; static shared memory
// is not known ahead and does not count), so that a block waiting for one
// the GPU could not hold with it is a deadlock, as on the GPU. Within a
// block, threads run one at a time, each until it suspends: at a barrier, at
// a warp collective, when an atomic changes nothing (a spin), or, under
// RandomOrder, at every atomic and fence. A thread that suspends resumes
// later on its own coroutine; a thread that never suspends runs as a plain
// call on the coroutine that started it, so a barrier-free block costs one
// coroutine switch.
//
// # Memory
//
// Global memory is typed Buffers allocated on the Device (Alloc, FromHost),
// filled and read by the host between launches (CopyFromHost, CopyToHost,
// Memset). Shared memory is per block: Shared declares a static array,
// DynamicShared views the launch's dynamic bytes. Kernels touch elements only
// through Load, Store and the Atomic functions, which take the calling thread:
// every access is bounds-checked (negative indices too) and, with detection
// on, checked for races and uninitialised reads. A newly allocated buffer and
// a new block's shared memory read as zero but count as uninitialised. An
// element is reported at its first uninitialised read only: the report marks
// it initialised, for later reads and later launches alike. A launch with
// detection off tracks no writes, so after it every global element counts as
// initialised.
//
// Accesses are sequentially consistent in the simulator: a Load sees the last
// Store in schedule order. Hardware is weaker; the race detector is what
// tells a program that relies on the simulator's order from one that is
// correct on hardware.
//
// # Barriers
//
// SyncThreads (and its Count/And/Or forms) waits until every thread of the
// block that has not exited has arrived, then releases them all (in threadIdx
// order, or shuffled under RandomOrder) into the next barrier phase. A
// thread that has exited counts as arrived, as on every GPU since Volta.
// Threads waiting at different SyncThreads call sites are barrier divergence,
// and with detection on so are threads waiting at one barrier in a helper
// function (or closure) that they reached through different call lines
// (the helper called in both branches of an if on threadIdx), inlined or
// not.
// With detection on, a thread that exits while others wait, having executed
// since its last barrier lines that come after the waited-at barrier's place
// (its line, or the line calling the helper function it sits in), passed
// the barrier by and is reported too, when the barrier is released: that
// tells `if (tid < 16) __syncthreads(); x[tid] = 1;` (reported) from the
// guard `if (i >= n) return;` ahead of a barrier (not reported). In a loop
// of barriers, a thread that leaves at the bottom of an iteration is
// reported only if lanes of its own warp wait at the barrier (per-thread
// trip counts are; a whole warp retiring is not); whether the barrier it
// passed last stands at or after the awaited one is decided in the innermost
// function in which the two stand at different lines (a helper holding the
// barrier, called from two lines, by its call lines). A barrier also passes on
// what any waiting thread acquired through atomics and fences, so the rest
// of the block may read what a leader thread's acquire made visible.
//
// # Warps
//
// Lanes of a warp are independent threads (Volta's independent thread
// scheduling). They meet in SyncWarp and the *_sync collectives (ShflSync,
// ShflUpSync, ShflDownSync, ShflXorSync, BallotSync, AnySync, AllSync,
// MatchAnySync, MatchAllSync, ReduceAddSync and the other reductions), but
// only SyncWarp orders their memory accesses, as in PTX. A collective
// completes when every lane named in its mask that has not exited has
// arrived with the same collective and mask: lanes that exited or do not
// exist take no part, and reading a value from one is an InvalidShuffle
// finding (the GPU returns an undefined value). gpusim cannot see whether
// the value is used, so a partial warp's full-mask reduction that reads a
// missing lane's value and then discards it (`if lane+off < n`) is reported
// too; shuffle with the mask of the lanes that exist instead
// (BallotSync(mask, true) or ActiveMask). Lanes meeting in different collectives, or a mask without the
// caller, are a WarpDivergence finding that aborts the launch, and a
// lane that never arrives is reported as a deadlock. ActiveMask and the
// cooperative groups (ThisThreadBlock, TiledPartitionOf, CoalescedThreads,
// ThisGrid) are described in coop.go and grid.go. Options.WithWarpModel
// (Lockstep) approximates pre-Volta warps instead (below).
//
// # Lockstep warp model
//
// Options.WithWarpModel(Lockstep) approximates the warps of GPUs before
// Volta (sm_6x and older), whose lanes share one program counter: the
// paths of a divergent branch run one after the other off a SIMT stack and
// meet again at the branch's reconvergence point. Atomics and volatile
// accesses are warp-wide meeting points, which the lanes of a warp issue
// together, so warp-synchronous code that exchanged values through
// volatile shared memory works as it did there. While lanes of a warp spin
// (their last atomic changed nothing), a warp-mate that reaches an atomic
// is held back until they make progress, exit or wait at a barrier, unless
// a SIMT stack would have run it first: in the same call of the function
// that holds the spinners' loop (the innermost for statement around their
// atomic), its atomic stands inside that loop (a branch taken within an
// iteration runs to the end of the if before the loop goes round again),
// or before the loop in a statement they skipped, an if say (they wait for
// it at the if's end), and it has not come round to it from the loop. So
// the pre-Volta-safe spin lock, which releases the lock inside the branch
// that took it,
//
//	for done := false; !done; {
//		if sim.AtomicCAS(t, lock, 0, 0, 1) == 0 {
//			t.ThreadFence()
//			// the critical section
//			t.ThreadFence()
//			sim.AtomicExch(t, lock, 0, 0)
//			done = true
//		}
//	}
//
// works within a warp, and the naive one, the CAS alone in its loop
// (`for sim.AtomicCAS(...) != 0 {}`) and the release after it, is reported
// as a deadlock:
// the lane that took the lock left the loop and waits at its exit while the
// others spin, as on a Pascal GPU. Across warps both work. The finding
// names the held-back lanes and the line of the atomic they wait at.
//
// The two forms make the same calls into sim from lines in the same
// order, and Go keeps no control flow at run time: the extent of a loop is
// read from the kernel's source file (with go/parser, once per file, when a
// lane would be held back). Where the file cannot be read (a binary built
// with -trimpath, or run away from its source) the lane is held back and
// the finding names the file. The limits of reading control flow from the
// source: a bounded retry loop inside a try-lock helper is taken for the
// spin loop, so a lock that the helper's caller releases inside its own
// loop is reported; a lane in one branch of an if whose other branch holds
// the spinners' loop is held back, the model running the spinning side
// first, where a compiler may order the sides either way; a lock released
// before a break out of the branch that took it (`for { if ... { release;
// break } }`) works, the taken side running first; loops made with goto are
// not seen, nor what a lane does between two atomics.
//
// # Atomics and fences
//
// The Atomic functions are CUDA's set on CUDA's types; where CUDA has no
// overload, the type constraint leaves it out. Atomics never race with each
// other, unless their widths differ: strong accesses (atomics, volatile
// and AtomicRef operations) of overlapping bytes are morally strong only
// if they overlap completely (PTX), so a 32-bit atomic on half of a word
// that 64-bit atomics update races with them; a vector access counts as
// one access per element. ThreadFence and ThreadFenceBlock order a thread's accesses and,
// paired with atomics, make release/acquire: a fence followed by an atomic
// publishes the thread's accesses before the fence; an atomic followed by a
// fence acquires what earlier releases to that element published. A lock
// built from AtomicCAS, fences and AtomicExch therefore orders the accesses it
// protects; without the fences it does not, and they race. An atomic
// read-modify-write reads the value it replaces, and a strong load
// (LoadVolatile, AtomicRef.Load) the value it returns: the write it read
// from (and the atomics before that one on the element) precede its
// thread's later accesses of the element (PTX's observation order), so a
// poller may re-read or reset the flag it saw set with plain accesses, or
// with block-scope atomics that are not morally strong with the write; a
// strong store reads nothing, so another thread's atomic before it still
// races with the storing thread's later plain read. Volatile loads
// and stores (LoadVolatile, StoreVolatile) and AtomicRef's operations with a
// MemoryOrder and a ThreadScope are strong like atomics, with one exception
// the Programming Guide documents: a lane's volatile read of a shared
// element and a warp-mate's later volatile write of it race unless a
// __syncwarp (or another synchronisation) orders them, the pre-Volta
// warp-synchronous reduction being the example; a lane still polling the
// element (a flag), and two writes, are left alone. A plain Load and an
// atomic of the same element race (PTX), with one exception the Programming
// Guide documents: a CAS loop's first guess. A plain read racing with
// atomic read-modify-writes is not reported when the reading thread
// compare-and-swaps the element after it (AtomicCAS or
// AtomicRef.CompareExchange*), as the Guide's atomicAdd for double does;
// gpusim cannot see whether the CAS uses the value read. RATIONALE.md's
// happens-before table lists which operation orders what, at which scope,
// by which PTX rule, and where gpusim accepts what the Programming Guide
// documents beyond it.
//
// # Determinism
//
// With one worker (the default), a launch is a pure function of its inputs,
// Config and Options: the same seed gives the same interleaving, the same
// bits (the order of float atomic adds included) and the same findings. With
// Options.WithWorkers(n > 1) blocks run on n goroutines; each block is still
// scheduled deterministically, but the interleaving of different blocks is
// not: atomics on one address from different blocks land in any order, and
// a kernel whose blocks race gives any of the racy outcomes. With
// detection on, n workers run blocks in speculative epochs whose findings
// and memory are exactly one worker's (speculate.go): an epoch in which
// blocks meet, use atomics or fences, or find anything is undone and run
// on one worker, and so are later launches of that kernel on the device.
// Undoing runs blocks' Go code again, so a kernel with side effects outside
// simulated memory sees them twice: one worker stays the default.
//
// # Errors
//
// Launch refuses illegal shapes and resources before anything runs, with a
// *LaunchError carrying CUDA's error code and the broken limit. Otherwise it
// returns a *Report listing the findings, deduplicated by kind and source
// line pair, with counts, sorted by kind and line; nil means a clean run.
// Fatal findings (the kinds [Kind.Fatal] names: out-of-bounds accesses,
// panics, deadlock, invalid shared memory, warp divergence, hangs, the time
// limit, stack overflow, the shadow budget, use after Free, a buffer of
// another Device) abort the launch: every thread still suspended is unwound
// (its deferred calls run) and no other thread starts. Writes made before
// the abort stay in memory, exactly as the schedule made them; nothing is
// rolled back, as on a GPU where a faulting kernel leaves memory partly
// written. A Go panic in a kernel is a KernelPanic finding: its text (cut
// at 4 KiB) is the Detail, and the value itself is Finding.Panic, so that
// errors.Is and errors.As on the Report reach an error a kernel panicked
// with.
//
// # Deadlock
//
// A thread that spins through sim (loads, stores, atomics) is detected: a
// thread that touches at most 32 addresses for 64 accesses without changing
// memory counts as spinning and is parked until others have run. When
// every live thread is blocked or spinning for 64 rounds with no progress
// (no change of memory, no exit, no block admitted), the launch ends with
// a Deadlock finding. With more than 16384 live threads the rounds are
// fewer, down to 4 at 262144, and a resumed spinner runs fewer accesses
// before it is checked again (at most 2^20 per round in all), so that a
// deadlock of 300 blocks of 1024 threads is reported in seconds. The
// finding groups the live threads by state and line into ranges of blocks
// and threads ("blocks 0-263, threads 0-1023: spinning without progress at
// x.go:19"): at most 24 groups of 8 ranges, the rest counted, so a report
// stays within a few KB whatever the grid; Finding.Waiting lists the first
// 256 threads of each group one by one. A grid.sync that cannot complete is
// reported as such: the blocks that arrived (their threads "grid.sync"),
// and those that did not: returned, waiting elsewhere, or never started.
//
// # Watchdog
//
// A kernel thread that loops without calling into sim cannot be preempted:
// Go has no way to stop a goroutine from outside. Every launch therefore
// runs its workers on a goroutine of their own, and a watchdog on the
// launching goroutine watches their beat, which every call into sim
// advances (thread exits, scheduling turns, atomics, fences, barriers,
// collectives, spin checks, and each thread's periodic check in Load and
// Store, every 4096 accesses at most). When a worker's beat stands still
// for the watchdog's timeout (DefaultWatchdog, 2 s; Options.WithWatchdog
// sets it, 0 turns it off), in wall time and, where the system reports it
// (getrusage on Unix), in the process's CPU time too, the launch returns a
// Hang finding naming the running thread and the kernel line it runs,
// sampled from a goroutine profile. A looping thread burns a core, so the
// CPU clock keeps pace with the wall clock; a process that a loaded
// machine, or the race detector, starves of CPU is not taken for a hang.
//
// The launch is then abandoned. Its goroutines are left behind: the stray
// thread's goroutine runs on, burning a core, until it next calls into sim,
// where it is unwound (its deferred calls run) and the launch's other
// goroutines end with it; a thread that never calls into sim again runs
// until the process exits. Because it may still write the Device's
// memory, the Device is unusable from then on, as a CUDA context is after
// cudaErrorLaunchTimeout: every launch, allocation and copy on it returns a
// *MisuseError with ErrLaunchTimeout. Make a new Device.
//
// LaunchContext ends a launch when its context is cancelled or its deadline
// passes, at the next scheduling point of any thread: a thread start, a
// barrier, a collective, an atomic, a fence, a spin check, or the periodic
// check in Load and Store (at least every 4096 accesses). It returns a
// *Report whose Stopped is the context's error. A thread that reaches no
// scheduling point within a second of the cancellation (or of the time
// limit's end, below) is abandoned as the watchdog abandons one, watchdog
// or not.
//
// A livelock whose threads keep writing changing values is progress to the
// deadlock detector, rightly: it cannot tell it from long work. Threads that
// poll a few addresses without changing memory are spinning: with atomics,
// volatile or atomic_ref loads (how a correct spin wait polls) the launch
// is a deadlock after some 64 rounds in which nothing changed (about 270k
// polls per thread for a few threads, fewer for many). A thread polling
// with atomics that change nothing (a failed CAS, an exchange of the value
// held), or waiting with __nanosleep, is parked at each such call, a round
// each: the verdict then waits for 4096 such polls in a row in all, and
// for 512 per live thread while that makes at most 2^20 in all (2048
// threads; fewer per thread for more), and never for fewer than the 64
// rounds. So a single thread's finite loop of fewer than 4096 polls, and a
// block's bounded retry loops (an atomic poll and a __nanosleep, a hundred
// times, then a fallback) are no livelock; 8192 threads' loops of a
// hundred such iterations are. Plain loads only
// count as polling when they read the same few addresses in the same order
// over and over (a loop reading a table in an order that depends on what
// it computes, such as a Markov chain drawing its next state, never does),
// and then make a livelock only after 2^20 such reads per live thread or
// 2^26 in all (2^23 under the race detector), whichever is fewer: a loop
// over a small read-only table in a fixed order (a polynomial's
// coefficients in constant memory) that reads more is taken for a
// livelock.
// Options.WithTimeLimit bounds a launch's wall-clock time; when it runs out
// the launch ends at its threads' next scheduling points with a
// BudgetExceeded finding grouping the live threads by state and line.
// There is no time limit by default.
//
// # Limits
//
// What a test throws at the simulator is refused or reported; it does not
// crash the process:
//
//   - Alloc checks the request against the device's free memory, and a large
//     one against the host's (/proc/meminfo, where there is one), before
//     making the host slice; an element count whose byte size overflows
//     is refused too. Each is a *LaunchError with ErrMemoryAllocation.
//   - Detection keeps 16 bytes of shadow memory per 4 bytes of every global
//     buffer a launch with detection touches (per 2 bytes of int16 and
//     16-bit float buffers, per byte of int8 and uint8 ones), allocated on
//     first touch, plus side tables for bytes read by two threads at once
//     and for words accessed in parts (shadow.go).
//     The shadow memory of one Device's buffers is bounded by
//     Options.WithShadowBudget (DefaultShadowBudget, 4 GiB) and by the
//     host; a launch that would exceed either ends with a ShadowBudget
//     finding naming the buffer and the budget, before allocating it.
//   - Shared memory sizes are compared before they are multiplied: a length
//     whose byte size overflows is the shared-memory-limit finding. Static
//     plus dynamic shared memory above 48 KiB needs Options.WithSharedOptIn,
//     as cudaFuncSetAttribute's opt-in on the GPU.
//   - A kernel thread's stack is limited to Options.MaxDepth Go frames
//     (DefaultMaxDepth, 10000), the simulator's cudaLimitStackSize: deeper
//     recursion is a StackOverflow finding. The depth is counted at each
//     thread's periodic check (every 4096 accesses at most), and by any
//     call into sim (an atomic, a fence, a barrier, a collective, a shared
//     declaration) once the thread's stack has doubled past 128 KiB, so
//     recursion that calls into sim is caught within 4096 levels or a
//     doubling of the stack past the limit; a recursion that never calls
//     into sim is limited only by Go's maximum stack (1 GB), whose
//     overflow ends the process.
//   - A grid of 2^32 threads or more is legal on the GPU but beyond the
//     simulator's 32-bit thread ids: Validate refuses it with
//     ErrSimulatorLimit, which is no CUDA error code.
//
// # Misuse
//
// Host misuse is named: a copy of a freed buffer, or of a buffer of a
// closed or unusable Device, is a *MisuseError; freeing a buffer twice
// panics with one (a bug in the host code, like closing a closed channel);
// a zero-value or nil Device is refused by every method, and a nil or
// zero-value Buffer by every host method (those that return no error
// panic with the *MisuseError). Inside a kernel, an access to a freed
// buffer is a UseAfterFree finding, and an access to a buffer of another
// Device a ForeignBuffer finding (with detection off, caught at the
// thread's periodic check, so a thread of fewer than 4096 accesses may
// escape it). A nil pointer that reaches sim from a kernel (a nil Buffer)
// is a KernelPanic naming the sim function.
//
// A Thread is valid only in the kernel call it was passed to, while it
// runs, on the goroutine that runs it. Used by another thread of a launch
// (a Thread kept in a shared variable, whether its thread has returned or
// waits), it is that thread's KernelPanic. Used from a goroutine a kernel
// started (directly or through goroutines it started: a WaitGroup's Go,
// an errgroup), during its launch or after it, the call into sim is a
// KernelPanic naming the *MisuseError and the line, and sim ends that
// goroutine with runtime.Goexit: a panic there, which only the kernel's
// own code could recover, would end the process. The goroutine's deferred
// calls run (a WaitGroup's Done: the kernel that waits for it goes on, to
// be stopped at its next call into sim), nothing after the call does, and
// no recover stops it; a kernel that waits for what the goroutine would
// have done after the call, not deferred, waits for ever, which the
// watchdog reports. The finding ends the launch; one made after the
// launch returned is reported by the Device's next launch (which it does
// not abort), or else by Close's error. Used from the host (a goroutine
// no kernel started), a Thread of a running launch ends the launch with a
// KernelPanic, and every call into sim with it, then or after the launch,
// panics there with the *MisuseError, as the host API does on misuse.
// Atomics, fences, barriers, collectives and shared declarations find the
// misuse at once, and so do Loads and Stores with detection on (every
// access is checked then). With detection off, Load and Store's fast path
// checks nothing (a check would cost every access): they find it at the
// periodic check, every 4096 accesses of the Thread at most, so a
// goroutine that makes fewer Loads and Stores, and no other call into sim,
// escapes it, as a buffer of another Device does. (The goroutine is told
// apart on amd64 and arm64 only. Goroutines a kernel started are known by
// the profiler labels they inherit: one started under labels the kernel
// set itself, with pprof.Do, is taken for the host's.)
//
// A shared array lives as long as its block: used after it (kept in a Go
// variable past its block or its launch, on another Device, after Close)
// it is an OutOfBounds finding naming the array and its ended block, and
// used by another block, with detection on, one naming both blocks. A
// view of it kept so is found at the periodic check with detection off.
//
// A kernel that recovers the panic sim unwinds a stopped thread with and
// calls into sim again is unwound again; after 256 such calls its
// goroutine is ended with runtime.Goexit, which no recover stops, and the
// launch reports a KernelPanic saying so.
//
// A Device may be used from many goroutines: its launches and its buffers'
// host copies run one at a time, as on one CUDA stream. A kernel that calls
// the host API of its own Device (a copy, Memset, Free, Close, Launch)
// panics with a *MisuseError, its KernelPanic finding: the call would wait
// for the launch it is part of. Another Device's API works from a kernel.
// Device.Close frees the buffers and stops the simulator's idle
// coroutines, so that a goroutine-leak check after it passes; it cannot
// stop the goroutines of an abandoned launch.
//
// # Source lines
//
// Every finding names Go file:line of the kernel code involved: the line
// that called into sim, or, where the kernel calls sim through helper
// functions of its own, the innermost line outside sim. sim recognises its
// own frames by the symbol names it reads from the runtime at start-up, so
// a fork, a vendored copy or any other module path works alike. On amd64
// and arm64 the line costs a few nanoseconds (two reads of the frame-pointer
// chain and a cache probe); on other architectures it costs the runtime's
// unwinder, about 200 ns, so detection and profiling are several times
// slower there. [Counters] SlowSites counts the lookups that needed more
// than the two reads.
package sim
