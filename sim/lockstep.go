package sim

// The lockstep warp model (Options.WithWarpModel(Lockstep)) approximates
// pre-Volta warps with two rules:
//
//  1. Atomics are warp-wide meeting points: a lane's atomic waits until every
//     eligible lane of its warp (started or not, not exited, not blocked at a
//     barrier or collective, not held back) has reached an atomic, as lanes
//     issuing together would.
//  2. While some lanes of a warp spin (their last atomic changed nothing), the
//     other lanes are held back at their next atomic until the spinners make
//     progress: the warp runs the spinning path and starves the rest.
//
// A spin lock contended inside one warp then deadlocks, as it does on a
// Pascal GPU, and across warps it still works.

func (t *Thread) lockstepMeet() {
	w := t.w
	wp := &t.blk.warps[t.warp]
	bit := uint32(1) << t.lane
	if wp.spinning != 0 && wp.spinning&bit == 0 {
		wp.held |= bit
		t.state = stLockstep
		t.waitSite = w.sites.callerSite()
		w.lockstepCheck(t.blk, t.warp)
		t.suspend()
		t.state = stRunning
	}
	wp.meet |= bit
	t.state = stWarp
	t.waitSite = w.sites.callerSite()
	w.lockstepCheck(t.blk, t.warp)
	t.suspend()
	t.state = stRunning
}

// lockstepCheck completes the warp's meeting when every eligible lane is there.
func (w *worker) lockstepCheck(b *block, warpIdx int) {
	wp := &b.warps[warpIdx]
	if wp.meet == 0 {
		return
	}
	first := warpIdx * warpSize
	eligible := uint32(0)
	for m := wp.present &^ wp.exited &^ wp.held; m != 0; m &= m - 1 {
		lane := trailing(m)
		t := &b.threads[first+lane]
		if t.state == stBarrier || (t.state == stWarp && wp.meet&(1<<lane) == 0) {
			continue
		}
		eligible |= 1 << lane
	}
	if wp.meet&eligible != eligible {
		return
	}
	for m := wp.meet; m != 0; m &= m - 1 {
		t := &b.threads[first+trailing(m)]
		t.state = stRunnable
		w.runq = append(w.runq, t)
	}
	wp.meet = 0
}

// spinDone records that t's atomic changed memory: it no longer spins, and
// when no lane of its warp spins the held-back lanes go on.
func (t *Thread) spinDone() {
	if t.w.l.opts.warpModel != Lockstep {
		return
	}
	wp := &t.blk.warps[t.warp]
	wp.spinning &^= 1 << t.lane
	if wp.spinning == 0 && wp.held != 0 {
		first := t.warp * warpSize
		for m := wp.held; m != 0; m &= m - 1 {
			h := &t.blk.threads[first+trailing(m)]
			h.state = stRunnable
			t.w.runq = append(t.w.runq, h)
		}
		wp.held = 0
	}
}
