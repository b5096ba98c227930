package sim_test

// A second outsider suite: dynamic and multiple shared arrays, 2-D/3-D
// shapes and warp membership, barrier votes, shuffles with widths, ballots
// and matches under divergence, atomic semantics, state carried across
// launches, determinism and panics. Source lines are found through "//@name"
// markers in this file (at2).

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

var unseen2Src struct {
	once  sync.Once
	lines []string
	err   error
}

// at2 returns the site ("sim/unseen2_test.go:N") of the line marked //@name.
func at2(t *testing.T, name string) string {
	t.Helper()
	unseen2Src.once.Do(func() {
		b, err := os.ReadFile("unseen2_test.go")
		unseen2Src.lines, unseen2Src.err = strings.Split(string(b), "\n"), err
	})
	if unseen2Src.err != nil {
		t.Fatal(unseen2Src.err)
	}
	found := ""
	for i, l := range unseen2Src.lines {
		k := strings.LastIndex(l, "//@")
		if k < 0 || strings.TrimSpace(l[k+3:]) != name {
			continue
		}
		if found != "" {
			t.Fatalf("marker //@%s appears twice", name)
		}
		found = fmt.Sprintf("sim/unseen2_test.go:%d", i+1)
	}
	if found == "" {
		t.Fatalf("no marker //@%s", name)
	}
	return found
}

func d3(x, y, z int) sim.Dim3 { return sim.Dim3{X: x, Y: y, Z: z} }

// ---------------------------------------------------------------------------
// dynamic shared memory

func TestDyn2SharedLengthFromBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 2)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim(1), SharedBytes: 100}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		out.Store(t, 0, int32(sim.DynamicShared[float64](t, "d").Len()))
		out.Store(t, 1, int32(sim.DynamicShared[float64](t, "d").Len()))
	}))
	if got := out.ToHost(); got[0] != 12 || got[1] != 12 {
		t.Fatalf("len = %v, want 100/8 = 12", got)
	}
}

func TestDyn2SharedOutOfBoundsPastBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(64), SharedBytes: 63 * 4}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		s := sim.DynamicShared[int32](t, "dyn")
		s.Store(t, t.ThreadIdx.X, 1) //@dynOOB
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Memory != "dyn" || f.Space != sim.SharedSpace || f.Index != 63 ||
		f.Current.Thread != d3(63, 0, 0) || f.Current.Block != d3(0, 0, 0) || f.Current.Site != at2(t, "dynOOB") {
		t.Errorf("finding %+v, want dyn[63] by block 0 thread 63 at %s", f, at2(t, "dynOOB"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
}

func TestDyn2SharedNegativeIndexAndZeroBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32)}, func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "none")
		if t.ThreadIdx.X == 7 {
			s.Store(t, 0, 1) //@dynZero
		}
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "none" || f.Current.Thread.X != 7 || f.Current.Site != at2(t, "dynZero") {
		t.Errorf("finding %+v", f)
	}
	r = exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: 128}, func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "neg")
		_ = s.Load(t, t.ThreadIdx.X-1) //@dynNeg
	})
	f = wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "neg" || f.Index != -1 || f.Current.Thread.X != 0 || f.Current.Site != at2(t, "dynNeg") {
		t.Errorf("finding %+v, want neg[-1] by thread 0", f)
	}
}

func TestDyn2SharedOverLimitRefused(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	ran := false
	err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: sim.H100.SharedPerBlockOptin + 4},
		func(t *sim.Thread) { ran = true })
	var le *sim.LaunchError
	if !errors.As(err, &le) || ran {
		t.Fatalf("err = %v (ran %v), want a LaunchError before anything runs", err, ran)
	}
}

// Static arrays and the dynamic array are distinct memories: a race on one
// is reported under its own name only.
func TestRace2OnlyTheRacyOfSeveralSharedArrays(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(64), SharedBytes: 64 * 4}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		a := sim.Shared[int32](t, "a", 64)
		b := sim.Shared[int32](t, "b", 64)
		d := sim.DynamicShared[int32](t, "d")
		i := t.ThreadIdx.X
		a.Store(t, i, int32(i))
		d.Store(t, i, int32(2*i))
		b.Store(t, i, int32(3*i)) //@sevW
		t.SyncThreads()
		v := a.Load(t, 63-i) + d.Load(t, 63-i)
		// lanes 2k and 2k+1 collide
		b.Store(t, i/2, v) //@sevW2
		if t.BlockIdx.X == 0 {
			out.Store(t, i, v)
		}
	})
	wantRace(t, r, sim.SharedSpace, "b", at2(t, "sevW2"), at2(t, "sevW2"))
	for _, f := range r.Findings {
		if f.Memory != "b" || f.Kind != sim.DataRace {
			t.Errorf("unexpected finding %v", f)
		}
	}
	for i, v := range out.ToHost() {
		if v != int32(3*(63-i)) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 3*(63-i))
		}
	}
}

