package sim

import "sync"

// The atomic functions are CUDA's atomic*() on CUDA's types: each reads the
// element, combines it with the operand and writes the result as one
// indivisible step, and returns the old value. They work on global buffers
// and shared arrays alike. Atomics never race with atomics; a plain Load or
// Store of the same element that no barrier, warp sync or release/acquire
// pair orders against an atomic is a race.
//
// Where CUDA has no overload (atomicAdd on int64, atomicInc on int32, ...),
// the type constraint leaves it out too.

// AtomicAdd is atomicAdd(&b[i], v).
func AtomicAdd[T int32 | uint32 | uint64 | float32 | float64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return old + v })
}

// AtomicSub is atomicSub(&b[i], v).
func AtomicSub[T int32 | uint32](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return old - v })
}

// AtomicExch is atomicExch(&b[i], v).
func AtomicExch[T int32 | uint32 | uint64 | float32](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(T) T { return v })
}

// AtomicMin is atomicMin(&b[i], v).
func AtomicMin[T int32 | uint32 | int64 | uint64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return min(old, v) })
}

// AtomicMax is atomicMax(&b[i], v).
func AtomicMax[T int32 | uint32 | int64 | uint64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return max(old, v) })
}

// AtomicInc is atomicInc(&b[i], limit): old >= limit ? 0 : old+1.
func AtomicInc(t *Thread, b *Buffer[uint32], i int, limit uint32) uint32 {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old uint32) uint32 {
		if old >= limit {
			return 0
		}
		return old + 1
	})
}

// AtomicDec is atomicDec(&b[i], limit): (old == 0 || old > limit) ? limit : old-1.
func AtomicDec(t *Thread, b *Buffer[uint32], i int, limit uint32) uint32 {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old uint32) uint32 {
		if old == 0 || old > limit {
			return limit
		}
		return old - 1
	})
}

// AtomicCAS is atomicCAS(&b[i], compare, v): writes v if the element equals
// compare; returns the old value either way.
func AtomicCAS[T int32 | uint32 | uint64](t *Thread, b *Buffer[T], i int, compare, v T) T {
	old := rmw(t, b, i, accAtomic, casBit, MemoryOrderRelaxed, func(old T) T {
		if old == compare {
			return v
		}
		return old
	})
	return old
}

// AtomicAnd is atomicAnd(&b[i], v).
func AtomicAnd[T int32 | uint32 | uint64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return old & v })
}

// AtomicOr is atomicOr(&b[i], v).
func AtomicOr[T int32 | uint32 | uint64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return old | v })
}

// AtomicXor is atomicXor(&b[i], v).
func AtomicXor[T int32 | uint32 | uint64](t *Thread, b *Buffer[T], i int, v T) T {
	return rmw(t, b, i, accAtomic, 0, MemoryOrderRelaxed, func(old T) T { return old ^ v })
}

// atomicStripes serialise atomics on global memory between parallel workers.
var atomicStripes [256]sync.Mutex

