package sim_test

// Warps: shuffles, ballots and matches, __syncwarp with full and partial
// masks, warp membership in 2-D and 3-D blocks, collectives under
// divergence.

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// warp reduction with __shfl_xor_sync

const shflN = 20

// valid elements: lanes 20..31 have none

func warpSum(in, out *sim.Buffer[int32], mode string) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		switch mode {
		case "full": // pad with zero, every lane takes part
			var v int32
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off)
			}
			out.Store(t, t.LaneID(), v)
		case "ballot": // only the valid lanes, named by a ballot: xor 16 leaves the mask
			active := t.BallotSync(sim.FullMask, i < shflN)
			if i < shflN {
				v := in.Load(t, i)
				for off := 16; off > 0; off /= 2 {
					v += sim.ShflXorSync(t, active, v, off) //@xorPartial
				}
				out.Store(t, t.LaneID(), v)
			}
		case "halfmask": // every lane calls with a mask naming only the low half
			v := int32(0)
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, 0x0000ffff, v, off) //@xorHalf
			}
			out.Store(t, t.LaneID(), v)
		case "return": // the guard returns before a full-mask collective
			if i >= shflN {
				return
			}
			v := in.Load(t, i)
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off) //@xorRet
			}
			out.Store(t, t.LaneID(), v)
		case "width16": // two independent 16-lane segments, all lanes present
			v := int32(0)
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 8; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off, 16)
			}
			out.Store(t, t.LaneID(), v)
		}
	}
}

func runWarpSum(t *testing.T, mode string) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, shflN)
	for i := range h {
		h[i] = int32(i + 1)
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), warpSum(in, out, mode))
	return r, out.ToHost()
}

func TestNoRaceShflXorFullMask(t *testing.T) {
	t.Parallel()
	r, out := runWarpSum(t, "full")
	wantClean(t, r)
	for l, v := range out {
		if v != shflN*(shflN+1)/2 {
			t.Fatalf("lane %d: sum %d, want %d", l, v, shflN*(shflN+1)/2)
		}
	}
}

func TestNoRaceShflXorWidth16(t *testing.T) {
	t.Parallel()
	r, out := runWarpSum(t, "width16")
	wantClean(t, r)
	lo, hi := int32(16*17/2), int32(17+18+19+20)
	for l, v := range out {
		want := lo
		if l >= 16 {
			want = hi
		}
		if v != want {
			t.Fatalf("lane %d: segment sum %d, want %d", l, v, want)
		}
	}
}

func TestInvalidShuffleBallotMaskReadsOutsideMask(t *testing.T) {
	t.Parallel()
	r, _ := runWarpSum(t, "ballot")
	f := wantKind(t, r, sim.InvalidShuffle)
	if f.Current.Site != at(t, "xorPartial") {
		t.Errorf("invalid shuffle at %s, want %s", f.Current.Site, at(t, "xorPartial"))
	}
	onlyKinds(t, r, sim.InvalidShuffle)
}

func TestWarpDivergenceShflXorMaskExcludesCallers(t *testing.T) {
	t.Parallel()
	r, _ := runWarpSum(t, "halfmask")
	f := wantKind(t, r, sim.WarpDivergence)
	if !r.Aborted || f.Current.Site != at(t, "xorHalf") {
		t.Errorf("aborted=%v site=%s; want aborted at %s\n%v", r.Aborted, f.Current.Site, at(t, "xorHalf"), r)
	}
}

