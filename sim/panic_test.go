package sim_test

// Go panics in kernels: reported as findings with the thread and line, the
// launch aborted, the device usable afterwards.

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// a Go panic in one thread while others wait at a barrier: reported, the
// launch aborted, every suspended thread unwound (its defers run), no later
// block started.

func TestPanicWhileOthersWaitAtBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 128)
	var entered, unwound atomic.Int32
	r := exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		entered.Add(1)
		defer unwound.Add(1)
		s := sim.Shared[int32](t, "p", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid))
		t.SyncThreads()
		d := s.Load(t, (tid+1)%64) - 6
		q := 600 / d //@divZero
		t.SyncThreads()
		out.Store(t, t.GlobalX(), q)
	})
	f := wantKind(t, r, sim.KernelPanic)
	if !r.Aborted || f.Current.Site != at(t, "divZero") || f.Current.Thread.X != 5 || !strings.Contains(f.Detail, "divide by zero") {
		t.Errorf("finding %+v, want thread 5's division at %s", f, at(t, "divZero"))
	}
	if entered.Load() != 64 || unwound.Load() != 64 {
		t.Errorf("entered %d, unwound %d; want 64 and 64 (block 1 never starts)", entered.Load(), unwound.Load())
	}
	onlyKinds(t, r, sim.KernelPanic)
}

// ---------------------------------------------------------------------------
// Go panics in kernels

func TestPanicNilMapWriteThenDeviceUsable(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 4*32)
	var m map[int]int
	cfg := sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(8, 4)}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		out.Store(t, (t.BlockIdx.Y*2+t.BlockIdx.X)*32+t.LinearThreadIdx(), 1)
		if t.BlockIdx == d3(1, 1, 0) && t.ThreadIdx == d3(3, 2, 0) {
			m[1] = 2 //@nilMap
		}
	})
	f := wantKind(t, r, sim.KernelPanic)
	if !r.Aborted || f.Current.Block != d3(1, 1, 0) || f.Current.Thread != d3(3, 2, 0) ||
		f.Current.Site != at(t, "nilMap") || !strings.Contains(f.Detail, "nil map") {
		t.Errorf("finding %+v, want block (1,1,0) thread (3,2,0) at %s", f, at(t, "nilMap"))
	}
	if !strings.Contains(r.Error(), "(1,1,0)") && !strings.Contains(r.Error(), "{1 1 0}") {
		t.Logf("report text: %s", r.Error())
	}
	onlyKinds(t, r, sim.KernelPanic)
	// the device runs the next launch normally
	if err := out.Memset(0); err != nil {
		t.Fatal(err)
	}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		out.Store(t, (t.BlockIdx.Y*2+t.BlockIdx.X)*32+t.LinearThreadIdx(), int32(t.LinearThreadIdx()))
		t.SyncThreads()
	}))
	for i, v := range out.ToHost() {
		if v != int32(i%32) {
			t.Fatalf("out[%d] = %d after recovery", i, v)
		}
	}
}

func TestPanicIntDivideByZeroInWarpCollectiveKernel(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	den := host(t, dev, "den", []int32{3, 0})
	r := exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		v := sim.ShflSync(t, sim.FullMask, int32(t.LaneID()), 0)
		d := den.Load(t, t.BlockIdx.X)
		if t.ThreadIdx.X == 40 {
			v = 100 / d //@div0
		}
		t.SyncThreads()
		out.Store(t, t.ThreadIdx.X, v)
	})
	f := wantKind(t, r, sim.KernelPanic)
	if f.Current.Block != d3(1, 0, 0) || f.Current.Thread != d3(40, 0, 0) || f.Current.Site != at(t, "div0") ||
		!strings.Contains(f.Detail, "divide by zero") {
		t.Errorf("finding %+v, want block 1 thread 40 at %s", f, at(t, "div0"))
	}
	onlyKinds(t, r, sim.KernelPanic)
	// block 0 finished: thread 40 stored 100/3
	if g := out.ToHost()[40]; g != 33 {
		t.Errorf("out[40] = %d, want 33 from block 0", g)
	}
	den.CopyFromHost([]int32{1, 1})
	wantClean(t, exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		if t.BlockIdx.X == 1 {
			out.Store(t, t.ThreadIdx.X, 100/den.Load(t, 1))
		}
	}))
}

