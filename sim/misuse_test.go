package sim_test

// Misuse is named: a buffer after Free, a double Free, a buffer of another
// Device, a Thread after its launch, after its thread returned, from
// another thread or goroutine, a shared array after its block, a zero-value,
// closed or nil Device, a nil Buffer.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

func wantMisuse(t *testing.T, err error, what string) {
	t.Helper()
	var me *sim.MisuseError
	if !errors.As(err, &me) || !strings.Contains(me.Error(), what) {
		t.Errorf("err = %v, want a MisuseError saying %q", err, what)
	}
}

// A kernel that uses a freed buffer is told so, with the buffer's name
// (it used to read "out-of-bounds ... outside [0,0)"); the host's copies
// of it are MisuseErrors.
func TestUseAfterFreeIsNamed(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		x, _ := sim.Alloc[int32](dev, "x", 4)
		x.Free()
		r := report(t, dev, cfg1(1, 4, o), func(th *sim.Thread) {
			x.Store(th, th.ThreadIdx.X, 1) //@afterFree
		})
		f := only(t, r, sim.UseAfterFree)
		if f.Memory != "x" || f.Current.Site != at(t, "afterFree") || strings.Contains(r.Error(), "out-of-bounds") {
			t.Errorf("detection %v:\n%v", o.Detection(), r)
		}
		wantMisuse(t, x.CopyToHost(make([]int32, 4)), `buffer "x" is freed (use after Free)`)
		wantMisuse(t, x.CopyFromHost([]int32{1}), "use after Free")
		wantMisuse(t, x.Memset(0), "use after Free")
		if x.ToHost() != nil {
			t.Error("ToHost of a freed buffer returned data")
		}
	}
}

// Freeing a buffer twice panics with a MisuseError that names it, as
// closing a closed channel panics.
func TestDoubleFreeIsNamed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 4)
	x.Free()
	defer func() {
		err, _ := recover().(error)
		wantMisuse(t, err, `buffer "x" is already freed (double free)`)
	}()
	x.Free()
	t.Error("the second Free returned")
}

// Close frees every buffer of the Device: a Free after it (a deferred Free
// that runs after a deferred Close) does nothing, where it panicked with
// "double free" though the host freed the buffer once.
func TestFreeAfterCloseIsNoOp(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 4)
	dev.Close()
	x.Free()
	if x.ToHost() != nil {
		t.Error("ToHost of a closed Device's buffer returned data")
	}
}

// A kernel launched on one Device that uses a buffer of another is
// reported, with detection on at its first access and with detection off
// at the thread's periodic check.
func TestForeignBufferIsNamed(t *testing.T) {
	for _, tc := range []struct {
		o        sim.Options
		accesses int
	}{{sim.Options{}, 1}, {sim.Options{}.WithDetection(false), 5000}} {
		dev, other := sim.NewDevice(sim.H100), sim.NewDevice(sim.H100)
		x, _ := sim.Alloc[int32](other, "theirs", 8)
		x.Memset(0)
		r := report(t, dev, cfg1(1, 1, tc.o), func(th *sim.Thread) {
			for i := 0; i < tc.accesses; i++ {
				x.Store(th, i&7, 1)
			}
		})
		f := only(t, r, sim.ForeignBuffer)
		if f.Memory != "theirs" || !strings.Contains(f.Detail, "another Device") {
			t.Errorf("detection %v:\n%v", tc.o.Detection(), r)
		}
	}
}

// A zero-value Buffer used in a kernel is named as one (it was "a buffer
// of another Device"), with detection on or off, loaded or stored.
func TestZeroValueBufferInKernelIsNamed(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		var zero sim.Buffer[int32]
		r := report(t, dev, cfg1(1, 1, o), func(th *sim.Thread) {
			for i := 0; i < 5000; i++ {
				zero.Store(th, 0, zero.Load(th, 0))
			}
		})
		if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Detail, "zero-value Buffer") {
			t.Errorf("detection %v:\n%v", o.Detection(), r)
		}
	}
}

// Values outside an enumeration, and a second shuffle width, are misuse
// named in the kernel's KernelPanic finding; they ran as some valid value.
func TestInvalidOrderScopeAndWidthAreNamed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 1)
	for name, tc := range map[string]struct {
		k    sim.Kernel
		want string
	}{
		"order": {func(th *sim.Thread) {
			sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice).Load(th, sim.MemoryOrder(9))
		}, "MemoryOrder(9) is not a memory order"},
		"scope": {func(th *sim.Thread) {
			sim.NewAtomicRef(x, 0, sim.ThreadScope(5)).Load(th, sim.MemoryOrderRelaxed)
		}, "ThreadScope(5) is not a scope"},
		"fence order": {func(th *sim.Thread) {
			th.AtomicThreadFence(sim.MemoryOrder(7), sim.ThreadScopeDevice)
		}, "MemoryOrder(7) is not a memory order"},
		"fence scope": {func(th *sim.Thread) {
			th.AtomicThreadFence(sim.MemoryOrderAcqRel, sim.ThreadScope(3))
		}, "ThreadScope(3) is not a scope"},
		"widths": {func(th *sim.Thread) {
			sim.ShflSync(th, sim.FullMask, int32(1), 0, 16, 8)
		}, "2 widths [16 8]: a shuffle takes one"},
	} {
		r := report(t, dev, cfg1(1, 32, sim.Options{}), tc.k)
		f := only(t, r, sim.KernelPanic)
		if !strings.Contains(f.Detail, tc.want) {
			t.Errorf("%s: %v, want %q", name, r, tc.want)
		}
	}
}

