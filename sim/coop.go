package sim

// Cooperative groups (cooperative_groups.h, namespace cg) over the
// simulator's threads, barriers and warp collectives, with CUDA's names:
//
//	block := sim.ThisThreadBlock(t)               // cg::this_thread_block()
//	tile := sim.TiledPartitionOf[sim.Size16](block) // cg::tiled_partition<16>(block)
//	sum := sim.Reduce(tile, v, sim.Plus[float32]{}) // cg::reduce(tile, v, cg::plus<float>())
//	g := sim.TiledPartition(block, 64)             // cg::tiled_partition(block, 64)
//	active := sim.CoalescedThreads(t)             // cg::coalesced_threads()
//	grid := sim.ThisGrid(t)                       // cg::this_grid(); grid.Sync() needs a cooperative launch
//
// Go methods cannot take type parameters, so the members that do in CUDA
// (tile.shfl(v, src), tile.match_any(v), ...) are functions taking the
// group first: sim.TileShfl(tile, v, src), sim.TileMatchAny(tile, v).
//
// Groups of at most 32 threads are warp collectives with the group's mask
// (a tile's shfl is __shfl_sync(mask, v, src, width)), so everything the
// warp collectives do applies: only Sync orders memory, lanes that exited
// take no part, and a read of an exited lane's value is reported.

import (
	"fmt"
	"math/bits"
	"sync"
)

// Group is any cooperative group: cg::thread_group.
type Group interface {
	// Sync waits for the group's threads and orders their memory accesses
	// before it before those after it (sync(group)).
	Sync()
	// ThreadRank is the caller's rank in the group, 0 to NumThreads()-1.
	ThreadRank() int
	// NumThreads is the number of threads in the group (size()).
	NumThreads() int
	info() groupInfo
}

// groupInfo is what partitioning needs of a group: its threads are the
// block's linear thread indices first to first+n-1.
type groupInfo struct {
	t     *Thread
	first int
	n     int
}

// ThreadBlock is cg::thread_block, the caller's block.
type ThreadBlock struct{ t *Thread }

// ThisThreadBlock is cg::this_thread_block().
func ThisThreadBlock(t *Thread) ThreadBlock { return ThreadBlock{t} }

// Sync is block.sync(), __syncthreads().
func (g ThreadBlock) Sync() { g.t.barrier(barPlain, false) }

// ThreadRank is block.thread_rank(), the linear thread index.
func (g ThreadBlock) ThreadRank() int { return g.t.tid }

// NumThreads is block.num_threads().
func (g ThreadBlock) NumThreads() int { return g.t.w.l.tpb }

// Size is block.size(), the same as NumThreads.
func (g ThreadBlock) Size() int { return g.t.w.l.tpb }

// GroupIndex is block.group_index(), blockIdx.
func (g ThreadBlock) GroupIndex() Dim3 { return g.t.BlockIdx }

// ThreadIndex is block.thread_index(), threadIdx.
func (g ThreadBlock) ThreadIndex() Dim3 { return g.t.ThreadIdx }

// DimThreads is block.dim_threads() (group_dim()), blockDim.
func (g ThreadBlock) DimThreads() Dim3 { return g.t.BlockDim }

func (g ThreadBlock) info() groupInfo { return groupInfo{g.t, 0, g.t.w.l.tpb} }

// TileSize names the size of a statically sized tile, the N of
// cg::tiled_partition<N> and cg::thread_block_tile<N>: Size1 to Size32,
// and the larger tiles CUDA 12 allows, Size64 to Size1024.
type TileSize interface{ tileSize() int }

type (
	Size1    struct{}
	Size2    struct{}
	Size4    struct{}
	Size8    struct{}
	Size16   struct{}
	Size32   struct{}
	Size64   struct{}
	Size128  struct{}
	Size256  struct{}
	Size512  struct{}
	Size1024 struct{}
)

func (Size1) tileSize() int    { return 1 }
func (Size2) tileSize() int    { return 2 }
func (Size4) tileSize() int    { return 4 }
func (Size8) tileSize() int    { return 8 }
func (Size16) tileSize() int   { return 16 }
func (Size32) tileSize() int   { return 32 }
func (Size64) tileSize() int   { return 64 }
func (Size128) tileSize() int  { return 128 }
func (Size256) tileSize() int  { return 256 }
func (Size512) tileSize() int  { return 512 }
func (Size1024) tileSize() int { return 1024 }

