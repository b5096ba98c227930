package sim_test

// Out-of-bounds accesses: reported with the index and line, and the launch
// aborted.

import (
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// out of bounds: a forward difference that reads one past the end

func forwardDiff(in, out *sim.Buffer[float32], n int, guardLast bool) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		limit := n
		if guardLast {
			limit = n - 1
		}
		if i < limit {
			out.Store(t, i, in.Load(t, i+1)-in.Load(t, i)) //@fdR
		}
	}
}

func TestNoRaceForwardDifference(t *testing.T) {
	t.Parallel()
	const n = 100
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(n, func(i int) float32 { return float32(i * i) }))
	out := zeroed[float32](t, dev, "out", n)
	wantClean(t, exec(t, dev, lin(4, 32), forwardDiff(in, out, n, true)))
	for i, v := range out.ToHost()[:n-1] {
		if v != float32(2*i+1) {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
}

func TestOutOfBoundsForwardDifferenceReadsPastEnd(t *testing.T) {
	t.Parallel()
	const n = 100
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(n, func(i int) float32 { return float32(i) }))
	out := zeroed[float32](t, dev, "out", n)
	r := exec(t, dev, lin(4, 32), forwardDiff(in, out, n, false))
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Memory != "in" || f.Index != n || f.Current.Op != "read" ||
		f.Current.Site != at(t, "fdR") || f.Current.Thread.X != 3 || f.Current.Block.X != 3 {
		t.Errorf("finding %+v, want read of in[%d] by block 3 thread 3 at %s", f, n, at(t, "fdR"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
}

// ---------------------------------------------------------------------------
// more memory errors

func TestOutOfBoundsSharedWrite(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(64, func(i int) float32 { return float32(i) }))
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		s := sim.Shared[float32](t, "shifted", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid+1, in.Load(t, tid)) //@oobW
		t.SyncThreads()
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Space != sim.SharedSpace || f.Memory != "shifted" || f.Index != 64 || f.Current.Op != "write" || f.Current.Site != at(t, "oobW") {
		t.Errorf("finding %+v, want a write of shared shifted[64] at %s", f, at(t, "oobW"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
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

// An access past dynamic shared memory names the launch's size of it: the
// array's length comes from Config.SharedBytes, not from the kernel, and a
// launch that forgot it read "index 0 outside [0,0)" and no more. Views
// carved from it, under other types too, say the same; a static array
// does not.
func TestOutOfBoundsDynamicSharedNamesSharedBytes(t *testing.T) {
	for _, c := range []struct {
		name        string
		sharedBytes int
		k           sim.Kernel
		want        string
	}{
		{"SharedBytes left out", 0, func(t *sim.Thread) {
			sim.DynamicShared[float32](t, "smem").Store(t, 0, 1)
		}, "index 0 outside [0,0): the launch's dynamic shared memory is 0 bytes (Config.SharedBytes)"},
		{"a carved view", 64, func(t *sim.Thread) {
			smem := sim.DynamicShared[float32](t, "smem")
			counts := sim.Reinterpret[int32](smem.Offset(8))
			counts.Store(t, 8, 1)
		}, "index 8 outside [0,8): the launch's dynamic shared memory is 64 bytes (Config.SharedBytes)"},
		{"a static array", 64, func(t *sim.Thread) {
			sim.Shared[float32](t, "s", 4).Store(t, 4, 1)
		}, "index 4 outside [0,4)"},
	} {
		cfg := lin(1, 1)
		cfg.SharedBytes = c.sharedBytes
		f := wantKind(t, exec(t, sim.NewDevice(sim.H100), cfg, c.k), sim.OutOfBounds)
		if f.Detail != c.want {
			t.Errorf("%s: %q, want %q", c.name, f.Detail, c.want)
		}
	}
}
