package sim

import "time"

// Schedule is the order in which the simulator runs threads between their
// synchronisation points.
type Schedule uint8

const (
	// NaturalOrder runs the blocks in blockIdx order and, within a block, each
	// thread in threadIdx order until it blocks (at a barrier, a warp
	// collective or a spin) or exits; released threads resume in threadIdx
	// order. It is the default and the fastest.
	NaturalOrder Schedule = iota
	// RandomOrder draws, from the seed, which runnable thread goes next at
	// every barrier, warp collective, atomic and fence, and the order in which
	// a barrier releases its threads: one seed is one reproducible
	// interleaving, and a sweep over seeds explores schedules.
	RandomOrder
)

func (s Schedule) String() string {
	if s == RandomOrder {
		return "random"
	}
	return "natural"
}

// WarpModel is how the lanes of a warp may progress relative to each other.
type WarpModel uint8

const (
	// Independent is the independent thread scheduling of every GPU since
	// Volta (sm_70): each lane has its own program counter, lanes meet only at
	// __syncwarp and the *_sync collectives, and a lane may wait for a
	// warp-mate that holds a lock.
	Independent WarpModel = iota
	// Lockstep is the pre-Volta model: the lanes of a warp issue together, so
	// lanes that diverge into a spin loop starve the warp-mates they wait for.
	// Under it the simulator makes atomics and volatile accesses warp-wide
	// meeting points (so that warp-synchronous code exchanging values
	// through volatile shared memory works, as it did there) and holds
	// back a lane while a warp-mate spins, unless a SIMT stack would run it
	// first; a spin lock contended within a warp then deadlocks and is
	// reported when it releases the lock after its spin loop, and works
	// when it releases it inside (see the package doc's Lockstep warp
	// model).
	Lockstep
)

func (m WarpModel) String() string {
	if m == Lockstep {
		return "lockstep"
	}
	return "independent"
}

// Options are a launch's policies. The zero value is the default: natural
// order, seed 0, detection on, one worker, independent warps, the watchdog
// at DefaultWatchdog, no time limit, DefaultMaxDepth and
// DefaultShadowBudget. Options are values: each With method returns a
// changed copy and leaves the receiver alone, so a base Options can be
// shared and specialised freely.
type Options struct {
	seed        uint64
	schedule    Schedule
	noDetect    bool
	workers     int
	specBudget  int // bytes of saved chunks a speculative epoch may hold; 0 is specUndoBudget (tests set less)
	warpModel   WarpModel
	sharedOptIn bool
	profile     *Profile
	cooperative bool
	progress    *Progress
	// watchdog is the watchdog's timeout; 0 means DefaultWatchdog and a
	// negative value turns the watchdog off.
	watchdog  time.Duration
	timeLimit time.Duration // 0: none
	maxDepth  int           // 0: DefaultMaxDepth; negative: no limit
	shadow    int64         // 0: DefaultShadowBudget; negative: no limit
}

// DefaultWatchdog is how long a kernel thread may run without calling into
// sim before the watchdog ends the launch with a Hang finding: 2 s, the
// timeout of the display watchdog (Windows' TDR) whose expiry is
// cudaErrorLaunchTimeout on a GPU. A thread calls into sim with every
// Load, Store, atomic, fence, barrier and warp collective; the arithmetic
// between them is what the watchdog times, and a simulated thread rarely
// computes for milliseconds between them. A kernel that does for longer
// (remember the race detector's 5-10x) needs Options.WithWatchdog.
const DefaultWatchdog = 2 * time.Second

// DefaultMaxDepth is the deepest a kernel thread's Go stack may grow, in
// frames, before the launch ends with a StackOverflow finding (the
// simulator's counterpart of CUDA's cudaLimitStackSize).
const DefaultMaxDepth = 10000

// DefaultShadowBudget is the most host memory, in bytes, detection's shadow
// memory may take on one Device: 48 bytes per element of every buffer a
// launch with detection touches.
const DefaultShadowBudget int64 = 4 << 30

// WithSeed sets the seed of the RandomOrder schedule.
func (o Options) WithSeed(seed uint64) Options { o.seed = seed; return o }

// WithSchedule sets the scheduling policy.
func (o Options) WithSchedule(s Schedule) Options { o.schedule = s; return o }

// WithDetection turns the race, barrier and uninitialised-read detectors on
// or off. Out-of-bounds accesses, panics, collective mask errors and deadlock
// are always reported: they cost nothing when absent.
func (o Options) WithDetection(on bool) Options { o.noDetect = !on; return o }

// WithWorkers runs blocks on n goroutines (n <= 0 means GOMAXPROCS). Each
// worker runs whole blocks with its own scheduler, so everything inside a
// block stays deterministic; what is not deterministic with n > 1 is the
// interleaving of different blocks: the order of atomics on one address from
// different blocks (and so float atomic sums), and the outcome of
// cross-block races. With detection on, n workers run blocks speculatively
// in epochs and the findings, their text and the memory left are those of
// one worker (speculate.go): an epoch in which blocks meet (touch a common
// word, use atomics or fences, spin) or anything is found is undone and
// run on one worker, and so is every later launch of that kernel on the
// device. Undoing runs a block's Go code again: a kernel with side effects
// outside simulated memory (a Go counter, a log) sees them twice. The
// default is one worker.
func (o Options) WithWorkers(n int) Options {
	if n <= 0 {
		n = -1
	}
	o.workers = n
	return o
}