// Tile is cg::thread_block_tile<N>: N consecutive threads of the parent
// group, by thread rank. Tiles of up to 32 threads lie within one warp and
// have the warp collectives (TileShfl, TileAny, ...); larger tiles have
// Sync and the ranks.
type Tile[S TileSize] struct {
	t     *Thread
	first int    // block-linear index of rank 0
	meta  int    // meta_group_rank
	metaN int    // meta_group_size
	mask  uint32 // the tile's lanes, for tiles of up to 32 threads
}

// TiledPartitionOf is cg::tiled_partition<N>(parent), N the size S names:
// the caller's tile of the parent's threads split in rank order.
func TiledPartitionOf[S TileSize](parent Group) Tile[S] {
	var s S
	gi, meta, metaN := split(parent, s.tileSize())
	n := s.tileSize()
	tl := Tile[S]{t: gi.t, first: gi.first, meta: meta, metaN: metaN}
	if n <= warpSize {
		tl.mask = laneMask(gi.first, n)
	}
	return tl
}

// split finds the caller's tile of n threads in parent: its groupInfo,
// meta_group_rank and meta_group_size.
func split(parent Group, n int) (groupInfo, int, int) {
	p := parent.info()
	if n < 1 || n > 1024 || n&(n-1) != 0 {
		panic(fmt.Sprintf("tiled_partition: tile size %d is not a power of two from 1 to 1024", n))
	}
	if n > warpSize && p.first%warpSize != 0 {
		panic(fmt.Sprintf("tiled_partition: a tile of %d threads must start at a warp boundary", n))
	}
	if g, ok := parent.(CoalescedGroup); ok {
		// Tiles are cut from consecutive threads; a coalesced group with
		// gaps would be cut across lanes it does not hold, with wrong
		// ranks.
		if m := g.mask >> (p.first % warpSize); m&(m+1) != 0 {
			panic(fmt.Sprintf("tiled_partition: the coalesced group's lanes %#08x are not consecutive, which the simulator does not partition; partition the block or a tile, or use LabeledPartition", g.mask))
		}
	}
	switch parent.(type) {
	case ThreadBlock, GridGroup:
		// (A block's last tile may be partial, as a partial last warp is.)
	default:
		if n > p.n {
			panic(fmt.Sprintf("tiled_partition: a tile of %d threads is larger than its parent group of %d; partition the block instead", n, p.n))
		}
	}
	r := p.t.tid - p.first
	return groupInfo{p.t, p.first + r/n*n, n}, r / n, (p.n + n - 1) / n
}

// laneMask is the mask of the n lanes from block-linear index first on.
func laneMask(first, n int) uint32 {
	if n >= warpSize {
		return FullMask
	}
	return uint32(1<<n-1) << (first % warpSize)
}

func (g Tile[S]) size() int { var s S; return s.tileSize() }

// Sync is tile.sync(): __syncwarp(mask) for tiles of up to 32 threads, a
// barrier of the tile's threads for larger ones.
func (g Tile[S]) Sync() {
	if n := g.size(); n <= warpSize {
		g.t.collective(collSyncWarp, g.mask, 0, 0, warpSize)
	} else {
		g.t.groupSync(g.first, n)
	}
}

// ThreadRank is tile.thread_rank().
func (g Tile[S]) ThreadRank() int { return g.t.tid - g.first }

// NumThreads is tile.num_threads(), N.
func (g Tile[S]) NumThreads() int { return g.size() }

// Size is tile.size(), N.
func (g Tile[S]) Size() int { return g.size() }

// MetaGroupRank is tile.meta_group_rank(): the tile's index in its parent.
func (g Tile[S]) MetaGroupRank() int { return g.meta }

// MetaGroupSize is tile.meta_group_size(): how many tiles the parent was
// split into.
func (g Tile[S]) MetaGroupSize() int { return g.metaN }

func (g Tile[S]) info() groupInfo { return groupInfo{g.t, g.first, g.size()} }

func (g Tile[S]) warpOnly(op string) {
	if g.size() > warpSize {
		panic(fmt.Sprintf("thread_block_tile<%d>::%s: only tiles of up to 32 threads have warp collectives", g.size(), op))
	}
}

