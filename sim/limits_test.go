package sim_test

// Requests beyond a limit are refused or reported, never a crash: device
// and host memory, detection's shadow memory, shared memory sizes,
// recursion depth, grids beyond the simulator's thread numbering.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

func wantAllocRefused(t *testing.T, err error, limit string) {
	t.Helper()
	var le *sim.LaunchError
	if !errors.As(err, &le) || le.Code != sim.ErrMemoryAllocation || le.Limit != limit {
		t.Fatalf("err = %v, want a LaunchError with ErrMemoryAllocation on %q", err, limit)
	}
}

// The case: 0x600000000 float32 (96 GiB) on an 80 GB H100 is
// refused before any host memory is allocated.
func TestAllocBeyondDeviceMemoryRefusedBeforeHostMemory(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := sim.Alloc[float32](dev, "x", 0x600000000)
	runtime.ReadMemStats(&after)
	wantAllocRefused(t, err, "global memory")
	if b != nil {
		t.Error("a refused Alloc returned a buffer")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("the refused Alloc allocated %d bytes of host memory", grew)
	}
	if !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("the error should name the buffer: %v", err)
	}
}

// n*sizeof(T) overflowing 64 bits is refused, not wrapped into a small size.
func TestAllocSizeOverflowRefused(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	for _, n := range []int{math.MaxInt, math.MaxInt/8 + 1, math.MaxInt / 4} {
		_, err := sim.Alloc[float64](dev, "x", n)
		wantAllocRefused(t, err, "global memory")
	}
	_, err := sim.Alloc[float64](dev, "x", -1)
	var le *sim.LaunchError
	if !errors.As(err, &le) || le.Code != sim.ErrInvalidValue {
		t.Errorf("negative length: %v, want ErrInvalidValue", err)
	}
}

// A device whose memory is larger than the host's: the host's limit is
// checked before the host slice is made (on hosts with /proc/meminfo).
func TestAllocBeyondHostMemoryRefused(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("the host's memory is read from /proc/meminfo, which this system has not")
	}
	spec := sim.H100
	spec.GlobalMemory = 1 << 60
	dev := sim.NewDevice(spec)
	_, err := sim.Alloc[float32](dev, "huge", 1<<50) // 4 PiB
	wantAllocRefused(t, err, "host memory")
}

// Detection's shadow memory has a budget: a launch that would exceed it
// ends with a finding naming the buffer and the budget, and allocates no
// shadow.
func TestShadowBudgetNamesBufferAndBudget(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[float32](dev, "big", 1<<20)
	x.Memset(0)
	k := func(th *sim.Thread) { x.Store(th, th.GlobalX(), 1) }
	r := report(t, dev, cfg1(1, 32, sim.Options{}.WithShadowBudget(1<<20)), k)
	f := only(t, r, sim.ShadowBudget)
	if f.Memory != "big" || !strings.Contains(f.Detail, "budget of 1048576 bytes") || !r.Aborted {
		t.Errorf("want the buffer and the budget named:\n%v", r)
	}
	// The same launch within the budget, and with detection off, run clean.
	if r := report(t, dev, cfg1(1, 32, sim.Options{}.WithShadowBudget(1<<30)), k); r != nil {
		t.Errorf("within the budget: %v", r)
	}
	if r := report(t, dev, cfg1(1, 32, sim.Options{}.WithShadowBudget(1).WithDetection(false)), k); r != nil {
		t.Errorf("detection off: %v", r)
	}
}

// The case: a 2 GiB buffer is legal on the simulated H100, but its
// shadow (16 bytes per float32, 8 GiB) is beyond the default budget: the
// launch says so instead of exhausting the host.
func TestShadowBudgetDefaultRefuses2GiBBuffer(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	defer dev.Close()
	x, err := sim.Alloc[float32](dev, "x", 1<<29)
	if err != nil {
		var le *sim.LaunchError
		if errors.As(err, &le) && le.Limit == "host memory" {
			t.Skipf("this host cannot hold the 2 GiB buffer itself: %v", err)
		}
		t.Fatal(err)
	}
	r := report(t, dev, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) { x.Store(th, 0, 1) })
	f := only(t, r, sim.ShadowBudget)
	if f.Memory != "x" || !strings.Contains(f.Detail, "8589934592 bytes") {
		t.Errorf("want the 8 GiB the shadow needs named:\n%v", r)
	}
}