// Lanes 20-31 return before a full-mask shuffle: legal (PTX waits only for
// the mask's lanes that have not exited), but lanes 4-19 read an exited
// lane's value at xor 16, which is undefined: reported, and the launch runs
// to its end.
func TestInvalidShuffleShflXorAfterGuardReturn(t *testing.T) {
	t.Parallel()
	r, out := runWarpSum(t, "return")
	f := wantKind(t, r, sim.InvalidShuffle)
	if r.Aborted {
		t.Errorf("aborted: %v", r)
	}
	if f.Current.Site != at(t, "xorRet") || !strings.Contains(f.Detail, "has exited") {
		t.Errorf("finding %v, want a read of an exited lane at %s", f, at(t, "xorRet"))
	}
	onlyKinds(t, r, sim.InvalidShuffle)
	if out[0] == 0 {
		t.Errorf("lane 0 stored nothing: the launch did not run on")
	}
}

// ---------------------------------------------------------------------------
// warp-synchronous tail of a reduction, with and without __syncwarp

func warpTail(in, out *sim.Buffer[int32], syncwarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "sdata", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		if tid < 32 {
			v := s.Load(t, tid) + s.Load(t, tid+32)
			for off := 16; off > 0; off /= 2 {
				if syncwarp {
					t.SyncWarp(sim.FullMask)
				}
				s.Store(t, tid, v) //@wsW
				if syncwarp {
					t.SyncWarp(sim.FullMask)
				}
				v += s.Load(t, tid+off) //@wsR
			}
			if tid == 0 {
				out.Store(t, t.BlockIdx.X, v)
			}
		}
	}
}

func runWarpTail(t *testing.T, sync bool) (*sim.Report, []int32, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 4*64)
	want := make([]int32, 4)
	for i := range h {
		h[i] = int32(i%13 - 4)
		want[i/64] += h[i]
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 4)
	r := exec(t, dev, lin(4, 64), warpTail(in, out, sync))
	return r, out.ToHost(), want
}

func TestNoRaceWarpSynchronousWithSyncWarp(t *testing.T) {
	t.Parallel()
	r, got, want := runWarpTail(t, true)
	wantClean(t, r)
	for b := range want {
		if got[b] != want[b] {
			t.Fatalf("block %d: %d, want %d", b, got[b], want[b])
		}
	}
}

func TestRaceWarpSynchronousWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	r, _, _ := runWarpTail(t, false)
	f := wantRace(t, r, sim.SharedSpace, "sdata", at(t, "wsW"), at(t, "wsR"))
	if f.Current.Thread.X/32 != f.Previous.Thread.X/32 || f.Current.Block != f.Previous.Block {
		t.Errorf("want a race inside one warp: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// The volatile unroll of a reduction's last warp, all 32 lanes in every
// step: with a __syncwarp between each step's reads and its write it is
// correct since Volta; with one __syncwarp per step only (the commonest
// wrong fix), lane i reads s[i+off] while lane i+off rewrites it. The
// block's tree before it writes s with plain stores, as Harris's does.
func volatileUnroll(out *sim.Buffer[float32], splitStep bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "sdata", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, 1)
		s.Store(t, tid+32, 1)
		t.SyncWarp(sim.FullMask)
		for off := 32; off > 0; off >>= 1 {
			v := s.LoadVolatile(t, tid) + s.LoadVolatile(t, tid+off) //@vuR
			if splitStep {
				t.SyncWarp(sim.FullMask)
			}
			s.StoreVolatile(t, tid, v) //@vuW
			t.SyncWarp(sim.FullMask)
		}
		if tid == 0 {
			out.Store(t, 0, s.Load(t, 0))
		}
	}
}

func TestNoRaceVolatileUnrollSyncWarpBetweenReadAndWrite(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[float32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), Options: o}, volatileUnroll(out, true)))
		if got := out.ToHost()[0]; got != 64 {
			t.Errorf("sum %v, want 64", got)
		}
	})
}

func TestRaceVolatileUnrollOneSyncWarpPerStep(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[float32](t, dev, "out", 1)
		r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), Options: o}, volatileUnroll(out, false))
		wantRace(t, r, sim.SharedSpace, "sdata", at(t, "vuW"), at(t, "vuR"))
	})
}