// Any is tile.any(pred).
func (g Tile[S]) Any(pred bool) bool {
	g.warpOnly("any")
	return g.t.collective(collAny, g.mask, boolBits(pred), 0, warpSize) != 0
}

// All is tile.all(pred).
func (g Tile[S]) All(pred bool) bool {
	g.warpOnly("all")
	return g.t.collective(collAll, g.mask, boolBits(pred), 0, warpSize) != 0
}

// Ballot is tile.ballot(pred): bit r set if the thread of rank r voted true.
func (g Tile[S]) Ballot(pred bool) uint32 {
	g.warpOnly("ballot")
	return uint32(g.t.collective(collBallot, g.mask, boolBits(pred), 0, warpSize)) >> (g.first % warpSize)
}

// TileShfl is tile.shfl(v, src): the value of the thread of rank src.
func TileShfl[S TileSize, T Elem](g Tile[S], v T, src int) T {
	g.warpOnly("shfl")
	return ShflSync(g.t, g.mask, v, src, g.size())
}

// TileShflUp is tile.shfl_up(v, delta).
func TileShflUp[S TileSize, T Elem](g Tile[S], v T, delta int) T {
	g.warpOnly("shfl_up")
	return ShflUpSync(g.t, g.mask, v, delta, g.size())
}

// TileShflDown is tile.shfl_down(v, delta).
func TileShflDown[S TileSize, T Elem](g Tile[S], v T, delta int) T {
	g.warpOnly("shfl_down")
	return ShflDownSync(g.t, g.mask, v, delta, g.size())
}

// TileShflXor is tile.shfl_xor(v, laneMask).
func TileShflXor[S TileSize, T Elem](g Tile[S], v T, laneMask int) T {
	g.warpOnly("shfl_xor")
	return ShflXorSync(g.t, g.mask, v, laneMask, g.size())
}

// TileMatchAny is tile.match_any(v): the ranks of the tile's threads whose
// v equals the caller's.
func TileMatchAny[S TileSize, T Elem](g Tile[S], v T) uint32 {
	g.warpOnly("match_any")
	return MatchAnySync(g.t, g.mask, v) >> (g.first % warpSize)
}

// TileMatchAll is tile.match_all(v, pred): all the tile's ranks and true if
// every thread holds the same v, else 0 and false.
func TileMatchAll[S TileSize, T Elem](g Tile[S], v T) (uint32, bool) {
	g.warpOnly("match_all")
	m, ok := MatchAllSync(g.t, g.mask, v)
	return m >> (g.first % warpSize), ok
}

// ThreadGroup is the cg::thread_group that the dynamic
// cg::tiled_partition(parent, n) returns: Sync and the ranks, no
// collectives.
type ThreadGroup struct {
	t           *Thread
	first, n    int
	meta, metaN int
}

// TiledPartition is cg::tiled_partition(parent, n): the caller's tile of
// n threads (a power of two) of the parent, split in rank order. A tile
// larger than a parent tile or group, and a partition of a coalesced group
// whose lanes are not consecutive, are KernelPanic findings.
func TiledPartition(parent Group, n int) ThreadGroup {
	gi, meta, metaN := split(parent, n)
	return ThreadGroup{gi.t, gi.first, n, meta, metaN}
}

// Sync is sync(group).
func (g ThreadGroup) Sync() {
	if g.n <= warpSize {
		g.t.collective(collSyncWarp, laneMask(g.first, g.n), 0, 0, warpSize)
	} else {
		g.t.groupSync(g.first, g.n)
	}
}

// ThreadRank is group.thread_rank().
func (g ThreadGroup) ThreadRank() int { return g.t.tid - g.first }

// NumThreads is group.num_threads().
func (g ThreadGroup) NumThreads() int { return g.n }

// Size is group.size().
func (g ThreadGroup) Size() int { return g.n }

// MetaGroupRank is the tile's index in its parent.
func (g ThreadGroup) MetaGroupRank() int { return g.meta }

// MetaGroupSize is how many tiles the parent was split into.
func (g ThreadGroup) MetaGroupSize() int { return g.metaN }

func (g ThreadGroup) info() groupInfo { return groupInfo{g.t, g.first, g.n} }

// CoalescedGroup is cg::coalesced_group: lanes of one warp, not
// necessarily consecutive, ranked in lane order.
type CoalescedGroup struct {
	t     *Thread
	mask  uint32
	meta  int
	metaN int
}