// rmw is the core of every atomic and strong access: a read-modify-write
// (kind accAtomic, f the new value from the old), a strong load (accRead, f
// nil) or a strong store (accWrite), with flags naming its scope and
// whether it is volatile, and a memory order. The legacy atomics are
// relaxed at device scope. It is never inlined: its return address and its
// caller's lead to the kernel's line (see siteCache.entrySite).
//
//go:noinline
func rmw[T Storable](t *Thread, b *Buffer[T], i int, kind accKind, flags uint32, order MemoryOrder, f func(T) T) T {
	if w, j, ok := b.outside(i); ok {
		return rmw(t, w, j, kind, flags, order, f)
	}
	w := t.w
	if w.cur != t || !onStackWithin(w.g, w.stackMax) || w.l.aborted.Load() {
		t.ownSlow() // own, written out, as in barrier
		// (Back when the stack grew without reaching the depth limit.)
		return rmw(t, b, i, kind, flags, order, f)
	}
	if order > MemoryOrderSeqCst {
		panic(badOrder("AtomicRef", order))
	}
	if uint(i) >= uint(len(b.data)) {
		if b.vroot != nil {
			b.viewCheck(t, i, kind != accRead) // a misaligned view has no data
		}
		t.badIndex(&b.mem, i, kind != accRead)
	}
	if w.l.epoch != nil {
		t.specAbort("an atomic or strong operation")
	}
	w.tick()
	if kind == accAtomic {
		w.stats.Atomics++
	}
	if w.l.opts.schedule == RandomOrder {
		t.yield()
	}
	if (kind == accAtomic || flags&volatileBit != 0) && w.l.opts.warpModel == Lockstep {
		// (Volatile accesses meet too: the warp-synchronous code that
		// relied on lockstep exchanged values through them.)
		t.lockstepMeet()
	}
	detect := w.l.detect
	block := flags&blockScopeBit != 0
	if detect && order == MemoryOrderSeqCst {
		t.x.hb.fence(block, t.blk.phase) // fence.sc, then the acq_rel operation
	} else if detect && order.releases() && kind != accRead {
		t.x.hb.markRelease(block, t.blk.phase)
	}
	var s site
	if detect || w.prof() {
		// strongAccess <- rmw <- AtomicAdd etc. (inlined or not) <- the kernel.
		s = t.strongAccess(&b.mem, i, kind, flags|scalarSize[T]())
	}
	var mu *sync.Mutex
	if w.parallel && b.space == GlobalSpace {
		mu = &atomicStripes[(uint(b.id)*131+uint(i))&255]
		mu.Lock()
	}
	old := b.data[i]
	changed := false
	if f != nil {
		nv := f(old)
		b.data[i] = nv
		changed = nv != old
	}
	if mu != nil {
		mu.Unlock()
	}
	if detect {
		t.syncStrong(&b.mem, i, kind != accWrite, kind != accRead)
		if order.acquires() && kind != accWrite {
			t.acquire(block)
		}
		if flags&casBit != 0 {
			// Counted here, where it acted: a CAS that changed nothing
			// parks below, and a launch ended meanwhile never returns.
			t.noteCAS(&b.mem, i)
		}
	}
	if kind != accAtomic {
		if w.prof() {
			// A strong load or store (volatile, atomic_ref) is a load
			// or store instruction, a request like a plain one's.
			w.profAccess(t, &b.mem, i, kind, s)
		}
		if changed {
			w.progress++
		}
		t.countAccess(&b.mem, i, changed)
		return old
	}
	if w.prof() {
		w.profAtomic(&b.mem, i, s)
	}
	if changed {
		w.progress++
		t.spinDone()
	} else {
		// An atomic that changed nothing (a failed CAS, an exchange of the
		// same value) is how spin loops look: let others run.
		w.idleSince, w.idlePark = true, true
		t.spinYield(true)
	}
	return old
}

// ThreadFence is __threadfence(): the thread's memory accesses before it are
// seen by every thread of the device before its accesses after it. Paired
// with atomics it makes release/acquire: fence then atomic write publishes
// what came before the fence; atomic read then fence acquires it.
func (t *Thread) ThreadFence() { t.fence(false) }

// ThreadFenceBlock is __threadfence_block(): ThreadFence for the threads of
// the caller's own block only.
func (t *Thread) ThreadFenceBlock() { t.fence(true) }

func (t *Thread) fence(blockScope bool) {
	t.own()
	w := t.w
	if w.l.epoch != nil {
		t.specAbort("a fence")
	}
	w.tick()
	w.stats.Fences++
	if w.l.opts.schedule == RandomOrder {
		t.yield()
	}
	if w.l.detect {
		// Acquire first: what the fence acquires is ordered before it,
		// and so released by it too (cumulativity).
		t.acquire(blockScope)
		t.x.hb.markRelease(blockScope, t.blk.phase)
	}
}
