package sim_test

// Cooperative groups: the thread block, static and dynamic tiles of every
// size, coalesced groups, labeled and binary partitions, reduce and scans,
// and __activemask. A group's Sync orders memory among its threads and its
// other collectives do not: each ordering test comes as a pair, with the
// Sync and without.

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

func TestNoRaceThreadBlockGroup(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 2*24*6)
	cfg := sim.Config{Grid: sim.Dim2(2, 1), Block: d3(4, 3, 2)}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		g := sim.ThisThreadBlock(t)
		i := 6 * (t.BlockIdx.X*24 + g.ThreadRank())
		out.Store(t, i, int32(g.ThreadRank()))
		out.Store(t, i+1, int32(g.Size()+g.NumThreads()))
		out.Store(t, i+2, int32(g.GroupIndex().X))
		ti, dt := g.ThreadIndex(), g.DimThreads()
		out.Store(t, i+3, int32(ti.X+10*ti.Y+100*ti.Z))
		out.Store(t, i+4, int32(dt.X+10*dt.Y+100*dt.Z))
		g.Sync()
		out.Store(t, i+5, out.Load(t, 6*(t.BlockIdx.X*24+(g.ThreadRank()+1)%24)))
	}))
	got := out.ToHost()
	for b := 0; b < 2; b++ {
		for r := 0; r < 24; r++ {
			i := 6 * (b*24 + r)
			x, y, z := r%4, r/4%3, r/12
			if got[i] != int32(r) || got[i+1] != 48 || got[i+2] != int32(b) || got[i+3] != int32(x+10*y+100*z) ||
				got[i+4] != 234 || got[i+5] != int32((r+1)%24) {
				t.Fatalf("block %d rank %d: %v", b, r, got[i:i+6])
			}
		}
	}
}

// tileExchange: each thread writes s[tid], the tile of n threads syncs (or
// not), and each reads the slot of the thread whose tile rank is the
// mirror image of its own, in its own tile or (cross) in the next tile.
func tileExchange(out *sim.Buffer[int32], n int, static, sync, cross bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "tileSlots", 256)
		block := sim.ThisThreadBlock(t)
		var g sim.Group
		switch {
		case static && n == 16:
			g = sim.TiledPartitionOf[sim.Size16](block)
		case static && n == 64:
			g = sim.TiledPartitionOf[sim.Size64](block)
		case static && n == 128:
			g = sim.TiledPartitionOf[sim.Size128](block)
		default:
			g = sim.TiledPartition(block, n)
		}
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid)) //@tileW
		if sync {
			g.Sync()
		}
		first := tid - g.ThreadRank()
		if cross {
			first = (first + n) % 256
		}
		out.Store(t, tid, s.Load(t, first+g.NumThreads()-1-g.ThreadRank())) //@tileR
	}
}

func TestNoRaceTileSyncOrdersTheTile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n      int
		static bool
	}{{16, true}, {16, false}, {8, false}, {64, true}, {128, true}, {64, false}, {256, false}} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 256)
		wantClean(t, exec(t, dev, lin(1, 256, random(uint64(c.n))), tileExchange(out, c.n, c.static, true, false)))
		for tid, v := range out.ToHost() {
			if want := tid/c.n*c.n + c.n - 1 - tid%c.n; v != int32(want) {
				t.Fatalf("tile %d (static %v): out[%d] = %d, want %d", c.n, c.static, tid, v, want)
			}
		}
	}
}

func TestRaceTileWithoutSync(t *testing.T) {
	t.Parallel()
	for _, n := range []int{16, 64, 128} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 256)
		r := exec(t, dev, lin(1, 256), tileExchange(out, n, true, false, false))
		wantRace(t, r, sim.SharedSpace, "tileSlots", at(t, "tileW"), at(t, "tileR"))
	}
}

// A tile's Sync orders its own threads, not the next tile's.
func TestRaceTileSyncReadsAnotherTile(t *testing.T) {
	t.Parallel()
	for _, n := range []int{16, 64} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 256)
		r := exec(t, dev, lin(1, 256), tileExchange(out, n, true, true, true))
		wantRace(t, r, sim.SharedSpace, "tileSlots", at(t, "tileW"), at(t, "tileR"))
	}
}