// CoalescedThreads is cg::coalesced_threads(): the lanes of the caller's
// warp that are converged with it, as __activemask() gives them.
func CoalescedThreads(t *Thread) CoalescedGroup {
	t.own()
	return CoalescedGroup{t: t, mask: t.converge(t.w.sites.callerSite()), metaN: 1}
}

// ActiveMask is __activemask(): the lanes of the warp converged with the
// caller at this call (never lanes that have exited).
//
// On hardware it is whichever lanes happen to execute the call together,
// which a correct program cannot rely on. The simulator decides it so
// that it is deterministic and as large as hardware could make it: the
// caller waits until every thread that can run has run, and the lanes of
// its warp then waiting at the same call (the same source line) are the
// ones converged. Lanes that took another branch, wait at a barrier or a
// collective, spin, or have exited are not. A warp's meetings at different
// calls form one at a time, the first reached first, so that lanes one
// releases can still reach the next: after an if/else that calls
// ActiveMask in each branch, a call after it sees the whole warp. Where
// lanes reach the call after an if before the other branch's lanes reach
// the call in that branch, the call after the if forms first, without
// them (a GPU that reconverges at the if's end would include them; CUDA
// promises neither). ActiveMask orders no memory.
func (t *Thread) ActiveMask() uint32 {
	t.own()
	return t.converge(t.w.sites.callerSite())
}

// convKey names a meeting at an ActiveMask call: block, warp and site.
type convKey struct {
	b    *block
	warp int
	s    site
}

// meeting is lanes converging at an ActiveMask call site.
type meeting struct {
	waiting uint32 // lanes arrived
	formed  bool   // the group is decided: waiting is its mask
}

// converge parks the caller at the ActiveMask meeting at site s until no
// thread can run but the parked ones: then the lanes of its warp waiting
// at s form the converged group. A warp's meetings form one at a time, in
// the order they were opened, and not while lanes that the last one
// released have yet to run (warp.convFreed): those can run, and may come
// to this call.
func (t *Thread) converge(s site) uint32 {
	w := t.w
	wp := &t.blk.warps[t.warp]
	bit := uint32(1) << t.lane
	cs := w.l.coopState()
	key := convKey{t.blk, t.warp, s}
	cs.mu.Lock()
	m := cs.conv[key]
	if m == nil {
		m = new(meeting)
		cs.conv[key] = m
		wp.convOpen = append(wp.convOpen, m)
	}
	cs.mu.Unlock()
	m.waiting |= bit
	for !m.formed {
		t.waitSite = s
		t.state, t.waitFor = stSpinning, waitMemory
		w.spinq = append(w.spinq, t)
		t.suspend()
		t.state = stRunning
		// Resumed by a spin round: every thread that could run has run.
		if !m.formed && wp.convOpen[0] == m && wp.convFreed&^bit == 0 {
			m.formed = true
			wp.convFreed |= m.waiting &^ bit
			wp.convOpen = wp.convOpen[1:]
			cs.mu.Lock()
			delete(cs.conv, key)
			cs.mu.Unlock()
			w.progress++
		}
	}
	if wp.convFreed&bit != 0 {
		wp.convFreed &^= bit
		w.progress++ // the next meeting may form
	}
	return m.waiting
}

// Sync is group.sync(), __syncwarp(mask).
func (g CoalescedGroup) Sync() { g.t.collective(collSyncWarp, g.mask, 0, 0, warpSize) }

// ThreadRank is the number of the group's lanes below the caller's.
func (g CoalescedGroup) ThreadRank() int { return bits.OnesCount32(g.mask & (1<<g.t.lane - 1)) }

// NumThreads is group.num_threads().
func (g CoalescedGroup) NumThreads() int { return bits.OnesCount32(g.mask) }

// Size is group.size().
func (g CoalescedGroup) Size() int { return bits.OnesCount32(g.mask) }

// MetaGroupRank is group.meta_group_rank(): the group's index among the
// partitions of its parent (0 for coalesced_threads()).
func (g CoalescedGroup) MetaGroupRank() int { return g.meta }

// MetaGroupSize is group.meta_group_size() (1 for coalesced_threads()).
func (g CoalescedGroup) MetaGroupSize() int { return g.metaN }

// Mask is the group's lanes in the warp.
func (g CoalescedGroup) Mask() uint32 { return g.mask }

