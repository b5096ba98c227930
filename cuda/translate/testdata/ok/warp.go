package ok

import "github.com/gpusim/gpusim/sim"

// WarpReduce sums a warp's values with ShflDownSync.
func WarpReduce(in, out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		v := in.Load(t, t.GlobalX())
		for off := 16; off > 0; off /= 2 {
			v += sim.ShflDownSync(t, sim.FullMask, v, off)
		}
		if t.LaneID() == 0 {
			out.Store(t, t.GlobalX()/32, v)
		}
	}
}

// Shuffles: every shuffle, with a width, on several element types.
func Shuffles(f *sim.Buffer[float64], i *sim.Buffer[int64], b *sim.Buffer[uint8], u *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.LaneID()
		x := f.Load(t, lane)
		f.Store(t, lane, sim.ShflSync(t, sim.FullMask, x, 0)+sim.ShflXorSync(t, sim.FullMask, x, 1, 16))
		y := i.Load(t, lane)
		y = sim.ShflUpSync(t, sim.FullMask, y, 1, 8)
		i.Store(t, lane, y)
		c := b.Load(t, lane)
		c = sim.ShflSync(t, sim.FullMask, c, lane+1)
		b.Store(t, lane, c)
		w := u.Load(t, lane)
		w = sim.ShflDownSync(t, 0x0000ffff, w, 2)
		u.Store(t, lane, w)
	}
}

// Votes: SyncWarp, BallotSync, AnySync, AllSync, ActiveMask, MatchAnySync.
func Votes(a *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.LaneID()
		v := a.Load(t, lane)
		t.SyncWarp(sim.FullMask)
		ballot := t.BallotSync(sim.FullMask, v > 10)
		anyBig := t.AnySync(sim.FullMask, v > 100)
		allSmall := t.AllSync(sim.FullMask, v < 5)
		m := sim.MatchAnySync(t, sim.FullMask, v)
		if anyBig || allSmall {
			a.Store(t, lane, ballot^t.ActiveMask()^m)
		}
	}
}

// Reductions: the warp reductions and MatchAllSync.
func Reductions(i *sim.Buffer[int32], u *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.LaneID()
		x, y := i.Load(t, lane), u.Load(t, lane)
		s := sim.ReduceAddSync(t, sim.FullMask, x) + sim.ReduceMinSync(t, sim.FullMask, x) + sim.ReduceMaxSync(t, sim.FullMask, x)
		b := sim.ReduceAddSync(t, sim.FullMask, y) ^ sim.ReduceAndSync(t, sim.FullMask, y) ^ sim.ReduceOrSync(t, sim.FullMask, y) ^
			sim.ReduceXorSync(t, sim.FullMask, y) ^ sim.ReduceMaxSync(t, sim.FullMask, y)
		m, same := sim.MatchAllSync(t, sim.FullMask, x)
		if same {
			u.Store(t, lane, b^m)
		}
		i.Store(t, lane, s)
	}
}