// Blocks that reuse the same static shared array (one after another, and
// concurrently admitted) must not race with each other.
func TestNoRace2SharedReusedByManyBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const G, B = 6, 64
	out := zeroed[int32](t, dev, "out", G*B)
	for _, o := range []sim.Options{{}, random(3)} {
		wantClean(t, exec(t, dev, lin(G, B, o), func(t *sim.Thread) {
			s := sim.Shared[int32](t, "tile", B)
			u := sim.Shared[int32](t, "aux", 1)
			i := t.ThreadIdx.X
			s.Store(t, i, int32(t.GlobalX()))
			if i == 0 {
				u.Store(t, 0, int32(t.BlockIdx.X))
			}
			t.SyncThreads()
			out.Store(t, t.GlobalX(), s.Load(t, (i+1)%B)+1000*u.Load(t, 0))
		}))
		for g, v := range out.ToHost() {
			b, i := g/B, g%B
			if v != int32(b*B+(i+1)%B+1000*b) {
				t.Fatalf("out[%d] = %d", g, v)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 2-D and 3-D shapes: warps are formed from the linear thread index

func crossRow(out *sim.Buffer[int32], wx, wy, rx, ry int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 1)
		x, y := t.ThreadIdx.X, t.ThreadIdx.Y
		if x == wx && y == wy {
			s.Store(t, 0, 42) //@rowW
		}
		t.SyncWarp(sim.FullMask)
		if x == rx && y == ry {
			out.Store(t, 0, s.Load(t, 0)) //@rowR
		}
	}
}

func TestNoRace2Block32x2SameWarpRow(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(32, 2)}
	wantClean(t, exec(t, dev, cfg, crossRow(out, 0, 0, 31, 0)))
	if out.ToHost()[0] != 42 {
		t.Fatal("wrong value")
	}
}

func TestRace2Block32x2AcrossWarps(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(32, 2)}
	r := exec(t, dev, cfg, crossRow(out, 0, 1, 31, 0))
	f := wantRace(t, r, sim.SharedSpace, "s", at2(t, "rowW"), at2(t, "rowR"))
	th := map[sim.Dim3]bool{f.Current.Thread: true, f.Previous.Thread: true}
	if !th[d3(0, 1, 0)] || !th[d3(31, 0, 0)] {
		t.Errorf("race between %v and %v, want (0,1,0) and (31,0,0)", f.Current.Thread, f.Previous.Thread)
	}
}

// A 16x4 block: rows 0-1 are warp 0, rows 2-3 warp 1. SyncWarp orders (15,1)
// after (0,0) but not (0,2).
func TestRace2Block16x4WarpBoundaryAtRow2(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(16, 4)}
	wantClean(t, exec(t, dev, cfg, crossRow(out, 0, 0, 15, 1)))
	r := exec(t, dev, cfg, crossRow(out, 15, 1, 0, 2))
	wantRace(t, r, sim.SharedSpace, "s", at2(t, "rowW"), at2(t, "rowR"))
}

func TestNoRace2LaneWarpIn3DBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const X, Y, Z = 8, 4, 3
	out := zeroed[int32](t, dev, "out", 3*X*Y*Z*2)
	cfg := sim.Config{Grid: d3(1, 2, 1), Block: d3(X, Y, Z)}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		i := 3 * (t.BlockIdx.Y*X*Y*Z + t.LinearThreadIdx())
		out.Store(t, i, int32(t.LaneID()))
		out.Store(t, i+1, int32(t.WarpID()))
		out.Store(t, i+2, int32(t.BallotSync(sim.FullMask, true)))
	}))
	got := out.ToHost()
	for b := 0; b < 2; b++ {
		for tid := 0; tid < X*Y*Z; tid++ {
			i := 3 * (b*X*Y*Z + tid)
			if got[i] != int32(tid%32) || got[i+1] != int32(tid/32) || uint32(got[i+2]) != sim.FullMask {
				t.Fatalf("block %d tid %d: lane %d warp %d ballot %#x", b, tid, got[i], got[i+1], uint32(got[i+2]))
			}
		}
	}
}