func (g CoalescedGroup) info() groupInfo {
	return groupInfo{g.t, g.t.warp*warpSize + bits.TrailingZeros32(g.mask), g.NumThreads()}
}

// laneOf is the lane of the group's thread of rank r, or -1.
func (g CoalescedGroup) laneOf(r int) int {
	if r < 0 {
		return -1
	}
	for m := g.mask; m != 0; m &= m - 1 {
		if r == 0 {
			return bits.TrailingZeros32(m)
		}
		r--
	}
	return -1
}

// compact maps a lane mask to group ranks.
func (g CoalescedGroup) compact(m uint32) uint32 {
	var r uint32
	k := 0
	for gm := g.mask; gm != 0; gm &= gm - 1 {
		if l := bits.TrailingZeros32(gm); m&(1<<l) != 0 {
			r |= 1 << k
		}
		k++
	}
	return r
}

// Any is group.any(pred).
func (g CoalescedGroup) Any(pred bool) bool { return g.t.AnySync(g.mask, pred) }

// All is group.all(pred).
func (g CoalescedGroup) All(pred bool) bool { return g.t.AllSync(g.mask, pred) }

// Ballot is group.ballot(pred): bit r set if the thread of rank r voted
// true.
func (g CoalescedGroup) Ballot(pred bool) uint32 { return g.compact(g.t.BallotSync(g.mask, pred)) }

// CoalescedShfl is group.shfl(v, rank): the value of the thread of that rank.
// A rank outside the group is undefined in CUDA: the thread gets its own
// value, and an InvalidShuffle finding says so.
func CoalescedShfl[T Elem](g CoalescedGroup, v T, rank int) T {
	src := g.laneOf(rank)
	if src < 0 {
		v = ShflSync(g.t, g.mask, v, g.t.lane)
		g.t.rankOutside("CoalescedShfl", rank, bits.OnesCount32(g.mask))
		return v
	}
	return ShflSync(g.t, g.mask, v, src)
}

// rankOutside reports a shuffle from a rank outside the caller's group of
// n threads; the launch goes on.
//
//go:noinline
func (t *Thread) rankOutside(op string, rank, n int) {
	t.w.l.addFinding(Finding{Kind: InvalidShuffle,
		Detail:  fmt.Sprintf("rank %d is outside the coalesced group of %d threads (ranks 0 to %d): the value is undefined on hardware; the thread got its own", rank, n, n-1),
		Current: threadAccess(t, op, t.w.sites.callerSite())})
}

// CoalescedShflUp is group.shfl_up(v, delta): the value of the thread delta
// ranks below, or the caller's own in the group's first delta ranks.
func CoalescedShflUp[T Elem](g CoalescedGroup, v T, delta int) T {
	src := g.laneOf(g.ThreadRank() - delta)
	if src < 0 {
		src = g.t.lane
	}
	return ShflSync(g.t, g.mask, v, src)
}

// CoalescedShflDown is group.shfl_down(v, delta): the value of the thread
// delta ranks above, or the caller's own in the group's last delta ranks.
func CoalescedShflDown[T Elem](g CoalescedGroup, v T, delta int) T {
	src := g.laneOf(g.ThreadRank() + delta)
	if src < 0 {
		src = g.t.lane
	}
	return ShflSync(g.t, g.mask, v, src)
}

// CoalescedMatchAny is group.match_any(v), in group ranks.
func CoalescedMatchAny[T Elem](g CoalescedGroup, v T) uint32 {
	return g.compact(MatchAnySync(g.t, g.mask, v))
}

// CoalescedMatchAll is group.match_all(v, pred), in group ranks.
func CoalescedMatchAll[T Elem](g CoalescedGroup, v T) (uint32, bool) {
	m, ok := MatchAllSync(g.t, g.mask, v)
	return g.compact(m), ok
}

// LabeledPartition is cg::labeled_partition(parent, label): the parent's
// threads split into coalesced groups of equal label. Every thread of the
// parent must call it (it is a match_any over the parent, and a ballot of
// the groups' leaders, as in CUDA's header). MetaGroupSize is the number of
// groups, MetaGroupRank the group's index among them in the order of their
// lowest lanes.
func LabeledPartition(parent WarpGroup, label int32) CoalescedGroup {
	t, mask := parent.lanes()
	m := MatchAnySync(t, mask, label)
	lead := bits.TrailingZeros32(m)
	leaders := t.BallotSync(mask, t.lane == lead)
	return CoalescedGroup{t: t, mask: m, meta: bits.OnesCount32(leaders & (1<<lead - 1)), metaN: bits.OnesCount32(leaders)}
}