// WithWarpModel sets how lanes of a warp progress.
func (o Options) WithWarpModel(m WarpModel) Options { o.warpModel = m; return o }

// WithSharedOptIn allows dynamic shared memory above the 48 KiB default, up
// to the device's opt-in maximum, as cudaFuncSetAttribute(...,
// cudaFuncAttributeMaxDynamicSharedMemorySize, ...) does.
func (o Options) WithSharedOptIn(on bool) Options { o.sharedOptIn = on; return o }

// WithCooperative makes the launch cooperative, as cudaLaunchCooperativeKernel
// does: grid.sync() (GridGroup.Sync) is legal in it, and the device refuses
// it with ErrCooperativeLaunchTooLarge when the grid has more blocks than
// can be co-resident (Device.CooperativeLimit, with Config.Registers and
// the dynamic shared memory; static shared memory, unknown before the
// kernel runs, counts as none).
func (o Options) WithCooperative(on bool) Options { o.cooperative = on; return o }

// WithProfile makes the launch fill p with its counters and timeline.
//
// Deprecated: use Device.LaunchProfile, which returns the launch's
// profile instead of filling one the options carry.
func (o Options) WithProfile(p *Profile) Options { o.profile = p; return o }

// WithProgress makes the launch count its blocks in p as they finish, for a
// progress display that another goroutine reads while the launch runs.
func (o Options) WithProgress(p *Progress) Options { o.progress = p; return o }

// WithWatchdog sets how long a thread may run without calling into sim
// before the launch ends with a Hang finding (see the package doc's #
// Watchdog). d <= 0 turns the watchdog off: a thread that loops forever
// without calling sim then hangs the launch, as it hangs a GPU.
func (o Options) WithWatchdog(d time.Duration) Options {
	if d <= 0 {
		d = -1
	}
	o.watchdog = d
	return o
}

// WithTimeLimit bounds the launch's wall-clock time: when d has passed, the
// launch ends at its threads' next call into sim with a BudgetExceeded
// finding naming every live thread and its line. It is what ends a
// livelock whose threads keep writing changing values, which the deadlock
// detector, rightly, takes for progress. d <= 0 means no limit (the
// default).
func (o Options) WithTimeLimit(d time.Duration) Options {
	if d < 0 {
		d = 0
	}
	o.timeLimit = d
	return o
}

// WithMaxDepth sets the deepest a kernel thread's stack may grow, in Go
// frames, before the launch ends with a StackOverflow finding; n <= 0 means
// no limit but Go's own, whose overflow ends the process.
func (o Options) WithMaxDepth(n int) Options {
	if n <= 0 {
		n = -1
	}
	o.maxDepth = n
	return o
}

// WithShadowBudget sets the most host memory, in bytes, detection's shadow
// memory may take on the Device; a launch whose detection would need more
// ends with a ShadowBudget finding naming the buffer, before allocating it.
// n <= 0 means no budget but the host's memory.
func (o Options) WithShadowBudget(n int64) Options {
	if n <= 0 {
		n = -1
	}
	o.shadow = n
	return o
}

// Watchdog, TimeLimit, MaxDepth and ShadowBudget report the settings in
// effect: the defaults where none was set, 0 where the limit is off.
func (o Options) Watchdog() time.Duration {
	switch {
	case o.watchdog == 0:
		return DefaultWatchdog
	case o.watchdog < 0:
		return 0
	}
	return o.watchdog
}
func (o Options) TimeLimit() time.Duration { return o.timeLimit }
func (o Options) MaxDepth() int {
	switch {
	case o.maxDepth == 0:
		return DefaultMaxDepth
	case o.maxDepth < 0:
		return 0
	}
	return o.maxDepth
}
func (o Options) ShadowBudget() int64 {
	switch {
	case o.shadow == 0:
		return DefaultShadowBudget
	case o.shadow < 0:
		return 0
	}
	return o.shadow
}

// Seed, Schedule, Detection, Workers, WarpModel and Cooperative report
// the settings.
func (o Options) Seed() uint64         { return o.seed }
func (o Options) Schedule() Schedule   { return o.schedule }
func (o Options) Detection() bool      { return !o.noDetect }
func (o Options) Workers() int         { return o.workers }
func (o Options) WarpModel() WarpModel { return o.warpModel }
func (o Options) Cooperative() bool    { return o.cooperative }

// Config is one launch's shape: kernel<<<Grid, Block, SharedBytes>>>.
type Config struct {
	Grid, Block Dim3
	// SharedBytes is the dynamic shared memory per block (extern __shared__).
	SharedBytes int
	// Registers is the registers per thread the kernel needs, if known; it
	// is checked against the device as CUDA checks it, and is used by the
	// occupancy calculator. 0 means unknown and is not checked.
	Registers int
	Options   Options
}