// __syncwarp orders a warp, not the block.
func crossWarp(out *sim.Buffer[int32], block bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "xw", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid*3)) //@xwW
		if block {
			t.SyncThreads()
		} else {
			t.SyncWarp(sim.FullMask)
		}
		out.Store(t, tid, s.Load(t, (tid+32)%64)) //@xwR
	}
}

func TestNoRaceNeighbourWarpAfterSyncThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	wantClean(t, exec(t, dev, lin(1, 64), crossWarp(out, true)))
	for i, v := range out.ToHost() {
		if v != int32((i+32)%64*3) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}

func TestRaceNeighbourWarpAfterSyncWarpOnly(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), crossWarp(out, false))
	f := wantRace(t, r, sim.SharedSpace, "xw", at(t, "xwW"), at(t, "xwR"))
	if f.Current.Thread.X/32 == f.Previous.Thread.X/32 {
		t.Errorf("want a race between warps: %v", f)
	}
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// warp collectives: halves of a warp synchronising separately; lanes meeting
// in different collectives; a lane stuck at __syncthreads while its warp
// waits at __syncwarp

func halves(out *sim.Buffer[int32], partner int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "halves", 32)
		lane := t.LaneID()
		s.Store(t, lane, int32(lane*2)) //@hvW
		if lane < 16 {
			t.SyncWarp(0x0000ffff)
		} else {
			t.SyncWarp(0xffff0000)
		}
		out.Store(t, lane, s.Load(t, lane^partner)) //@hvR
	}
}

func TestNoRaceHalfWarpSyncWarpMasks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	wantClean(t, exec(t, dev, lin(1, 32), halves(out, 15)))
	for l, v := range out.ToHost() {
		if v != int32((l^15)*2) {
			t.Fatalf("out[%d] = %d", l, v)
		}
	}
}

func TestRaceHalfWarpSyncWarpReadsOtherHalf(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), halves(out, 16))
	wantRace(t, r, sim.SharedSpace, "halves", at(t, "hvW"), at(t, "hvR"))
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

func TestWarpDivergenceLanesInDifferentCollectives(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		lane := t.LaneID()
		v := int32(lane)
		if lane < 16 {
			v = sim.ShflDownSync(t, sim.FullMask, v, 1) //@collA
		} else {
			v = int32(t.BallotSync(sim.FullMask, true)) //@collB
		}
		out.Store(t, lane, v)
	})
	var f *sim.Finding
	spurious := ""
	for k, g := range r.Of(sim.WarpDivergence) {
		if strings.Contains(g.Detail, "different collectives") {
			f = &r.Of(sim.WarpDivergence)[k]
		}
		if g.Current.Op == "exit" {
			spurious = g.String()
		}
	}
	if f == nil || !r.Aborted {
		t.Fatalf("want an aborting warp divergence for lanes in different collectives:\n%v", r)
	}
	if !strings.Contains(f.Detail, at(t, "collA")) || f.Current.Site != at(t, "collB") {
		t.Errorf("finding %v, want the shuffle at %s and the ballot at %s", f, at(t, "collA"), at(t, "collB"))
	}
	_ = spurious // see TestWarpAbortNoSpuriousExitFinding
}

