package sim_test

// Launches that would hang: a thread that never calls into sim (the
// watchdog), a launch whose context is cancelled (LaunchContext), a
// livelock that keeps writing changing values (the time limit). Lines are
// found through "//@name" markers (at, harness_test.go).

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

// report launches k and returns its report, failing on any other error. It
// checks the launch against the test's name (sim.ExpectByName).
func report(t *testing.T, dev *sim.Device, cfg sim.Config, k sim.Kernel) *sim.Report {
	t.Helper()
	err := dev.Launch(cfg, k)
	sim.ExpectByName(t, err)
	if err == nil {
		return nil
	}
	var r *sim.Report
	if !errors.As(err, &r) {
		t.Fatalf("launch refused: %v", err)
	}
	return r
}

func cfg1(grid, block int, o sim.Options) sim.Config {
	return sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(block), Options: o}
}

func only(t *testing.T, r *sim.Report, k sim.Kind) sim.Finding {
	t.Helper()
	if r == nil || len(r.Findings) != 1 || r.Findings[0].Kind != k {
		t.Fatalf("want exactly one %v finding, got:\n%v", k, r)
	}
	return r.Findings[0]
}

// A thread that loops without calling into sim is reported by the watchdog
// with its thread and the line it loops on; the launch returns, the Device
// is unusable from then on, and the stray goroutine ends once the loop
// does (here: when the test lets it go).
func TestHangWatchdogNamesThreadAndLine(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 64)
	var release atomic.Bool
	var spins atomic.Int64
	before := baseline()
	start := time.Now()
	r := report(t, dev, cfg1(2, 32, sim.Options{}.WithWatchdog(100*time.Millisecond)), func(th *sim.Thread) {
		x.Store(th, th.GlobalX(), 1)
		if th.BlockIdx.X == 1 && th.ThreadIdx.X == 5 {
			n := int64(0)
			for !release.Load() { //@hangLoop
				n++ //@hangBody
			}
			spins.Add(n)
		}
	})
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("the hang took %v to report", el)
	}
	f := only(t, r, sim.Hang)
	loop, body := at(t, "hangLoop"), at(t, "hangBody")
	if f.Current.Block != (sim.Dim3{X: 1}) || f.Current.Thread != (sim.Dim3{X: 5}) || f.Current.Site != loop && f.Current.Site != body {
		t.Errorf("hang names %v, want block (1) thread (5) at %s or %s:\n%v", f.Current, loop, body, r)
	}
	if !r.Aborted || !strings.Contains(f.Detail, "runs on until it next calls into sim") {
		t.Errorf("the report should say the launch is abandoned and what becomes of the goroutine:\n%v", r)
	}
	var me *sim.MisuseError
	if err := dev.Launch(cfg1(1, 1, sim.Options{}), func(*sim.Thread) {}); !errors.As(err, &me) || me.Code != sim.ErrLaunchTimeout {
		t.Errorf("a launch on a device with an abandoned launch: %v, want a MisuseError with ErrLaunchTimeout", err)
	}
	if err := x.CopyToHost(make([]int32, 64)); !errors.As(err, &me) {
		t.Errorf("a copy from a device with an abandoned launch: %v, want a MisuseError", err)
	}
	release.Store(true)
	waitGoroutines(t, before)
	if spins.Load() == 0 {
		t.Error("the stray thread never ran on")
	}
}

// A race reported before the watchdog abandons the launch keeps its full
// count: the stuck worker's repeats, counted without the lock, are added.
func TestHangKeepsRaceCounts(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 1)
	var release atomic.Bool
	before := baseline()
	r := report(t, dev, cfg1(2, 32, sim.Options{}.WithWatchdog(100*time.Millisecond)), func(th *sim.Thread) {
		if th.BlockIdx.X == 0 {
			x.Store(th, 0, int32(th.ThreadIdx.X)) //@hangRacyStore
			return
		}
		for !release.Load() {
		}
	})
	release.Store(true)
	waitGoroutines(t, before)
	races := r.Of(sim.DataRace)
	if len(races) != 1 || races[0].Count != 31 || races[0].Current.Site != at(t, "hangRacyStore") || !r.Has(sim.Hang) {
		t.Errorf("want the hang and one race at %s counted 31 times (each store after the first):\n%v", at(t, "hangRacyStore"), r)
	}
}