// Every tile size: ranks, meta ranks and cg::reduce.
func tileStats[S sim.TileSize](t *sim.Thread, out *sim.Buffer[int32], v int32) {
	g := sim.TiledPartitionOf[S](sim.ThisThreadBlock(t))
	i := 4 * t.ThreadIdx.X
	out.Store(t, i, int32(g.ThreadRank()))
	out.Store(t, i+1, int32(g.MetaGroupRank()))
	out.Store(t, i+2, int32(g.MetaGroupSize()*1000+g.NumThreads()))
	out.Store(t, i+3, sim.Reduce(g, v, sim.Plus[int32]{}))
}

func TestNoRaceTileReduceEverySize(t *testing.T) {
	t.Parallel()
	for n, f := range map[int]func(*sim.Thread, *sim.Buffer[int32], int32){
		1: tileStats[sim.Size1], 2: tileStats[sim.Size2], 4: tileStats[sim.Size4], 8: tileStats[sim.Size8],
		16: tileStats[sim.Size16], 32: tileStats[sim.Size32],
	} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 4*64)
		wantClean(t, exec(t, dev, lin(1, 64), func(t *sim.Thread) { f(t, out, int32(t.ThreadIdx.X*t.ThreadIdx.X)) }))
		got := out.ToHost()
		for tid := 0; tid < 64; tid++ {
			var sum int32
			for k := tid / n * n; k < tid/n*n+n; k++ {
				sum += int32(k * k)
			}
			want := []int32{int32(tid % n), int32(tid / n), int32(64/n*1000 + n), sum}
			if fmt.Sprint(got[4*tid:4*tid+4]) != fmt.Sprint(want) {
				t.Fatalf("tile %d thread %d: %v, want %v", n, tid, got[4*tid:4*tid+4], want)
			}
		}
	}
}

// The tile collectives in tile ranks, and reduce and the scans with every
// operation, on tiles of 8.
func TestNoRaceTileCollectivesAndScans(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const k = 16
	out := zeroed[int32](t, dev, "out", k*32)
	vals := []int32{5, -3, 12, 7, 7, -1, 0, 9}
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		g := sim.TiledPartitionOf[sim.Size8](sim.ThisThreadBlock(t))
		r := g.ThreadRank()
		v := vals[r] + int32(g.MetaGroupRank())
		res := []int32{
			sim.TileShfl(g, v, 2), sim.TileShflUp(g, v, 1), sim.TileShflDown(g, v, 3), sim.TileShflXor(g, v, 5),
			int32(g.Ballot(v > 6)), b2i(g.Any(v > 11)), b2i(g.All(v > -5)), int32(sim.TileMatchAny(g, v)),
			sim.Reduce(g, v, sim.Less[int32]{}), sim.Reduce(g, v, sim.Greater[int32]{}),
			sim.Reduce(g, v, sim.BitXor[int32]{}), sim.Reduce(g, v, sim.BitOr[int32]{}), sim.Reduce(g, v, sim.BitAnd[int32]{}),
			sim.InclusiveScan(g, v, sim.Plus[int32]{}), sim.ExclusiveScan(g, v, sim.Plus[int32]{}), sim.InclusiveScan(g, v, sim.Greater[int32]{}),
		}
		for j, x := range res {
			out.Store(t, j*32+t.ThreadIdx.X, x)
		}
	}))
	got := out.ToHost()
	for tid := 0; tid < 32; tid++ {
		m := int32(tid / 8)
		v := func(r int) int32 { return vals[r] + m }
		r := tid % 8
		up, down := v(max(r-1, 0)), v(r)
		if r >= 1 {
			up = v(r - 1)
		} else {
			up = v(r)
		}
		if r+3 < 8 {
			down = v(r + 3)
		}
		var ballot, match uint32
		mn, mx, xor, or, and := v(0), v(0), int32(0), int32(0), int32(-1)
		var incl, excl, run int32
		anyv, allv := int32(0), int32(1)
		for q := 0; q < 8; q++ {
			if v(q) > 6 {
				ballot |= 1 << q
			}
			if v(q) == v(r) {
				match |= 1 << q
			}
			if v(q) > 11 {
				anyv = 1
			}
			if v(q) <= -5 {
				allv = 0
			}
			mn, mx = min(mn, v(q)), max(mx, v(q))
			xor, or, and = xor^v(q), or|v(q), and&v(q)
			if q < r {
				excl += v(q)
			}
			if q <= r {
				incl += v(q)
				run = max(run, v(q))
				if q == 0 {
					run = v(0)
				}
			}
		}
		want := []int32{v(2), up, down, v(r ^ 5), int32(ballot), anyv, allv, int32(match), mn, mx, xor, or, and, incl, excl, run}
		for j, w := range want {
			if got[j*32+tid] != w {
				t.Fatalf("thread %d result %d: %d, want %d", tid, j, got[j*32+tid], w)
			}
		}
	}
}