// A partial last warp in a 3-D block: 5x5x2 = 50 threads, warp 1 holds 18
// lanes; a full-mask ballot there names lanes that do not exist.
func TestRace2FullMaskInPartialWarpOf3DBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 2)
	cfg := sim.Config{Grid: sim.Dim(1), Block: d3(5, 5, 2)}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		m := uint32(1<<18 - 1)
		if t.WarpID() == 0 {
			m = sim.FullMask
		}
		b := t.BallotSync(m, t.ThreadIdx.Z == 1)
		if t.LaneID() == 0 {
			out.Store(t, t.WarpID(), b)
		}
	}))
	// tid = x + 5y + 25z; z==1 <=> tid >= 25: warp 0 lanes 25..31, warp 1 all 18.
	if got := out.ToHost(); got[0] != 0xfe000000 || got[1] != 1<<18-1 {
		t.Fatalf("ballots = %#x", got)
	}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		_ = t.BallotSync(sim.FullMask, true) //@partialBallot
	})
	f := wantKind(t, r, sim.WarpDivergence)
	if f.Current.Site != at2(t, "partialBallot") {
		t.Errorf("finding %+v", f)
	}
}

func TestRace2Grid2DBlocksWriteSameCell(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	img := zeroed[float32](t, dev, "img", 8*8)
	cfg := sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(4, 4)}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		x, y := t.GlobalX(), t.GlobalY()
		img.Store(t, y*8+x, 1)
		if t.BlockIdx == d3(1, 0, 0) && t.ThreadIdx == d3(0, 0, 0) {
			img.Store(t, 4*8+0, 2) // block (0,1)'s first cell //@g2Stray
		}
	})
	f := wantKind(t, r, sim.DataRace)
	bl := map[sim.Dim3]bool{f.Current.Block: true, f.Previous.Block: true}
	if f.Memory != "img" || f.Index != 32 || !bl[d3(1, 0, 0)] || !bl[d3(0, 1, 0)] {
		t.Errorf("finding %+v, want img[32] between blocks (1,0,0) and (0,1,0)", f)
	}
	if f.Current.Site != at2(t, "g2Stray") && f.Previous.Site != at2(t, "g2Stray") {
		t.Errorf("finding %+v does not name the stray store", f)
	}
}

// ---------------------------------------------------------------------------
// SyncThreadsCount/And/Or

func TestNoRace2BarrierVotesPerPhase(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const B = 96
	out := zeroed[int32](t, dev, "out", 3*5)
	wantClean(t, exec(t, dev, lin(1, B), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", B)
		i := t.ThreadIdx.X
		for k := 0; k < 5; k++ {
			s.Store(t, i, int32(i*k))
			c := t.SyncThreadsCount(i < 10*k+1)
			// the vote barrier orders the store above before the load
			and := t.SyncThreadsAnd(s.Load(t, (i+1)%B) >= 0 && k != 2)
			or := t.SyncThreadsOr(i == 95 && k == 3)
			if i == 50 {
				out.Store(t, 3*k, int32(c))
				out.Store(t, 3*k+1, b2i(and))
				out.Store(t, 3*k+2, b2i(or))
			}
		}
	}))
	want := []int32{1, 1, 0, 11, 1, 0, 21, 0, 0, 31, 1, 1, 41, 1, 0}
	if got := out.ToHost(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("votes = %v, want %v", got, want)
	}
}

// Threads that exited count as arrived; And over the live threads ignores them.
func TestNoRace2BarrierVotesWithExitedThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 3)
	wantClean(t, exec(t, dev, lin(1, 128), func(t *sim.Thread) {
		i := t.ThreadIdx.X
		if i >= 40 {
			return
		}
		c := t.SyncThreadsCount(true)
		a := t.SyncThreadsAnd(true)
		o := t.SyncThreadsOr(false)
		if i == 0 {
			out.Store(t, 0, int32(c))
			out.Store(t, 1, b2i(a))
			out.Store(t, 2, b2i(o))
		}
	}))
	if got := out.ToHost(); fmt.Sprint(got) != "[40 1 0]" {
		t.Fatalf("count/and/or = %v, want [40 1 0]", got)
	}
}

