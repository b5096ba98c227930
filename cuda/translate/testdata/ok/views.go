package ok

import "github.com/gpusim/gpusim/sim"

// ViewsAndReadOnly reads through a read-only load of an offset view and
// writes a view of the output: the pointers b + off.
func ViewsAndReadOnly(in, out *sim.Buffer[float32], off, n int) sim.Kernel {
	return func(t *sim.Thread) {
		src := in.Offset(off)
		dst := out.View(off, n)
		if i := t.GlobalX(); i < n {
			dst.Store(t, i, sim.Ldg(t, src, i)*2)
		}
	}
}

// SharedTwoDAndVar uses a 2-D shared tile (row-major) and a scalar shared
// variable.
func SharedTwoDAndVar(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.Shared2D[int32](t, "tile", 4, 8)
		total := sim.SharedVar[int32](t, "total")
		i := t.ThreadIdx.X
		tile.Store(t, (i%4)*8+i/4, int32(i))
		if i == 0 {
			total.Store(t, 0, 0)
		}
		t.SyncThreads()
		sim.AtomicAdd(t, total, 0, tile.Load(t, i))
		t.SyncThreads()
		out.Store(t, t.GlobalX(), total.Load(t, 0))
	}
}