func TestPanicSliceIndexIsPanicNotOutOfBounds(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	local := make([]int, 4)
	r := exec(t, dev, lin(1, 8), func(t *sim.Thread) {
		_ = local[t.ThreadIdx.X] //@goSlice
	})
	f := wantKind(t, r, sim.KernelPanic)
	if f.Current.Thread.X != 4 || f.Current.Site != at(t, "goSlice") {
		t.Errorf("finding %+v, want thread 4 at %s", f, at(t, "goSlice"))
	}
	onlyKinds(t, r, sim.KernelPanic)
}

func TestPanicIndexOutOfRange(t *testing.T) {
	r := launch(t, 2, 4, sim.Options{}, func(t *sim.Thread) {
		var s []int
		if t.ThreadIdx.X == 3 {
			_ = s[t.ThreadIdx.X]
		}
	})
	if !r.Has(sim.KernelPanic) {
		t.Fatalf("%v", r)
	}
	t.Log(r)
}

// ---------------------------------------------------------------------------
// runtime.Goexit in a kernel (what a *testing.T's FailNow or Fatal does):
// a finding naming the kernel's line, on one worker and on several with
// detection (whose speculative workers waited for ever for the worker it
// ended), and the launch returns.

func TestPanicGoexitInKernel(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, sim.Options{}.WithWorkers(2), sim.Options{}.WithDetection(false).WithWorkers(2)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 8*32)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := dev.LaunchContext(ctx, lin(8, 32, o), func(t *sim.Thread) {
			if t.BlockIdx.X == 5 && t.ThreadIdx.X == 3 {
				runtime.Goexit() //@goexit
			}
			out.Store(t, t.GlobalX(), 1)
		})
		cancel()
		sim.ExpectByName(t, err)
		r, ok := err.(*sim.Report)
		if !ok {
			t.Fatalf("workers %d: got %v, want a report", o.Workers(), err)
		}
		if r.Stopped != nil {
			t.Fatalf("workers %d: the launch ran to its deadline:\n%v", o.Workers(), r)
		}
		f := wantKind(t, r, sim.KernelPanic)
		if f.Current.Site != at(t, "goexit") || f.Current.Op != "Goexit" || !strings.Contains(f.Detail, "Goexit") {
			t.Errorf("workers %d: finding %+v, want Goexit at %s", o.Workers(), f, at(t, "goexit"))
		}
	}
}

// ---------------------------------------------------------------------------
// A kernel that recovers every panic and retries, after a fatal finding:
// the panic that unwinds the thread cannot end it, so after 256 calls into
// sim once stopped its goroutine is ended with runtime.Goexit, and the
// launch returns at once with the finding and a KernelPanic saying so. It
// used to run for the watchdog's 2 s, count millions of out-of-bounds
// stores, and end with a Hang saying the thread never called into sim.

func TestPanicRecoverLoopAfterAbortEnds(t *testing.T) {
	t.Run("the thread that found it", func(t *testing.T) {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[int32](t, dev, "x", 4)
		start := time.Now()
		r := report(t, dev, lin(1, 64), func(th *sim.Thread) {
			for {
				stored := func() (ok bool) {
					defer func() { recover() }()
					x.Store(th, th.ThreadIdx.X, 1) //@retryStore
					return true
				}()
				if stored {
					return
				}
			}
		})
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("the launch took %v", el)
		}
		if len(r.Findings) != 2 || r.Has(sim.Hang) {
			t.Fatalf("want the out-of-bounds store and the recover loop:\n%v", r)
		}
		oob, loop := wantKind(t, r, sim.OutOfBounds), wantKind(t, r, sim.KernelPanic)
		if oob.Count != 1 || oob.Current.Thread != (sim.Dim3{X: 4}) {
			t.Errorf("the store out of bounds counted %d times, by %v", oob.Count, oob.Current)
		}
		if loop.Current.Thread != (sim.Dim3{X: 4}) || loop.Current.Site != at(t, "retryStore") ||
			!strings.Contains(loop.Detail, "recovering each time the panic that unwinds it") {
			t.Errorf("want thread (4)'s recover loop at %s:\n%v", at(t, "retryStore"), r)
		}
	})
	t.Run("threads stopped at a barrier", func(t *testing.T) {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[int32](t, dev, "x", 4)
		before := baseline()
		r := report(t, dev, lin(1, 64), func(th *sim.Thread) {
			if th.ThreadIdx.X == 63 {
				x.Store(th, 63, 1) // out of bounds: stops the launch
			}
			for {
				func() {
					defer func() { recover() }()
					th.SyncThreads() //@retryBarrier
				}()
			}
		})
		loop := wantKind(t, r, sim.KernelPanic)
		if len(r.Findings) != 2 || loop.Count != 63 || loop.Current.Site != at(t, "retryBarrier") {
			t.Errorf("want the 63 waiters' recover loops at %s:\n%v", at(t, "retryBarrier"), r)
		}
		// Each Goexit ended the goroutine that stopped the coroutine; the
		// shutdown went on on another, and left no coroutine behind.
		dev.Close()
		waitGoroutines(t, before)
	})
}

