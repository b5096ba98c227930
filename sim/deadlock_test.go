package sim_test

// Deadlock and livelock: spins on memory nothing will change, barriers and
// locks that cannot be passed, the lockstep warp model, blocks that cannot all
// be resident. Each must be reported promptly, never hang.

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

func TestDeadlockSpinLockOwnerInSameWarpLockstep(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	lock := zeroed[int32](t, dev, "lock", 1)
	x := zeroed[int32](t, dev, "x", 1)
	r := exec(t, dev, lin(1, 32, sim.Options{}.WithWarpModel(sim.Lockstep)), ownerInWarp(lock, x))
	f := wantKind(t, r, sim.Deadlock)
	held := 0
	for _, w := range f.Waiting {
		if strings.Contains(w.At, "held back") {
			held++
		}
	}
	if !r.Aborted || held == 0 || x.ToHost()[0] >= 32 {
		t.Fatalf("aborted=%v, %d held back, x=%d; want a lockstep deadlock:\n%v", r.Aborted, held, x.ToHost()[0], r)
	}
}

// ---------------------------------------------------------------------------
// deadlock and livelock must be reported promptly

// "Promptly" is measured in simulated work, not wall time, so that the
// bound holds under -race too: the pollers' iterations are counted by the
// kernel itself (deferred, so the abort's unwinding reports them).

func TestDeadlockFlagNeverSetAtomicPoll(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var polls atomic.Int64
	r := exec(t, dev, lin(3, 64), func(t *sim.Thread) {
		if t.BlockIdx.X == 2 {
			if t.ThreadIdx.X == t.BlockDim.X { // off by one: never true
				sim.AtomicExch(t, flag, 0, 1)
			}
			return
		}
		n := int64(0)
		defer func() { polls.Add(n) }()
		for sim.AtomicOr(t, flag, 0, 0) == 0 { //@neverPoll
			n++
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if !r.Aborted || len(f.Waiting) != 128 {
		t.Fatalf("aborted=%v waiting=%d, want 128 spinners:\n%v", r.Aborted, len(f.Waiting), r)
	}
	for _, w := range f.Waiting {
		if w.Site != at(t, "neverPoll") || !strings.Contains(w.At, "spin") {
			t.Fatalf("waiting entry %+v, want spinning at %s", w, at(t, "neverPoll"))
		}
	}
	if p := polls.Load(); p > 128*1000 {
		t.Errorf("%d polls (%d per thread) before the deadlock was reported", p, p/128)
	}
}

// A thread parked at each atomic that changes nothing (and each
// __nanosleep) polls once a round: the verdict counts such polls, 4096 in
// a row in all. The correct side: a single thread's
// finite loops of exchanges that leave the value, failed CASes and sleeps,
// 3000 each, with an atomicAdd that changes memory between them, run to
// the end. They used to be a livelock after 65 such calls (found by the
// differential fuzzer: one thread, 68 exchanges).
func TestNoDeadlockFiniteNoChangeAtomicsAlone(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(1), sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(1, 1, o), func(t *sim.Thread) {
			for range 3000 {
				sim.AtomicExch(t, flag, 0, 0)
			}
			sim.AtomicAdd(t, out, 0, 1)
			for range 3000 {
				sim.AtomicCAS(t, flag, 0, 1, 2)
			}
			sim.AtomicAdd(t, out, 0, 1)
			for range 3000 {
				t.Nanosleep(10)
			}
			sim.AtomicAdd(t, out, 0, 1)
		}))
		if got := out.ToHost()[0]; got != 3 {
			t.Fatalf("%v: out = %d, want 3", o, got)
		}
	}
}

func TestDeadlockNoChangeExchangeForeverAlone(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(1), sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		var polls atomic.Int64
		r := exec(t, dev, lin(1, 1, o), func(t *sim.Thread) {
			n := int64(0)
			defer func() { polls.Add(n) }()
			for sim.AtomicExch(t, flag, 0, 0) == 0 { //@exchForever
				n++
			}
		})
		f := wantKind(t, r, sim.Deadlock)
		if len(f.Waiting) != 1 || f.Waiting[0].Site != at(t, "exchForever") || !strings.Contains(f.Waiting[0].At, "spin") {
			t.Fatalf("%v: want the thread spinning at %s:\n%v", o, at(t, "exchForever"), r)
		}
		if p := polls.Load(); p < 4000 || p > 5000 {
			t.Errorf("%v: %d polls before the livelock was reported, want about 4096", o, p)
		}
	}
}