// A thread blocked in the Go runtime (a channel receive, a lock, a sleep)
// burns no CPU: the watchdog tells it from a thread the machine starves by
// its goroutine's state, and abandons it as a hang, naming the line.
func TestHangThreadBlockedInGo(t *testing.T) {
	for _, kind := range []string{"channel", "sleep"} {
		t.Run(kind, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			x, _ := sim.Alloc[int32](dev, "x", 32)
			unblock := make(chan struct{})
			start := time.Now()
			r := report(t, dev, cfg1(1, 32, sim.Options{}.WithWatchdog(200*time.Millisecond)), func(th *sim.Thread) {
				if th.ThreadIdx.X == 7 {
					switch kind {
					case "channel":
						<-unblock //@blockedChan
					case "sleep":
						time.Sleep(time.Hour) //@blockedSleep
					}
				}
				x.Store(th, th.ThreadIdx.X, 1)
			})
			el := time.Since(start)
			close(unblock)
			t.Logf("reported after %v", el)
			if el > 5*time.Second { // the watchdog's 200ms and its ticks; it was never, or the time other goroutines took to burn 200ms of CPU
				t.Errorf("the hang took %v to report", el)
			}
			f := only(t, r, sim.Hang)
			want := map[string]string{"channel": "blockedChan", "sleep": "blockedSleep"}[kind]
			if f.Current.Thread != (sim.Dim3{X: 7}) || f.Current.Site != at(t, want) {
				t.Errorf("hang names %v, want thread (7) at %s:\n%v", f.Current, at(t, want), r)
			}
		})
	}
}

// baseline returns the goroutine count with no idle coroutine of the
// simulator about (Device.Close stops them, whatever Device made them).
func baseline() int {
	sim.NewDevice(sim.H100).Close()
	return runtime.NumGoroutine()
}

// waitGoroutines waits up to 10 s for the goroutine count to fall to n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The stray thread is unwound at its next call into sim after the launch
// was abandoned: its deferred calls run and its goroutine ends.
func TestHangStrayThreadUnwoundAtNextSimCall(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 1)
	var release, unwound atomic.Bool
	before := baseline()
	r := report(t, dev, cfg1(1, 1, sim.Options{}.WithWatchdog(100*time.Millisecond)), func(th *sim.Thread) {
		defer unwound.Store(true)
		for !release.Load() {
		}
		x.Store(th, 0, 7) // the launch is gone: this unwinds the thread
		t.Error("the stray thread ran past its first call into sim")
	})
	only(t, r, sim.Hang)
	release.Store(true)
	waitGoroutines(t, before)
	for deadline := time.Now().Add(10 * time.Second); !unwound.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stray thread's deferred call did not run")
		}
	}
}

// With the watchdog off, a thread that computes without calling sim for
// longer than a watchdog would allow runs to its end; with it on, the same
// kernel is a hang.
func TestHangWatchdogCanBeTurnedOff(t *testing.T) {
	if got := (sim.Options{}).Watchdog(); got != sim.DefaultWatchdog {
		t.Errorf("default watchdog %v, want %v", got, sim.DefaultWatchdog)
	}
	if got := (sim.Options{}).WithWatchdog(0).Watchdog(); got != 0 {
		t.Errorf("WithWatchdog(0).Watchdog() = %v, want 0 (off)", got)
	}
	busy := func(x *sim.Buffer[int64]) sim.Kernel {
		return func(th *sim.Thread) {
			end := time.Now().Add(300 * time.Millisecond)
			n := int64(0)
			for time.Now().Before(end) {
				n++
			}
			x.Store(th, 0, n)
		}
	}
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int64](dev, "x", 1)
	if r := report(t, dev, cfg1(1, 1, sim.Options{}.WithWatchdog(0)), busy(x)); r != nil {
		t.Fatalf("watchdog off: %v", r)
	}
	if x.ToHost()[0] == 0 {
		t.Error("the kernel did not finish")
	}
	dev2 := sim.NewDevice(sim.H100)
	y, _ := sim.Alloc[int64](dev2, "y", 1)
	only(t, report(t, dev2, cfg1(1, 1, sim.Options{}.WithWatchdog(50*time.Millisecond)), busy(y)), sim.Hang)
}

