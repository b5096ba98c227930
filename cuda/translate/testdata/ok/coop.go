package ok

import "github.com/gpusim/gpusim/sim"

// TileCollectives: a block, its static tiles of 32 and 8 threads, their
// ranks, sync, shuffles, votes and matches, and cg::reduce and the scans.
func TileCollectives(in *sim.Buffer[float32], out *sim.Buffer[int32], sums *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		block := sim.ThisThreadBlock(t)
		tile := sim.TiledPartitionOf[sim.Size32](block)
		small := sim.TiledPartitionOf[sim.Size8](tile)
		r := block.ThreadRank()
		v := in.Load(t, r)
		sum := sim.Reduce(tile, v, sim.Plus[float32]{})
		lo := sim.Reduce(small, int32(r), sim.Less[int32]{})
		hi := sim.Reduce(small, int32(r), sim.Greater[int32]{})
		x := sim.InclusiveScan(small, uint32(r), sim.BitXor[uint32]{})
		e := sim.ExclusiveScan(tile, int64(r), sim.Plus[int64]{})
		a := sim.Reduce(tile, uint32(r), sim.BitAnd[uint32]{}) | sim.Reduce(tile, uint32(r), sim.BitOr[uint32]{})
		up := sim.TileShflUp(tile, v, 1)
		down := sim.TileShflDown(small, v, 2)
		sw := sim.TileShflXor(tile, v, 16)
		first := sim.TileShfl(small, v, 0)
		m := sim.TileMatchAny(tile, int32(r/4))
		all, same := sim.TileMatchAll(small, int32(0))
		tile.Sync()
		small.Sync()
		if tile.Any(v > 0) && !small.All(v > 0) {
			out.Store(t, r, int32(tile.Ballot(v > 1)))
		}
		block.Sync()
		if same {
			out.Store(t, r, int32(all)+int32(m)+lo+hi+int32(x)+int32(e)+int32(a))
		}
		sums.Store(t, r, sum+up+down+sw+first+float32(tile.MetaGroupRank()+tile.MetaGroupSize()+small.NumThreads()+small.Size()+block.NumThreads()+block.Size()))
	}
}

// Coalesced: coalesced_threads in a branch, its ranks and collectives,
// labeled and binary partitions, the dynamic tiled_partition.
func Coalesced(in *sim.Buffer[int32], out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		v := in.Load(t, i)
		if v > 0 {
			active := sim.CoalescedThreads(t)
			n := active.NumThreads()
			total := sim.Reduce(active, v, sim.Plus[int32]{})
			before := sim.ExclusiveScan(active, v, sim.Plus[int32]{})
			mn := sim.InclusiveScan(active, v, sim.Less[int32]{})
			s := sim.CoalescedShfl(active, v, 0) + sim.CoalescedShflUp(active, v, 1) + sim.CoalescedShflDown(active, v, 1)
			mask := sim.CoalescedMatchAny(active, v&1)
			_, same := sim.CoalescedMatchAll(active, v)
			odd := sim.LabeledPartition(active, v&1)
			big := sim.BinaryPartition(active, v > 10)
			active.Sync()
			if active.ThreadRank() == 0 && active.Any(v > 5) && active.All(v > 0) {
				out.Store(t, i, total+int32(n)+int32(active.Ballot(v > 3))+int32(active.MetaGroupRank()+active.MetaGroupSize()+active.Size()))
			}
			if same {
				out.Store(t, i, before+mn+s+int32(mask)+int32(odd.NumThreads()+big.ThreadRank()))
			}
		}
		quad := sim.TiledPartition(sim.ThisThreadBlock(t), 4)
		quad.Sync()
		if quad.ThreadRank() == 0 {
			out.Store(t, i+1, int32(quad.NumThreads()+quad.Size()))
		}
	}
}

// GridPhases: two phases separated by grid.sync().
func GridPhases(data *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		grid := sim.ThisGrid(t)
		i := grid.ThreadRank()
		if i < n {
			data.Store(t, i, int32(i))
		}
		grid.Sync()
		sim.ThisGrid(t).Sync()
		if i < n && grid.IsValid() {
			data.Store(t, i, data.Load(t, n-1-i)+int32(grid.BlockRank()+grid.NumBlocks()+grid.Size()+grid.NumThreads()))
		}
	}
}

// AtomicRefs: cuda::atomic_ref at each scope, with memory orders.
func AtomicRefs(flag *sim.Buffer[int32], sum *sim.Buffer[float32], cnt *sim.Buffer[uint64]) sim.Kernel {
	return func(t *sim.Thread) {
		f := sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice)
		s := sim.NewAtomicRef(sum, 0, sim.ThreadScopeBlock)
		c := sim.NewAtomicRef(cnt, 0, sim.ThreadScopeSystem)
		s.FetchAdd(t, 1.5, sim.MemoryOrderRelaxed)
		s.FetchSub(t, 0.5, sim.MemoryOrderRelease)
		old := c.FetchAdd(t, 1, sim.MemoryOrderAcqRel)
		c.FetchOr(t, old&1, sim.MemoryOrderRelaxed)
		c.FetchAnd(t, ^uint64(0), sim.MemoryOrderRelaxed)
		c.FetchXor(t, 0, sim.MemoryOrderRelaxed)
		f.FetchMin(t, -1, sim.MemoryOrderSeqCst)
		f.FetchMax(t, 7, sim.MemoryOrderSeqCst)
		prev, ok := f.CompareExchangeStrong(t, 7, 8, sim.MemoryOrderAcqRel)
		_, _ = f.CompareExchangeWeak(t, prev, 9, sim.MemoryOrderRelaxed)
		if ok {
			f.Store(t, f.Exchange(t, 3, sim.MemoryOrderAcquire), sim.MemoryOrderRelease)
		}
		v := f.Load(t, sim.MemoryOrderAcquire)
		sim.NewAtomicRef(flag, 1, sim.ThreadScopeBlock).Store(t, v, sim.MemoryOrderRelaxed)
	}
}

// tileSum is a helper that takes a tile.
func tileSum(tile sim.Tile[sim.Size16], v int32) int32 {
	return sim.Reduce(tile, v, sim.Plus[int32]{})
}

// TileHelper: a tile passed to a helper.
func TileHelper(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.TiledPartitionOf[sim.Size16](sim.ThisThreadBlock(t))
		s := tileSum(tile, int32(tile.ThreadRank()))
		out.Store(t, t.GlobalX(), s)
	}
}

// syncGrid is grid.sync() in a helper.
func syncGrid(t *sim.Thread) { sim.ThisGrid(t).Sync() }

// stepThenSync calls syncGrid: a kernel reaching grid.sync() two calls down.
func stepThenSync(t *sim.Thread, data *sim.Buffer[int32], i int) {
	data.Store(t, i, data.Load(t, i)+1)
	syncGrid(t)
}

// GridSyncInHelper: grid.sync() only in helpers, so only the call graph
// says that the kernel needs a cooperative launch.
func GridSyncInHelper(data *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			stepThenSync(t, data, i)
		}
	}
}