// Reading another warp's shared write after SyncThreadsOr (a barrier) is
// ordered; reading it after a warp-only ballot is not.
func TestRace2VoteWarpOnlyVersusBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	k := func(block bool) sim.Kernel {
		return func(t *sim.Thread) {
			s := sim.Shared[int32](t, "flags", 64)
			i := t.ThreadIdx.X
			s.Store(t, i, int32(i%5)) //@voteW
			if block {
				t.SyncThreadsOr(i == 0)
			} else {
				t.BallotSync(sim.FullMask, i == 0)
			}
			out.Store(t, i, s.Load(t, 63-i)) //@voteR
		}
	}
	wantClean(t, exec(t, dev, lin(1, 64), k(true)))
	r := exec(t, dev, lin(1, 64), k(false))
	wantRace(t, r, sim.SharedSpace, "flags", at2(t, "voteW"), at2(t, "voteR"))
}

// ---------------------------------------------------------------------------
// shuffles with width < 32

func TestNoRace2ShuffleWidthSegments(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 4*64)
	wantClean(t, exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		l := int32(t.LaneID())
		v := 100*int32(t.WarpID()) + l
		i := t.ThreadIdx.X
		out.Store(t, i, sim.ShflUpSync(t, sim.FullMask, v, 3, 8))
		out.Store(t, 64+i, sim.ShflDownSync(t, sim.FullMask, v, 2, 8))
		out.Store(t, 128+i, sim.ShflXorSync(t, sim.FullMask, v, 5, 4))
		out.Store(t, 192+i, sim.ShflSync(t, sim.FullMask, v, 13, 8)) // 13 % 8 = 5 within each segment
	}))
	got := out.ToHost()
	for i := 0; i < 64; i++ {
		w, l := int32(i/32), i%32
		up := l
		if l%8 >= 3 {
			up = l - 3
		}
		down := l
		if l%8+2 < 8 {
			down = l + 2
		}
		shfl := l/8*8 + 5
		if got[i] != 100*w+int32(up) || got[64+i] != 100*w+int32(down) || got[192+i] != 100*w+int32(shfl) {
			t.Fatalf("thread %d: up %d down %d shfl %d, want %d %d %d", i, got[i], got[64+i], got[192+i],
				100*w+int32(up), 100*w+int32(down), 100*w+int32(shfl))
		}
		// CUDA: xor source lane = l ^ laneMask, and if it lies beyond the
		// segment's end (srcLane >= (l & ~(width-1)) + width) the own value.
		x := l ^ 5
		if x >= l/4*4+4 {
			x = l
		}
		if got[128+i] != 100*w+int32(x) {
			t.Fatalf("thread %d: xor %d, want %d", i, got[128+i], 100*w+int32(x))
		}
	}
}

// ---------------------------------------------------------------------------
// ballot, match, collectives in divergent branches

func TestNoRace2BallotAndMatchAny(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 2*32)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		out.Store(t, l, t.BallotSync(sim.FullMask, l%3 == 1))
		out.Store(t, 32+l, sim.MatchAnySync(t, sim.FullMask, uint64(l%3)<<40))
	}))
	got := out.ToHost()
	var res [3]uint32
	for l := 0; l < 32; l++ {
		res[l%3] |= 1 << l
	}
	for l := 0; l < 32; l++ {
		if got[l] != res[1] || got[32+l] != res[l%3] {
			t.Fatalf("lane %d: ballot %#x match %#x, want %#x %#x", l, got[l], got[32+l], res[1], res[l%3])
		}
	}
}

func TestNoRace2CollectivesInDivergentHalvesWithSubMasks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 3*32)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		v := int32(l)
		var b uint32
		var m uint32
		if l < 16 {
			for d := 8; d > 0; d /= 2 {
				v += sim.ShflDownSync(t, 0x0000ffff, v, d, 16)
			}
			b = t.BallotSync(0x0000ffff, l%2 == 0)
			m = sim.MatchAnySync(t, 0x0000ffff, int32(l/4))
		} else {
			for d := 8; d > 0; d /= 2 {
				v += sim.ShflXorSync(t, 0xffff0000, v, d, 16)
			}
			b = t.BallotSync(0xffff0000, l%2 == 1)
			m = sim.MatchAnySync(t, 0xffff0000, int32(l/8))
		}
		out.Store(t, l, v)
		out.Store(t, 32+l, int32(b))
		out.Store(t, 64+l, int32(m))
	}))
	got := out.ToHost()
	if got[0] != 120 || got[16] != 376 || got[31] != 376 {
		t.Fatalf("sums = %v", got[:32])
	}
	if uint32(got[32]) != 0x5555 || uint32(got[48]) != 0xaaaa0000 {
		t.Fatalf("ballots = %#x %#x", uint32(got[32]), uint32(got[48]))
	}
	if uint32(got[64+5]) != 0xf0 || uint32(got[64+20]) != 0x00ff0000 || uint32(got[64+30]) != 0xff000000 {
		t.Fatalf("matches = %#x %#x %#x", uint32(got[64+5]), uint32(got[64+20]), uint32(got[64+30]))
	}
}