// Warp-aggregated atomic with coalesced_threads(): the lanes that take the
// branch form the group, its rank-0 lane makes one atomic for all, and a
// shuffle hands the base to the rest.
func TestNoRaceCoalescedWarpAggregatedAtomic(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(4)} {
		dev := sim.NewDevice(sim.H100)
		ctr := zeroed[uint32](t, dev, "ctr", 1)
		slots := zeroed[int32](t, dev, "slots", 128)
		masks := zeroed[uint32](t, dev, "masks", 128)
		wantClean(t, exec(t, dev, lin(2, 64, opts), func(t *sim.Thread) {
			i := t.GlobalX()
			if i%3 == 0 {
				return
			}
			if i%5 != 0 {
				g := sim.CoalescedThreads(t)
				var base uint32
				if g.ThreadRank() == 0 {
					base = sim.AtomicAdd(t, ctr, 0, uint32(g.NumThreads()))
				}
				base = sim.CoalescedShfl(g, base, 0)
				slots.Store(t, int(base)+g.ThreadRank(), int32(i))
				masks.Store(t, i, g.Mask())
			}
		}))
		taken := map[int32]bool{}
		n := 0
		for i := 0; i < 128; i++ {
			if i%3 != 0 && i%5 != 0 {
				n++
				var want uint32
				for l := 0; l < 32; l++ {
					if j := i/32*32 + l; j%3 != 0 && j%5 != 0 {
						want |= 1 << l
					}
				}
				if got := masks.ToHost()[i]; got != want {
					t.Fatalf("%v: thread %d's group %#x, want the lanes that took the branch %#x", opts.Schedule(), i, got, want)
				}
			}
		}
		for _, v := range slots.ToHost()[:n] {
			if v == 0 || taken[v] {
				t.Fatalf("slots %v: each taking thread must own one", slots.ToHost()[:n])
			}
			taken[v] = true
		}
		if got := ctr.ToHost()[0]; int(got) != n {
			t.Fatalf("ctr = %d, want %d", got, n)
		}
	}
}

// __activemask() gives the lanes converged at the call: the two sides of a
// branch, each at its own line, see themselves only.
func TestNoRaceActiveMaskPerBranch(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[uint32](t, dev, "out", 32)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		l := t.LaneID()
		if l == 31 {
			return
		}
		var m uint32
		if l%2 == 0 {
			m = t.ActiveMask()
		} else {
			m = t.ActiveMask()
		}
		out.Store(t, l, m)
	}))
	got := out.ToHost()
	if got[0] != 0x55555555 || got[1] != 0x2aaaaaaa {
		t.Fatalf("active masks %#x and %#x, want the even and the odd lanes but 31", got[0], got[1])
	}
}