// A kernel calling the host API of its own Device (a copy, Free, Close,
// Launch) is a KernelPanic finding naming the call and the line, at once;
// it used to wait for the launch it is part of until the watchdog called
// the launch hung, leaving the Device unusable (and ToHost, after the
// watchdog, returned nil). Another Device's API works from a kernel.
func TestHostCallFromKernelIsNamed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 4)
	calls := map[string]func(th *sim.Thread){
		"CopyToHost": func(*sim.Thread) { x.CopyToHost(make([]int32, 4)) },
		"ToHost":     func(*sim.Thread) { x.ToHost() },
		"Memset":     func(*sim.Thread) { x.Memset(0) },
		"Launch":     func(*sim.Thread) { dev.Launch(cfg1(1, 1, sim.Options{}), func(*sim.Thread) {}) },
		"Close":      func(*sim.Thread) { dev.Close() },
		"Free":       func(*sim.Thread) { x.Free() },
	}
	for op, call := range calls {
		start := time.Now()
		r := report(t, dev, cfg1(1, 32, sim.Options{}), func(th *sim.Thread) {
			if th.ThreadIdx.X == 7 {
				call(th)
			}
		})
		if el := time.Since(start); el > time.Second {
			t.Errorf("%s: took %v: the call waited for the launch", op, el)
		}
		f := only(t, r, sim.KernelPanic)
		if !strings.Contains(f.Detail, op) || !strings.Contains(f.Detail, "same Device") || f.Current.Thread != (sim.Dim3{X: 7}) {
			t.Errorf("%s: %v", op, f)
		}
	}
	// The Device goes on, and another Device's API works in a kernel.
	var got []int32
	if err := dev.Launch(cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
		x.Store(th, 0, 1)
		other := sim.NewDevice(sim.H100)
		if y, err := sim.FromHost(other, "y", []int32{5}); err == nil {
			got = y.ToHost()
		}
	}); err != nil {
		t.Fatalf("the Device is unusable after: %v", err)
	}
	if len(got) != 1 || got[0] != 5 {
		t.Errorf("another Device's copy from a kernel: %v", got)
	}
}

// LaunchContext with a nil Context is a MisuseError, not a nil
// dereference.
func TestLaunchContextNilIsNamed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	err := dev.LaunchContext(nil, cfg1(1, 1, sim.Options{}), func(*sim.Thread) {})
	var me *sim.MisuseError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "nil Context") {
		t.Fatalf("err = %v, want a MisuseError naming the nil Context", err)
	}
	if err := dev.Launch(cfg1(1, 1, sim.Options{}), func(*sim.Thread) {}); err != nil {
		t.Fatalf("the device is unusable after: %v", err)
	}
}

// A Thread kept past its launch and used later is a MisuseError panic
// naming it: on the host, and inside another launch's kernel (where it is
// that launch's KernelPanic finding).
func TestThreadUsedAfterLaunchIsNamed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 4)
	x.Memset(0)
	var kept *sim.Thread
	if r := report(t, dev, cfg1(1, 4, sim.Options{}.WithDetection(false)), func(th *sim.Thread) {
		if th.ThreadIdx.X == 2 {
			kept = th
		}
	}); r != nil {
		t.Fatal(r)
	}
	func() {
		defer func() {
			err, _ := recover().(error)
			wantMisuse(t, err, "thread (2) of block (0) is used after its launch ended")
		}()
		x.Load(kept, 0)
		t.Error("Load with a Thread of an ended launch returned")
	}()
	for _, use := range []func(){
		func() { x.Load(kept, 99) }, // out of bounds too
		func() { x.Store(kept, -1, 1) },
		func() { sim.AtomicAdd(kept, x, 0, 1) },
		func() { kept.SyncThreads() },
		func() { kept.ThreadFence() },
		func() { sim.ShflSync(kept, sim.FullMask, int32(1), 0) },
		// These crashed with a nil dereference, or switched a
		// coroutine from the host ("yield called again before next").
		func() { kept.ActiveMask() },
		func() { kept.Nanosleep(1) },
		func() { sim.Shared[int32](kept, "s", 4) },
		func() { sim.DynamicShared[int32](kept, "d") },
		func() { kept.AtomicThreadFence(sim.MemoryOrderSeqCst, sim.ThreadScopeDevice) },
		func() { x.LoadVolatile(kept, 0) },
		func() { sim.Ldg(kept, x, 0) },
		func() { sim.TiledPartition(sim.ThisThreadBlock(kept), 64).Sync() },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				wantMisuse(t, err, "used after its launch ended")
			}()
			use()
		}()
	}
	r := report(t, dev, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) { x.Store(kept, 0, 1) })
	if f := only(t, r, sim.KernelPanic); !strings.Contains(f.Detail, "used after its launch ended") {
		t.Errorf("%v", r)
	}
	// The next launch of the same block size runs in the first one's
	// blocks (the device keeps them), not in its Thread slots: its
	// thread 2 is not the kept Thread either.
	again := sim.NewDevice(sim.H100)
	y, _ := sim.Alloc[int32](again, "y", 4)
	y.Memset(0)
	keep := func(th *sim.Thread) {
		if th.ThreadIdx.X == 2 {
			kept = th
		}
	}
	if r := report(t, again, cfg1(1, 4, sim.Options{}), keep); r != nil {
		t.Fatal(r)
	}
	r = report(t, again, cfg1(1, 4, sim.Options{}), func(th *sim.Thread) {
		if th.ThreadIdx.X == 2 {
			y.Store(kept, 0, 1)
		}
	})
	if f := only(t, r, sim.KernelPanic); !strings.Contains(f.Detail, "used after its launch ended") {
		t.Errorf("a kept Thread used in the next launch of its block size:\n%v", r)
	}
}