// BinaryPartition is cg::binary_partition(parent, pred): the parent's
// threads split by pred into two coalesced groups, of MetaGroupRank 1 for
// pred and 0 for !pred (MetaGroupSize 2), or one group of rank 0 (size 1)
// where every thread's pred is the same, as in CUDA's header.
func BinaryPartition(parent WarpGroup, pred bool) CoalescedGroup {
	t, mask := parent.lanes()
	set := t.BallotSync(mask, pred)
	if set == 0 || set == mask {
		return CoalescedGroup{t: t, mask: mask, metaN: 1}
	}
	m := set
	if !pred {
		m = mask &^ set
	}
	return CoalescedGroup{t: t, mask: m, meta: int(boolBits(pred)), metaN: 2}
}

// WarpGroup is a group within one warp, which has warp collectives: a
// Tile of up to 32 threads or a CoalescedGroup. Reduce, InclusiveScan,
// ExclusiveScan, LabeledPartition and BinaryPartition take one.
type WarpGroup interface {
	Group
	lanes() (*Thread, uint32)
}

func (g Tile[S]) lanes() (*Thread, uint32) {
	g.warpOnly("a warp collective")
	return g.t, g.mask
}

func (g CoalescedGroup) lanes() (*Thread, uint32) { return g.t, g.mask }

// groupShfl moves v from the group's thread of rank src (and the own value
// for a rank outside the group).
func groupShfl[T Elem](g WarpGroup, v T, src int) T {
	t, mask := g.lanes()
	lane := t.lane
	switch gg := g.(type) {
	case CoalescedGroup:
		if l := gg.laneOf(src); l >= 0 {
			lane = l
		}
	default:
		if src >= 0 && src < g.NumThreads() {
			lane = g.info().first%warpSize + src
		}
	}
	return ShflSync(t, mask, v, lane)
}

// ReduceOp is a binary operation of cg::reduce and the scans: Plus, Less,
// Greater, BitAnd, BitOr or BitXor.
type ReduceOp[T Elem] interface{ apply(a, b T) T }

// Integer is the element types the bit operations take.
type Integer interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64
}

type (
	Plus[T Elem]      struct{} // cg::plus<T>: a + b
	Less[T Elem]      struct{} // cg::less<T>: the lesser, so cg::reduce gives the minimum
	Greater[T Elem]   struct{} // cg::greater<T>: the greater, so cg::reduce gives the maximum
	BitAnd[T Integer] struct{} // cg::bit_and<T>
	BitOr[T Integer]  struct{} // cg::bit_or<T>
	BitXor[T Integer] struct{} // cg::bit_xor<T>
)

func (Plus[T]) apply(a, b T) T { return a + b }
func (Less[T]) apply(a, b T) T {
	if b < a {
		return b
	}
	return a
}
func (Greater[T]) apply(a, b T) T {
	if b > a {
		return b
	}
	return a
}
func (BitAnd[T]) apply(a, b T) T { return a & b }
func (BitOr[T]) apply(a, b T) T  { return a | b }
func (BitXor[T]) apply(a, b T) T { return a ^ b }

// Reduce is cg::reduce(group, v, op): op over the v of every thread of the
// group, the same result on each. CUDA does not document its order of
// operations, which matters for floats; gpusim's is the one the H100
// gives (scripts/coop_probe.cu, TestReduceOrdersMatchH100) and CUDA 12's
// cooperative_groups/details/coalesced_reduce.h implements: on a tile (and
// a coalesced group of the full warp), a butterfly over shfl_xor with
// offsets N/2, N/4, ..., 1, each thread combining op(own, other); on a
// coalesced group of fewer than 32 threads, InclusiveScan's order, the
// last rank's result broadcast to the group.
func Reduce[T Elem](g WarpGroup, v T, op ReduceOp[T]) T {
	t, mask := g.lanes()
	n := g.NumThreads()
	cg, coalesced := g.(CoalescedGroup)
	if !coalesced || n == warpSize {
		width := n
		if coalesced {
			width = warpSize
		}
		for off := n / 2; off > 0; off /= 2 {
			v = op.apply(v, ShflXorSync(t, mask, v, off, width))
		}
		return v
	}
	return CoalescedShfl(cg, InclusiveScan(g, v, op), n-1)
}