// A lane that another ActiveMask call has just released can run, so an
// ActiveMask meeting waits for it: here the odd lanes' meeting in the else
// branch and the even lanes' at the common call are both waiting when the
// spin round comes; lane 31, released with the odd lanes, must reach the
// common call before its meeting forms (it was left out: 0x7fffffff), and
// the result must not depend on the schedule (random orders gave subsets).
func TestNoRaceActiveMaskWaitsForReleasedLanes(t *testing.T) {
	t.Parallel()
	var opts []sim.Options
	for _, o := range []sim.Options{{}, random(1), random(2), random(7)} {
		opts = append(opts, o, o.WithWarpModel(sim.Lockstep))
	}
	for _, o := range opts {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[uint32](t, dev, "out", 32)
		wantClean(t, exec(t, dev, lin(1, 32, o), func(t *sim.Thread) {
			l := t.LaneID()
			if l%2 == 0 {
				t.BallotSync(0x55555555, true)
			} else {
				t.ActiveMask()
			}
			out.Store(t, l, t.ActiveMask())
		}))
		for l, m := range out.ToHost() {
			if m != sim.FullMask {
				t.Fatalf("%v: lane %d: active mask after the if %#x, want %#x", o.WarpModel(), l, m, sim.FullMask)
			}
		}
	}
}

// A coalesced group's shuffles and scans work in group ranks; its Sync
// orders its lanes, its shuffles do not.
func coalescedHandOff(s, out *sim.Buffer[int32], sync bool) sim.Kernel {
	return func(t *sim.Thread) {
		l := t.LaneID()
		if l%4 != 1 {
			return
		}
		g := sim.CoalescedThreads(t)         // lanes 1, 5, ..., 29: ranks 0-7
		s.Store(t, g.ThreadRank(), int32(l)) //@coW
		v := sim.CoalescedShflDown(g, int32(l), 1)
		if sync {
			g.Sync()
		}
		r := g.ThreadRank()
		out.Store(t, r, s.Load(t, (r+1)%g.NumThreads())+0*v) //@coR
		out.Store(t, 8+r, sim.InclusiveScan(g, int32(1), sim.Plus[int32]{}))
		out.Store(t, 16+r, sim.Reduce(g, int32(r), sim.Plus[int32]{}))
		out.Store(t, 24+r, sim.CoalescedShflUp(g, int32(l), 2))
		out.Store(t, 32+r, int32(g.Ballot(r%2 == 0)))
	}
}

func TestNoRaceCoalescedGroupSync(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	s := zeroed[int32](t, dev, "coSlots", 8)
	out := zeroed[int32](t, dev, "out", 40)
	wantClean(t, exec(t, dev, lin(1, 32), coalescedHandOff(s, out, true)))
	got := out.ToHost()
	for r := 0; r < 8; r++ {
		up := 4*r + 1
		if r >= 2 {
			up = 4*(r-2) + 1
		}
		if got[r] != int32(4*((r+1)%8)+1) || got[8+r] != int32(r+1) || got[16+r] != 28 || got[24+r] != int32(up) || got[32+r] != 0x55 {
			t.Fatalf("rank %d: %d %d %d %d %#x", r, got[r], got[8+r], got[16+r], got[24+r], got[32+r])
		}
	}
}

func TestRaceCoalescedGroupShuffleOnly(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	s := zeroed[int32](t, dev, "coSlots", 8)
	out := zeroed[int32](t, dev, "out", 40)
	r := exec(t, dev, lin(1, 32), coalescedHandOff(s, out, false))
	wantRace(t, r, sim.GlobalSpace, "coSlots", at(t, "coW"), at(t, "coR"))
}

// labeled_partition and binary_partition split a tile by label; reduce
// runs within each part.
func TestNoRaceLabeledAndBinaryPartition(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 4*32)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		tile := sim.TiledPartitionOf[sim.Size32](sim.ThisThreadBlock(t))
		l := t.LaneID()
		lp := sim.LabeledPartition(tile, int32(l%3))
		out.Store(t, l, sim.Reduce(lp, int32(l), sim.Plus[int32]{}))
		out.Store(t, 32+l, int32(lp.NumThreads()*100+lp.ThreadRank()))
		bp := sim.BinaryPartition(tile, l < 10)
		out.Store(t, 64+l, sim.Reduce(bp, int32(1), sim.Plus[int32]{}))
		out.Store(t, 96+l, int32(bits.OnesCount32(bp.Mask())))
	}))
	got := out.ToHost()
	for l := 0; l < 32; l++ {
		var sum, n, rank int32
		for q := 0; q < 32; q++ {
			if q%3 == l%3 {
				sum += int32(q)
				n++
				if q < l {
					rank++
				}
			}
		}
		part := int32(22)
		if l < 10 {
			part = 10
		}
		if got[l] != sum || got[32+l] != n*100+rank || got[64+l] != part || got[96+l] != part {
			t.Fatalf("lane %d: %d %d %d %d", l, got[l], got[32+l], got[64+l], got[96+l])
		}
	}
}