// Threads of a block declaring one shared array with different lengths
// is an InvalidShared finding, with detection on or off: each thread got
// an array of its own, and the kernel read zeros where thread 0 wrote.
func TestSharedDeclaredInconsistentlyIsFinding(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[float32](t, dev, "out", 4)
		r := report(t, dev, cfg1(1, 4, o), func(th *sim.Thread) {
			s := sim.Shared[float32](th, "s", 4+th.ThreadIdx.X) //@sharedSize
			if th.ThreadIdx.X == 0 {
				s.Store(th, 0, 42)
			}
			th.SyncThreads()
			out.Store(th, th.ThreadIdx.X, s.Load(th, 0))
		})
		f := only(t, r, sim.InvalidShared)
		if f.Current.Site != at(t, "sharedSize") || !strings.Contains(f.Detail, "declared inconsistently: 5 elements here, 4") {
			t.Errorf("detection %v: %v", o.Detection(), r)
		}
	}
	// One length, declared by every thread at one line (in a loop too),
	// is one array.
	dev := sim.NewDevice(sim.H100)
	out := zeroed[float32](t, dev, "out", 4)
	if r := report(t, dev, cfg1(1, 4, sim.Options{}), func(th *sim.Thread) {
		var s *sim.Buffer[float32]
		for k := 0; k < 3; k++ {
			s = sim.Shared[float32](th, "s", 8)
		}
		if th.ThreadIdx.X == 0 {
			s.Store(th, 0, 42)
		}
		th.SyncThreads()
		out.Store(th, th.ThreadIdx.X, s.Load(th, 0))
	}); r != nil {
		t.Fatal(r)
	}
	if got := out.ToHost(); got[3] != 42 {
		t.Errorf("out = %v, want 42s", got)
	}
}

// Shared2D with one length but another shape per thread is the same
// finding; the same site declared with another shape by a later launch
// (a kernel factory's parameter) is a new declaration, not a finding.
func TestShared2DDeclaredInconsistentlyIsFinding(t *testing.T) {
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		r := report(t, dev, cfg1(1, 2, o), func(th *sim.Thread) {
			rows, cols := 4, 8
			if th.ThreadIdx.X == 1 {
				rows, cols = 8, 4
			}
			s := sim.Shared2D[float32](th, "s", rows, cols) //@shared2DShape
			s.Store(th, th.ThreadIdx.X, 1)
		})
		f := only(t, r, sim.InvalidShared)
		if f.Current.Site != at(t, "shared2DShape") || !strings.Contains(f.Detail, "[8][4] here, [4][8]") {
			t.Errorf("detection %v: %v", o.Detection(), r)
		}
	}
	dev := sim.NewDevice(sim.H100)
	out := zeroed[float32](t, dev, "out", 6)
	tiled := func(rows, cols int) sim.Kernel {
		return func(th *sim.Thread) {
			s := sim.Shared2D[float32](th, "s", rows, cols)
			s.Store(th, th.ThreadIdx.X*cols, float32(cols))
			th.SyncThreads()
			out.Store(th, th.GlobalX(), s.Load(th, th.ThreadIdx.X*cols))
		}
	}
	for _, shape := range [][2]int{{4, 8}, {8, 4}, {4, 8}} {
		if r := report(t, dev, cfg1(3, 2, sim.Options{}), tiled(shape[0], shape[1])); r != nil {
			t.Fatalf("[%d][%d]: %v", shape[0], shape[1], r)
		}
		if got := out.ToHost(); got[5] != float32(shape[1]) {
			t.Errorf("[%d][%d]: out = %v", shape[0], shape[1], got)
		}
	}
}

// A shared array whose byte size overflows is the shared-memory-limit
// finding, not a Go panic.
func TestSharedSizeOverflowIsSharedLimitFinding(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	for _, n := range []int{math.MaxInt / 4, math.MaxInt/8 + 1, math.MaxInt} {
		r := report(t, dev, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
			sim.Shared[float64](th, "s", n)
		})
		f := only(t, r, sim.InvalidShared)
		if !strings.Contains(f.Detail, "exceeds the 49152-byte limit") {
			t.Errorf("n = %d: %v", n, r)
		}
	}
}