// A block's threads poll a flag nothing sets with an atomic and a
// __nanosleep, a bounded number of times, then take a fallback path (a
// try-lock with a retry limit, a wait for a producer that may be late). A
// thread parks at each of the two calls, so 100 iterations are 200 polls
// without progress per thread: with 256 threads, 4096 polls in all (16 per
// thread, 64 rounds) took them for a livelock. The verdict waits for 512
// polls per thread now (idleRounds); polling for ever is still a deadlock.
func nanosleepRetries(flag, out *sim.Buffer[int32], retries int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := 0; retries < 0 || i < retries; i++ {
			if sim.AtomicOr(t, flag, 0, 0) != 0 { //@retryPoll
				out.Store(t, t.ThreadIdx.X, 1)
				return
			}
			t.Nanosleep(100) //@retrySleep
		}
		out.Store(t, t.ThreadIdx.X, -1) // the fallback
	}
}

func TestNoDeadlockBoundedNanosleepRetries(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 256)
		onlyKinds(t, exec(t, dev, lin(1, 256, o), nanosleepRetries(flag, out, 100)))
		for i, v := range out.ToHost() {
			if v != -1 {
				t.Fatalf("out[%d] = %d, want -1 (every thread took the fallback)", i, v)
			}
		}
	})
}

func TestDeadlockNanosleepRetriesUnbounded(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 256)
		r := exec(t, dev, lin(1, 256, o), nanosleepRetries(flag, out, -1))
		f := wantKind(t, r, sim.Deadlock)
		if len(f.Waiting) != 256 {
			t.Fatalf("%d threads waiting, want 256:\n%v", len(f.Waiting), r)
		}
		for _, w := range f.Waiting {
			if w.Site != at(t, "retryPoll") && w.Site != at(t, "retrySleep") || !strings.Contains(w.At, "spin") {
				t.Fatalf("waiting entry %+v, want spinning at %s or %s", w, at(t, "retryPoll"), at(t, "retrySleep"))
			}
		}
	})
}