// meta_group_size of a partitioned group is the number of groups the
// parent was split into (Programming Guide, coalesced_group), and
// meta_group_rank its index among them: labeled_partition's groups ranked
// by their lowest lane, binary_partition's by pred (CUDA 12's
// cooperative_groups/details/partitioning.h); a parent that does not split
// is one group of rank 0. Under both warp models, with a coalesced parent
// too.
func TestNoRacePartitionMetaGroupRanks(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, sim.Options{}.WithWarpModel(sim.Lockstep)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 5*32)
		wantClean(t, exec(t, dev, lin(1, 32, o), func(t *sim.Thread) {
			tile := sim.TiledPartitionOf[sim.Size32](sim.ThisThreadBlock(t))
			l := t.LaneID()
			meta := func(g sim.CoalescedGroup) int32 { return int32(g.MetaGroupRank()*100 + g.MetaGroupSize()) }
			out.Store(t, l, meta(sim.LabeledPartition(tile, int32(l*7%5))))
			out.Store(t, 32+l, meta(sim.BinaryPartition(tile, l < 10)))
			out.Store(t, 64+l, meta(sim.BinaryPartition(tile, true)))
			out.Store(t, 96+l, meta(sim.LabeledPartition(tile, 4)))
			if l%3 == 0 {
				out.Store(t, 128+l, meta(sim.LabeledPartition(sim.CoalescedThreads(t), int32(l%2))))
			}
		}))
		got := out.ToHost()
		for l := 0; l < 32; l++ {
			// l*7%5 over lanes 0 to 4 is 0, 2, 4, 1, 3: five groups, led
			// by lanes 0 to 4, lane l's by lane l%5.
			want := []int32{int32(100*(l%5) + 5), 2, 1, 1, 0}
			if l < 10 {
				want[1] = 102
			}
			if l%3 == 0 {
				want[4] = int32(100*(l%2) + 2) // lanes 0 and 3 lead
			}
			for i, w := range want {
				if got[32*i+l] != w {
					t.Errorf("%v: lane %d partition %d: meta_group_rank*100+meta_group_size = %d, want %d", o.WarpModel(), l, i, got[32*i+l], w)
				}
			}
		}
	}
}

// cg::reduce's float association order, pinned to the H100's bits: the
// probe's reduce_orders kernel (scripts/coop_probe.cu) on its inputs,
// 1/(i+3). On tile<32> and tile<16> the H100 gives the xor butterfly
// (tile<16>: butterfly 3fff5fb6; scan and shfl_down orders 3fff5fb4); on
// a coalesced group of 13 lanes the Hillis-Steele scan's last rank,
// 3fe8bbba (shfl_down into rank 0 gives 3fe8bbbb). exclusive_scan gives
// rank 0 zero.
func TestNoRaceReduceOrdersMatchH100(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := make([]float32, 32)
	for i := range in {
		in[i] = 1 / float32(i+3)
	}
	out := zeroed[float32](t, dev, "out", 128)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		block := sim.ThisThreadBlock(t)
		t32 := sim.TiledPartitionOf[sim.Size32](block)
		t16 := sim.TiledPartitionOf[sim.Size16](block)
		l := t.ThreadIdx.X
		out.Store(t, l, sim.Reduce(t32, in[l], sim.Plus[float32]{}))
		out.Store(t, 32+l, sim.Reduce(t16, in[l], sim.Plus[float32]{}))
		out.Store(t, 64+l, sim.ExclusiveScan(t16, in[l]+1, sim.Plus[float32]{}))
		if l < 13 {
			g := sim.CoalescedThreads(t)
			out.Store(t, 96+l, sim.Reduce(g, in[l], sim.Plus[float32]{}))
		}
	}))
	got := out.ToHost()
	for _, c := range []struct {
		name    string
		from, n int
		want    uint32
	}{
		{"tile32", 0, 32, 0x402790c1},
		{"tile16 (first tile)", 32, 16, 0x3fff5fb6},
		{"coalesced13", 96, 13, 0x3fe8bbba},
	} {
		for k := range c.n {
			if b := math.Float32bits(got[c.from+k]); b != c.want {
				t.Errorf("%s rank %d: %08x, H100 %08x", c.name, k, b, c.want)
			}
		}
	}
	if b := math.Float32bits(got[64]); b != 0 {
		t.Errorf("exclusive_scan rank 0: %08x, H100 00000000", b)
	}
	// The scan's other ranks: rank r holds the inclusive scan of rank r-1.
	for r := 1; r < 16; r++ {
		var s float32
		for k := range r {
			s += in[k] + 1
		}
		if d := got[64+r] - s; d > 1e-5 || d < -1e-5 {
			t.Errorf("exclusive_scan rank %d: %v, want about %v", r, got[64+r], s)
		}
	}
}