func TestRace2BallotFullMaskInsideDivergentBranch(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		if l < 16 {
			out.Store(t, l, t.BallotSync(sim.FullMask, true)) //@wrongMask
		}
	})
	f := wantKind(t, r, sim.WarpDivergence)
	if f.Current.Site != at2(t, "wrongMask") && f.Previous.Site != at2(t, "wrongMask") {
		t.Errorf("finding %+v, want it at %s", f, at2(t, "wrongMask"))
	}
}

// Both halves call a collective with a full mask but at different lines:
// lanes meet in different collectives (not a rendezvous, unlike pre-Volta).
func TestRace2SameCollectiveDifferentBranchesFullMask(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		if l < 16 {
			out.Store(t, l, t.BallotSync(sim.FullMask, true))
		} else {
			out.Store(t, l, uint32(sim.MatchAnySync(t, sim.FullMask, int32(1))))
		}
	})
	wantKind(t, r, sim.WarpDivergence)
}

// ---------------------------------------------------------------------------
// atomics

func TestNoRace2AtomicCASLoopMultiply(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	prod := host(t, dev, "prod", []uint64{1})
	mx := host(t, dev, "max", []int32{math.MinInt32})
	wantClean(t, exec(t, dev, lin(2, 40, random(11)), func(t *sim.Thread) {
		g := t.GlobalX()
		f := uint64(g%3 + 1)
		old := sim.AtomicCAS(t, prod, 0, 0, 0) // read atomically
		for {
			seen := sim.AtomicCAS(t, prod, 0, old, old*f)
			if seen == old {
				break
			}
			old = seen
		}
		v := int32((g*37)%79) - 40
		o := sim.AtomicCAS(t, mx, 0, math.MinInt32, v)
		for o < v {
			s := sim.AtomicCAS(t, mx, 0, o, v)
			if s == o {
				break
			}
			o = s
		}
	}))
	want := uint64(1)
	wmax := int32(math.MinInt32)
	for g := 0; g < 80; g++ {
		want *= uint64(g%3 + 1)
		wmax = max(wmax, int32((g*37)%79)-40)
	}
	if p := prod.ToHost()[0]; p != want {
		t.Fatalf("product = %d, want %d", p, want)
	}
	if m := mx.ToHost()[0]; m != wmax {
		t.Fatalf("max = %d, want %d", m, wmax)
	}
}

func TestNoRace2AtomicIncDecWrap(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 3)
	olds := zeroed[uint32](t, dev, "olds", 100+7)
	c.CopyFromHost([]uint32{0, 0, 50})
	wantClean(t, exec(t, dev, lin(1, 100), func(t *sim.Thread) {
		i := t.ThreadIdx.X
		olds.Store(t, i, sim.AtomicInc(t, c, 0, 9))
		if i < 7 {
			olds.Store(t, 100+i, sim.AtomicDec(t, c, 1, 4))
		}
		if i == 0 {
			sim.AtomicInc(t, c, 2, 9) // old 50 > limit: wraps to 0
		}
	}))
	got := c.ToHost()
	if got[0] != 0 || got[1] != 3 || got[2] != 0 {
		t.Fatalf("counters = %v, want [0 3 0]", got)
	}
	o := olds.ToHost()
	hist := map[uint32]int{}
	for _, v := range o[:100] {
		hist[v]++
	}
	for v := uint32(0); v < 10; v++ {
		if hist[v] != 10 {
			t.Fatalf("AtomicInc olds histogram %v, want each of 0..9 ten times", hist)
		}
	}
	dec := append([]uint32(nil), o[100:]...)
	sort.Slice(dec, func(i, j int) bool { return dec[i] < dec[j] })
	if fmt.Sprint(dec) != "[0 0 1 2 3 4 4]" {
		t.Fatalf("AtomicDec olds %v, want the cycle 0,4,3,2,1,0,4", dec)
	}
}