func TestDeadlockFlagNeverSetPlainPoll(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[int32](t, dev, "flag", 1)
	var polls atomic.Int64
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		n := int64(0)
		defer func() { polls.Add(n) }()
		for flag.Load(t, 0) == 0 { //@neverPlain
			n++
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if len(f.Waiting) != 32 || f.Waiting[0].Site != at(t, "neverPlain") {
		t.Fatalf("want 32 spinners at %s:\n%v", at(t, "neverPlain"), r)
	}
	onlyKinds(t, r, sim.Deadlock)
	// Plain loads alone make a livelock after 2^20 accesses per live
	// thread (2^26 in all, 2^23 in race builds): a long read-only loop
	// looks the same until then (TestNoDeadlockLongReadOnlyLoop). Allow
	// the window before the first spin round and a round more.
	want := int64(1 << 20)
	if raceBuild {
		want = 1 << 23 / 32
	}
	if per := polls.Load() / 32; per < want || per > want+16384 {
		t.Errorf("%d polls per thread before the livelock was reported, want %d to %d", per, want, want+16384)
	}
	t.Logf("%d polls per thread", polls.Load()/32)
}

// The correct side of TestDeadlockFlagNeverSetPlainPoll: threads that loop
// over a small read-only table without writing look like plain-load
// pollers to the spin watch, and must run to the end: a Markov chain over a
// 4x4 transition table in global and in constant memory, with detection on
// and off: 320k reads per thread, above the ~270k of an atomic poll's
// verdict and within the 2^20 per thread and 2^26 in all (2^23 in race
// builds) that plain polling gets.
func TestNoDeadlockLongReadOnlyLoop(t *testing.T) {
	t.Parallel()
	const steps = 320_000 // table reads per thread
	table := make([]float32, 16)
	for i := range table {
		table[i] = float32(i%4) / 4
	}
	run := func(t *testing.T, o sim.Options, constant bool) {
		dev := sim.NewDevice(sim.H100)
		defer dev.Close()
		out := zeroed[int32](t, dev, "out", 32)
		var load func(th *sim.Thread, i int) float32
		if constant {
			c := sim.NewConstant[float32]("table", len(table))
			if err := c.CopyFromHost(dev, table); err != nil {
				t.Fatal(err)
			}
			load = func(th *sim.Thread, i int) float32 { return c.Load(th, i) }
		} else {
			g, err := sim.FromHost(dev, "table", table)
			if err != nil {
				t.Fatal(err)
			}
			load = func(th *sim.Thread, i int) float32 { return g.Load(th, i) }
		}
		threads := 32
		if raceBuild {
			threads = 16 // 5M reads in all, within 2^23
		}
		cfg := lin(1, threads)
		cfg.Options = o
		r := exec(t, dev, cfg, func(th *sim.Thread) {
			state := th.ThreadIdx.X % 4
			for k := 0; k < steps; k++ {
				if load(th, state*4+k%4) < 0.5 {
					state = (state + 1) % 4
				}
			}
			out.Store(th, th.ThreadIdx.X, int32(state))
		})
		if r != nil {
			t.Fatalf("want no finding:\n%v", r)
		}
	}
	t.Run("global", func(t *testing.T) { run(t, sim.Options{}, false) })
	t.Run("constant", func(t *testing.T) { run(t, sim.Options{}, true) })
	t.Run("detection off", func(t *testing.T) { run(t, sim.Options{}.WithDetection(false), false) })
}

// A read-only loop over a small table in an order that depends on what it
// computes (a Markov chain drawing its next state) is not a poll, however
// long it runs: 1.5M table reads by one thread, past the 2^20 accesses per
// thread after which plain polling in a fixed order is a livelock
// (TestDeadlockFlagNeverSetPlainPoll), with detection on and off.
func TestNoDeadlockTableWalkPastPollLimit(t *testing.T) {
	t.Parallel()
	const reads = 1_500_000
	table := make([]float32, 16)
	for i := range table {
		table[i] = 0.25
	}
	run := func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		defer dev.Close()
		trans, err := sim.FromHost(dev, "trans", table)
		if err != nil {
			t.Fatal(err)
		}
		out := zeroed[int32](t, dev, "out", 1)
		cfg := lin(1, 1)
		cfg.Options = o
		r := exec(t, dev, cfg, func(th *sim.Thread) {
			state, rng, visits := 0, uint32(1), int32(0)
			for n := 0; n < reads; {
				rng = rng*1664525 + 1013904223
				u := float32(rng>>8) / (1 << 24)
				acc, next := float32(0), 3
				for k := 0; k < 4; k++ {
					acc += trans.Load(th, state*4+k)
					n++
					if u < acc {
						next = k
						break
					}
				}
				state = next
				if state == 0 {
					visits++
				}
			}
			out.Store(th, 0, visits)
		})
		if r != nil {
			t.Fatalf("want no finding:\n%v", r)
		}
		if v := out.ToHost()[0]; v == 0 {
			t.Fatal("the kernel did not finish: no visits stored")
		}
	}
	t.Run("detection on", func(t *testing.T) { run(t, sim.Options{}) })
	t.Run("detection off", func(t *testing.T) { run(t, sim.Options{}.WithDetection(false)) })
}

// Thread 1 waits for a flag that thread 0 sets only after a barrier that
// thread 1 never reaches.
func TestDeadlockBarrierAndSpin(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	start := time.Now()
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		flag := sim.Shared[uint32](t, "ready", 1)
		tid := t.ThreadIdx.X
		if tid == 0 {
			flag.Store(t, 0, 0)
		}
		t.SyncThreads()
		if tid == 1 {
			for sim.AtomicAdd(t, flag, 0, 0) == 0 { //@bsSpin
			}
		}
		t.SyncThreads() //@bsBar
		if tid == 0 {
			sim.AtomicExch(t, flag, 0, 1)
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	var spin, bar int
	for _, w := range f.Waiting {
		switch {
		case w.Site == at(t, "bsSpin") && w.Thread.X == 1:
			spin++
		case w.Site == at(t, "bsBar") && w.At == "SyncThreads":
			bar++
		}
	}
	if spin != 1 || bar != 63 {
		t.Errorf("spinning %d (want 1), at barrier %d (want 63):\n%v", spin, bar, r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("deadlock took %v to report", el)
	}
}

// ---------------------------------------------------------------------------
// a software grid barrier needs every block resident: 40 blocks of 1024
// threads fit a T4 (one per SM), 41 do not and deadlock, on hardware too.

func leaderGridSync(arrive *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		sim.AtomicAdd(t, arrive, 0, 1)
		for sim.AtomicOr(t, arrive, 0, 0) < uint32(t.GridDim.X) { //@gsyncSpin
		}
	}
}

func TestNoRaceGridSyncAllBlocksResident(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.T4)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	wantClean(t, exec(t, dev, lin(40, 1024), leaderGridSync(arrive)))
	if got := arrive.ToHost()[0]; got != 40 {
		t.Fatalf("arrive = %d, want 40", got)
	}
}

