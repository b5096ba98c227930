package sim

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// ErrorCode is the CUDA runtime error a refused launch or allocation maps to.
type ErrorCode int

// The codes are cudaError_t values, so a report can be matched against what
// the CUDA runtime says for the same request.
const (
	ErrInvalidValue         ErrorCode = 1   // cudaErrorInvalidValue: "invalid argument"
	ErrMemoryAllocation     ErrorCode = 2   // cudaErrorMemoryAllocation: "out of memory"
	ErrInvalidConfiguration ErrorCode = 9   // cudaErrorInvalidConfiguration: "invalid configuration argument"
	ErrLaunchOutOfResources ErrorCode = 701 // cudaErrorLaunchOutOfResources: "too many resources requested for launch"
	ErrLaunchTimeout        ErrorCode = 702 // cudaErrorLaunchTimeout: "the launch timed out and was terminated" (sticky)

	// ErrSimulatorLimit is no CUDA error: the request is legal on the GPU
	// but beyond what the simulator can do (a grid of 2^32 threads or more,
	// which its 32-bit thread ids cannot number).
	ErrSimulatorLimit ErrorCode = -1
)

func (c ErrorCode) String() string {
	switch c {
	case ErrInvalidValue:
		return "cudaErrorInvalidValue (invalid argument)"
	case ErrMemoryAllocation:
		return "cudaErrorMemoryAllocation (out of memory)"
	case ErrInvalidConfiguration:
		return "cudaErrorInvalidConfiguration (invalid configuration argument)"
	case ErrLaunchOutOfResources:
		return "cudaErrorLaunchOutOfResources (too many resources requested for launch)"
	case ErrCooperativeLaunchTooLarge:
		return "cudaErrorCooperativeLaunchTooLarge (too many blocks in cooperative launch)"
	case ErrLaunchTimeout:
		return "cudaErrorLaunchTimeout (the launch timed out and was terminated)"
	case ErrSimulatorLimit:
		return "gpusim limit (legal on the GPU, beyond the simulator)"
	}
	return fmt.Sprintf("cudaError %d", int(c))
}

// LaunchError is a launch or allocation the device refuses before anything
// runs, with the CUDA error it corresponds to and the limit that was broken.
type LaunchError struct {
	Code   ErrorCode
	Limit  string // which limit, e.g. "threads per block"
	Detail string // the numbers
}

func (e *LaunchError) Error() string {
	return fmt.Sprintf("sim: %v: %s: %s", e.Code, e.Limit, e.Detail)
}

// Validate checks a launch shape against the device's limits, as the CUDA
// runtime does before it runs anything.
func (d *Device) Validate(cfg Config) error {
	if err := d.usable("Validate"); err != nil {
		return err
	}
	s := &d.spec
	if err := s.check(); err != nil {
		return err
	}
	if o := cfg.Options; o.schedule > RandomOrder || o.warpModel > Lockstep {
		return &LaunchError{Code: ErrInvalidValue, Limit: "options",
			Detail: fmt.Sprintf("schedule %d or warp model %d is none of the defined ones (NaturalOrder, RandomOrder; Independent, Lockstep)", o.schedule, o.warpModel)}
	}
	grid, blk := cfg.Grid.norm(), cfg.Block.norm()
	bad := func(code ErrorCode, limit, format string, args ...any) error {
		return &LaunchError{Code: code, Limit: limit, Detail: fmt.Sprintf(format, args...)}
	}
	if blk.X < 1 || blk.Y < 1 || blk.Z < 1 {
		return bad(ErrInvalidConfiguration, "block dimensions", "block %v has a dimension below 1", blk)
	}
	if blk.X > s.MaxBlockDim.X || blk.Y > s.MaxBlockDim.Y || blk.Z > s.MaxBlockDim.Z {
		return bad(ErrInvalidConfiguration, "block dimensions", "block %v exceeds the maximum %v", blk, s.MaxBlockDim)
	}
	if n := blk.Size(); n > s.MaxThreadsPerBlock {
		return bad(ErrInvalidConfiguration, "threads per block", "%d threads exceed the maximum %d", n, s.MaxThreadsPerBlock)
	}
	if grid.X < 1 || grid.Y < 1 || grid.Z < 1 {
		return bad(ErrInvalidConfiguration, "grid dimensions", "grid %v has a dimension below 1", grid)
	}
	if grid.X > s.MaxGridDim.X || grid.Y > s.MaxGridDim.Y || grid.Z > s.MaxGridDim.Z {
		// The H100 answers a grid beyond its maximum with
		// cudaErrorInvalidValue, not the invalid configuration of a zero
		// dimension (scripts/hwrules.cu: grid 2147483648x1).
		return bad(ErrInvalidValue, "grid dimensions", "grid %v exceeds the maximum %v", grid, s.MaxGridDim)
	}
	if cfg.SharedBytes < 0 {
		return bad(ErrInvalidValue, "dynamic shared memory", "negative size %d", cfg.SharedBytes)
	}
	if cfg.SharedBytes > s.SharedPerBlockOptin {
		return bad(ErrInvalidValue, "dynamic shared memory", "%d bytes exceed the opt-in maximum of %d per block", cfg.SharedBytes, s.SharedPerBlockOptin)
	}
	if cfg.SharedBytes > s.SharedPerBlock && !cfg.Options.sharedOptIn {
		return bad(ErrInvalidValue, "dynamic shared memory", "%d bytes exceed the default %d per block; opt in with Options.WithSharedOptIn (cudaFuncAttributeMaxDynamicSharedMemorySize)", cfg.SharedBytes, s.SharedPerBlock)
	}
	if r := cfg.Registers; r != 0 {
		if r < 0 || r > s.MaxRegsPerThread {
			return bad(ErrLaunchOutOfResources, "registers per thread", "%d registers per thread, maximum %d", r, s.MaxRegsPerThread)
		}
		warps := (blk.Size() + s.WarpSize - 1) / s.WarpSize
		perWarp := roundUp(r*s.WarpSize, s.RegAllocUnit)
		if need := warps * perWarp; need > s.RegsPerBlock {
			return bad(ErrLaunchOutOfResources, "registers per block", "%d threads x %d registers need %d, maximum %d", blk.Size(), r, need, s.RegsPerBlock)
		}
	}
	if cfg.Options.cooperative {
		if err := d.cooperativeCheck(cfg); err != nil {
			return err
		}
	}
	// (Each factor is below 2^31: multiplied in float64, the product
	// cannot wrap as it did in int64 for a (2^31-1, 65535, 65535) grid.)
	if threads := float64(grid.X) * float64(grid.Y) * float64(grid.Z) * float64(blk.Size()); threads >= 1<<32-1 {
		return bad(ErrSimulatorLimit, "threads per grid", "%.0f threads: the simulator numbers threads in 32 bits, at most %d per launch (the GPU would run it)",
			threads, uint32(1<<32-2))
	}
	return nil
}