// The zero value of Device, a nil *Device and a closed Device are refused
// by name, not with whatever limit their missing spec breaks.
func TestZeroValueAndClosedDeviceAreNamed(t *testing.T) {
	k := func(*sim.Thread) {}
	var zero sim.Device
	wantMisuse(t, zero.Launch(cfg1(1, 1, sim.Options{}), k), "zero-value Device")
	_, err := sim.Alloc[int32](&zero, "x", 1)
	wantMisuse(t, err, "zero-value Device")
	wantMisuse(t, zero.Close(), "zero-value Device")
	var none *sim.Device
	wantMisuse(t, none.Launch(cfg1(1, 1, sim.Options{}), k), "nil *Device")
	_, err = sim.Alloc[int32](none, "x", 1)
	wantMisuse(t, err, "nil *Device")

	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 1)
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	wantMisuse(t, dev.Launch(cfg1(1, 1, sim.Options{}), k), "the Device is closed")
	_, err = sim.Alloc[int32](dev, "y", 1)
	wantMisuse(t, err, "the Device is closed")
	wantMisuse(t, x.CopyToHost(make([]int32, 1)), "the Device is closed")
	if err := dev.Close(); err != nil {
		t.Errorf("closing a closed device: %v", err)
	}
}

// A thread that uses another thread's Thread (kept in a variable the
// threads share) is a KernelPanic of the thread that uses it, naming both:
// its accesses were checked, and counted, as the other thread's, and the
// race between the threads' stores below went unreported. With detection
// on a Load or Store finds it at once; with it off, at the periodic check.
// Atomics, fences and barriers find it at once.
func TestThreadOfAnotherThreadIsNamed(t *testing.T) {
	det, off := sim.Options{}, sim.Options{}.WithDetection(false)
	for _, tc := range []struct {
		name string
		o    sim.Options
		use  func(first *sim.Thread, x *sim.Buffer[int32], v int32)
	}{
		{"store", det, func(first *sim.Thread, x *sim.Buffer[int32], v int32) {
			x.Store(first, 0, v) //@otherStore
		}},
		{"store, detection off", off, func(first *sim.Thread, x *sim.Buffer[int32], v int32) {
			for i := 0; i < 5000; i++ {
				x.Store(first, 0, v) //@otherStoreOff
			}
		}},
		{"atomic, detection off", off, func(first *sim.Thread, x *sim.Buffer[int32], v int32) {
			sim.AtomicAdd(first, x, 0, v) //@otherAtomic
		}},
		{"barrier", det, func(first *sim.Thread, x *sim.Buffer[int32], v int32) {
			first.SyncThreads() //@otherBarrier
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			x := zeroed[int32](t, dev, "x", 1)
			var first *sim.Thread
			r := report(t, dev, cfg1(1, 64, tc.o), func(th *sim.Thread) {
				if th.ThreadIdx.X == 0 {
					first = th
				}
				th.SyncThreads()
				tc.use(first, x, int32(th.ThreadIdx.X))
			})
			f := only(t, r, sim.KernelPanic)
			marker := map[string]string{"store": "otherStore", "store, detection off": "otherStoreOff",
				"atomic, detection off": "otherAtomic", "barrier": "otherBarrier"}[tc.name]
			if f.Current.Thread != (sim.Dim3{X: 1}) || f.Current.Site != at(t, marker) ||
				!strings.Contains(f.Detail, "thread (1) of block (0) uses the Thread of thread (0) of block (0)") {
				t.Errorf("want thread (1)'s misuse of thread (0)'s Thread at %s:\n%v", at(t, marker), r)
			}
		})
	}
}