// A tile cut from a smaller tile, and a partition of a coalesced group
// whose lanes have gaps, are KernelPanics naming the mistake. Both used to
// run: the first as a tile reaching past its parent's threads, the second
// with ranks counted across lanes the group does not hold (0, 2, 0, 2 for
// the even lanes' tiles of 4).
func TestPanicTiledPartitionBeyondItsParent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, want string
		k          sim.Kernel
	}{
		{"tile<64> of a tile<32>", "a tile of 64 threads is larger than its parent group of 32", func(t *sim.Thread) {
			sim.TiledPartitionOf[sim.Size64](sim.TiledPartitionOf[sim.Size32](sim.ThisThreadBlock(t)))
		}},
		{"tile of 32 of a tile of 16", "a tile of 32 threads is larger than its parent group of 16", func(t *sim.Thread) {
			sim.TiledPartition(sim.TiledPartition(sim.ThisThreadBlock(t), 16), 32)
		}},
		{"tiles of the even lanes", "lanes 0x55555555 are not consecutive", func(t *sim.Thread) {
			if t.ThreadIdx.X%2 == 0 {
				sim.TiledPartition(sim.CoalescedThreads(t), 4).Sync()
			}
		}},
	} {
		f := only(t, report(t, sim.NewDevice(sim.H100), lin(1, 64), c.k), sim.KernelPanic)
		if !strings.Contains(f.Detail, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, f.Detail, c.want)
		}
	}
	// A coalesced group of consecutive lanes, and a block's partial last
	// tile, are partitioned as before.
	wantClean(t, exec(t, sim.NewDevice(sim.H100), lin(1, 48), func(t *sim.Thread) {
		sim.TiledPartition(sim.ThisThreadBlock(t), 64).Sync()
		if t.ThreadIdx.X < 12 {
			g := sim.TiledPartition(sim.CoalescedThreads(t), 4)
			if g.ThreadRank() != t.ThreadIdx.X%4 || g.MetaGroupRank() != t.ThreadIdx.X/4 {
				panic(fmt.Sprintf("rank %d of tile %d", g.ThreadRank(), g.MetaGroupRank()))
			}
			g.Sync()
		}
	}))
}

// group.shfl from a rank outside a coalesced group is undefined in CUDA:
// the thread gets its own value, as before, and now an InvalidShuffle
// finding with the line, where it used to pass in silence.
func TestInvalidShuffleCoalescedRankOutsideGroup(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		if t.ThreadIdx.X < 8 {
			g := sim.CoalescedThreads(t)
			out.Store(t, t.ThreadIdx.X, sim.CoalescedShfl(g, int32(t.ThreadIdx.X), 8)) //@rankOutside
		}
	})
	f := only(t, r, sim.InvalidShuffle)
	if !strings.Contains(f.Detail, "rank 8 is outside the coalesced group of 8 threads") || f.Current.Site != at(t, "rankOutside") || f.Count != 8 {
		t.Errorf("want rank 8 of 8 named at the line, 8 times:\n%v", r)
	}
	for i, v := range out.ToHost()[:8] {
		if v != int32(i) {
			t.Errorf("lane %d got %d, want its own value", i, v)
		}
	}
}