func TestNoRace2AtomicMinMaxSignedness(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	i32 := host(t, dev, "i32", []int32{0, 0})
	u32 := host(t, dev, "u32", []uint32{math.MaxUint32 / 2, math.MaxUint32 / 2})
	i64 := host(t, dev, "i64", []int64{0, 0})
	u64 := host(t, dev, "u64", []uint64{1 << 40, 1 << 40})
	wantClean(t, exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		g := t.GlobalX()
		v := int32(g) - 40 // -40..23
		sim.AtomicMin(t, i32, 0, v)
		sim.AtomicMax(t, i32, 1, v)
		sim.AtomicMin(t, u32, 0, uint32(v)) // negative values are huge unsigned
		sim.AtomicMax(t, u32, 1, uint32(v))
		sim.AtomicMin(t, i64, 0, int64(v)<<33)
		sim.AtomicMax(t, i64, 1, int64(v)<<33)
		sim.AtomicMin(t, u64, 0, uint64(int64(v)))
		sim.AtomicMax(t, u64, 1, uint64(int64(v)))
	}))
	if g := i32.ToHost(); g[0] != -40 || g[1] != 23 {
		t.Errorf("int32 min/max = %v", g)
	}
	if g := u32.ToHost(); g[0] != 0 || g[1] != math.MaxUint32 {
		t.Errorf("uint32 min/max = %v, want [0 %d]", g, uint32(math.MaxUint32))
	}
	if g := i64.ToHost(); g[0] != -40<<33 || g[1] != 23<<33 {
		t.Errorf("int64 min/max = %v", g)
	}
	if g := u64.ToHost(); g[0] != 0 || g[1] != math.MaxUint64 {
		t.Errorf("uint64 min/max = %v", g)
	}
}

func floatSum(t *testing.T, o sim.Options) (uint32, uint64) {
	dev := sim.NewDevice(sim.H100)
	f := zeroed[float32](t, dev, "f", 1)
	d := zeroed[float64](t, dev, "d", 1)
	wantClean(t, exec(t, dev, lin(4, 64, o), func(t *sim.Thread) {
		g := t.GlobalX()
		x := math.Ldexp(1+float64(g)/7, (g*13)%50-25)
		if g%2 == 1 {
			x = -x
		}
		sim.AtomicAdd(t, f, 0, float32(x))
		sim.AtomicAdd(t, d, 0, x*1e20)
	}))
	return math.Float32bits(f.ToHost()[0]), math.Float64bits(d.ToHost()[0])
}

func TestNoRace2FloatAtomicsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(1), random(99)} {
		a1, b1 := floatSum(t, o)
		a2, b2 := floatSum(t, o)
		if a1 != a2 || b1 != b2 {
			t.Fatalf("seed %d: %#x/%#x vs %#x/%#x", o.Seed(), a1, b1, a2, b2)
		}
	}
}

func TestRace2PlainLoadVersusAtomic(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "c", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			sim.AtomicAdd(t, c, 0, 5) //@atomA
		}
		if t.ThreadIdx.X == 33 {
			out.Store(t, 0, c.Load(t, 0)) //@plainR
		}
	})
	f := wantRace(t, r, sim.GlobalSpace, "c", at2(t, "atomA"), at2(t, "plainR"))
	th := map[int]bool{f.Current.Thread.X: true, f.Previous.Thread.X: true}
	if !th[0] || !th[33] {
		t.Errorf("finding %+v, want threads 0 and 33", f)
	}
}

func TestRace2PlainStoreVersusAtomicAcrossBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	r := exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			if t.BlockIdx.X == 0 {
				sim.AtomicOr(t, c, 0, 1) //@atomOr
			} else {
				c.Store(t, 0, 7) //@plainW
			}
		}
	})
	wantRace(t, r, sim.GlobalSpace, "c", at2(t, "atomOr"), at2(t, "plainW"))
}

func TestNoRace2MixedAtomicsAcrossBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	wantClean(t, exec(t, dev, lin(3, 64, random(5)), func(t *sim.Thread) {
		switch t.BlockIdx.X {
		case 0:
			sim.AtomicAdd(t, c, 0, 1<<8)
		case 1:
			sim.AtomicOr(t, c, 0, 1<<uint(t.ThreadIdx.X%8))
		case 2:
			sim.AtomicSub(t, c, 0, 1<<8)
		}
	}))
	if g := c.ToHost()[0]; g != 0xff {
		t.Fatalf("c = %#x, want 0xff", g)
	}
}