// A long launch whose threads keep calling into sim is no hang, however
// long it runs past the watchdog's timeout.
func TestNoHangLongLaunchCallingSim(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 32)
	x.Memset(0)
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		start := time.Now()
		r := report(t, dev, cfg1(1, 32, o.WithWatchdog(50*time.Millisecond)), func(th *sim.Thread) {
			i := th.ThreadIdx.X
			for time.Since(start) < 400*time.Millisecond {
				x.Store(th, i, x.Load(th, i)+1)
			}
		})
		if r != nil {
			t.Fatalf("detection %v: %v", o.Detection(), r)
		}
	}
}

// LaunchContext ends a launch whose threads loop through barriers for
// ever (each barrier completes, so it is no deadlock) when the context's
// deadline passes, and returns the context's error; the Device stays
// usable.
func TestLaunchContextDeadlineAtBarriers(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 64)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := dev.LaunchContext(ctx, cfg1(1, 64, sim.Options{}), func(th *sim.Thread) {
		for {
			x.Store(th, th.ThreadIdx.X, 1)
			th.SyncThreads()
		}
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want one that is context.DeadlineExceeded", err)
	}
	var r *sim.Report
	if !errors.As(err, &r) || !r.Aborted || len(r.Findings) != 0 {
		t.Errorf("want a Report, aborted, without findings: %#v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("cancellation took %v", el)
	}
	if r := report(t, dev, cfg1(1, 64, sim.Options{}), func(th *sim.Thread) { x.Store(th, th.ThreadIdx.X, 2) }); r != nil {
		t.Fatalf("device not usable after a cancelled launch: %v", r)
	}
}

// Cancellation is honoured at every kind of scheduling point: thread
// starts of a long barrier-free grid, atomics that keep changing memory,
// fences, warp collectives, and plain Loads and Stores of a thread that
// never parks.
func TestLaunchContextCancelAtEverySchedulingPoint(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[uint32](dev, "x", 1<<12)
	cases := []struct {
		name string
		cfg  sim.Config
		k    sim.Kernel
	}{
		{"thread starts", cfg1(1<<20, 1024, sim.Options{}.WithDetection(false)), func(th *sim.Thread) {
			x.Store(th, th.ThreadIdx.X, 1)
		}},
		{"atomics", cfg1(1, 32, sim.Options{}), func(th *sim.Thread) {
			for {
				sim.AtomicAdd(th, x, 0, 1)
			}
		}},
		{"fences", cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
			for {
				th.ThreadFence()
			}
		}},
		{"collectives", cfg1(1, 32, sim.Options{}), func(th *sim.Thread) {
			for {
				sim.ShflSync(th, sim.FullMask, int32(1), 0)
			}
		}},
		{"loads and stores", cfg1(1, 1, sim.Options{}.WithDetection(false)), func(th *sim.Thread) {
			for i := uint32(0); ; i++ {
				x.Store(th, int(i%4096), x.Load(th, int(i%4096))+i)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			err := dev.LaunchContext(ctx, tc.cfg, tc.k)
			var r *sim.Report
			if !errors.Is(err, context.Canceled) || !errors.As(err, &r) || r.Has(sim.Hang) {
				t.Fatalf("err = %v, want a Report that is context.Canceled, without a Hang", err)
			}
		})
	}
}

// A context already cancelled runs nothing.
func TestLaunchContextCancelledBeforeRunsNothing(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := dev.LaunchContext(ctx, cfg1(1, 1, sim.Options{}), func(*sim.Thread) { ran = true })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("err = %v, ran = %v; want context.Canceled and nothing run", err, ran)
	}
}

