package sim_test

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// The warp-synchronous reduction of pre-Volta CUDA code: the last warp of
// a block reduces 64 shared elements through a volatile pointer, relying
// on its lanes running in lockstep. Since Volta they need not: a lane may
// read its neighbour's element before or after the neighbour updates it.
// The Programming Guide's fix separates each step's reads from its writes
// with __syncwarp. Volatile accesses are strong, so PTX calls the unsynced
// form no data race; gpusim reports two lanes' volatile accesses of one
// shared element as one unless something orders them (warpVolatile).
func volatileWarpReduce(out *sim.Buffer[int32], syncWarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "sdata", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid))
		s.Store(t, tid+32, int32(tid+32))
		t.SyncThreads()
		if syncWarp {
			v := s.LoadVolatile(t, tid)
			for off := 32; off > 0; off /= 2 {
				v += s.LoadVolatile(t, tid+off)
				t.SyncWarp(0xffffffff)
				s.StoreVolatile(t, tid, v)
				t.SyncWarp(0xffffffff)
			}
		} else {
			for off := 32; off > 0; off /= 2 {
				s.StoreVolatile(t, tid, s.LoadVolatile(t, tid)+s.LoadVolatile(t, tid+off))
			}
		}
		if tid == 0 {
			out.Store(t, 0, s.LoadVolatile(t, 0))
		}
	}
}

func TestRaceVolatileWarpReduceWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 32), volatileWarpReduce(out, false))
	f := wantKind(t, r, sim.DataRace)
	if f.Current.Op != "volatile write" && f.Current.Op != "volatile read" || !strings.Contains(f.Detail, "__syncwarp") {
		t.Errorf("want a race of two volatile accesses that names __syncwarp:\n%v", f)
	}
}

func TestNoRaceVolatileWarpReduceSyncWarp(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 32), volatileWarpReduce(out, true)))
	if got := out.ToHost()[0]; got != 63*64/2 {
		t.Errorf("sum = %d, want %d", got, 63*64/2)
	}
}

// Under the pre-Volta warp model the lanes do run in lockstep: the idiom is
// what those GPUs guaranteed, and gives the sum.
func TestNoRaceVolatileWarpReduceLockstep(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 32, sim.Options{}.WithWarpModel(sim.Lockstep)), volatileWarpReduce(out, false)))
	if got := out.ToHost()[0]; got != 63*64/2 {
		t.Errorf("sum = %d, want %d", got, 63*64/2)
	}
}

// Volatile accesses of lanes of different warps stay strong: a volatile
// flag one warp sets and another polls is no race (what the flag orders is
// another matter: see the fence tests).
func TestNoRaceVolatileFlagAcrossWarps(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	wantClean(t, exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		flag := sim.SharedVar[int32](t, "flag")
		if t.ThreadIdx.X == 0 {
			flag.StoreVolatile(t, 0, 0)
		}
		t.SyncThreads()
		switch t.ThreadIdx.X {
		case 32:
			flag.StoreVolatile(t, 0, 1)
		case 0:
			for flag.LoadVolatile(t, 0) == 0 {
			}
		}
	}))
}

// scheduleOpts are the natural schedule and RandomOrder seeds 1 to 8: the
// NoRace tests below hold under each.
func scheduleOpts() []sim.Options {
	opts := []sim.Options{{}}
	for seed := uint64(1); seed <= 8; seed++ {
		opts = append(opts, sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed))
	}
	return opts
}

// A lane hands data to a warp-mate through a volatile shared flag, with
// PTX's release and acquire patterns (fence; volatile store / volatile
// load; fence). The flag's store and the polls are unordered, as flags
// are, and strong: no race, though both lanes are of one warp.
func TestNoRaceIntraWarpVolatileFlagHandOff(t *testing.T) {
	t.Parallel()
	for _, o := range scheduleOpts() {
		dev := sim.NewDevice(sim.H100)
		out := mustAlloc[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(1, 32, o), func(t *sim.Thread) {
			data := sim.SharedVar[int32](t, "data")
			flag := sim.SharedVar[int32](t, "flag")
			if t.ThreadIdx.X == 0 {
				flag.StoreVolatile(t, 0, 0)
			}
			t.SyncThreads()
			switch t.ThreadIdx.X {
			case 0:
				data.Store(t, 0, 42)
				t.ThreadFenceBlock()
				flag.StoreVolatile(t, 0, 1)
			case 1:
				for flag.LoadVolatile(t, 0) == 0 {
				}
				t.ThreadFenceBlock()
				out.Store(t, 0, data.Load(t, 0))
			}
		}))
		if got := out.ToHost()[0]; got != 42 {
			t.Errorf("%v: out = %d, want 42", o, got)
		}
	}
}