// InclusiveScan is cg::inclusive_scan(group, v, op): at rank r, op over the
// v of ranks 0 to r (Hillis-Steele over shfl_up, offsets 1, 2, 4, ..., each
// thread combining op(own, lower), as CUDA's scan.h does).
func InclusiveScan[T Elem](g WarpGroup, v T, op ReduceOp[T]) T {
	n, r := g.NumThreads(), g.ThreadRank()
	for d := 1; d < n; d *= 2 {
		u := groupShfl(g, v, r-d)
		if r >= d {
			v = op.apply(v, u)
		}
	}
	return v
}

// ExclusiveScan is cg::exclusive_scan(group, v, op): at rank r, op over the
// v of ranks 0 to r-1; rank 0 gets T's zero value.
func ExclusiveScan[T Elem](g WarpGroup, v T, op ReduceOp[T]) T {
	v = InclusiveScan(g, v, op)
	r := g.ThreadRank()
	u := groupShfl(g, v, r-1)
	if r == 0 {
		var zero T
		return zero
	}
	return u
}

// groupMeet is a barrier of the threads of one tile larger than a warp.
type groupMeet struct {
	arrived int
	gen     uint64
	members []*Thread // detection: who arrived, to order them
}

type groupKey struct {
	b     *block
	first int
}

// groupSync is the barrier of the n threads from block-linear index first
// on (a tile of more than 32 threads): each waits until all have arrived;
// their accesses before it are ordered before their accesses after it.
// Threads of the tile that have exited count as arrived. Waiting threads
// are parked as spinners until no other thread can run.
func (t *Thread) groupSync(first, n int) {
	t.own()
	w := t.w
	cs := w.l.coopState()
	key := groupKey{t.blk, first}
	cs.mu.Lock()
	m := cs.groups[key]
	if m == nil {
		m = new(groupMeet)
		cs.groups[key] = m
	}
	cs.mu.Unlock()
	s := w.sites.callerSite()
	gen := m.gen
	m.arrived++
	if w.l.detect {
		t.x.hb.clock++ // the accesses before the sync, told from those after
		m.members = append(m.members, t)
	}
	for m.gen == gen {
		// Threads of the tile that exited count as arrived: look again
		// each time round, as one may have exited while this one waited.
		live := 0
		for k := first; k < min(first+n, len(t.blk.threads)); k++ {
			if k >= t.blk.started || t.blk.threads[k].state != stDone {
				live++
			}
		}
		if m.arrived >= live {
			if w.l.detect {
				orderMembers(m.members)
			}
			m.arrived, m.members = 0, m.members[:0]
			m.gen++
			w.progress++
			return
		}
		t.waitSite = s
		t.state, t.waitFor = stSpinning, waitTileSync
		w.spinq = append(w.spinq, t)
		t.suspend()
		t.state = stRunning
	}
}

// orderMembers orders every access of the threads before a group sync
// before every access of theirs after it: each learns each other's fence
// clock at the sync, and what any of them had acquired.
func orderMembers(ms []*Thread) {
	all := newVClock()
	for _, u := range ms {
		all.join(u.x.hb.vc)
		all.threads[u.gid] = u.x.hb.clock
	}
	all.frozen = true
	for _, u := range ms {
		u.x.hb.vc = all // shared, frozen: a thread copies it before adding (ownVC)
		u.blk.acquired = true
	}
}

// coopState is a launch's state for cooperative groups and grid sync,
// made on first use.
type coopState struct {
	// mu guards the maps: blocks on parallel workers meet in them at once
	// (each meeting belongs to one block, so its fields need no lock).
	mu     sync.Mutex
	conv   map[convKey]*meeting
	groups map[groupKey]*groupMeet
	grid   gridBarrier
}

// coopState is made on first use, under the launch's lock: the first users
// may be blocks on different workers.
func (l *launch) coopState() *coopState {
	if l.epoch != nil {
		l.specFail("a cooperative group")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.coop == nil {
		l.coop = &coopState{conv: map[convKey]*meeting{}, groups: map[groupKey]*groupMeet{}}
	}
	return l.coop
}