func roundUp(x, unit int) int {
	if unit <= 1 {
		return x
	}
	return (x + unit - 1) / unit * unit
}

// Launch runs kernel k over the grid and blocks until every thread has
// exited, the launch was aborted, or no thread can make progress. It is
// LaunchContext with a context that is never cancelled.
//
// It returns a *LaunchError if the shape or resources are refused (nothing
// ran), a *MisuseError if the Device cannot be used (a zero value, closed,
// or unusable after an abandoned launch), a *Report if the run produced
// findings (races, divergence, deadlock, out-of-bounds, uninitialised
// reads, panics, hangs), and nil for a clean run.
func (d *Device) Launch(cfg Config, k Kernel) error {
	return d.LaunchContext(context.Background(), cfg, k)
}

// lockStream takes the Device's stream, or returns ctx's error if ctx ends
// first while another launch holds it. (A context that cannot end waits
// on the lock; one that can polls it, from 20µs apart up to 2ms.)
func (d *Device) lockStream(ctx context.Context) error {
	done := ctx.Done()
	if done == nil {
		d.stream.Lock()
		return nil
	}
	wait := 20 * time.Microsecond
	for !d.stream.TryLock() {
		t := time.NewTimer(wait)
		select {
		case <-done:
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 2*time.Millisecond)
	}
	return nil
}

// LaunchContext is Launch that also ends when ctx is cancelled or its
// deadline passes. The launch notices at its next scheduling point: a
// thread start, a barrier, a warp collective, an atomic, a fence, a spin
// check, or a thread's periodic check in Load and Store (every 4096
// accesses at most). Threads still suspended are unwound (their deferred
// calls run) and LaunchContext returns a *Report whose Stopped is
// ctx.Err(), with Aborted set and whatever findings came before; memory
// keeps what the threads wrote, as after any abort. A thread that reaches
// no scheduling point within a second of the cancellation is abandoned as
// the watchdog abandons one (see the package doc's # Watchdog), whether or
// not the watchdog is on.
//
// Launches on one Device are serialised, as on one CUDA stream: a
// LaunchContext from another goroutine waits for the one in progress (or
// for ctx, whichever ends first), and so do the host copies of the
// Device's buffers.
func (d *Device) LaunchContext(ctx context.Context, cfg Config, k Kernel) error {
	if err := d.usable("Launch"); err != nil {
		return err
	}
	if ctx == nil {
		return &MisuseError{Code: ErrInvalidValue, Op: "LaunchContext", What: "nil Context: pass context.Background() or context.TODO()"}
	}
	d.inKernel("Launch")
	if err := d.lockStream(ctx); err != nil {
		return &Report{Stopped: err, Aborted: true}
	}
	defer d.stream.Unlock()
	if err := d.usable("Launch"); err != nil {
		return err
	}
	if err := d.Validate(cfg); err != nil {
		return err
	}
	if k == nil {
		return &LaunchError{Code: ErrInvalidValue, Limit: "kernel", Detail: "nil kernel"}
	}
	if err := ctx.Err(); err != nil {
		return &Report{Stopped: err, Aborted: true}
	}
	l := &launch{
		dev: d, kernel: k, opts: cfg.Options,
		grid: cfg.Grid.norm(), block: cfg.Block.norm(),
		dynSh: cfg.SharedBytes, detect: !cfg.Options.noDetect,
		spec: &d.spec, prof: cfg.Options.profile,
		maxDepth: cfg.Options.MaxDepth(), shadowBudget: cfg.Options.ShadowBudget(),
	}
	l.tpb = l.block.Size()
	l.nblocks = l.grid.Size()
	l.gidBase = d.takeGids(l.nblocks * l.tpb)
	l.resident, l.residentBy = residency(&d.spec, l.tpb, cfg.Registers, cfg.SharedBytes)
	if p := cfg.Options.progress; p != nil {
		p.total.Add(int64(l.nblocks))
		l.prog = p
	}
	start := time.Now()
	l.supervise(ctx)
	elapsed := time.Since(start)
	if l.abandoned {
		d.hung.Store(true)
		if l.prof != nil {
			// What the workers counted stays with them (mergeStats):
			// the profile has the launch's shape and time.
			l.prof.finish(l, elapsed)
		}
		return l.result()
	}
	l.retireThreads()
	d.mu.Lock()
	d.totals.add(&l.stats)
	if !l.detect {
		// Writes were not tracked: consider everything initialised.
		for _, m := range d.buffers {
			m.initAll = true
		}
	}
	d.mu.Unlock()
	if l.prof != nil {
		l.prof.finish(l, elapsed)
	}
	err := l.result()
	l.giveBackWorkers()
	return err
}