// Lanes that match set a volatile `found` flag; the block reads it after a
// barrier. Two volatile writes never race.
func TestNoRaceVolatileFoundFlagWithinWarp(t *testing.T) {
	t.Parallel()
	for _, o := range scheduleOpts() {
		dev := sim.NewDevice(sim.H100)
		out := mustAlloc[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(1, 32, o), func(t *sim.Thread) {
			found := sim.SharedVar[int32](t, "found")
			if t.ThreadIdx.X == 0 {
				found.StoreVolatile(t, 0, 0)
			}
			t.SyncThreads()
			if (t.ThreadIdx.X+1)%5 == 0 {
				found.StoreVolatile(t, 0, 1)
			}
			t.SyncThreads()
			if t.ThreadIdx.X == 0 {
				out.Store(t, 0, found.Load(t, 0))
			}
		}))
		if got := out.ToHost()[0]; got != 1 {
			t.Errorf("%v: out = %d, want 1", o, got)
		}
	}
}

// volatilePeekThenAtomicLoad: lane 0 reads a shared element through a
// volatile pointer, then with an atomic_ref load, and goes on; lane 1 then
// writes the element through a volatile pointer, with a __syncwarp before
// the write if syncWarp. The atomic load is no volatile read, so lane 0
// has moved on from its volatile read: unordered, that read and lane 1's
// write are the warp-synchronous pattern gpusim reports.
func volatilePeekThenAtomicLoad(out *sim.Buffer[int32], syncWarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.SharedVar[int32](t, "s")
		if t.ThreadIdx.X == 0 {
			s.StoreVolatile(t, 0, 1)
		}
		t.SyncThreads()
		if t.ThreadIdx.X == 0 {
			v := s.LoadVolatile(t, 0) //@peekVolatile
			v += sim.NewAtomicRef(s, 0, sim.ThreadScopeBlock).Load(t, sim.MemoryOrderRelaxed)
			out.Store(t, 0, v)
		}
		if syncWarp {
			t.SyncWarp(0x3)
		}
		if t.ThreadIdx.X == 1 {
			s.StoreVolatile(t, 0, 7) //@setVolatile
		}
	}
}

// The lane's own atomic load used to replace its volatile read in the
// shadow's read slot, and lane 1's write then raced with neither (found by
// the differential fuzzer): a strong read stands in for an earlier one only
// where it conflicts with every write that one does.
func TestRaceVolatileReadThenOwnAtomicLoadWarpMateWrites(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), volatilePeekThenAtomicLoad(out, false))
	f := wantRace(t, r, sim.SharedSpace, "s", at(t, "peekVolatile"), at(t, "setVolatile"))
	if !strings.Contains(f.Detail, "__syncwarp") {
		t.Errorf("want the detail to name __syncwarp:\n%v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

func TestNoRaceVolatileReadThenOwnAtomicLoadSyncWarp(t *testing.T) {
	t.Parallel()
	for _, o := range scheduleOpts() {
		dev := sim.NewDevice(sim.H100)
		out := mustAlloc[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(1, 2, o), volatilePeekThenAtomicLoad(out, true)))
		if got := out.ToHost()[0]; got != 2 {
			t.Errorf("%v: out = %d, want 2", o, got)
		}
	}
}

// volatileReadsBothSlots: lane 1 reads a shared element through a volatile
// pointer, lane 0 then does too (the element's two read slots hold both
// reads), lane 1 reads it again with an atomic_ref load and exits, and
// lane 0 writes it through a volatile pointer, with a __syncwarp of both
// lanes before the write if syncWarp. The __nanosleep calls hand the lanes
// over in that order in the natural schedule.
func volatileReadsBothSlots(out *sim.Buffer[int32], syncWarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.SharedVar[int32](t, "s")
		if t.ThreadIdx.X == 0 {
			s.StoreVolatile(t, 0, 1)
		}
		t.SyncThreads()
		if t.ThreadIdx.X == 0 {
			t.Nanosleep(10)
			v := s.LoadVolatile(t, 0)
			t.Nanosleep(10)
			if syncWarp {
				t.SyncWarp(0x3)
			}
			s.StoreVolatile(t, 0, v+6) //@bothSlotsWrite
			return
		}
		v := s.LoadVolatile(t, 0) //@bothSlotsRead
		t.Nanosleep(10)
		v += sim.NewAtomicRef(s, 0, sim.ThreadScopeBlock).Load(t, sim.MemoryOrderRelaxed)
		out.Store(t, 0, v)
		if syncWarp {
			t.SyncWarp(0x3)
		}
	}
}

// With both read slots taken, lane 1's atomic load used to replace its
// own volatile read, and lane 0's write then raced with neither; now the
// volatile read, made in the same synchronisation state and conflicting
// with every write the load does, stands in for the load.
func TestRaceVolatileReadThenOwnAtomicLoadBothSlotsTaken(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), volatileReadsBothSlots(out, false))
	wantRace(t, r, sim.SharedSpace, "s", at(t, "bothSlotsRead"), at(t, "bothSlotsWrite"))
	onlyKinds(t, r, sim.DataRace)
}

func TestNoRaceVolatileReadThenOwnAtomicLoadBothSlotsTakenSyncWarp(t *testing.T) {
	t.Parallel()
	for _, o := range scheduleOpts() {
		dev := sim.NewDevice(sim.H100)
		out := mustAlloc[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(1, 2, o), volatileReadsBothSlots(out, true)))
	}
}