// Tiles of 16 in a block of 48 (ranks, meta ranks, a shfl_down reduction,
// ballot, reduce, shfl wrapping within the tile, the dynamic partition) and
// a coalesced group inside an if (size, rank, shfl by rank, reduce, ballot
// in ranks) with labeled and binary partitions, under every schedule and
// both warp models (runCollCases).
func TestNoRaceGroupValues(t *testing.T) {
	t.Parallel()
	runCollCases(t, []collCase{
		{"tile16", 48, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				tid := t.ThreadIdx.X
				b := sim.ThisThreadBlock(t)
				tile := sim.TiledPartitionOf[sim.Size16](b)
				out.Store(t, tid*8+0, uint64(tile.ThreadRank()))
				out.Store(t, tid*8+1, uint64(tile.MetaGroupRank()*100+tile.MetaGroupSize()))
				v := int64(tid)
				for off := 8; off > 0; off /= 2 {
					v += sim.TileShflDown(tile, v, off)
				}
				out.Store(t, tid*8+2, uint64(v))
				t32 := sim.TiledPartitionOf[sim.Size32](b)
				out.Store(t, tid*8+3, uint64(t32.MetaGroupRank()*100+t32.MetaGroupSize()))
				out.Store(t, tid*8+4, uint64(tile.Ballot(tid%2 == 0)))
				out.Store(t, tid*8+5, uint64(sim.Reduce(tile, int32(tid), sim.Plus[int32]{})))
				tile.Sync()
				out.Store(t, tid*8+6, uint64(sim.TileShfl(tile, int32(tid), 17)))
				dg := sim.TiledPartition(b, 16)
				out.Store(t, tid*8+7, uint64(dg.ThreadRank()*100+dg.MetaGroupRank()))
			}
		}, func(tid int) []uint64 {
			base := tid / 16 * 16
			sum := 0
			for q := base; q < base+16; q++ {
				sum += q
			}
			var v [16]int
			for i := range v {
				v[i] = base + i
			}
			for off := 8; off > 0; off /= 2 {
				var nv [16]int
				for i := range v {
					nv[i] = v[i]
					if i+off < 16 {
						nv[i] += v[i+off]
					} else {
						nv[i] += v[i]
					}
				}
				v = nv
			}
			return []uint64{uint64(tid % 16), uint64(tid/16*100 + 3), uint64(v[tid%16]), uint64(tid/32*100 + 2), 0x5555, uint64(sum), uint64(base + 1), uint64(tid%16*100 + tid/16)}
		}},
		{"coalesced-if", 32, func(out *sim.Buffer[uint64]) sim.Kernel {
			return func(t *sim.Thread) {
				l := t.LaneID()
				if l%3 == 0 {
					g := sim.CoalescedThreads(t)
					out.Store(t, l*8+0, uint64(g.NumThreads()*100+g.ThreadRank()))
					out.Store(t, l*8+1, uint64(sim.CoalescedShfl(g, int32(l), g.NumThreads()-1-g.ThreadRank())))
					out.Store(t, l*8+2, uint64(g.MetaGroupRank()*100+g.MetaGroupSize()))
					out.Store(t, l*8+3, uint64(sim.Reduce(g, int32(l), sim.Plus[int32]{})))
					out.Store(t, l*8+4, uint64(g.Ballot(l > 20)))
				}
				tile := sim.TiledPartitionOf[sim.Size32](sim.ThisThreadBlock(t))
				lp := sim.LabeledPartition(tile, int32(l%3))
				out.Store(t, l*8+5, uint64(lp.MetaGroupRank()*100+lp.MetaGroupSize()))
				bp := sim.BinaryPartition(tile, l < 10)
				out.Store(t, l*8+6, uint64(bp.MetaGroupRank()*100+bp.MetaGroupSize()))
			}
		}, func(l int) []uint64 {
			bp := uint64(2)
			if l < 10 {
				bp = 102
			}
			lp := uint64(l%3*100 + 3)
			if l%3 != 0 {
				return []uint64{0, 0, 0, 0, 0, lp, bp}
			}
			r := l / 3
			return []uint64{uint64(1100 + r), uint64(3 * (10 - r)), 1, 165, 0x780, lp, bp} // ranks 7-10 (lanes 21-30) vote true
		}},
	})
}