// A cancelled launch whose thread reaches no scheduling point is abandoned
// a second after the cancellation even with the watchdog off: the report
// is both the context's error and a Hang.
func TestLaunchContextCancelAbandonsThreadWithoutSchedulingPoint(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	var release atomic.Bool
	defer release.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	cpu0, _ := sim.ProcessCPUForTest()
	err := dev.LaunchContext(ctx, cfg1(1, 1, sim.Options{}.WithWatchdog(0)), func(*sim.Thread) {
		n := 0
		for !release.Load() { //@cancelLoop
			n++ //@cancelBody
		}
	})
	var r *sim.Report
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &r) {
		t.Fatalf("err = %v, want a Report that is context.DeadlineExceeded", err)
	}
	loop, body := at(t, "cancelLoop"), at(t, "cancelBody")
	if f := only(t, r, sim.Hang); f.Current.Site != loop && f.Current.Site != body {
		t.Errorf("hang at %q, want %s or %s", f.Current.Site, loop, body)
	} else if !strings.Contains(f.Detail, "context ended") || strings.Contains(f.Detail, "watchdog") {
		t.Errorf("the hang should be blamed on the context's end, not the watchdog: %s", f.Detail)
	}
	// cancelGrace (1s) after the deadline, give or take a tick of an
	// eighth of it; the watchdog's own tick of a second made it 2s. The
	// grace counts the CPU the spinning thread gets: on a machine too
	// busy to give it a core (the process used less CPU than time
	// passed), it is longer, and only the 20s bound holds.
	el := time.Since(start)
	cpu1, _ := sim.ProcessCPUForTest()
	if starved := cpu1-cpu0 < el*8/10; el > 1600*time.Millisecond && !starved || el > 20*time.Second {
		t.Errorf("took %v (process CPU %v), want the thread abandoned about a second after the deadline", el, cpu1-cpu0)
	}
}

// A livelock whose threads keep writing changing values is progress to the
// deadlock detector; the time limit ends it, naming the threads and lines.
// (The first thread never parks, so it is the one running; the others of
// its block have not started.)
func TestTimeLimitEndsLivelockWritingChangingValues(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	flag, _ := sim.Alloc[int32](dev, "flag", 1)
	count, _ := sim.Alloc[int32](dev, "count", 64)
	flag.Memset(0)
	count.Memset(0)
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		start := time.Now()
		r := report(t, dev, cfg1(2, 32, o.WithTimeLimit(200*time.Millisecond)), func(th *sim.Thread) {
			i := th.GlobalX()
			for flag.Load(th, 0) == 0 { //@livelockLoad
				count.Store(th, i, count.Load(th, i)+1) //@livelockWrite
			}
		})
		if el := time.Since(start); el < 200*time.Millisecond || el > 20*time.Second {
			t.Errorf("the time limit of 200ms ended the launch after %v", el)
		}
		f := only(t, r, sim.BudgetExceeded)
		load, write := at(t, "livelockLoad"), at(t, "livelockWrite")
		running, n := 0, 0
		for _, g := range f.Groups {
			n += g.Count
			if g.At == "running" && (g.Site == load || g.Site == write) {
				running += g.Count
			}
		}
		if running != 1 || n != 32 || !strings.Contains(r.Error(), "time limit of 200ms") {
			t.Errorf("detection %v: want thread 0 running at %s or %s and 31 not started:\n%v", o.Detection(), load, write, r)
		}
	}
}

// Threads that all keep changing memory, each parking in turn at a
// barrier, are named by the time limit's report in ranges.
func TestTimeLimitNamesEveryLiveThread(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	count, _ := sim.Alloc[int32](dev, "count", 256)
	count.Memset(0)
	r := report(t, dev, cfg1(1, 256, sim.Options{}.WithTimeLimit(100*time.Millisecond)), func(th *sim.Thread) {
		i := th.ThreadIdx.X
		for {
			count.Store(th, i, count.Load(th, i)+1)
			th.SyncThreads() //@limitBarrier
		}
	})
	f := only(t, r, sim.BudgetExceeded)
	n := 0
	for _, g := range f.Groups {
		n += g.Count
	}
	if n != 256 || !strings.Contains(r.Error(), at(t, "limitBarrier")) || len(r.Error()) > 4096 {
		t.Errorf("want the 256 threads named in ranges within 4 KB:\n%v", r)
	}
}

