package sim_test

// Warp collectives and memory: only __syncwarp (bar.warp.sync) orders the
// lanes' memory accesses; shfl, vote, match and redux do not (PTX ISA), so
// a shared-memory hazard that only they separate is a race, as
// compute-sanitizer's racecheck reports it. Collectives whose mask names
// lanes that have exited or do not exist are legal; reading a value from
// such a lane is an InvalidShuffle finding and the launch runs on. And the
// warp reductions (__reduce_*_sync) and __match_all_sync.

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// handOff: lane 0 writes s[0], then the warp meets in collective coll
// (and, with syncwarp, in a __syncwarp after it); lane 31 then reads s[0].
func handOff(out *sim.Buffer[int32], coll string, syncwarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 1)
		lane := t.LaneID()
		if lane == 0 {
			s.Store(t, 0, 7) //@handW
		}
		v := int32(lane)
		switch coll {
		case "shfl":
			v = sim.ShflSync(t, sim.FullMask, v, 0)
		case "shfl_down":
			v = sim.ShflDownSync(t, sim.FullMask, v, 1)
		case "ballot":
			v = int32(t.BallotSync(sim.FullMask, lane == 0))
		case "any":
			v = b2i(t.AnySync(sim.FullMask, lane == 0))
		case "all":
			v = b2i(t.AllSync(sim.FullMask, true))
		case "match_any":
			v = int32(sim.MatchAnySync(t, sim.FullMask, int32(lane%2)))
		case "match_all":
			m, _ := sim.MatchAllSync(t, sim.FullMask, int32(1))
			v = int32(m)
		case "reduce_add":
			v = sim.ReduceAddSync(t, sim.FullMask, v)
		}
		if syncwarp {
			t.SyncWarp(sim.FullMask)
		}
		if lane == 31 {
			out.Store(t, 0, s.Load(t, 0)+v-v) //@handR
		}
	}
}

var handOffColls = []string{"shfl", "shfl_down", "ballot", "any", "all", "match_any", "match_all", "reduce_add"}

func TestRaceOrderedOnlyByWarpCollective(t *testing.T) {
	t.Parallel()
	for _, coll := range handOffColls {
		t.Run(coll, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 1)
			r := exec(t, dev, lin(1, 32), handOff(out, coll, false))
			f := wantRace(t, r, sim.SharedSpace, "s", at(t, "handW"), at(t, "handR"))
			if f.Current.Thread.X != 31 || f.Previous.Thread.X != 0 {
				t.Errorf("race between %v and %v, want lanes 31 and 0", f.Current.Thread, f.Previous.Thread)
			}
			onlyKinds(t, r, sim.DataRace)
		})
	}
}

func TestNoRaceWarpCollectiveThenSyncWarp(t *testing.T) {
	t.Parallel()
	for _, coll := range handOffColls {
		t.Run(coll, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 1)
			wantClean(t, exec(t, dev, lin(1, 32), handOff(out, coll, true)))
			if got := out.ToHost()[0]; got != 7 {
				t.Fatalf("lane 31 read %d, want 7", got)
			}
		})
	}
}

// The warp-synchronous tail of a shuffle reduction that also stages the
// warp's partials in shared memory: each warp's lane 0 writes its partial,
// and warp 0 reads them after a shuffle reduction, which orders nothing
// between warps or lanes; the fix is the __syncthreads NVIDIA's samples have.
func stagedPartials(out *sim.Buffer[int32], barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "partials", 2)
		tid, lane := t.ThreadIdx.X, t.LaneID()
		v := sim.ReduceAddSync(t, sim.FullMask, int32(tid))
		if lane == 0 {
			s.Store(t, t.WarpID(), v) //@stageW
		}
		v = sim.ShflSync(t, sim.FullMask, v, 0)
		if barrier {
			t.SyncThreads()
		}
		if tid == 1 {
			out.Store(t, 0, s.Load(t, 0)+v-v) //@stageR
		}
	}
}

func TestRacePartialsReadAfterShuffleOnly(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), stagedPartials(out, false))
	wantRace(t, r, sim.SharedSpace, "partials", at(t, "stageW"), at(t, "stageR"))
}

func TestNoRacePartialsReadAfterBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 64), stagedPartials(out, true)))
	if got := out.ToHost()[0]; got != 31*32/2 {
		t.Fatalf("out = %d, want %d", got, 31*32/2)
	}
}

// Collectives whose mask names lanes that have exited (a guard return) or
// do not exist (a partial last warp): legal, over the lanes that take part.
func TestNoRaceCollectivesOverExitedAndAbsentLanes(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(3), random(4)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[uint32](t, dev, "out", 8)
		// 40 threads: warp 1 has lanes 0-7; lanes 20-31 of warp 0 return.
		wantClean(t, exec(t, dev, lin(1, 40, opts), func(t *sim.Thread) {
			tid := t.ThreadIdx.X
			if tid >= 20 && tid < 32 {
				return
			}
			b := t.BallotSync(sim.FullMask, tid%2 == 0)
			sum := sim.ReduceAddSync(t, sim.FullMask, uint32(tid))
			m, same := sim.MatchAllSync(t, sim.FullMask, uint32(t.WarpID()))
			t.SyncWarp(sim.FullMask)
			if t.LaneID() == 0 {
				w := 4 * t.WarpID()
				out.Store(t, w, b)
				out.Store(t, w+1, sum)
				out.Store(t, w+2, m)
				out.Store(t, w+3, uint32(b2i(same)))
			}
		}))
		got := out.ToHost()
		want := []uint32{0x55555 & (1<<20 - 1), 19 * 20 / 2, 1<<20 - 1, 1, 0x55, 32*8 + 7*8/2, 0xff, 1}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v: got %#x, want %#x", opts.Schedule(), got, want)
		}
	}
}