// 40 KiB of static and 10 KiB of dynamic shared memory without opt-in
// exceed the 48 KiB default per kernel: the H100 refuses the launch
// (cudaErrorInvalidValue). With opt-in it runs.
func TestSharedStaticPlusDynamicAboveDefaultNeedsOptIn(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	k := func(th *sim.Thread) {
		s := sim.Shared[float32](th, "static", 10*1024)
		d := sim.DynamicShared[float32](th, "dynamic")
		s.Store(th, 0, 1)
		d.Store(th, 0, 1)
	}
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim(1), SharedBytes: 10 * 1024}
	f := only(t, report(t, dev, cfg, k), sim.InvalidShared)
	if !strings.Contains(f.Detail, "cudaErrorInvalidValue") || !strings.Contains(f.Detail, "static 40960 + dynamic 10240") {
		t.Errorf("finding %v", f)
	}
	cfg.Options = sim.Options{}.WithSharedOptIn(true)
	if r := report(t, dev, cfg, k); r != nil {
		t.Errorf("with opt-in: %v", r)
	}
	// Exactly 48 KiB together is within the default.
	cfg = sim.Config{Grid: sim.Dim(1), Block: sim.Dim(1), SharedBytes: 8 * 1024}
	if r := report(t, dev, cfg, k); r != nil {
		t.Errorf("40 KiB + 8 KiB: %v", r)
	}
}

// recurse descends n levels, loading an element at each (a tree walk).
func recurse(th *sim.Thread, x *sim.Buffer[int32], n int) int32 {
	if n == 0 {
		return 0
	}
	return x.Load(th, n&7) + recurse(th, x, n-1) //@recurse
}

// Recursion 10^7 deep is a StackOverflow finding at the documented depth
// limit, not Go's fatal stack overflow.
func TestRecursionBeyondDepthLimitIsFinding(t *testing.T) {
	if got := (sim.Options{}).MaxDepth(); got != sim.DefaultMaxDepth {
		t.Errorf("default depth %d, want %d", got, sim.DefaultMaxDepth)
	}
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		x, _ := sim.Alloc[int32](dev, "x", 8)
		x.Memset(0)
		r := report(t, dev, cfg1(1, 1, o), func(th *sim.Thread) {
			x.Store(th, 0, recurse(th, x, 10_000_000))
		})
		f := only(t, r, sim.StackOverflow)
		if f.Current.Site != at(t, "recurse") || !strings.Contains(f.Detail, "10000 frames") {
			t.Errorf("detection %v: %v", o.Detection(), r)
		}
	}
	// Recursion within the limit runs.
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 8)
	x.Memset(0)
	if r := report(t, dev, cfg1(1, 1, sim.Options{}), func(th *sim.Thread) {
		x.Store(th, 0, recurse(th, x, 5000))
	}); r != nil {
		t.Errorf("5000 levels: %v", r)
	}
}

// Recursion is a StackOverflow finding whatever sim call it makes at each
// level: atomics, fences, shared declarations and barriers count no
// accesses, and recursing through them used to end the process with Go's
// fatal stack overflow (an atomic), or go on growing memory (a barrier).
func TestRecursionThroughAnySimCallIsFinding(t *testing.T) {
	t.Parallel()
	calls := map[string]func(th *sim.Thread, x *sim.Buffer[uint32]){
		"atomic":         func(th *sim.Thread, x *sim.Buffer[uint32]) { sim.AtomicAdd(th, x, 0, 1) },
		"fence":          func(th *sim.Thread, x *sim.Buffer[uint32]) { th.ThreadFence() },
		"shared":         func(th *sim.Thread, x *sim.Buffer[uint32]) { sim.Shared[float32](th, "s", 4) },
		"syncwarp":       func(th *sim.Thread, x *sim.Buffer[uint32]) { th.SyncWarp(sim.FullMask) },
		"barrier":        func(th *sim.Thread, x *sim.Buffer[uint32]) { th.SyncThreads() },
		"barrier+atomic": func(th *sim.Thread, x *sim.Buffer[uint32]) { th.SyncThreads(); sim.AtomicAdd(th, x, 0, 1) },
		"shuffle":        func(th *sim.Thread, x *sim.Buffer[uint32]) { sim.ShflDownSync(th, sim.FullMask, int32(1), 1) },
	}
	for name, call := range calls {
		for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
			t.Run(fmt.Sprint(name, "/detect=", o.Detection()), func(t *testing.T) {
				dev := sim.NewDevice(sim.H100)
				x := zeroed[uint32](t, dev, "x", 1)
				var rec func(th *sim.Thread, d int) int
				rec = func(th *sim.Thread, d int) int {
					call(th, x)
					return rec(th, d+1) + 1
				}
				r := report(t, dev, cfg1(1, 32, o), func(th *sim.Thread) { rec(th, 0) })
				f := only(t, r, sim.StackOverflow)
				if !strings.HasPrefix(f.Current.Site, "sim/limits_test.go:") || !strings.Contains(f.Detail, "10000 frames") {
					t.Errorf("want the kernel's call into sim and the limit: %v", f)
				}
			})
		}
	}
}