// A kernel that hands its Thread to goroutines it starts (a WaitGroup's
// Go, an errgroup): each goroutine's first call into sim with it is a
// KernelPanic of the launch, which ends, and sim ends the goroutine with
// runtime.Goexit: its deferred calls run (the WaitGroup's Done: the kernel
// goes on), nothing after the call does, and a recover gets nothing.
// Loads and Stores are found at once with detection on; with it off at
// the periodic check (here, the 4097th access of the Thread). The
// goroutines here recover nothing: a panic on them, which no one but the
// kernel could recover, used to end the test process. It used to run the
// atomics unsynchronised on the worker's state too (4 goroutines of 1000
// AtomicAdds added 119748 instead of 128000), and 100 Stores with
// detection on went unreported.
func TestThreadFromGoroutineIsNamed(t *testing.T) {
	det, off := sim.Options{}, sim.Options{}.WithDetection(false)
	type use = func(th *sim.Thread, x *sim.Buffer[int32])
	for _, tc := range []struct {
		name, marker string
		o            sim.Options
		goroutines   int
		recovers     bool // the goroutine defers a recover()
		wrote        bool // stores before the periodic check ran (detection off)
		nested       bool // the misuse is on a goroutine that the goroutine starts, which goes on
		use          use
	}{
		{"load", "goLoad", det, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			_ = x.Load(th, 0) //@goLoad
		}},
		{"load, detection off", "goLoadOff", off, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 5000; i++ {
				_ = x.Load(th, i%2) //@goLoadOff
			}
		}},
		{"stores", "goStore", det, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 100; i++ {
				x.Store(th, 1, int32(i+1)) //@goStore
			}
		}},
		{"stores, recovering", "goStoreRecover", det, 1, true, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 100; i++ {
				x.Store(th, 1, int32(i+1)) //@goStoreRecover
			}
		}},
		{"stores, detection off", "goStoreOff", off, 1, false, true, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 5000; i++ {
				x.Store(th, 1, int32(i+1)) //@goStoreOff
			}
		}},
		{"atomics", "goAtomic", off, 4, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 1000; i++ {
				sim.AtomicAdd(th, x, 0, 1) //@goAtomic
			}
		}},
		{"atomics, detection on", "goAtomicDet", det, 4, true, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			for i := 0; i < 1000; i++ {
				sim.AtomicAdd(th, x, 0, 1) //@goAtomicDet
			}
		}},
		{"barrier", "goBarrier", det, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			th.SyncThreads() //@goBarrier
		}},
		{"barrier, detection off", "goBarrierOff", off, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			th.SyncThreads() //@goBarrierOff
		}},
		{"shared", "goShared", det, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			s := sim.Shared[int32](th, "s", 4) //@goShared
			s.Store(th, 0, 1)
		}},
		{"shuffle", "goShfl", off, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			x.Store(th, 1, sim.ShflSync(th, sim.FullMask, int32(1), 0)) //@goShfl
		}},
		{"fence", "goFence", off, 1, false, false, false, func(th *sim.Thread, x *sim.Buffer[int32]) {
			th.ThreadFence() //@goFence
		}},
		{"goroutine of a goroutine", "goNested", det, 1, false, false, true, func(th *sim.Thread, x *sim.Buffer[int32]) {
			var wg sync.WaitGroup
			wg.Go(func() {
				x.Store(th, 1, 1) //@goNested
			})
			wg.Wait()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			x := zeroed[int32](t, dev, "x", 2)
			var ended, ranOn atomic.Int32
			var recovered atomic.Value
			r := report(t, dev, cfg1(1, 32, tc.o), func(th *sim.Thread) {
				if th.ThreadIdx.X != 0 {
					return
				}
				var wg sync.WaitGroup
				for k := 0; k < tc.goroutines; k++ {
					wg.Go(func() {
						defer ended.Add(1)
						if tc.recovers {
							defer func() {
								if p := recover(); p != nil {
									recovered.Store(p)
								}
							}()
						}
						tc.use(th, x)
						ranOn.Add(1)
					})
				}
				wg.Wait()
			})
			if want := map[bool]int32{true: int32(tc.goroutines)}[tc.nested]; ended.Load() != int32(tc.goroutines) || ranOn.Load() != want {
				t.Errorf("%d of %d goroutines ran their deferred calls, %d ran past the misuse (want %d)", ended.Load(), tc.goroutines, ranOn.Load(), want)
			}
			if p := recovered.Load(); p != nil {
				t.Errorf("a goroutine recovered %v", p)
			}
			f := only(t, r, sim.KernelPanic)
			if f.Current.Thread != (sim.Dim3{}) || f.Current.Site != at(t, tc.marker) || f.Count != tc.goroutines || !r.Aborted ||
				!strings.Contains(f.Detail, "the Thread of thread (0) of block (0) is used from a goroutine the kernel started") ||
				!strings.Contains(f.Detail, "runtime.Goexit") {
				t.Errorf("want the misuse by every goroutine at %s, ending the launch:\n%v", at(t, tc.marker), r)
			}
			if got := x.ToHost(); got[0] != 0 || got[1] != 0 && !tc.wrote {
				t.Errorf("x = %v: the goroutines' atomics or stores ran", got)
			}
		})
	}
}