// Progress counts the blocks of the launches that were given it
// (Options.WithProgress), for a display that reads it from another
// goroutine while they run.
type Progress struct {
	done, total atomic.Int64
}

// Blocks returns the blocks finished and the blocks launched so far.
func (p *Progress) Blocks() (done, total int64) { return p.done.Load(), p.total.Load() }

// retireThreads makes every Thread and shared array of the launch
// unusable: a kernel that kept a Thread (in a global variable, a
// goroutine) and uses it after the launch has returned gets a *MisuseError
// panic naming it, not another launch's state, and one that kept a shared
// array gets a finding naming it (see lapse). Every slot's access budget
// is spent, so its next Load or Store takes the slow path, and every slot
// points to the device's retired worker, whose launch has ended
// (Thread.halt looks): the launch's own workers go back to the device for
// the next launch.
func (l *launch) retireThreads() {
	l.ended.Store(true)
	l.aborted.Store(true)
	d := l.dev
	if d.retired == nil {
		ended := &launch{dev: d, opts: l.opts, sealed: true} // (its findings are the Device's: addFinding)
		ended.ended.Store(true)
		ended.aborted.Store(true)
		d.retired = &worker{workerState: workerState{l: ended}}
	}
	for _, w := range l.workers {
		for _, bs := range [2][]*block{w.blocks, w.free} {
			for _, b := range bs {
				for k := range b.threads {
					b.threads[k].budget = math.MinInt32
					b.threads[k].w = d.retired
				}
				b.lapseShared() // (a block an abort left resident)
			}
		}
	}
}

// giveBackWorkers keeps the launch's workers on the device for its next
// launch, once retireThreads has run: nothing of the launch points to them
// any more. The workers of an abandoned launch are never given back.
func (l *launch) giveBackWorkers() {
	d := l.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range l.workers {
		if len(d.spareWorkers) == maxSpareWorkers {
			break
		}
		clear(w.spare)
		w.spare = w.spare[:0]
		kept := 0
		for _, b := range w.free {
			if kept += len(b.threads); kept > spareThreads {
				break
			}
			w.spare = append(w.spare, b)
		}
		w.workerState = workerState{}
		d.spareWorkers = append(d.spareWorkers, w)
	}
}

// maxSpareWorkers bounds the workers a device keeps between launches, and
// spareThreads the threads of the blocks each keeps (worker.spare): 4096
// threads' blocks hold ~2.4 MB.
const (
	maxSpareWorkers = 64
	spareThreads    = 4096
)

// residency is how many blocks of tpb threads the device holds at once, and
// what bounds them: SMs x the blocks per SM that the occupancy calculator
// gives for the launch's registers (Config.Registers, 0 unknown: no limit)
// and dynamic shared memory, as the GPU would. A kernel's static shared
// memory is not known before its threads declare it, so it does not count.
// Without the registers and the dynamic shared memory, a block spinning on
// a flag that a later block sets, in a grid larger than the GPU holds, ran
// to the end where the GPU hangs.
func residency(s *Spec, tpb, regs, dynShared int) (int, string) {
	o, err := s.CalcOccupancy(tpb, regs, dynShared)
	if err != nil || o.BlocksPerSM < 1 {
		// Validate has refused what the calculator refuses.
		return s.SMs, "threads"
	}
	return s.SMs * o.BlocksPerSM, o.Limiter.String()
}