// A grid of 2^32 threads is legal on the GPU but beyond the simulator's
// 32-bit thread ids: the error code says so, and is not CUDA's
// invalid-configuration code.
func TestGridBeyondSimulatorIndexingHasSimulatorCode(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	err := dev.Validate(sim.Config{Grid: sim.Dim(1 << 22), Block: sim.Dim(1024)})
	var le *sim.LaunchError
	if !errors.As(err, &le) || le.Code != sim.ErrSimulatorLimit || le.Code == sim.ErrInvalidConfiguration {
		t.Fatalf("err = %v, want ErrSimulatorLimit", err)
	}
	if !strings.Contains(le.Error(), "the GPU would run it") {
		t.Errorf("the error should say the GPU would run it: %v", le)
	}
	if err := dev.Validate(sim.Config{Grid: sim.Dim(1<<22 - 1), Block: sim.Dim(1024)}); err != nil {
		t.Errorf("one block fewer: %v", err)
	}
	// The largest grid CUDA allows, whose thread count wrapped negative
	// in 64-bit integers and passed.
	huge := sim.Config{Grid: sim.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535}, Block: sim.Dim(2)}
	if err := dev.Validate(huge); !errors.As(err, &le) || le.Code != sim.ErrSimulatorLimit {
		t.Errorf("grid %v x block 2: %v, want ErrSimulatorLimit", huge.Grid, err)
	}
}

// A hand-made Spec the simulator cannot model is refused with the field
// that is wrong, where it divided by zero before.
func TestSpecRefusedWhenUnmodelled(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*sim.Spec)
		field  string
	}{
		{"warp of 64", func(s *sim.Spec) { s.WarpSize = 64 }, "WarpSize"},
		{"warp of 0", func(s *sim.Spec) { s.WarpSize = 0 }, "WarpSize"},
		{"no SMs", func(s *sim.Spec) { s.SMs = 0 }, "SMs"},
	} {
		spec := sim.H100
		c.change(&spec)
		var le *sim.LaunchError
		dev := sim.NewDevice(spec)
		if err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32)}, func(*sim.Thread) {}); !errors.As(err, &le) || !strings.Contains(le.Error(), c.field) {
			t.Errorf("%s: Launch gave %v, want a LaunchError naming %s", c.name, err, c.field)
		}
		if _, err := spec.CalcOccupancy(128, 32, 0); !errors.As(err, &le) || !strings.Contains(le.Error(), c.field) {
			t.Errorf("%s: CalcOccupancy gave %v, want a LaunchError naming %s", c.name, err, c.field)
		}
	}
}

// An Options value outside the defined schedules and warp models is refused,
// where it ran as the default.
func TestUndefinedScheduleRefused(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	for _, o := range []sim.Options{sim.Options{}.WithSchedule(sim.Schedule(99)), sim.Options{}.WithWarpModel(sim.WarpModel(7))} {
		var le *sim.LaunchError
		if err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), Options: o}, func(*sim.Thread) {}); !errors.As(err, &le) || le.Code != sim.ErrInvalidValue {
			t.Errorf("%v: %v, want a LaunchError with ErrInvalidValue", o, err)
		}
	}
}