func TestDeadlockGridSyncMoreBlocksThanResident(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.T4)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	r := exec(t, dev, lin(41, 1024), leaderGridSync(arrive))
	f := wantKind(t, r, sim.Deadlock)
	spin := 0
	for _, w := range f.Waiting {
		if w.Site == at(t, "gsyncSpin") {
			spin++
		}
	}
	if spin != 40 || arrive.ToHost()[0] != 40 {
		t.Fatalf("%d spinning at %s (want 40), arrive = %d:\n%v", spin, at(t, "gsyncSpin"), arrive.ToHost()[0], r)
	}
	if !strings.Contains(f.Detail, "1 of the grid's 41 blocks never started") {
		t.Errorf("the deadlock should name the block that never started: %q", f.Detail)
	}
}

// Residency counts the launch's dynamic shared memory and registers, as the
// GPU's does: a software grid barrier over 41 blocks of 256 threads fits a
// T4 (4 blocks per SM by threads, 160 in all), but with 40 KB of dynamic
// shared memory a block (1 per SM: 40) or 128 registers a thread (2 per
// SM: 80, the grid fits) the 41st block cannot start until one of the first
// 40 exits, which none does. The scheduler used to admit blocks by threads
// alone, and the launch ran to the end where the GPU hangs.
func residentGridBarrier(t *testing.T, o sim.Options, sharedBytes, regs int) (*sim.Report, uint32) {
	dev := sim.NewDevice(sim.T4)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	cfg := lin(41, 256, o)
	cfg.SharedBytes, cfg.Registers = sharedBytes, regs
	r := exec(t, dev, cfg, leaderGridSync(arrive))
	return r, arrive.ToHost()[0]
}

func TestNoDeadlockGridBarrierFitsByThreads(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, arrived := residentGridBarrier(t, o, 0, 0)
		onlyKinds(t, r)
		if arrived != 41 {
			t.Fatalf("arrive = %d, want 41", arrived)
		}
	})
}

func TestNoDeadlockGridBarrierFitsByRegisters(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, arrived := residentGridBarrier(t, o, 0, 128)
		onlyKinds(t, r)
		if arrived != 41 {
			t.Fatalf("arrive = %d, want 41", arrived)
		}
	})
}

func TestDeadlockGridBarrierBeyondResidencyByDynamicShared(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, arrived := residentGridBarrier(t, o, 40<<10, 0)
		f := wantKind(t, r, sim.Deadlock)
		if arrived != 40 || !strings.Contains(f.Detail, "1 of the grid's 41 blocks never started (at most 40 resident, bounded by shared memory per SM)") {
			t.Fatalf("arrive = %d (want 40), detail %q", arrived, f.Detail)
		}
		for _, w := range f.Waiting {
			if w.Site != at(t, "gsyncSpin") || !strings.Contains(w.At, "spin") {
				t.Fatalf("waiting entry %+v, want spinning at %s", w, at(t, "gsyncSpin"))
			}
		}
	})
}

func TestDeadlockGridBarrierBeyondResidencyByRegisters(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, arrived := residentGridBarrier(t, o, 0, 255)
		f := wantKind(t, r, sim.Deadlock)
		if arrived != 40 || !strings.Contains(f.Detail, "bounded by registers per SM") {
			t.Fatalf("arrive = %d (want 40), detail %q", arrived, f.Detail)
		}
	})
}

func TestDeadlockSyncWarpVersusSyncThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		if t.LaneID() == 0 {
			t.SyncThreads() //@dlBar
		} else {
			t.SyncWarp(sim.FullMask) //@dlWarp
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	bar, warp := 0, 0
	for _, w := range f.Waiting {
		switch w.Site {
		case at(t, "dlBar"):
			bar++
		case at(t, "dlWarp"):
			warp++
		}
	}
	if bar != 1 || warp != 31 {
		t.Errorf("%d at the barrier, %d at __syncwarp; want 1 and 31:\n%v", bar, warp, r)
	}
}

// ---------------------------------------------------------------------------
// volatile-style polling of more flags than the spin watch remembers: block 0
// waits for the flags of blocks 1..12 with plain loads. On hardware it
// completes; the simulator must not hang (the flags are reported as races).

func TestRaceVolatilePollManyFlags(t *testing.T) {
	const producers = 12
	dev := sim.NewDevice(sim.H100)
	flags := zeroed[int32](t, dev, "flags", producers+1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(producers+1, 32), hangLimit, &abandon, func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		if b := t.BlockIdx.X; b > 0 {
			t.ThreadFence()
			flags.Store(t, b, 1) //@mfW
			return
		}
		for {
			all := true
			for b := 1; b <= producers; b++ {
				if flags.Load(t, b) == 0 { //@mfR
					all = false
				}
			}
			if all || abandon.Load() {
				return
			}
		}
	})
	if !ok {
		t.Fatal("a thread polling more than 8 addresses with plain loads is never recognised as spinning: the producer blocks are never admitted and the launch hangs (the test had to tell the kernel to give up)")
	}
	wantRace(t, r, sim.GlobalSpace, "flags", at(t, "mfW"), at(t, "mfR"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// the lockstep model: a lock taken by one lane per warp works across warps

func TestNoRaceLockstepWarpLeaderLock(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(5)} {
		opts = opts.WithWarpModel(sim.Lockstep)
		dev := sim.NewDevice(sim.H100)
		lock := zeroed[int32](t, dev, "lock", 1)
		x := zeroed[int32](t, dev, "x", 1)
		wantClean(t, exec(t, dev, lin(2, 128, opts), func(t *sim.Thread) {
			if t.LaneID() != 0 {
				return
			}
			for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
			x.Store(t, 0, x.Load(t, 0)+1)
			t.ThreadFence()
			sim.AtomicExch(t, lock, 0, 0)
		}))
		if got := x.ToHost()[0]; got != 8 {
			t.Fatalf("x = %d, want 8", got)
		}
	}
}

// Holding a lock across __syncthreads: the block's other threads spin on the
// lock and never reach the barrier.
func TestDeadlockLockHeldAcrossBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	lock := zeroed[int32](t, dev, "lock", 1)
	start := time.Now()
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 { //@lhSpin
		}
		t.SyncThreads() //@lhBar
		sim.AtomicExch(t, lock, 0, 0)
	})
	f := wantKind(t, r, sim.Deadlock)
	spin, bar := 0, 0
	for _, w := range f.Waiting {
		switch w.Site {
		case at(t, "lhSpin"):
			spin++
		case at(t, "lhBar"):
			bar++
		}
	}
	if bar != 1 || spin != 63 {
		t.Errorf("%d at the barrier, %d spinning; want 1 and 63:\n%v", bar, spin, r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("deadlock took %v", el)
	}
}

// ---------------------------------------------------------------------------
// warp-cooperative polling: the whole warp polls with __any_sync around an
// atomic read. The collective completes on every round, but nothing changes.

// hangLimit is how long a launch may take before a test calls it a hang: far
// above the tens of milliseconds these launches take, so that a slow machine
// or the race detector does not turn into a failure.
const hangLimit = 10 * time.Second

func launchWithin(t *testing.T, dev *sim.Device, cfg sim.Config, limit time.Duration, abandon *atomic.Bool, k sim.Kernel) (*sim.Report, bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- dev.Launch(cfg, k) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		abandon.Store(true)
		<-done
		return nil, false
	}
	sim.ExpectByName(t, err)
	if err == nil {
		return nil, true
	}
	r, ok := err.(*sim.Report)
	if !ok {
		t.Fatalf("launch refused: %v", err)
	}
	return r, true
}