// Deferred calls into sim as a stopped thread unwinds are no recover loop.
func TestOutOfBoundsDeferredSimCallsAsTheThreadUnwinds(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 4)
	var deferred atomic.Int32
	r := report(t, dev, lin(1, 64), func(th *sim.Thread) {
		for i := 0; i < 8; i++ {
			defer func() {
				deferred.Add(1)
				x.Store(th, 0, 1)
			}()
		}
		if th.ThreadIdx.X == 40 {
			x.Store(th, 40, 1)
		}
		th.SyncThreads()
	})
	only(t, r, sim.OutOfBounds)
	if deferred.Load() != 41*8 {
		t.Errorf("%d deferred calls ran, want %d", deferred.Load(), 41*8)
	}
}

// ---------------------------------------------------------------------------
// the panic value: an error a kernel panics with is reachable through the
// Report; a huge panic text is cut, not copied into every report.

type quotaError struct{ n int }

func (e *quotaError) Error() string { return "quota exceeded" }

func TestPanicErrorValueReachableThroughReport(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	sentinel := context.Canceled // any sentinel error: a kernel may panic with it
	for _, v := range []any{&quotaError{7}, sentinel} {
		err := dev.Launch(lin(1, 32), func(t *sim.Thread) {
			if t.ThreadIdx.X == 3 {
				panic(v)
			}
		})
		sim.ExpectByName(t, err)
		var r *sim.Report
		if !errors.As(err, &r) || !r.Has(sim.KernelPanic) {
			t.Fatalf("panic(%v): want a KernelPanic report, got %v", v, err)
		}
		switch v := v.(type) {
		case *quotaError:
			var q *quotaError
			if !errors.As(err, &q) || q.n != 7 {
				t.Errorf("errors.As(err, *quotaError) = %v, %v; want the value the kernel panicked with", q, errors.As(err, &q))
			}
		default:
			if !errors.Is(err, v.(error)) {
				t.Errorf("errors.Is(err, %v) = false", v)
			}
		}
	}
	// A panic with a non-error value adds nothing errors.Is can find.
	err := dev.Launch(lin(1, 1), func(t *sim.Thread) { panic("plain") })
	sim.ExpectByName(t, err)
	if errors.Is(err, context.Canceled) {
		t.Errorf("a string panic matched context.Canceled: %v", err)
	}
}

func TestPanicHugeValueIsCut(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	huge := strings.Repeat("é", 5<<20) // 10 MiB, 2-byte runes
	err := dev.Launch(lin(1, 1), func(t *sim.Thread) { panic(huge) })
	sim.ExpectByName(t, err)
	var r *sim.Report
	if !errors.As(err, &r) || !r.Has(sim.KernelPanic) {
		t.Fatalf("want a KernelPanic report, got %v", err)
	}
	d := r.Of(sim.KernelPanic)[0].Detail
	if len(d) > 8<<10 || !strings.Contains(d, "more bytes)") || !utf8.ValidString(d) {
		t.Errorf("detail of %d bytes (valid UTF-8: %v), want at most 8 KiB ending with the count cut: %.80q...", len(d), utf8.ValidString(d), d)
	}
	if n := len(err.Error()); n > 16<<10 {
		t.Errorf("the report's text is %d bytes", n)
	}
}

// A barrier a panicking thread reaches through `defer t.SyncThreads()` is
// named at the kernel's line that panicked, not inside the Go runtime.
func TestPanicDeferredBarrierSitedInKernel(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		defer t.SyncThreads()
		if t.ThreadIdx.X == 3 {
			panic("bad input") //@deferPanic
		}
	})
	wantKind(t, r, sim.KernelPanic)
	for _, f := range r.Findings {
		for _, s := range []string{f.Current.Site, f.Previous.Site} {
			if strings.Contains(s, "runtime/") {
				t.Errorf("a finding sited in the Go runtime:\n%v", r)
			}
		}
	}
	if !strings.Contains(r.Error(), at(t, "deferPanic")) {
		t.Errorf("want the panic's line %s:\n%v", at(t, "deferPanic"), r)
	}
}
