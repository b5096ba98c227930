package sim_test

// Which reads the shadow keeps: a cell holds two reads besides its write,
// and when a third unordered read comes, the one from nearest the reader
// (its warp, then its block) gives way. A later write by a thread near the
// readers is ordered with the near ones by a __syncwarp or a barrier; the
// far ones (other warps, other blocks) are what it may race with.

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// lastBlockRewrites: every thread reads the parameter p[0]; after a
// barrier, thread 0 of the last block rewrites it. The barrier orders only
// the last block's reads: the other blocks' race with the write (on a GPU
// they may run after it, or beside it).
func lastBlockRewrites(p, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		v := p.Load(t, 0) //@paramRead
		if i := t.GlobalX(); i < n {
			out.Store(t, i, 2*v)
		}
		t.SyncThreads()
		if t.BlockIdx.X == t.GridDim.X-1 && t.ThreadIdx.X == 0 {
			p.Store(t, 0, v+1) //@paramWrite
		}
	}
}

// bumpParam is the correct form's second kernel: the launch boundary
// orders every read of the first before it.
func bumpParam(p *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		if t.GlobalX() == 0 {
			p.Store(t, 0, p.Load(t, 0)+1)
		}
	}
}

// eachSchedule runs f as a subtest under each of schedules().
func eachSchedule(t *testing.T, f func(t *testing.T, o sim.Options)) {
	t.Helper()
	for name, o := range schedules() {
		t.Run(name, func(t *testing.T) { f(t, o) })
	}
}

func schedules() map[string]sim.Options {
	out := map[string]sim.Options{
		"natural":   {},
		"workers 2": sim.Options{}.WithWorkers(2),
	}
	for seed := uint64(1); seed <= 3; seed++ {
		out[fmt.Sprint("random ", seed)] = random(seed)
	}
	return out
}

func TestRaceLastBlockRewritesParameter(t *testing.T) {
	t.Parallel()
	for name, o := range schedules() {
		for _, shape := range [][2]int{{2, 32}, {4, 64}, {16, 128}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, shape[0], shape[1]), func(t *testing.T) {
				dev := sim.NewDevice(sim.H100)
				n := shape[0] * shape[1]
				p := host(t, dev, "p", []float32{3})
				out := zeroed[float32](t, dev, "out", n)
				r := exec(t, dev, lin(shape[0], shape[1], o), lastBlockRewrites(p, out, n))
				f := wantRace(t, r, sim.GlobalSpace, "p", at(t, "paramRead"), at(t, "paramWrite"))
				if f.Current.Block == f.Previous.Block {
					t.Errorf("the race reported is within a block, which the barrier orders:\n%v", f)
				}
				onlyKinds(t, r, sim.DataRace)
			})
		}
	}
}

func TestNoRaceParameterRewrittenByNextLaunch(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		const grid, block = 16, 128
		p := host(t, dev, "p", []float32{3})
		out := zeroed[float32](t, dev, "out", grid*block)
		// The first kernel without its rewrite: every block only reads.
		wantClean(t, exec(t, dev, lin(grid, block, o), func(t *sim.Thread) {
			out.Store(t, t.GlobalX(), 2*p.Load(t, 0))
		}))
		wantClean(t, exec(t, dev, lin(1, 1, o), bumpParam(p)))
		if got := p.ToHost()[0]; got != 4 {
			t.Fatalf("p[0] = %v, want 4", got)
		}
	})
}

// warpRewrites: 64 threads read s[0] (set before a barrier); the last
// thread rewrites it after sync: a __syncwarp orders only its own warp's
// reads, and warp 0's race with the write; a __syncthreads orders all.
func warpRewrites(out *sim.Buffer[int32], block bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 1)
		if t.ThreadIdx.X == 0 {
			s.Store(t, 0, 7)
		}
		t.SyncThreads()
		v := s.Load(t, 0) //@warpRead
		if block {
			t.SyncThreads()
		} else {
			t.SyncWarp(sim.FullMask)
		}
		if t.ThreadIdx.X == t.BlockDim.X-1 {
			s.Store(t, 0, v+1) //@warpWrite
		}
		out.Store(t, t.ThreadIdx.X, v)
	}
}