func warpPoll(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], abandon *atomic.Bool, produce bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 1 {
			if produce {
				data.Store(t, t.ThreadIdx.X, int32(t.ThreadIdx.X+100))
				t.ThreadFence()
				sim.AtomicAdd(t, flag, 0, 1)
			}
			return
		}
		for !t.AnySync(sim.FullMask, sim.AtomicOr(t, flag, 0, 0) == 32) { //@wpPoll
			if abandon.Load() {
				return
			}
		}
		t.ThreadFence()
		out.Store(t, t.ThreadIdx.X, data.Load(t, t.ThreadIdx.X))
	}
}

func TestNoRaceWarpCooperativePolling(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(2, 32), hangLimit, &abandon, warpPoll(data, out, flag, &abandon, true))
	if !ok {
		t.Fatal("a warp polling with __any_sync never lets the producer block in: each completed collective counts as progress, so the spin rounds never reach the admission (or deadlock) threshold, and the launch hangs (the test told the kernel to give up)")
	}
	wantClean(t, r)
	for i, v := range out.ToHost() {
		if v != int32(i+100) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}

func TestDeadlockWarpCooperativePollingNeverSet(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(2, 32), hangLimit, &abandon, warpPoll(data, out, flag, &abandon, false))
	if !ok {
		t.Fatal("livelock of a warp polling with __any_sync is never reported (each completed collective counts as progress); the launch hangs until the test tells the kernel to give up")
	}
	f := wantKind(t, r, sim.Deadlock)
	if len(f.Waiting) == 0 || f.Waiting[0].Site != at(t, "wpPoll") {
		t.Errorf("want the pollers at %s:\n%v", at(t, "wpPoll"), r)
	}
}

// The two ways to write a spin lock, under the lockstep (pre-Volta) warp
// model. Written the pre-Volta-safe way, the critical section and the
// release stand inside the branch that took the lock: a SIMT stack runs
// that branch to its end (after the release) before the losers go round
// the loop again, so the lock works within a warp. Written the naive way,
// `for atomicCAS(...) != 0 {}` with the release after the loop, the winner
// leaves the loop and waits at its exit for the losers, which spin for
// ever: a deadlock on a Pascal GPU, reported. Both make the same calls into
// sim from lines in the same order; only the extent of the loop (read from
// the source) tells them apart. Each lane count and schedule, since the
// lanes' order decides which lane wins first.

func doneFlagLock(lock, x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		done := false
		for !done {
			if sim.AtomicCAS(t, lock, 0, 0, 1) == 0 {
				t.ThreadFence()
				x.Store(t, 0, x.Load(t, 0)+1)
				t.ThreadFence()
				sim.AtomicExch(t, lock, 0, 0)
				done = true
			}
		}
	}
}

func naiveLock(lock, x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 { //@naiveSpin
		}
		t.ThreadFence()
		x.Store(t, 0, x.Load(t, 0)+1)
		t.ThreadFence()
		sim.AtomicExch(t, lock, 0, 0) //@naiveRelease
	}
}

func TestNoDeadlockLockstepDoneFlagLock(t *testing.T) {
	t.Parallel()
	for _, threads := range []int{32, 2, 3, 64, 40} {
		for seed := uint64(0); seed <= 4; seed++ {
			opts := sim.Options{}
			if seed > 0 {
				opts = random(seed)
			}
			dev := sim.NewDevice(sim.H100)
			lock := zeroed[int32](t, dev, "lock", 1)
			x := zeroed[int32](t, dev, "x", 1)
			if r := exec(t, dev, lin(1, threads, opts.WithWarpModel(sim.Lockstep)), doneFlagLock(lock, x)); r != nil {
				t.Fatalf("%d threads, seed %d (0: natural order): want no findings, got:\n%v", threads, seed, r)
			}
			if got := x.ToHost()[0]; got != int32(threads) {
				t.Fatalf("%d threads, seed %d: x = %d, want %d", threads, seed, got, threads)
			}
		}
	}
}