// The time limit's finding names a live thread, not block 0's thread 0
// when that one exited long before.
func TestTimeLimitNamesLiveThreadNotExitedOne(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 2)
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		r := report(t, dev, cfg1(3, 1, o.WithTimeLimit(100*time.Millisecond)), func(th *sim.Thread) {
			if th.BlockIdx.X < 2 {
				return
			}
			for i := int32(0); ; i++ {
				x.Store(th, 1, i) //@limitSpinner
			}
		})
		f := only(t, r, sim.BudgetExceeded)
		if f.Current.Block.X != 2 || f.Current.Thread.X != 0 || f.Current.Site != at(t, "limitSpinner") {
			t.Errorf("detection %v: want block (2) thread (0) at %s, got %+v:\n%v", o.Detection(), at(t, "limitSpinner"), f.Current, r)
		}
	}
}

// A grid too large for its time limit is told from a livelock: the finding
// says how many of the grid's blocks never started, as a deadlock's does,
// where it named only the threads of the block the limit caught.
func TestTimeLimitNamesBlocksNeverStarted(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	o := sim.Options{}.WithDetection(false).WithTimeLimit(50 * time.Millisecond)
	r := report(t, dev, cfg1(1<<20, 256, o), func(th *sim.Thread) { th.SyncThreads() })
	f := only(t, r, sim.BudgetExceeded)
	if !strings.Contains(f.Detail, " of the grid's 1048576 blocks never started") {
		t.Errorf("want the blocks that never started counted:\n%v", r)
	}
}

// The time limit, like a cancellation, abandons a thread that reaches no
// scheduling point a second after it ran out, even with the watchdog off.
func TestTimeLimitAbandonsThreadWithoutSchedulingPoint(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	var release atomic.Bool
	defer release.Store(true)
	start := time.Now()
	r := report(t, dev, cfg1(1, 1, sim.Options{}.WithWatchdog(0).WithTimeLimit(50*time.Millisecond)), func(*sim.Thread) {
		for !release.Load() {
		}
	})
	if f := only(t, r, sim.Hang); !strings.Contains(f.Detail, "time limit") || strings.Contains(f.Detail, "watchdog") {
		t.Errorf("the hang should be blamed on the time limit, not the watchdog: %s", f.Detail)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v", el)
	}
}

// TestProcessCPUCountsBusyWork: the watchdog's second clock advances when
// the process computes (it would otherwise never declare a hang where the
// system reports CPU time).
func TestProcessCPUCountsBusyWork(t *testing.T) {
	start, ok := sim.ProcessCPUForTest()
	if !ok {
		t.Skip("no CPU clock on this system: the watchdog uses the wall clock alone")
	}
	deadline := time.Now().Add(20 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := 0; i < 1e6; i++ {
			x += i
		}
		if now, _ := sim.ProcessCPUForTest(); now-start >= 20*time.Millisecond {
			return
		}
	}
	t.Fatalf("20 s of busy work added less than 20 ms of process CPU time (x=%d)", x)
}

// A LaunchContext waiting for another goroutine's launch on the same Device
// ends with its context, where it waited for the other launch to finish.
func TestLaunchContextDeadlineWhileDeviceBusy(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	var release atomic.Bool
	started := make(chan struct{})
	done := make(chan error)
	go func() {
		var once bool
		done <- dev.Launch(cfg1(1, 1, sim.Options{}.WithWatchdog(0)), func(th *sim.Thread) {
			if !once {
				once = true
				close(started)
			}
			for !release.Load() { // busy, calling nothing: no watchdog, no spin check
			}
		})
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := dev.LaunchContext(ctx, cfg1(1, 1, sim.Options{}), func(*sim.Thread) {})
	el := time.Since(start)
	release.Store(true)
	var r *sim.Report
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &r) || !r.Aborted {
		t.Errorf("err = %v, want a Report that is context.DeadlineExceeded", err)
	}
	if el > 2*time.Second {
		t.Errorf("LaunchContext returned after %v, its deadline was 100ms", el)
	}
	if err := <-done; err != nil {
		t.Errorf("the first launch: %v", err)
	}
}