// A kernel may start goroutines for work that does not touch its Thread
// (a host-side computation whose result the thread stores), and wait for
// them: no finding, detection on or off.
func TestKernelGoroutinesForHostWorkAreNoMisuse(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[int32](t, dev, "x", 64)
		if r := report(t, dev, cfg1(2, 32, o), func(th *sim.Thread) {
			i := th.GlobalX()
			var sum int32
			var wg sync.WaitGroup
			wg.Go(func() {
				for k := 0; k <= i; k++ {
					sum += int32(k)
				}
			})
			wg.Wait()
			x.Store(th, i, sum)
		}); r != nil {
			t.Fatalf("detection %v: %v", o.Detection(), r)
		}
		for i, v := range x.ToHost() {
			if v != int32(i*(i+1)/2) {
				t.Fatalf("detection %v: x[%d] = %d", o.Detection(), i, v)
			}
		}
		if err := dev.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// A goroutine of the host (not started by a kernel) that uses the Thread
// of a running launch still gets the *MisuseError panic, as the host API
// panics on misuse, and the launch reports it; sim does not end the
// host's goroutine.
func TestThreadOnTheHostPanics(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 1)
	handed, back := make(chan *sim.Thread), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- dev.Launch(cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
			handed <- th
			<-back
		})
	}()
	th := <-handed
	func() {
		defer close(back)
		defer func() {
			err, _ := recover().(error)
			wantMisuse(t, err, "the Thread of thread (0) of block (0) is used from a goroutine that runs no kernel thread (the host's)")
		}()
		sim.AtomicAdd(th, x, 0, 1) //@hostAtomic
		t.Error("AtomicAdd on the host returned")
	}()
	var r *sim.Report
	if err := <-errc; !errors.As(err, &r) {
		t.Fatalf("launch: %v", err)
	}
	if f := only(t, r, sim.KernelPanic); f.Current.Site != at(t, "hostAtomic") {
		t.Errorf("want the host's misuse at %s:\n%v", at(t, "hostAtomic"), r)
	}
}

// A goroutine that keeps a Thread past its thread's return and uses it
// while the launch runs later blocks, which reuse the Thread's slot: the
// use is named, whether the slot's thread has returned or is running (its
// goroutine waits on the channel below), where it used to act as the
// slot's new thread; sim ends the goroutine. A Store is found at once with
// detection on (it used to be found while the slot's new thread runs only
// at the periodic check); with detection off, only at the periodic check.
func TestThreadUsedAfterItsThreadReturnedIsNamed(t *testing.T) {
	for _, tc := range []struct {
		op      string
		o       sim.Options
		running bool
	}{
		{"atomic", sim.Options{}.WithDetection(false), false},
		{"atomic", sim.Options{}.WithDetection(false), true},
		{"store", sim.Options{}, false},
		{"store", sim.Options{}, true},
	} {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[int32](t, dev, "x", 1)
		later, done := make(chan struct{}), make(chan struct{})
		ranOn := false
		waiter := 5 // the thread of block 3 that lets the goroutine go, and waits for it
		if tc.running {
			waiter = 0 // the slot's own new thread
		}
		marker := map[string]string{"atomic": "keptAtomic", "store": "keptStore"}[tc.op]
		r := report(t, dev, cfg1(6, 32, tc.o), func(th *sim.Thread) {
			if th.BlockIdx.X == 0 && th.ThreadIdx.X == 0 {
				go func() {
					defer close(done)
					<-later
					if tc.op == "atomic" {
						sim.AtomicAdd(th, x, 0, 1) //@keptAtomic
					} else {
						x.Store(th, 0, 1) //@keptStore
					}
					ranOn = true
				}()
				return
			}
			if th.BlockIdx.X == 3 && th.ThreadIdx.X == waiter {
				close(later)
				<-done
			}
		})
		what := fmt.Sprintf("%s, detection %v, running %v", tc.op, tc.o.Detection(), tc.running)
		f := only(t, r, sim.KernelPanic)
		if f.Current.Site != at(t, marker) || !strings.Contains(f.Detail, "is used from a goroutine the kernel started") {
			t.Errorf("%s: want the kept Thread's use at %s:\n%v", what, at(t, marker), r)
		}
		if x.ToHost()[0] != 0 || ranOn {
			t.Errorf("%s: the kept Thread's %s ran, or the goroutine went on", what, tc.op)
		}
	}
}