// ---------------------------------------------------------------------------
// state across launches on one device

func TestUninit2StateCarriesAcrossLaunches(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	buf, err := sim.Alloc[int32](dev, "buf", 64)
	if err != nil {
		t.Fatal(err)
	}
	sum := zeroed[int32](t, dev, "sum", 1)
	// launch 1 writes the first half only
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		buf.Store(t, t.ThreadIdx.X, 1)
	}))
	read := func(t *sim.Thread) {
		sim.AtomicAdd(t, sum, 0, buf.Load(t, t.ThreadIdx.X)) //@carryLoad
	}
	r := exec(t, dev, lin(1, 64), read)
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "buf" || f.Index != 32 || f.Count != 32 || f.Current.Site != at2(t, "carryLoad") {
		t.Errorf("finding %+v, want buf[32..63] (32 reads)", f)
	}
	onlyKinds(t, r, sim.UninitializedRead)
	// An element is reported once: the next launch reading the same
	// elements is not reported again (uninitRead marks them).
	wantClean(t, exec(t, dev, lin(1, 64), read))
	// A fresh buffer the host fills partially: CopyFromHost covers a prefix.
	buf2, _ := sim.Alloc[int32](dev, "buf2", 64)
	if err := buf2.CopyFromHost(make([]int32, 40)); err != nil {
		t.Fatal(err)
	}
	read2 := func(t *sim.Thread) { sim.AtomicAdd(t, sum, 0, buf2.Load(t, t.ThreadIdx.X)) }
	r = exec(t, dev, lin(1, 64), read2)
	f = wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "buf2" || f.Index != 40 || f.Count != 24 {
		t.Errorf("after a 40-element copy: finding %+v, want buf2[40..63] (24 reads)", f)
	}
	buf3, _ := sim.Alloc[int32](dev, "buf3", 64)
	if err := buf3.Memset(0); err != nil {
		t.Fatal(err)
	}
	read = func(t *sim.Thread) { sim.AtomicAdd(t, sum, 0, buf3.Load(t, t.ThreadIdx.X)) }
	wantClean(t, exec(t, dev, lin(1, 64), read))
}

// A write in launch 1 by one block and a write/read in launch 2 by another
// block, through shared memory too: ordered by the kernel boundary, and a
// new launch's shared memory is uninitialised again.
func TestNoRace2LaunchBoundaryOrdersEverything(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	g := zeroed[int32](t, dev, "g", 4)
	k := func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 32)
		i := t.ThreadIdx.X
		s.Store(t, i, int32(i))
		t.SyncThreads()
		if i == 0 {
			b := t.BlockIdx.X
			v := g.Load(t, (b+1)%4)
			g.Store(t, (b+1)%4, v+s.Load(t, 31)+int32(b))
		}
	}
	for n := 0; n < 3; n++ {
		// one block per launch: each writes the element the next launch's block reads
		for b := 0; b < 4; b++ {
			cfg := sim.Config{Grid: sim.Dim(4), Block: sim.Dim(32)}
			_ = b
			wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
				if t.BlockIdx.X == (b+n)%4 {
					k(t)
				}
			}))
		}
	}
	// every element got 3 increments of 31 + the block index (i-1)%4
	for i, v := range g.ToHost() {
		if v != int32(3*(31+(i+3)%4)) {
			t.Fatalf("g = %v", g.ToHost())
		}
	}
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 32)
		_ = s.Load(t, t.ThreadIdx.X) //@freshShared
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "s" || f.Count != 32 || f.Current.Site != at2(t, "freshShared") {
		t.Errorf("finding %+v", f)
	}
}

// ---------------------------------------------------------------------------
// determinism

func messy(out *sim.Buffer[int32], x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 64)
		i := t.LinearThreadIdx()
		if i%5 == 0 {
			s.Store(t, (i*7)%64, int32(i)) //@messyW
		}
		v := s.Load(t, i) //@messyR
		sim.AtomicAdd(t, x, 0, v)
		out.Store(t, t.BlockIdx.X*64+i, v)
	}
}

