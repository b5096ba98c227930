package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func profileLaunch(t *testing.T, grid, block int, k func(d *Device) Kernel) *Profile {
	t.Helper()
	d := NewDevice(H100)
	p, err := d.LaunchProfile(Config{Grid: Dim(grid), Block: Dim(block)}, k(d))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The profile comes back from the launch: filled in when the launch ran,
// findings or not, nil when it was refused; the deprecated option gives the
// same profile.
func TestLaunchProfile(t *testing.T) {
	d := NewDevice(H100)
	k := copyKernel(1)(d)
	cfg := Config{Grid: Dim(4), Block: Dim(256)}
	p, err := d.LaunchProfile(cfg, k)
	if err != nil || p == nil || p.Grid != Dim(4) || p.Counters.Loads != 1024 {
		t.Fatalf("LaunchProfile: %v, %+v", err, p)
	}
	var old Profile
	cfg.Options = cfg.Options.WithProfile(&old)
	if err := d.Launch(cfg, k); err != nil {
		t.Fatal(err)
	}
	if old.Counters != p.Counters || old.Memory != p.Memory {
		t.Errorf("WithProfile's profile %+v differs from LaunchProfile's %+v", old.Counters, p.Counters)
	}
	racy := func(t *Thread) { x := Shared[int32](t, "x", 1); x.Store(t, 0, 1) }
	if p, err := d.LaunchProfile(Config{Grid: Dim(1), Block: Dim(2)}, racy); p == nil || err == nil {
		t.Errorf("a launch with findings: profile %v, error %v; want both", p, err)
	}
	if p, err := d.LaunchProfile(Config{Grid: Dim(1), Block: Dim(4096)}, k); p != nil || err == nil {
		t.Errorf("a refused launch: profile %v, error %v; want no profile and the error", p, err)
	}
}

// A launch the watchdog abandons still returns its profile, as the doc
// promises, with the launch's shape and time (it returned nil).
func TestLaunchProfileAfterHang(t *testing.T) {
	d := NewDevice(H100)
	x, _ := Alloc[int32](d, "x", 64)
	var release atomic.Bool
	defer release.Store(true)
	p, err := d.LaunchProfile(Config{Grid: Dim(2), Block: Dim(32), Options: Options{}.WithWatchdog(100 * time.Millisecond)}, func(t *Thread) {
		x.Store(t, t.GlobalX(), 1)
		if t.GlobalX() == 63 {
			for !release.Load() {
			}
		}
	})
	var r *Report
	if !errors.As(err, &r) || !r.Has(Hang) {
		t.Fatalf("want a Hang, got %v", err)
	}
	if p == nil || p.Grid != Dim(2) || p.Block != Dim(32) || p.Device != H100.Name || p.Elapsed < 100*time.Millisecond {
		t.Errorf("profile %+v, want the abandoned launch's shape and time", p)
	}
}

func copyKernel(stride int) func(d *Device) Kernel {
	return func(d *Device) Kernel {
		n := 4096
		in, _ := Alloc[float32](d, "in", n*stride)
		in.Memset(0)
		out, _ := Alloc[float32](d, "out", n*stride)
		return func(t *Thread) {
			i := t.GlobalX() * stride
			out.Store(t, i, in.Load(t, i))
		}
	}
}

func TestProfileCoalescing(t *testing.T) {
	co := profileLaunch(t, 16, 256, copyKernel(1))
	st := profileLaunch(t, 16, 256, copyKernel(32))
	if got := co.Memory.GlobalLoad.SectorsPerRequest(); got != 4 {
		t.Errorf("coalesced float32 copy: %v sectors per load request, want 4", got)
	}
	if got := co.Memory.GlobalStore.SectorsPerRequest(); got != 4 {
		t.Errorf("coalesced float32 copy: %v sectors per store request, want 4", got)
	}
	if got := st.Memory.GlobalLoad.SectorsPerRequest(); got != 32 {
		t.Errorf("stride-32 copy: %v sectors per request, want 32", got)
	}
	if co.Memory.GlobalLoad.Requests != 4096/32 || co.Counters.Loads != 4096 {
		t.Errorf("coalesced copy: %d requests, %d loads; want 128, 4096", co.Memory.GlobalLoad.Requests, co.Counters.Loads)
	}
	if e := co.Memory.GlobalLoad.Efficiency(); e != 1 {
		t.Errorf("coalesced efficiency %v, want 1", e)
	}
	if len(co.Lines) != 2 || co.Lines[0].Op != "load" || co.Lines[1].Op != "store" {
		t.Errorf("lines: %+v", co.Lines)
	}
	if co.Occupancy.BlocksPerSM != 8 || co.Occupancy.Occupancy != 1 {
		t.Errorf("occupancy %+v", co.Occupancy)
	}
}

// sharedStride has each lane access shared element lane*stride.
func sharedStride(stride int) func(d *Device) Kernel {
	return func(d *Device) Kernel {
		return func(t *Thread) {
			// Each warp has its own 32*stride words: the same banks.
			base := t.WarpID() * 32 * stride
			s := Shared[float32](t, "s", 32*stride*(t.BlockDim.X/32))
			s.Store(t, base+t.LaneID()*stride, 1)
			t.SyncWarp(FullMask)
			_ = s.Load(t, base+t.LaneID()*stride)
			_ = s.Load(t, base) // broadcast
		}
	}
}

func TestProfileBankConflicts(t *testing.T) {
	for _, tt := range []struct {
		stride, degree int
	}{{1, 1}, {2, 2}, {4, 4}, {32, 32}, {33, 1}} {
		p := profileLaunch(t, 1, 64, sharedStride(tt.stride))
		st := p.Memory.SharedStore
		if st.Requests != 2 || st.MaxDegree != tt.degree || st.Degree() != float64(tt.degree) {
			t.Errorf("stride %d: %d requests, degree %v (max %d); want 2 requests of degree %d", tt.stride, st.Requests, st.Degree(), st.MaxDegree, tt.degree)
		}
		if want := int64(2 * (tt.degree - 1)); st.Conflicts() != want {
			t.Errorf("stride %d: %d conflicts, want %d", tt.stride, st.Conflicts(), want)
		}
		ld := p.Memory.SharedLoad
		if ld.Requests != 4 || ld.Wavefronts != int64(2*tt.degree+2) {
			t.Errorf("stride %d loads: %d requests, %d wavefronts; want 4, %d", tt.stride, ld.Requests, ld.Wavefronts, 2*tt.degree+2)
		}
		if p.Sync.Collectives != 2 || p.Sync.PartialCollectives != 0 {
			t.Errorf("sync %+v", p.Sync)
		}
	}
}

func TestProfileAtomicsAndBarriers(t *testing.T) {
	p := profileLaunch(t, 4, 128, func(d *Device) Kernel {
		h, _ := Alloc[uint32](d, "hist", 8)
		h.Memset(0)
		return func(t *Thread) {
			if t.ThreadIdx.X >= 100 {
				return
			}
			t.SyncThreads()
			AtomicAdd(t, h, t.ThreadIdx.X%2, 1)
			t.SyncThreads()
		}
	})
	if p.Atomics.Global != 400 || p.Atomics.Addresses != 2 || p.Atomics.Hottest != (AtomicAddress{"hist", GlobalSpace, 0, 200}) {
		t.Errorf("atomics %+v", p.Atomics)
	}
	if p.Sync.Barriers != 8 || p.Sync.BarriersWithExited != 8 {
		t.Errorf("sync %+v, want 8 barriers, all with exited threads", p.Sync)
	}
}

func TestProfileTraceJSON(t *testing.T) {
	p := profileLaunch(t, 2, 64, func(d *Device) Kernel {
		return func(t *Thread) {
			s := Shared[int32](t, "s", 64)
			s.Store(t, t.LinearThreadIdx(), 1)
			t.SyncThreads()
			_ = s.Load(t, 63-t.LinearThreadIdx())
		}
	})
	p.Kernel = "reverse"
	var buf bytes.Buffer
	if err := WriteTrace(&buf, p, p); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []TraceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	runs, waits := 0, 0
	for _, e := range doc.TraceEvents {
		switch e.Name {
		case "run":
			runs++
		case "SyncThreads":
			waits++
			if e.Args["site"] == "" || e.Dur < 1 {
				t.Errorf("barrier wait %+v", e)
			}
		}
	}
	// 2 launches x 2 blocks x 2 warps, each running twice and waiting once.
	if runs != 16 || waits != 8 {
		t.Errorf("%d runs, %d waits; want 16, 8", runs, waits)
	}
}

func TestProfileDeterministic(t *testing.T) {
	run := func() []byte {
		p := profileLaunch(t, 3, 96, sharedStride(2))
		var b bytes.Buffer
		WriteTrace(&b, p)
		return b.Bytes()
	}
	if a, b := run(), run(); !bytes.Equal(a, b) {
		t.Error("two runs gave different traces")
	}
}