// A goroutine a kernel started that outlives the launch and then uses the
// Thread: sim ends it and writes nothing, and, no launch being left to
// report it, the Device's next launch reports it (a KernelPanic that does
// not abort that launch, which runs whole), or else Close. It used to
// panic there with the *MisuseError, ending the test process.
func TestThreadUsedByGoroutineAfterLaunchIsNamed(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[int32](t, dev, "x", 1)
		y := zeroed[int32](t, dev, "y", 32)
		release, done := make(chan struct{}), make(chan struct{})
		ranOn := false
		if r := report(t, dev, cfg1(1, 32, o), func(th *sim.Thread) {
			if th.ThreadIdx.X == 0 {
				go func() {
					defer close(done)
					<-release
					x.Store(th, 0, 1) //@lateStore
					ranOn = true
				}()
			}
		}); r != nil {
			t.Fatal(r)
		}
		// The next launch, of the same shape (it runs in the first one's
		// blocks), lets the goroutine go while it runs.
		r := report(t, dev, cfg1(1, 32, o), func(th *sim.Thread) {
			if th.ThreadIdx.X == 0 {
				close(release)
				<-done
			}
			y.Store(th, th.ThreadIdx.X, int32(th.ThreadIdx.X+1))
		})
		f := only(t, r, sim.KernelPanic)
		if f.Current.Site != at(t, "lateStore") || r.Aborted ||
			!strings.Contains(f.Detail, "thread (0) of block (0) is used after its launch ended, from a goroutine a kernel started") {
			t.Errorf("detection %v: want the late use at %s, not aborting the launch:\n%v", o.Detection(), at(t, "lateStore"), r)
		}
		if x.ToHost()[0] != 0 || ranOn {
			t.Errorf("detection %v: the late Store ran, or the goroutine went on", o.Detection())
		}
		for i, v := range y.ToHost() {
			if v != int32(i+1) {
				t.Fatalf("detection %v: the later launch's y[%d] = %d", o.Detection(), i, v)
			}
		}
		// Reported once.
		if r := report(t, dev, cfg1(1, 32, o), func(th *sim.Thread) { y.Store(th, th.ThreadIdx.X, 0) }); r != nil {
			t.Errorf("detection %v: the launch after: %v", o.Detection(), r)
		}
		if err := dev.Close(); err != nil {
			t.Errorf("detection %v: Close: %v", o.Detection(), err)
		}
	}
	// With no launch after it, Close reports it.
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 1)
	release, done := make(chan struct{}), make(chan struct{})
	if r := report(t, dev, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
		go func() {
			defer close(done)
			<-release
			sim.AtomicAdd(th, x, 0, 1) //@lateAtomic
		}()
	}); r != nil {
		t.Fatal(r)
	}
	close(release)
	<-done
	err := dev.Close()
	wantMisuse(t, err, "is used after its launch ended, from a goroutine a kernel started")
	if err == nil || !strings.Contains(err.Error(), at(t, "lateAtomic")) {
		t.Errorf("Close: %v, want the use at %s", err, at(t, "lateAtomic"))
	}
	if err := dev.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

// A kernel that waits for something its goroutine would do after the
// misuse, not in a deferred call, waits for ever once sim has ended the
// goroutine: the watchdog reports it, with the misuse; the test process
// goes on (and lets the kernel go).
func TestThreadFromGoroutineKernelWaitingForeverIsReported(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := zeroed[int32](t, dev, "x", 1)
	sent := make(chan struct{})
	defer close(sent)
	r := report(t, dev, cfg1(1, 1, sim.Options{}.WithWatchdog(100*time.Millisecond)), func(th *sim.Thread) {
		go func() {
			sim.AtomicAdd(th, x, 0, 1) //@goWaited
			close(sent)
		}()
		<-sent
	})
	if r == nil || len(r.Findings) != 2 || r.Findings[0].Kind != sim.KernelPanic || r.Findings[1].Kind != sim.Hang ||
		r.Findings[0].Current.Site != at(t, "goWaited") {
		t.Errorf("want the misuse at %s and the hang:\n%v", at(t, "goWaited"), r)
	}
}

// A kernel of one Device that uses the Thread of a kernel running on
// another (handed over a channel while its thread waits): a KernelPanic of
// the kernel that uses it.
func TestThreadOfAnotherLaunchIsNamed(t *testing.T) {
	devA, devB := sim.NewDevice(sim.H100), sim.NewDevice(sim.H100)
	x := zeroed[int32](t, devB, "x", 1)
	handed, back := make(chan *sim.Thread), make(chan struct{})
	errA := make(chan error, 1)
	go func() {
		errA <- devA.Launch(cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
			handed <- th
			<-back
		})
	}()
	r := report(t, devB, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
		defer close(back)
		other := <-handed
		sim.AtomicAdd(other, x, 0, 1) //@otherLaunch
	})
	f := only(t, r, sim.KernelPanic)
	if f.Current.Site != at(t, "otherLaunch") || !strings.Contains(f.Detail, "another kernel thread uses the Thread of thread (0) of block (0)") {
		t.Errorf("want the other launch's Thread named at %s:\n%v", at(t, "otherLaunch"), r)
	}
	if err := <-errA; err != nil {
		t.Errorf("the launch whose Thread was used: %v", err)
	}
}