func TestDeadlockLockstepNaiveLock(t *testing.T) {
	t.Parallel()
	for _, threads := range []int{32, 2, 3, 64} {
		for seed := uint64(0); seed <= 4; seed++ {
			opts := sim.Options{}
			if seed > 0 {
				opts = random(seed)
			}
			dev := sim.NewDevice(sim.H100)
			lock := zeroed[int32](t, dev, "lock", 1)
			x := zeroed[int32](t, dev, "x", 1)
			r := exec(t, dev, lin(1, threads, opts.WithWarpModel(sim.Lockstep)), naiveLock(lock, x))
			f := wantKind(t, r, sim.Deadlock)
			// The first winner, held back at its release; every other
			// lane (of its warp, and of the next, which the held lock
			// keeps out) spinning at the CAS.
			held, spin := 0, 0
			for _, w := range f.Waiting {
				switch {
				case strings.Contains(w.At, "held back") && w.Site == at(t, "naiveRelease"):
					held++
				case strings.Contains(w.At, "spinning") && w.Site == at(t, "naiveSpin"):
					spin++
				}
			}
			if held != 1 || spin != threads-1 || x.ToHost()[0] != 1 ||
				!strings.Contains(f.Detail, "held back") || strings.Contains(f.Detail, "no thread will change") {
				t.Fatalf("%d threads, seed %d: %d held back at the release, %d spinning, x = %d; want 1, %d, 1 and a detail naming the held-back lanes:\n%v",
					threads, seed, held, spin, x.ToHost()[0], threads-1, r)
			}
			// The same kernel is a working lock since Volta.
			lock.Memset(0)
			wantClean(t, exec(t, dev, lin(1, threads, opts), naiveLock(lock, x)))
		}
	}
}

func TestDeadlockLockstepMutex(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	mu, _ := sim.Alloc[uint64](dev, "mutex", 1)
	mu.Memset(0)
	r := launchOn(t, dev, 1, 32, sim.Options{}.WithWarpModel(sim.Lockstep), mutexKernel(x, mu, true))
	if !r.Has(sim.Deadlock) {
		t.Fatalf("no deadlock: %v", r)
	}
	t.Log(r)
}

func TestDeadlockSpinForever(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	mu, _ := sim.Alloc[uint32](dev, "lock", 1)
	mu.Memset(0xff)
	r := launchOn(t, dev, 2, 64, sim.Options{}, func(t *sim.Thread) {
		for sim.AtomicCAS(t, mu, 0, 0, 1) != 0 {
		}
	})
	if !r.Has(sim.Deadlock) {
		t.Fatalf("no deadlock: %v", r)
	}
}

// Threads that loop through barriers or warp collectives for ever, changing
// nothing, are a livelock the spin watch (which looks at memory) never
// sees: reported after 2^24 arrivals without progress (2^21 in race
// builds), where the launch
// ran until a context or time limit ended it. The correct side: a long
// loop of barriers that ends, and one whose memory keeps changing.
func TestDeadlockLoopOfBarriersWithoutProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		k    func(th *sim.Thread)
	}{
		{"barriers", func(th *sim.Thread) {
			for i := 0; i != 7; i += 2 { // never 7
				th.SyncThreads() //@idleBar
			}
		}},
		{"collectives", func(th *sim.Thread) {
			v := int32(1)
			for v != 0 { // a shuffle of 1s is never 0
				v = sim.ShflXorSync(th, sim.FullMask, v, 1) //@idleShfl
			}
		}},
	} {
		dev := sim.NewDevice(sim.H100)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err := dev.LaunchContext(ctx, lin(1, 64), tc.k)
		cancel()
		sim.ExpectByName(t, err)
		r, _ := err.(*sim.Report)
		if r == nil || r.Stopped != nil || !r.Has(sim.Deadlock) || !strings.Contains(r.Error(), "without changing memory") {
			t.Errorf("%s: %v, want a livelock before the deadline", tc.name, err)
		}
	}
}

func TestNoDeadlockLongLoopOfBarriers(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 64)
	idle, busy := 100_000, 300_000 // 6.4M arrivals changing nothing, below 2^24; 19.2M changing memory, above
	if raceBuild {
		idle, busy = 10_000, 40_000 // 640k, below 2^21; 2.6M, above
	}
	r := exec(t, dev, lin(1, 64), func(th *sim.Thread) {
		for i := 0; i < idle; i++ {
			th.SyncThreads()
		}
		for i := 0; i < busy; i++ {
			if th.ThreadIdx.X == 0 {
				x.Store(th, 0, int32(i))
			}
			th.SyncThreads()
		}
	})
	wantClean(t, r)
}