func TestRaceSharedRewriteAfterSyncWarpOnly(t *testing.T) {
	t.Parallel()
	for name, o := range schedules() {
		for _, block := range []int{64, 256} {
			t.Run(fmt.Sprint(name, "/", block), func(t *testing.T) {
				dev := sim.NewDevice(sim.H100)
				out := zeroed[int32](t, dev, "out", block)
				r := exec(t, dev, lin(1, block, o), warpRewrites(out, false))
				f := wantRace(t, r, sim.SharedSpace, "s", at(t, "warpRead"), at(t, "warpWrite"))
				if f.Current.Thread.X/32 == f.Previous.Thread.X/32 {
					t.Errorf("the race reported is within a warp, which __syncwarp orders:\n%v", f)
				}
				onlyKinds(t, r, sim.DataRace)
			})
		}
	}
}

func TestNoRaceSharedRewriteAfterSyncThreads(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 256)
		wantClean(t, exec(t, dev, lin(1, 256, o), warpRewrites(out, true)))
	})
}

// readsThenAdd: block 0's thread reads c plainly, with a volatile load,
// and again plainly (or, if !plainLast, with a volatile load); block 1's
// thread then reads c plainly and adds to it atomically. Block 0's last
// plain read and block 1's atomicAdd are unordered: a race. Block 0's
// three reads used to fill both read slots (its volatile read kept beside
// its plain reads), and block 1's read pushed the last plain one out; a
// thread's plain read now stands in for its own earlier reads.
func readsThenAdd(c, out *sim.Buffer[int32], plainLast bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			v := c.Load(t, 0)
			v += c.LoadVolatile(t, 0)
			if plainLast {
				v += c.Load(t, 0) //@ownReadsLast
			} else {
				v += c.LoadVolatile(t, 0)
			}
			out.Store(t, 0, v)
			return
		}
		out.Store(t, 1, c.Load(t, 0))
		sim.AtomicAdd(t, c, 0, 1) //@ownReadsAdd
	}
}

func TestRaceOwnReadsFillSlotsOtherBlockAdds(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "c", 1)
	out := zeroed[int32](t, dev, "out", 2)
	r := exec(t, dev, lin(2, 1), readsThenAdd(c, out, true))
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "ownReadsLast"), at(t, "ownReadsAdd"))
	onlyKinds(t, r, sim.DataRace)
}

// The correct form: block 0 reads with volatile loads only, strong and
// morally strong with block 1's atomicAdd.
func TestNoRaceOwnVolatileReadsOtherBlockAdds(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		c := zeroed[int32](t, dev, "c", 1)
		out := zeroed[int32](t, dev, "out", 2)
		wantClean(t, exec(t, dev, lin(2, 1, o), func(t *sim.Thread) {
			if t.BlockIdx.X == 0 {
				out.Store(t, 0, c.LoadVolatile(t, 0)+c.LoadVolatile(t, 0))
				return
			}
			out.Store(t, 1, c.LoadVolatile(t, 0))
			sim.AtomicAdd(t, c, 0, 1)
		}))
	})
}

// thirdReaderDisplacesOlder: three lanes of a warp read c with volatile
// loads (the slots keep lanes 0 and 2); lane 0 then reads it again,
// plainly (or, if !plain, with a volatile load), and lane 1 reads it
// plainly and stores it at device scope. The __nanosleep calls hand the
// lanes over in that order in the natural schedule. Lane 0's plain read
// and lane 1's store are unordered: a race. Lane 0's read replaced its
// own volatile read in place, ahead of lane 2's older one, and lane 1's
// read, the third, displaced it as if it were the older.
func thirdReaderDisplacesOlder(c, out *sim.Buffer[int32], plain bool) sim.Kernel {
	return func(t *sim.Thread) {
		v := c.LoadVolatile(t, 0)
		t.Nanosleep(10)
		switch t.ThreadIdx.X {
		case 0:
			if plain {
				v += c.Load(t, 0) //@olderRead
			} else {
				v += c.LoadVolatile(t, 0)
			}
		case 1:
			t.Nanosleep(10)
			v += c.Load(t, 0)
			sim.NewAtomicRef(c, 0, sim.ThreadScopeDevice).Store(t, v, sim.MemoryOrderRelaxed) //@olderStore
		}
		out.Store(t, t.ThreadIdx.X, v)
	}
}

func TestRaceThirdReaderDisplacesOlderRead(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "c", 1)
	out := zeroed[int32](t, dev, "out", 3)
	r := exec(t, dev, lin(1, 3), thirdReaderDisplacesOlder(c, out, true))
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "olderRead"), at(t, "olderStore"))
	onlyKinds(t, r, sim.DataRace)
}

func TestNoRaceThirdReaderAllStrong(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		c := zeroed[int32](t, dev, "c", 1)
		out := zeroed[int32](t, dev, "out", 3)
		wantClean(t, exec(t, dev, lin(1, 3, o), thirdReaderDisplacesOlder(c, out, false)))
	})
}