// A shared array kept past its block (in a Go variable) and used in a later
// launch, on another Device, after its Device's Close, or by a later block
// of the same launch that did not declare it: on the GPU the pointer is
// into a dead block's shared memory. It is an OutOfBounds finding naming
// the array and its ended block, with detection on or off; it used to read
// the stale 42, or report races between blocks on one array.
func TestSharedArrayKeptPastItsBlockIsNamed(t *testing.T) {
	wantEnded := func(t *testing.T, r *sim.Report, site string) {
		t.Helper()
		f := only(t, r, sim.OutOfBounds)
		if f.Memory != "s" || f.Space != sim.SharedSpace || f.Current.Site != site ||
			!strings.Contains(f.Detail, `shared array "s" belongs to block (0), which has ended`) {
			t.Errorf("want the ended block's array named at %s:\n%v", site, r)
		}
	}
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[float32](t, dev, "out", 1)
		var kept *sim.Buffer[float32]
		if r := report(t, dev, cfg1(1, 1, o), func(th *sim.Thread) {
			kept = sim.Shared[float32](th, "s", 4)
			kept.Store(th, 0, 42)
		}); r != nil {
			t.Fatal(r)
		}
		r := report(t, dev, cfg1(2, 32, o), func(th *sim.Thread) {
			v := kept.Load(th, 0) //@keptShared
			out.Store(th, 0, v)
		})
		wantEnded(t, r, at(t, "keptShared"))
		if got := out.ToHost()[0]; got != 0 {
			t.Errorf("detection %v: a later launch read %v from the ended block's array", o.Detection(), got)
		}
		// A later launch of the same block size runs in the first's
		// blocks and declares an array of the same name and size: the
		// kept one is still the ended block's.
		again := sim.NewDevice(sim.H100)
		var keptAgain *sim.Buffer[float32]
		declare := func(th *sim.Thread) *sim.Buffer[float32] { return sim.Shared[float32](th, "s", 4) }
		if r := report(t, again, cfg1(1, 1, o), func(th *sim.Thread) { keptAgain = declare(th) }); r != nil {
			t.Fatal(r)
		}
		wantEnded(t, report(t, again, cfg1(1, 1, o), func(th *sim.Thread) {
			declare(th).Store(th, 0, 1)
			keptAgain.Store(th, 0, 2) //@keptSharedSameShape
		}), at(t, "keptSharedSameShape"))
		other := sim.NewDevice(sim.H100)
		wantEnded(t, report(t, other, cfg1(1, 1, o), func(th *sim.Thread) {
			kept.Store(th, 1, 1) //@keptSharedOther
		}), at(t, "keptSharedOther"))
		dev.Close()
		wantEnded(t, report(t, other, cfg1(1, 1, o), func(th *sim.Thread) {
			sim.AtomicAdd(th, kept, 2, 1) //@keptSharedClosed
		}), at(t, "keptSharedClosed"))

		// Within one launch: block 1 runs in block 0's slot after it and
		// declares nothing.
		dev = sim.NewDevice(sim.H100)
		var mine *sim.Buffer[float32]
		wantEnded(t, report(t, dev, cfg1(2, 1, o), func(th *sim.Thread) {
			if th.BlockIdx.X == 0 {
				mine = sim.Shared[float32](th, "s", 4)
				mine.Store(th, 0, 1)
				return
			}
			mine.Load(th, 0) //@keptSharedLater
		}), at(t, "keptSharedLater"))
	}
}

// A view of a shared array kept past its launch shares the array's
// elements; its accesses are checked on the array: at once with detection
// on, at the periodic check with it off.
func TestSharedViewKeptPastItsLaunchIsNamed(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		var kept *sim.Buffer[int32]
		cfg := cfg1(1, 1, o)
		cfg.SharedBytes = 64
		if r := report(t, dev, cfg, func(th *sim.Thread) {
			kept = sim.Reinterpret[int32](sim.DynamicShared[float32](th, "d")).Offset(2)
			kept.Store(th, 0, 7)
		}); r != nil {
			t.Fatal(r)
		}
		loads := 0
		r := report(t, dev, cfg, func(th *sim.Thread) {
			for i := 0; i < 5000; i++ {
				kept.Load(th, 0) //@keptSharedView
				loads++
			}
		})
		f := only(t, r, sim.OutOfBounds)
		if f.Memory != "d" || f.Current.Site != at(t, "keptSharedView") || !strings.Contains(f.Detail, "which has ended") || loads > 4096 {
			t.Errorf("detection %v: %d loads, want the ended block's array named at %s within 4096:\n%v", o.Detection(), loads, at(t, "keptSharedView"), r)
		}
	}
}

// A block reaches only its own shared memory: block 1 reading block 0's
// array (through a Go variable) while block 0 runs is named, where it used
// to read block 0's value.
func TestOutOfBoundsSharedArrayOfAnotherBlock(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[int32](t, dev, "flag", 1)
	var kept atomic.Pointer[sim.Buffer[int32]]
	r := report(t, dev, cfg1(2, 1, sim.Options{}), func(th *sim.Thread) {
		s := sim.Shared[int32](th, "s", 1)
		if th.BlockIdx.X == 0 {
			s.Store(th, 0, 7)
			kept.Store(s)
			for sim.AtomicAdd(th, flag, 0, 0) == 0 {
				// Block 0 waits: the scheduler admits block 1.
			}
			return
		}
		kept.Load().Load(th, 0) //@otherBlockShared
		sim.AtomicAdd(th, flag, 0, 1)
	})
	f := only(t, r, sim.OutOfBounds)
	if f.Memory != "s" || f.Current.Block != (sim.Dim3{X: 1}) || f.Current.Site != at(t, "otherBlockShared") ||
		!strings.Contains(f.Detail, `shared array "s" belongs to block (0): a thread of block (1) cannot reach it`) {
		t.Errorf("want block (1)'s access to block (0)'s array at %s:\n%v", at(t, "otherBlockShared"), r)
	}
}

// wantMisusePanic runs f and wants it to panic with a *MisuseError saying
// what.
func wantMisusePanic(t *testing.T, name string, f func(), what string) {
	t.Helper()
	defer func() {
		t.Helper()
		err, _ := recover().(error)
		var me *sim.MisuseError
		if !errors.As(err, &me) || !strings.Contains(me.Error(), what) {
			t.Errorf("%s: panic %v, want a MisuseError saying %q", name, err, what)
		}
	}()
	f()
}