// A fatal finding unwinds the thread that caused it; that thread did not
// exit, so its waiting warp-mates must not produce a second finding that
// says it did.
func TestWarpAbortNoSpuriousExitFinding(t *testing.T) {
	t.Parallel()
	cases := map[string]sim.Kernel{
		"collective mismatch": func(t *sim.Thread) {
			if t.LaneID() < 16 {
				sim.ShflDownSync(t, sim.FullMask, int32(1), 1)
			} else {
				t.BallotSync(sim.FullMask, true)
			}
		},
		"panic": func(t *sim.Thread) {
			var table []int
			if t.LaneID() == 20 {
				_ = table[t.LaneID()] // index out of range: a Go panic
			}
			t.SyncWarp(sim.FullMask)
		},
	}
	var bad []string
	for name, k := range cases {
		dev := sim.NewDevice(sim.H100)
		r := exec(t, dev, lin(1, 32), k)
		if r == nil || !r.Aborted {
			t.Fatalf("%s: want an aborted launch, got %v", name, r)
		}
		for _, f := range r.Findings {
			if f.Current.Op == "exit" {
				bad = append(bad, name+": "+f.String())
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatal("a lane unwound by a fatal finding is also reported as a WarpDivergence 'lane N exited without reaching <collective>' (it never exited; the extra finding sorts first in the report):\n" + strings.Join(bad, "\n"))
	}
}

// ---------------------------------------------------------------------------
// __match_any_sync: one atomic per group of lanes holding the same key

func TestNoRaceMatchAnyAggregatedHistogram(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 256)
	want := make([]uint32, 8)
	for i := range h {
		h[i] = int32((i*i)%13) % 8
		want[h[i]]++
	}
	keys := host(t, dev, "keys", h)
	hist := zeroed[uint32](t, dev, "hist", 8)
	var atomics atomic.Int32
	wantClean(t, exec(t, dev, lin(2, 128), func(t *sim.Thread) {
		k := keys.Load(t, t.GlobalX())
		peers := sim.MatchAnySync(t, sim.FullMask, k)
		if t.LaneID() == bits.TrailingZeros32(peers) {
			atomics.Add(1)
			sim.AtomicAdd(t, hist, int(k), uint32(bits.OnesCount32(peers)))
		}
	}))
	if got := hist.ToHost(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hist = %v, want %v", got, want)
	}
	if atomics.Load() >= 256 || atomics.Load() < 8 {
		t.Errorf("%d leader atomics: match_any did not group the lanes", atomics.Load())
	}
}

// ---------------------------------------------------------------------------
// a long warp-synchronous loop: 32000 __syncwarp between a write and a read.
// Warp-sync clocks are 16 bits compared as signed differences: RATIONALE.md
// documents that ordering holds up to 32767 synchronisations apart.

func TestNoRaceLongSyncWarpLoop(t *testing.T) {
	t.Parallel()
	const rounds = 32000
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "early", 32)
		lane := t.LaneID()
		s.Store(t, lane, int32(lane+1))
		for k := 0; k < rounds; k++ {
			t.SyncWarp(sim.FullMask)
		}
		out.Store(t, lane, s.Load(t, (lane+1)%32))
	})
	wantClean(t, r)
	for l, v := range out.ToHost() {
		if v != int32((l+1)%32+1) {
			t.Fatalf("out[%d] = %d", l, v)
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

func TestNoRaceBlock32x2SameWarpRow(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(32, 2)}
	wantClean(t, exec(t, dev, cfg, crossRow(out, 0, 0, 31, 0)))
	if out.ToHost()[0] != 42 {
		t.Fatal("wrong value")
	}
}

func TestRaceBlock32x2AcrossWarps(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(32, 2)}
	r := exec(t, dev, cfg, crossRow(out, 0, 1, 31, 0))
	f := wantRace(t, r, sim.SharedSpace, "s", at(t, "rowW"), at(t, "rowR"))
	th := map[sim.Dim3]bool{f.Current.Thread: true, f.Previous.Thread: true}
	if !th[d3(0, 1, 0)] || !th[d3(31, 0, 0)] {
		t.Errorf("race between %v and %v, want (0,1,0) and (31,0,0)", f.Current.Thread, f.Previous.Thread)
	}
}

// A 16x4 block: rows 0-1 are warp 0, rows 2-3 warp 1. SyncWarp orders (15,1)
// after (0,0) but not (0,2).
func TestRaceBlock16x4WarpBoundaryAtRow2(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim2(16, 4)}
	wantClean(t, exec(t, dev, cfg, crossRow(out, 0, 0, 15, 1)))
	r := exec(t, dev, cfg, crossRow(out, 15, 1, 0, 2))
	wantRace(t, r, sim.SharedSpace, "s", at(t, "rowW"), at(t, "rowR"))
}

