package sim_test

// Misuse is named: a buffer after Free, a double Free, a buffer of another
// Device, a Thread after its launch, a zero-value or closed Device.

import (
	"errors"
	"strings"
	"testing"

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