// A nil *Device, a nil *Buffer and a zero-value Buffer are named by the
// methods that return errors, and by a *MisuseError panic in those that
// return none: they used to die of a nil dereference.
func TestNilDeviceAndBufferAreNamed(t *testing.T) {
	var none *sim.Device
	wantMisusePanic(t, "Counters", func() { none.Counters() }, "nil *Device")
	wantMisusePanic(t, "Spec", func() { none.Spec() }, "nil *Device")
	_, err := none.CooperativeLimit(cfg1(1, 32, sim.Options{}), 0)
	wantMisuse(t, err, "nil *Device")
	wantMisuse(t, none.Validate(cfg1(1, 32, sim.Options{})), "nil *Device")
	wantMisuse(t, none.Close(), "nil *Device")
	if p, err := none.LaunchProfile(cfg1(1, 32, sim.Options{}), func(*sim.Thread) {}); p != nil {
		t.Errorf("LaunchProfile on a nil *Device returned a profile")
	} else {
		wantMisuse(t, err, "nil *Device")
	}
	_, err = sim.FromHost(none, "x", []int32{1})
	wantMisuse(t, err, "nil *Device")

	dev := sim.NewDevice(sim.H100)
	good := zeroed[int32](t, dev, "good", 4)
	for _, b := range []struct {
		name, what string
		buf        *sim.Buffer[int32]
	}{{"nil", "nil *Buffer", nil}, {"zero", "zero-value Buffer", new(sim.Buffer[int32])}} {
		wantMisuse(t, b.buf.CopyToHost(make([]int32, 1)), b.what)
		wantMisuse(t, b.buf.CopyFromHost([]int32{1}), b.what)
		wantMisuse(t, b.buf.Memset(0), b.what)
		wantMisuse(t, b.buf.MemsetBytes(0, 1), b.what)
		wantMisuse(t, sim.Copy(good, b.buf), b.what)
		wantMisuse(t, sim.Copy(b.buf, good), b.what)
		if b.buf.ToHost() != nil {
			t.Errorf("%s: ToHost returned data", b.name)
		}
		wantMisusePanic(t, b.name+" Free", func() { b.buf.Free() }, b.what)
		wantMisusePanic(t, b.name+" View", func() { b.buf.View(0, 0) }, b.what)
		wantMisusePanic(t, b.name+" Offset", func() { b.buf.Offset(0) }, b.what)
		wantMisusePanic(t, b.name+" Reinterpret", func() { sim.Reinterpret[uint8](b.buf) }, b.what)
	}
	var nb *sim.Buffer[float32]
	if nb.Len() != 0 || nb.Name() != "" || nb.Space() != sim.GlobalSpace {
		t.Error("a nil *Buffer's Len, Name or Space")
	}
	wantMisusePanic(t, "SetName", func() { nb.SetName("x") }, "nil *Buffer")
	var r *sim.Report
	if got := r.Error(); got != "gpusim: nil *Report" {
		t.Errorf("a nil *Report's Error: %q", got)
	}
	// A typed nil *Report in an error (a helper returning one) is walked
	// by errors.Is and errors.As, which call Unwrap.
	var asErr error = r
	var pe *quotaError
	if errors.Is(asErr, context.Canceled) || errors.As(asErr, &pe) {
		t.Error("errors.Is or errors.As found something in a nil *Report")
	}
	if err := sim.WriteTrace(io.Discard, nil); err == nil || !strings.Contains(err.Error(), "nil *Profile") {
		t.Errorf("WriteTrace of a nil *Profile: %v", err)
	}
	if err := sim.WriteTrace(nil); err == nil || !strings.Contains(err.Error(), "nil io.Writer") {
		t.Errorf("WriteTrace to a nil io.Writer: %v", err)
	}
}

// A nil *Buffer in a kernel is the launch's KernelPanic, naming the sim
// function it reached; the test process lives on.
func TestPanicNilBufferInKernelIsNamed(t *testing.T) {
	var nb *sim.Buffer[int32]
	for _, tc := range []struct {
		name, fn string
		o        sim.Options
		use      func(th *sim.Thread)
	}{
		{"Load", "sim.(*Buffer).Load", sim.Options{}, func(th *sim.Thread) { nb.Load(th, 0) }},
		{"Store, detection off", "sim.(*Buffer).Store", sim.Options{}.WithDetection(false), func(th *sim.Thread) { nb.Store(th, 0, 1) }},
		{"AtomicAdd", "sim.AtomicAdd", sim.Options{}, func(th *sim.Thread) { sim.AtomicAdd(th, nb, 0, 1) }},
	} {
		dev := sim.NewDevice(sim.H100)
		r := report(t, dev, cfg1(1, 1, tc.o), tc.use)
		f := only(t, r, sim.KernelPanic)
		if !strings.Contains(f.Detail, "nil pointer dereference in "+tc.fn+": a nil *Buffer") {
			t.Errorf("%s: want the nil dereference in %s named:\n%v", tc.name, tc.fn, r)
		}
	}
}