func TestNoRaceLaneWarpIn3DBlock(t *testing.T) {
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
// lanes; a full-mask ballot there names lanes that do not exist, which PTX
// allows: they take no part.
func TestNoRaceFullMaskInPartialWarpOf3DBlock(t *testing.T) {
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
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		b := t.BallotSync(sim.FullMask, true)
		if t.LaneID() == 0 {
			out.Store(t, t.WarpID(), b)
		}
	}))
	if got := out.ToHost(); got[0] != sim.FullMask || got[1] != 1<<18-1 {
		t.Fatalf("full-mask ballots = %#x, want every lane that exists", got)
	}
}

// ---------------------------------------------------------------------------
// shuffles with width < 32

func TestNoRaceShuffleWidthSegments(t *testing.T) {
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

func TestNoRaceBallotAndMatchAny(t *testing.T) {
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

func TestNoRaceCollectivesInDivergentHalvesWithSubMasks(t *testing.T) {
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

// Lanes 16-31 skip a full-mask ballot and exit: the ballot waits only for
// the lanes that have not exited, so lanes 0-15 vote among themselves.
func TestNoRaceBallotFullMaskInsideDivergentBranch(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(1), random(2)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[uint32](t, dev, "out", 32)
		wantClean(t, exec(t, dev, lin(1, 32, opts), func(t *sim.Thread) {
			l := t.LaneID()
			if l < 16 {
				out.Store(t, l, t.BallotSync(sim.FullMask, true))
			}
		}))
		if got := out.ToHost()[0]; got != 0xffff {
			t.Fatalf("%v: ballot = %#x, want the 16 lanes that took part", opts.Schedule(), got)
		}
	}
}

// Both halves call a collective with a full mask but at different lines:
// lanes meet in different collectives (not a rendezvous, unlike pre-Volta).
func TestWarpDivergenceSameCollectiveDifferentBranchesFullMask(t *testing.T) {
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
// collective values against the Programming Guide, under every schedule and
// both warp models: a race-free kernel's results must not depend on them

// collCase is a kernel that stores up to 8 values per thread, out[tid*8+i],
// and the values the Guide gives.
type collCase struct {
	name  string
	block int
	k     func(out *sim.Buffer[uint64]) sim.Kernel
	want  func(tid int) []uint64
}

func runCollCases(t *testing.T, cases []collCase) {
	t.Helper()
	ls := sim.Options{}.WithWarpModel(sim.Lockstep)
	opts := map[string]sim.Options{"natural": {}, "random1": random(1), "random7": random(7),
		"lockstep": ls, "lockstep-random3": random(3).WithWarpModel(sim.Lockstep)}
	for _, c := range cases {
		for on, o := range opts {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[uint64](t, dev, "out", c.block*8)
			wantClean(t, exec(t, dev, lin(1, c.block, o), c.k(out)))
			got := out.ToHost()
			for tid := 0; tid < c.block; tid++ {
				for i, x := range c.want(tid) {
					if got[tid*8+i] != x {
						t.Errorf("%s, %s: thread %d value %d = %#x, want %#x", c.name, on, tid, i, got[tid*8+i], x)
					}
				}
			}
		}
	}
}

// Shuffles with widths 8 and 16 (a srcLane outside the segment wraps within
// it, -1 is the segment's last lane, up and down keep the own value at the
// segment's edges, xor with a laneMask of width or more reads an earlier
// segment and keeps the own value for a later one), of 64-bit and float64
// values; votes with a partial mask in divergent code; match_any and
// match_all (bitwise: +0.0 and -0.0 differ); redux of int32 and uint32,
// wrapping on overflow and compared signed or unsigned; __activemask after
// lanes exited; a partial last warp (a block of 48) under the full mask.
func TestNoRaceWarpCollectiveValues(t *testing.T) {
	t.Parallel()
	f64 := func(x float64) uint64 { return math.Float64bits(x) }
	runCollCases(t, []collCase{
		{"shfl-widths", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				v := uint64(0xABCD_0000_0000_0000) | uint64(l)
				out.Store(t, l*8+0, sim.ShflSync(t, sim.FullMask, v, 9, 8))
				out.Store(t, l*8+1, sim.ShflSync(t, sim.FullMask, v, -1, 16))
				out.Store(t, l*8+2, sim.ShflUpSync(t, sim.FullMask, v, 3, 8))
				out.Store(t, l*8+3, sim.ShflDownSync(t, sim.FullMask, v, 5, 16))
				out.Store(t, l*8+4, sim.ShflXorSync(t, sim.FullMask, v, 8, 8))
				out.Store(t, l*8+5, sim.ShflXorSync(t, sim.FullMask, v, 16, 8))
				out.Store(t, l*8+6, math.Float64bits(sim.ShflSync(t, sim.FullMask, -float64(l)-0.25, 37, 16)))
				out.Store(t, l*8+7, uint64(sim.ShflDownSync(t, sim.FullMask, int64(-l), 1)))
			}
		}, func(l int) []uint64 {
			v := func(x int) uint64 { return uint64(0xABCD_0000_0000_0000) | uint64(x) }
			up, dn := l, l
			if l%8 >= 3 {
				up = l - 3
			}
			if l%16+5 < 16 {
				dn = l + 5
			}
			x8 := l
			if l&8 != 0 {
				x8 = l ^ 8
			}
			x16 := l
			if l&16 != 0 {
				x16 = l ^ 16
			}
			d1 := l
			if l < 31 {
				d1 = l + 1
			}
			return []uint64{v(l/8*8 + 1), v(l/16*16 + 15), v(up), v(dn), v(x8), v(x16), f64(-float64(l/16*16+5) - 0.25), uint64(int64(-d1))}
		}},
		{"votes-divergent", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				if l%2 == 0 {
					out.Store(t, l*8+0, uint64(t.BallotSync(0x55555555, l%4 == 0)))
					out.Store(t, l*8+1, uint64(b2i(t.AnySync(0x55555555, l == 6))))
					out.Store(t, l*8+2, uint64(b2i(t.AllSync(0x55555555, l < 40))))
					out.Store(t, l*8+3, uint64(b2i(t.AllSync(0x55555555, l != 30))))
				} else {
					out.Store(t, l*8+0, uint64(t.BallotSync(0xaaaaaaaa, true)))
					out.Store(t, l*8+1, uint64(b2i(t.AnySync(0xaaaaaaaa, false))))
					out.Store(t, l*8+2, uint64(t.ActiveMask()))
					out.Store(t, l*8+3, 9)
				}
			}
		}, func(l int) []uint64 {
			if l%2 == 0 {
				return []uint64{0x11111111, 1, 1, 0}
			}
			return []uint64{0xaaaaaaaa, 0, 0xaaaaaaaa, 9}
		}},
		{"match", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				out.Store(t, l*8+0, uint64(sim.MatchAnySync(t, sim.FullMask, float64(l%5))))
				m, ok := sim.MatchAllSync(t, sim.FullMask, int64(1)<<40)
				out.Store(t, l*8+1, uint64(m))
				out.Store(t, l*8+2, uint64(b2i(ok)))
				m, ok = sim.MatchAllSync(t, sim.FullMask, uint64(l/31))
				out.Store(t, l*8+3, uint64(m)<<1|uint64(b2i(ok)))
				if l >= 8 && l < 16 {
					m, ok = sim.MatchAllSync(t, 0xff00, float32(2))
					out.Store(t, l*8+4, uint64(m)<<1|uint64(b2i(ok)))
				}
				z := 0.0
				if l%2 == 1 {
					z = math.Copysign(0, -1)
				}
				out.Store(t, l*8+5, uint64(sim.MatchAnySync(t, sim.FullMask, z)))
			}
		}, func(l int) []uint64 {
			var m uint64
			for q := 0; q < 32; q++ {
				if q%5 == l%5 {
					m |= 1 << q
				}
			}
			r4 := uint64(0)
			if l >= 8 && l < 16 {
				r4 = 0xff00<<1 | 1
			}
			z := uint64(0x55555555)
			if l%2 == 1 {
				z = 0xaaaaaaaa
			}
			return []uint64{m, 0xffffffff, 1, 0, r4, z}
		}},
		{"redux-overflow", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				out.Store(t, l*8+0, uint64(uint32(sim.ReduceAddSync(t, sim.FullMask, int32(math.MaxInt32)))))
				out.Store(t, l*8+1, uint64(sim.ReduceAddSync(t, sim.FullMask, uint32(math.MaxUint32))))
				out.Store(t, l*8+2, uint64(uint32(sim.ReduceMinSync(t, sim.FullMask, int32(l-16)))))
				out.Store(t, l*8+3, uint64(sim.ReduceMinSync(t, sim.FullMask, uint32(int32(l-16)))))
				out.Store(t, l*8+4, uint64(uint32(sim.ReduceMaxSync(t, sim.FullMask, int32(l-16)))))
				out.Store(t, l*8+5, uint64(sim.ReduceMaxSync(t, sim.FullMask, uint32(int32(l-16)))))
				if l < 4 {
					out.Store(t, l*8+6, uint64(uint32(sim.ReduceAddSync(t, 0xf, int32(math.MinInt32)))))
				}
				out.Store(t, l*8+7, uint64(sim.ReduceXorSync(t, sim.FullMask, uint32(l))))
			}
		}, func(l int) []uint64 {
			// 32*MaxInt32 wraps to -32; 4*MinInt32 (lanes 0-3) to 0.
			return []uint64{0xffffffe0, 0xffffffe0, 0xfffffff0, 0, 15, 0xffffffff, 0, 0}
		}},
		{"activemask-exit", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				if l >= 20 {
					return
				}
				out.Store(t, l*8+0, uint64(t.ActiveMask()))
				if l < 5 {
					out.Store(t, l*8+1, uint64(t.ActiveMask()))
				}
				out.Store(t, l*8+2, uint64(t.BallotSync(sim.FullMask, true)))
			}
		}, func(l int) []uint64 {
			if l >= 20 {
				return []uint64{0, 0, 0}
			}
			r1 := uint64(0)
			if l < 5 {
				r1 = 0x1f
			}
			return []uint64{0xfffff, r1, 0xfffff}
		}},
		{"partial-warp-48", 48, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				tid := t.ThreadIdx.X
				out.Store(t, tid*8+0, uint64(t.BallotSync(sim.FullMask, true)))
				out.Store(t, tid*8+1, uint64(sim.ReduceAddSync(t, sim.FullMask, uint32(1))))
				out.Store(t, tid*8+2, uint64(t.ActiveMask()))
				out.Store(t, tid*8+3, uint64(b2i(t.AllSync(sim.FullMask, true))))
				out.Store(t, tid*8+4, uint64(sim.ShflSync(t, sim.FullMask, int32(tid), 3)))
				m, ok := sim.MatchAllSync(t, sim.FullMask, int32(7))
				out.Store(t, tid*8+5, uint64(m)<<1|uint64(b2i(ok)))
			}
		}, func(tid int) []uint64 {
			if tid < 32 {
				return []uint64{0xffffffff, 32, 0xffffffff, 1, 3, 0xffffffff<<1 | 1}
			}
			return []uint64{0xffff, 16, 0xffff, 1, 35, 0xffff<<1 | 1}
		}},
	})
}