// Reading a value from a lane that does not exist: a finding, the reader
// gets its own value, and the launch runs to the end.
func TestInvalidShuffleReadsAbsentLane(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 20)
	r := exec(t, dev, lin(1, 20), func(t *sim.Thread) {
		lane := t.LaneID()
		v := sim.ShflDownSync(t, sim.FullMask, int32(100+lane), 8) //@absentSrc
		out.Store(t, lane, v)
	})
	f := wantKind(t, r, sim.InvalidShuffle)
	if r.Aborted || f.Current.Site != at(t, "absentSrc") || !strings.Contains(f.Detail, "does not exist") {
		t.Errorf("aborted=%v finding %v, want a non-fatal finding at %s", r.Aborted, f, at(t, "absentSrc"))
	}
	onlyKinds(t, r, sim.InvalidShuffle)
	got := out.ToHost()
	if got[0] != 108 || got[11] != 119 || got[12] != 112 || got[19] != 119 {
		t.Errorf("out = %v: lanes 0-11 read lane+8, lanes 12-19 their own value", got)
	}
}

// __reduce_*_sync over every operation, signed and unsigned, on a sub-mask.
func TestNoRaceReduceSyncOperations(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 8*32)
	vals := []int32{5, -3, 12, math.MinInt32, 7, -1, 0, 9}
	const mask = 0x0f0f00ff // lanes 0-7, 16-19, 24-27
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		if mask&(1<<l) == 0 {
			return
		}
		v := vals[l%8]
		out.Store(t, l, sim.ReduceAddSync(t, mask, v))
		out.Store(t, 32+l, sim.ReduceMinSync(t, mask, v))
		out.Store(t, 64+l, sim.ReduceMaxSync(t, mask, v))
		out.Store(t, 96+l, int32(sim.ReduceMinSync(t, mask, uint32(v))))
		out.Store(t, 128+l, int32(sim.ReduceMaxSync(t, mask, uint32(v))))
		out.Store(t, 160+l, int32(sim.ReduceAndSync(t, mask, uint32(v))))
		out.Store(t, 192+l, int32(sim.ReduceOrSync(t, mask, uint32(v))))
		out.Store(t, 224+l, int32(sim.ReduceXorSync(t, mask, uint32(v))))
	}))
	var add int32
	mn, mx := int32(math.MaxInt32), int32(math.MinInt32)
	umn, umx := uint32(math.MaxUint32), uint32(0)
	and, or, xor := ^uint32(0), uint32(0), uint32(0)
	for l := 0; l < 32; l++ {
		if mask&(1<<l) == 0 {
			continue
		}
		v := vals[l%8]
		add += v
		mn, mx = min(mn, v), max(mx, v)
		umn, umx = min(umn, uint32(v)), max(umx, uint32(v))
		and, or, xor = and&uint32(v), or|uint32(v), xor^uint32(v)
	}
	want := []int32{add, mn, mx, int32(umn), int32(umx), int32(and), int32(or), int32(xor)}
	got := out.ToHost()
	for k, w := range want {
		for l := 0; l < 32; l++ {
			if mask&(1<<l) != 0 && got[32*k+l] != w {
				t.Fatalf("operation %d lane %d: %d, want %d", k, l, got[32*k+l], w)
			}
		}
	}
}

func TestNoRaceMatchAllSync(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 4)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		m1, p1 := sim.MatchAllSync(t, sim.FullMask, float32(2.5))
		m2, p2 := sim.MatchAllSync(t, sim.FullMask, float32(l/31))
		if l == 0 {
			out.Store(t, 0, m1)
			out.Store(t, 1, uint32(b2i(p1)))
			out.Store(t, 2, m2)
			out.Store(t, 3, uint32(b2i(p2)))
		}
	}))
	if got := out.ToHost(); fmt.Sprint(got) != fmt.Sprint([]uint32{sim.FullMask, 1, 0, 0}) {
		t.Fatalf("match_all = %#x", got)
	}
}

// Every warp divergence the simulator reports ends the launch, and
// Kind.Fatal says so, as the package doc does.
func TestWarpDivergenceIsFatal(t *testing.T) {
	t.Parallel()
	if !sim.WarpDivergence.Fatal() {
		t.Error("WarpDivergence.Fatal() = false, but a warp divergence aborts the launch")
	}
	for name, k := range map[string]sim.Kernel{
		"different collectives": func(t *sim.Thread) {
			if t.LaneID() < 16 {
				sim.ShflDownSync(t, sim.FullMask, int32(1), 1)
			} else {
				t.BallotSync(sim.FullMask, true)
			}
		},
		"mask without the caller": func(t *sim.Thread) {
			t.SyncWarp(0x0000ffff)
		},
	} {
		r := exec(t, sim.NewDevice(sim.H100), lin(1, 32), k)
		f := wantKind(t, r, sim.WarpDivergence)
		if !r.Aborted || !f.Kind.Fatal() {
			t.Errorf("%s: aborted=%v, Fatal()=%v; want both", name, r.Aborted, f.Kind.Fatal())
		}
	}
}
