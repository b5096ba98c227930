package sim_test

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// launch runs k over grid x block on a fresh H100 with the given options and
// returns the launch's report (nil when clean).
func launch(t *testing.T, grid, block int, opts sim.Options, k sim.Kernel) *sim.Report {
	t.Helper()
	return launchOn(t, sim.NewDevice(sim.H100), grid, block, opts, k)
}

func launchOn(t *testing.T, dev *sim.Device, grid, block int, opts sim.Options, k sim.Kernel) *sim.Report {
	t.Helper()
	return exec(t, dev, sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(block), Options: opts}, k)
}

func mustF64(t *testing.T, dev *sim.Device, name string, n int) *sim.Buffer[float64] {
	t.Helper()
	return zeroed[float64](t, dev, name, n)
}

func TestRaceAddOne(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	r := launchOn(t, dev, 10, 16, sim.Options{}, func(t *sim.Thread) {
		x.Store(t, 0, x.Load(t, 0)+1)
	})
	if !r.Has(sim.DataRace) {
		t.Fatalf("add_one[10,16]: no race reported; report: %v", r)
	}
	f := r.Of(sim.DataRace)[0]
	if f.Memory != "x" || f.Index != 0 || !strings.Contains(f.Current.Site, "race_test.go:") {
		t.Errorf("finding = %+v", f)
	}
	t.Log(r)
}

func TestNoRaceAddOneAtomic(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	if r := launchOn(t, dev, 10, 16, sim.Options{}, func(t *sim.Thread) {
		sim.AtomicAdd(t, x, 0, 1)
	}); r != nil {
		t.Fatal(r)
	}
	if got := x.ToHost()[0]; got != 160 {
		t.Fatalf("x = %v, want 160", got)
	}
}

func mutexKernel(x *sim.Buffer[float64], mutex *sim.Buffer[uint64], fences bool) sim.Kernel {
	return func(t *sim.Thread) {
		for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
		}
		if fences {
			t.ThreadFence()
		}
		x.Store(t, 0, x.Load(t, 0)+1)
		if fences {
			t.ThreadFence()
		}
		sim.AtomicExch(t, mutex, 0, 0)
	}
}

func TestNoRaceMutex(t *testing.T) {
	for _, sched := range []sim.Schedule{sim.NaturalOrder, sim.RandomOrder} {
		dev := sim.NewDevice(sim.H100)
		x := mustF64(t, dev, "x", 1)
		mu, _ := sim.Alloc[uint64](dev, "mutex", 1)
		mu.Memset(0)
		if r := launchOn(t, dev, 10, 16, sim.Options{}.WithSchedule(sched).WithSeed(7), mutexKernel(x, mu, true)); r != nil {
			t.Fatalf("%v: %v", sched, r)
		}
		if got := x.ToHost()[0]; got != 160 {
			t.Fatalf("%v: x = %v, want 160", sched, got)
		}
	}
}

func TestRaceMutexWithoutFences(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	mu, _ := sim.Alloc[uint64](dev, "mutex", 1)
	mu.Memset(0)
	r := launchOn(t, dev, 10, 16, sim.Options{}, mutexKernel(x, mu, false))
	if !r.Has(sim.DataRace) {
		t.Fatalf("no race reported: %v", r)
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

func TestOutOfBoundsNegative(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 4)
	r := launchOn(t, dev, 1, 8, sim.Options{}, func(t *sim.Thread) {
		x.Store(t, t.ThreadIdx.X-2, 1)
	})
	if !r.Has(sim.OutOfBounds) || !r.Aborted {
		t.Fatalf("%v", r)
	}
	t.Log(r)
}

func TestKernelPanic(t *testing.T) {
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

func TestBarrierDivergencePassBy(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 32)
	r := launchOn(t, dev, 1, 32, sim.Options{}, func(t *sim.Thread) {
		if t.ThreadIdx.X < 16 {
			t.SyncThreads()
		}
		x.Store(t, t.ThreadIdx.X, 1)
	})
	if !r.Has(sim.BarrierDivergence) {
		t.Fatalf("%v", r)
	}
	t.Log(r)
}

func TestNoBarrierDivergenceGuardReturn(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 40)
	n := 20
	r := launchOn(t, dev, 1, 32, sim.Options{}, func(t *sim.Thread) {
		i := t.ThreadIdx.X
		if i >= n {
			return
		}
		x.Store(t, i, 1)
		t.SyncThreads()
		x.Store(t, i+20, x.Load(t, (i+1)%n))
	})
	if r != nil {
		t.Fatal(r)
	}
}
