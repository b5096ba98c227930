package bad

import "github.com/gpusim/gpusim/sim"

// Cooperative groups and atomic refs where CUDA cannot have them.

func GroupZero(out *sim.Buffer[int32], n int, scope sim.ThreadScope, order sim.MemoryOrder) sim.Kernel {
	return func(t *sim.Thread) {
		var g sim.ThreadBlock        // want "has no zero value in CUDA; declare the variable from its constructor"
		var gs [2]sim.CoalescedGroup // want "arrays of cooperative groups"
		lit := sim.ThreadBlock{}     // want "has no zero value in CUDA; create it with its constructor"
		_, _, _ = g, gs, lit
		big := sim.TiledPartitionOf[sim.Size64](sim.ThisThreadBlock(t)) // want "tiles of more than 32 threads"
		_ = big
		dyn := sim.TiledPartition(sim.ThisThreadBlock(t), n) // want "a dynamic tile is translated for a constant size"
		dyn.Sync()
		t4 := sim.TiledPartitionOf[sim.Size4](sim.ThisThreadBlock(t))
		q8 := sim.TiledPartition(t4, 8) // want "a tile of 8 threads cannot be cut from a tile of 4"
		q8.Sync()
		d2 := sim.NewAtomicRef(out, 5, sim.ThreadScopeDevice)
		d2 = sim.NewAtomicRef(out, 6, sim.ThreadScopeDevice) // want "an AtomicRef cannot be assigned in CUDA"
		d2.Store(t, 1, sim.MemoryOrderRelaxed)
		q := sim.TiledPartition(sim.ThisThreadBlock(t), 4)
		out.Store(t, 0, int32(q.MetaGroupRank())) // want "cg::thread_group has no meta_group_rank"
		b := sim.ThisThreadBlock(t)
		idx := b.ThreadIndex() // want "a Dim3 is not a kernel value .*t.ThreadIdx.Y"
		_ = idx
		c := sim.CoalescedThreads(t)
		out.Store(t, 2, int32(c.Mask())) // want "does not expose its lane mask"
		tile := sim.TiledPartitionOf[sim.Size32](b)
		out.Store(t, 3, int32(sim.TileShfl(tile, int8(1), 0))) // want "collectives are translated for 32- and 64-bit"
		r := sim.NewAtomicRef(out, 4, scope)                   // want "the scope of an AtomicRef is part of its CUDA type"
		_ = r
		d := sim.NewAtomicRef(out, 5, sim.ThreadScopeDevice)
		out.Store(t, 6, d.Load(t, sim.MemoryOrderRelease)) // want "memory_order_release is undefined behaviour for load"
		out.Store(t, 7, d.Load(t, order))                  // want "load takes a constant memory order in CUDA; pass"
	}
}

func GroupParam(b sim.ThreadBlock) sim.Kernel { // want "kernel parameter b: cooperative groups and atomic refs are not kernel parameters"
	return func(t *sim.Thread) {
		b.Sync()
	}
}

func makeTile(b sim.ThreadBlock) sim.Tile[sim.Size32] { // want "a function cannot return a cooperative group"
	return sim.TiledPartitionOf[sim.Size32](b)
}

func refHelper(r sim.AtomicRef[int32]) {} // want "an AtomicRef is not passed to functions"

func GroupHelpers(out *sim.Buffer[int32], fs *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		tile := makeTile(sim.ThisThreadBlock(t))
		tile.Sync()
		refHelper(sim.NewAtomicRef(out, 0, sim.ThreadScopeBlock))
		c := sim.CoalescedThreads(t)
		out.Store(t, 1, sim.Reduce(c, int32(1), sim.BitAnd[int32]{})+sim.Reduce(c, int32(1), sim.Plus[int32]{}))
		fl := sim.NewAtomicRef(fs, 0, sim.ThreadScopeBlock)
		fl.FetchMin(t, 1, sim.MemoryOrderRelaxed) // want "fetch_min is not translated for floats"
	}
}