func TestRace2ReportTextDeterministic2D(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(42)} {
		var texts []string
		var outs []string
		for k := 0; k < 2; k++ {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 2*64)
			x := zeroed[int32](t, dev, "x", 1)
			r := exec(t, dev, sim.Config{Grid: sim.Dim(2), Block: sim.Dim2(16, 4), Options: o}, messy(out, x))
			wantRace(t, r, sim.SharedSpace, "s", at2(t, "messyW"), at2(t, "messyR"))
			wantKind(t, r, sim.UninitializedRead)
			texts = append(texts, r.Error())
			outs = append(outs, fmt.Sprint(out.ToHost(), x.ToHost()))
		}
		if texts[0] != texts[1] || outs[0] != outs[1] {
			t.Fatalf("seed %d: runs differ:\n%s\n%s\n---\n%s\n%s", o.Seed(), texts[0], outs[0], texts[1], outs[1])
		}
	}
}

func TestNoRace2RandomSeedsSameAnswer(t *testing.T) {
	t.Parallel()
	const B = 128
	h := make([]int32, 4*B)
	var want int64
	for i := range h {
		h[i] = int32((i*2654435761)%1000) - 500
		want += int64(h[i])
	}
	for seed := uint64(1); seed <= 6; seed++ {
		dev := sim.NewDevice(sim.H100)
		in := host(t, dev, "in", h)
		tot := zeroed[int32](t, dev, "tot", 1)
		wantClean(t, exec(t, dev, lin(4, B, random(seed)), func(t *sim.Thread) {
			s := sim.Shared[int32](t, "red", B/32)
			i := t.ThreadIdx.X
			v := in.Load(t, t.GlobalX())
			for d := 16; d > 0; d /= 2 {
				v += sim.ShflDownSync(t, sim.FullMask, v, d)
			}
			if t.LaneID() == 0 {
				s.Store(t, t.WarpID(), v)
			}
			t.SyncThreads()
			if i < 32 {
				w := int32(0)
				if i < B/32 {
					w = s.Load(t, i)
				}
				for d := 16; d > 0; d /= 2 {
					w += sim.ShflXorSync(t, sim.FullMask, w, d)
				}
				if i == 0 {
					sim.AtomicAdd(t, tot, 0, w)
				}
			}
		}))
		if g := tot.ToHost()[0]; int64(g) != want {
			t.Fatalf("seed %d: total %d, want %d", seed, g, want)
		}
	}
}

// ---------------------------------------------------------------------------
// Go panics in kernels

func TestPanic2NilMapWriteThenDeviceUsable(t *testing.T) {
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
		f.Current.Site != at2(t, "nilMap") || !strings.Contains(f.Detail, "nil map") {
		t.Errorf("finding %+v, want block (1,1,0) thread (3,2,0) at %s", f, at2(t, "nilMap"))
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

func TestPanic2IntDivideByZeroInWarpCollectiveKernel(t *testing.T) {
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
	if f.Current.Block != d3(1, 0, 0) || f.Current.Thread != d3(40, 0, 0) || f.Current.Site != at2(t, "div0") ||
		!strings.Contains(f.Detail, "divide by zero") {
		t.Errorf("finding %+v, want block 1 thread 40 at %s", f, at2(t, "div0"))
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

func TestPanic2SliceIndexIsPanicNotOutOfBounds(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	local := make([]int, 4)
	r := exec(t, dev, lin(1, 8), func(t *sim.Thread) {
		_ = local[t.ThreadIdx.X] //@goSlice
	})
	f := wantKind(t, r, sim.KernelPanic)
	if f.Current.Thread.X != 4 || f.Current.Site != at2(t, "goSlice") {
		t.Errorf("finding %+v, want thread 4 at %s", f, at2(t, "goSlice"))
	}
	onlyKinds(t, r, sim.KernelPanic)
}

// A new block's dynamic shared memory is uninitialised again, and the
// previous block's write is not a race partner.
func TestUninit2DynamicSharedFreshPerBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 2)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(32), SharedBytes: 8}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		d := sim.DynamicShared[int32](t, "dd")
		if t.ThreadIdx.X == 0 {
			if t.BlockIdx.X == 0 {
				d.Store(t, 1, 9)
			} else {
				out.Store(t, 1, d.Load(t, 1)) //@dynFresh
			}
		}
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "dd" || f.Index != 1 || f.Current.Block.X != 1 || f.Current.Site != at2(t, "dynFresh") {
		t.Errorf("finding %+v", f)
	}
	onlyKinds(t, r, sim.UninitializedRead)
	if g := out.ToHost()[1]; g != 0 {
		t.Errorf("block 1 read %d from dynamic shared, want 0 (fresh)", g)
	}
}
