package sim

// Memory orders and scopes: volatile loads and stores, cuda::atomic_ref's
// operations with a memory order and a thread scope, fences at every
// scope, and __nanosleep. RATIONALE.md's happens-before table says which
// operation orders what, and which PTX rule it follows.
//
// Strong accesses (PTX's term: atomics, volatile accesses, and loads and
// stores with a memory order) never race with each other when each one's
// scope includes the other thread: block-scope operations of different
// blocks on one element do race. A plain access that nothing orders
// against a strong one races with it.

import "fmt"

// MemoryOrder is cuda::std::memory_order.
type MemoryOrder uint8

const (
	MemoryOrderRelaxed MemoryOrder = iota // memory_order_relaxed: strong, orders nothing by itself
	MemoryOrderAcquire                    // memory_order_acquire (and _consume): later accesses stay after it
	MemoryOrderRelease                    // memory_order_release: earlier accesses stay before it
	MemoryOrderAcqRel                     // memory_order_acq_rel
	MemoryOrderSeqCst                     // memory_order_seq_cst: a fence.sc at the scope, then acq_rel
)

var orderNames = [...]string{"relaxed", "acquire", "release", "acq_rel", "seq_cst"}

func (o MemoryOrder) String() string {
	if int(o) < len(orderNames) {
		return "memory_order_" + orderNames[o]
	}
	return fmt.Sprintf("MemoryOrder(%d)", int(o))
}

func (o MemoryOrder) acquires() bool { return o == MemoryOrderAcquire || o >= MemoryOrderAcqRel }
func (o MemoryOrder) releases() bool { return o >= MemoryOrderRelease }

// ThreadScope is cuda::thread_scope: the set of threads an operation
// synchronises with.
type ThreadScope uint8

const (
	ThreadScopeSystem ThreadScope = iota // thread_scope_system (.sys): the device and the host
	ThreadScopeDevice                    // thread_scope_device (.gpu): every thread of the device
	ThreadScopeBlock                     // thread_scope_block (.cta): the threads of the caller's block
)

var scopeNames = [...]string{"system", "device", "block"}

func (s ThreadScope) String() string {
	if int(s) < len(scopeNames) {
		return "thread_scope_" + scopeNames[s]
	}
	return fmt.Sprintf("ThreadScope(%d)", int(s))
}

// The simulator runs no host code during a launch and has one device, so
// system scope orders what device scope does.
func (s ThreadScope) flags() uint32 {
	if s == ThreadScopeBlock {
		return blockScopeBit
	}
	return 0
}

// LoadVolatile is a read through a volatile pointer, `x = ((volatile T*)b)[i]`
// (ld.volatile): strong, with the semantics of a relaxed load at system
// scope. It never races with other strong accesses, orders nothing by
// itself, and followed by a fence it is an acquire (PTX's acquire pattern):
// the polling loop of a flag or a grid barrier.
func (b *Buffer[T]) LoadVolatile(t *Thread, i int) T {
	return rmw(t, b, i, accRead, volatileBit, MemoryOrderRelaxed, nil)
}

// StoreVolatile is a write through a volatile pointer (st.volatile):
// strong, relaxed, at system scope. After a fence it is a release (PTX's
// release pattern).
func (b *Buffer[T]) StoreVolatile(t *Thread, i int, v T) {
	rmw(t, b, i, accWrite, volatileBit, MemoryOrderRelaxed, func(T) T { return v })
}

// AtomicRef is cuda::atomic_ref<T, Scope> on element i of b: loads, stores
// and read-modify-writes with a memory order, at the ref's scope. Make one
// with NewAtomicRef.
type AtomicRef[T Elem] struct {
	b     *Buffer[T]
	i     int
	scope ThreadScope
}

// NewAtomicRef is `cuda::atomic_ref<T, scope> ref(b[i])`.
// A scope other than the three is a *MisuseError panic (in a kernel, its
// KernelPanic finding).
func NewAtomicRef[T Elem](b *Buffer[T], i int, scope ThreadScope) AtomicRef[T] {
	if scope > ThreadScopeBlock {
		panic(badScope("NewAtomicRef", scope))
	}
	return AtomicRef[T]{b, i, scope}
}

func badScope(op string, s ThreadScope) error {
	return &MisuseError{Code: ErrInvalidValue, Op: op, What: fmt.Sprintf("%v is not a scope: ThreadScopeSystem, ThreadScopeDevice or ThreadScopeBlock", s)}
}

func badOrder(op string, o MemoryOrder) error {
	return &MisuseError{Code: ErrInvalidValue, Op: op, What: fmt.Sprintf("%v is not a memory order: MemoryOrderRelaxed to MemoryOrderSeqCst", o)}
}

// Load is ref.load(order).
func (r AtomicRef[T]) Load(t *Thread, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accRead, r.scope.flags(), order, nil)
}

// Store is ref.store(v, order).
func (r AtomicRef[T]) Store(t *Thread, v T, order MemoryOrder) {
	rmw(t, r.b, r.i, accWrite, r.scope.flags(), order, func(T) T { return v })
}

// Exchange is ref.exchange(v, order): it returns the old value.
func (r AtomicRef[T]) Exchange(t *Thread, v T, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(T) T { return v })
}

// CompareExchangeStrong is ref.compare_exchange_strong(expected, desired,
// order): it writes desired if the element equals expected, and returns the
// old value and whether it did. (The weak form never fails spuriously in
// the simulator; CompareExchangeWeak is the same.)
func (r AtomicRef[T]) CompareExchangeStrong(t *Thread, expected, desired T, order MemoryOrder) (T, bool) {
	old := rmw(t, r.b, r.i, accAtomic, r.scope.flags()|casBit, order, func(old T) T {
		if old == expected {
			return desired
		}
		return old
	})
	return old, old == expected
}

// CompareExchangeWeak is ref.compare_exchange_weak: see CompareExchangeStrong.
func (r AtomicRef[T]) CompareExchangeWeak(t *Thread, expected, desired T, order MemoryOrder) (T, bool) {
	return r.CompareExchangeStrong(t, expected, desired, order)
}

// FetchAdd is ref.fetch_add(v, order).
func (r AtomicRef[T]) FetchAdd(t *Thread, v T, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return old + v })
}

// FetchSub is ref.fetch_sub(v, order).
func (r AtomicRef[T]) FetchSub(t *Thread, v T, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return old - v })
}

// FetchMin is ref.fetch_min(v, order).
func (r AtomicRef[T]) FetchMin(t *Thread, v T, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return min(old, v) })
}

// FetchMax is ref.fetch_max(v, order).
func (r AtomicRef[T]) FetchMax(t *Thread, v T, order MemoryOrder) T {
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return max(old, v) })
}

// FetchAnd is ref.fetch_and(v, order). Like cuda::atomic_ref, it exists
// for integer types only: on a float element it panics.
func (r AtomicRef[T]) FetchAnd(t *Thread, v T, order MemoryOrder) T {
	intOnly[T]("fetch_and")
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return fromBits[T](bitsOf(old) & bitsOf(v)) })
}

// FetchOr is ref.fetch_or(v, order), for integer types.
func (r AtomicRef[T]) FetchOr(t *Thread, v T, order MemoryOrder) T {
	intOnly[T]("fetch_or")
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return fromBits[T](bitsOf(old) | bitsOf(v)) })
}

// FetchXor is ref.fetch_xor(v, order), for integer types.
func (r AtomicRef[T]) FetchXor(t *Thread, v T, order MemoryOrder) T {
	intOnly[T]("fetch_xor")
	return rmw(t, r.b, r.i, accAtomic, r.scope.flags(), order, func(old T) T { return fromBits[T](bitsOf(old) ^ bitsOf(v)) })
}

func intOnly[T Elem](op string) {
	var z T
	switch any(z).(type) {
	case float32, float64:
		panic(fmt.Sprintf("cuda::atomic_ref<%T> has no %s", z, op))
	}
}

// AtomicThreadFence is cuda::atomic_thread_fence(order, scope): with
// release, the thread's next strong write publishes its accesses before the
// fence; with acquire, what its strong reads before the fence read becomes
// its own; acq_rel and seq_cst do both, as __threadfence does; relaxed does
// nothing.
func (t *Thread) AtomicThreadFence(order MemoryOrder, scope ThreadScope) {
	t.own()
	if order > MemoryOrderSeqCst {
		panic(badOrder("AtomicThreadFence", order))
	}
	if scope > ThreadScopeBlock {
		panic(badScope("AtomicThreadFence", scope))
	}
	if order == MemoryOrderRelaxed {
		return
	}
	w := t.w
	w.tick()
	w.stats.Fences++
	if w.l.opts.schedule == RandomOrder {
		t.yield()
	}
	if !w.l.detect {
		return
	}
	h, block := &t.x.hb, scope == ThreadScopeBlock
	if order.releases() {
		h.markRelease(block, t.blk.phase)
	}
	if order.acquires() {
		t.acquire(block)
	}
}

// acquire makes what the thread's strong reads read its own, at block or
// device scope.
func (t *Thread) acquire(block bool) {
	t.x.hb.acquirePend(block)
	if t.x.hb.vc != nil {
		t.blk.acquired = true // the block's barriers have knowledge to share
	}
}

// ThreadFenceSystem is __threadfence_system() (fence.sc.sys): ThreadFence
// for every observer of the system. The simulator runs no host code during
// a launch and has one device, so it orders exactly what ThreadFence does.
func (t *Thread) ThreadFenceSystem() { t.fence(false) }

// Nanosleep is __nanosleep(ns): the thread sleeps about ns nanoseconds. In
// the simulator it is a yield point: the thread is parked until every
// other thread that can run has run, as a spinning thread is, so a backoff
// loop lets the threads it waits for make progress (and one that waits for
// what never happens is reported as a livelock).
func (t *Thread) Nanosleep(ns uint32) {
	t.own()
	w := t.w
	if w.l.opts.schedule == RandomOrder {
		t.yield()
	}
	t.waitSite = w.sites.callerSite()
	t.state, t.waitFor = stSpinning, waitMemory
	w.spinq = append(w.spinq, t)
	w.idleSince, w.idlePark = true, true
	t.suspend()
	t.state = stRunning
}

// strongAccess is the detectors' part of a strong access (kind accRead,
// accWrite or accAtomic, with flags naming its scope and whether it is
// volatile): bounds, source line, uninitialised reads and the race check
// (strongCheck). Its caller is rmw, called by an atomic or a strong load or
// store that may or may not be inlined into the kernel: the two return
// addresses above rmw decide the site, as for slowAccess.
//
//go:noinline
func (t *Thread) strongAccess(m *mem, i int, kind accKind, flags uint32) site {
	if uint(i) >= uint(m.n) {
		t.badIndex(m, i, kind != accRead)
	}
	l := t.w.l
	if !l.detect && l.prof == nil {
		return 0
	}
	cls := t.w.sites.entrySite(callerPCs12())
	s := cls.site // cls points into the cache: read it before anything else looks up
	if l.detect {
		fn, line := cls.fn, cls.line
		if r := m.vroot; m.shadow == nil && (r == nil || r.shadow == nil) || m.dev != l.dev {
			t.firstShadow(m, s)
		}
		t.x.hb.notePast(fn, line, s)
		floor := l.gidBase
		if m.space == SharedSpace {
			floor = t.blk.gidBase
			t.checkShared(m, i, opNames[kind])
		}
		t.x.strong = flags | atomicBit
		t.eachCell(m, i, kind, s, func(r *mem, c *cell) { t.strongCheck(r, m, i, c, kind, s, flags, floor) })
		t.x.strong = 0
		if flags&volatileBit != 0 && kind == accRead {
			t.x.poll, t.x.pollIdx = m, i
		} else {
			t.x.poll = nil
		}
	}
	return s
}

// morallyStrong reports whether recorded access a and the current strong
// access (with flags) are morally strong (PTX): both strong, and each one's
// scope includes the other's thread. Such accesses never race.
func (v *hbView) morallyStrong(a *access, flags uint32) bool {
	return a.site&atomicBit != 0 && (a.site^flags)&sizeBits == 0 &&
		((a.site|flags)&blockScopeBit == 0 || a.gid-v.base < v.n)
}

// covers reports whether the current strong read (with flags) conflicts
// with every write that recorded strong read a, which comes before it,
// conflicts with. In global memory a write of a block-scope operation
// conflicts with strong reads of other blocks, and a block-scope read with
// strong writes of other blocks: the two must be of one block, and a must
// have block scope only if the current read has. In shared memory every
// accessor is of the block; but a volatile read there conflicts with
// warp-mates' volatile writes (warpVolatile), depending on what its thread
// did since: only the same thread's next volatile read stands in for it.
func (v *hbView) covers(a *access, flags uint32, shared bool) bool {
	if (a.site^flags)&sizeBits != 0 {
		return false // a write of a's size or of the current one's races with the other only
	}
	if shared {
		return a.site&volatileBit == 0 || v.lockstep || a.gid == v.t.gid && flags&volatileBit != 0
	}
	return a.gid-v.base < v.n && (a.site&blockScopeBit == 0 || flags&blockScopeBit != 0)
}

// coveredBy reports whether recorded strong read a, the thread's own,
// conflicts with every write the current strong read (with flags) does:
// covers with the roles swapped, for one thread.
func (v *hbView) coveredBy(a *access, flags uint32, shared bool) bool {
	if (a.site^flags)&sizeBits != 0 {
		return false
	}
	if shared {
		return flags&volatileBit == 0 || v.lockstep || a.site&volatileBit != 0
	}
	return flags&blockScopeBit == 0 || a.site&blockScopeBit != 0
}

// warpVolatile reports whether recorded read a and the current write (with
// flags) of element i of m are volatile accesses of shared memory by two
// lanes of one warp, under independent thread scheduling, where the reader
// has gone on since: the warp-synchronous idiom (`volatile float *v =
// sdata; v[tid] += v[tid + 16]; ...` without __syncwarp), which the
// Programming Guide says is unsafe since Volta. They are morally strong, so
// PTX calls them no data race, but nothing orders the read before the
// write: a lane may read its neighbour's element before or after the
// neighbour updates it. gpusim reports them as a race unless a __syncwarp
// (or any other synchronisation) orders them.
//
// Only a read followed by a write is reported, and not while the reader's
// latest access is still that read (it polls the element, as a lane waiting
// for a warp-mate's volatile flag does): a read that saw the write, and
// two writes (lanes setting a `found` flag), are what flags do. The idiom
// shows the reported order under the natural schedule, which runs each
// lane as far as it goes.
func (v *hbView) warpVolatile(a *access, flags uint32, shared bool, m *mem, i int) bool {
	ut := a.gid - v.base
	if !shared || a.site&flags&volatileBit == 0 || a.site&writeBit != 0 || v.lockstep || ut >= v.n || ut/warpSize != v.warp {
		return false
	}
	x := v.t.blk.threads[ut].x
	return x.poll != m || x.pollIdx != i
}

// strongOpName is how a report names a strong access of kind with flags.
func strongOpName(kind accKind, flags uint32) string {
	switch {
	case flags&volatileBit != 0 && kind == accRead:
		return "volatile read"
	case flags&volatileBit != 0:
		return "volatile write"
	case kind == accRead:
		return "atomic load"
	case kind == accWrite:
		return "atomic store"
	}
	return "atomic"
}

// strongCheck tests a strong access against the cell's records and
// records it. A strong read goes in a read slot like a plain one; a strong
// write or read-modify-write becomes the cell's write. Plain reads, and a
// plain write that strong writes came after, stay in the read slots while
// strong writes follow each other: each later strong write of another
// thread must still come after them. (A thread's own atomic used to
// replace its plain write, and hid it from every other thread's atomic.)
// So does the strong write a strong store replaces, if another thread's
// and not ordered before it: a later plain access must come after both.
// Two slots keep what they can: a third such record displaces the oldest.
func (t *Thread) strongCheck(r, m *mem, i int, c *cell, kind accKind, s site, flags uint32, floor uint32) {
	h := &t.x.hb
	g := t.gid
	when := t.blk.phase&0xffff | h.known[t.lane]<<16
	v := t.view(floor)
	var buf [2]rec
	p := r.readSlots(c, &buf)
	aw, a0, a1 := v.decode(c.w), v.decode(p[0]), v.decode(p[1])
	ordered := func(a *access) bool { return v.orderedInBlock(a) || v.orderedOtherwise(a) }
	if kind == accWrite && flags&volatileBit == 0 {
		flags |= storeBit
	}
	nr := rec{g, t.w.ctxOf(uint32(s)|flags|atomicBit, uint64(when)|uint64(h.clock)<<32)}
	shared := m.space == SharedSpace
	// A write a strong read of the thread read comes before its later
	// accesses (observation order, seenWrites): a block-scope access of
	// another block after a volatile poll that saw the write does not race
	// with it, as a plain one does not.
	if aw.gid >= floor && aw.gid != g && !v.morallyStrong(&aw, flags) && !ordered(&aw) && !t.sawWriteOf(v, c, c.w) {
		t.raceOp(m, i, strongOpName(kind, flags), s, &aw, false)
	}
	if kind == accRead {
		for k, a := range [2]*access{&a0, &a1} {
			if a.site&writeBit != 0 && a.gid >= floor && a.gid != g && !v.morallyStrong(a, flags) && !ordered(a) && !t.sawWriteOf(v, c, p[k]) &&
				!t.chainOrdered(v, c, a, v.morallyStrong(&aw, flags)) {
				t.raceOp(m, i, strongOpName(kind, flags), s, a, true)
				break
			}
		}
		if aw.gid >= floor && aw.gid != g && aw.site&atomicBit != 0 && v.morallyStrong(&aw, flags) && !ordered(&aw) {
			t.sawWrite(c, aw)
		}
		if v.morallyStrong(&aw, flags) {
			t.sawChainStart(v, c, &a0, &a1)
		}
		// A strong read stands in only for strong reads: a plain read
		// (or a kept write) conflicts with writes a strong read does not
		// conflict with, so it is never replaced by one, even the
		// thread's own. With both slots holding such records, the strong
		// read is not recorded. (It used to displace another thread's
		// plain read when the first slot held the thread's own, and that
		// read's race with a later atomic store went unreported.)
		//
		// Another thread's strong read in the second slot that this
		// read does not come after gives way to it, except where this
		// thread wrote the cell last: its read then matters less than
		// the other's, which a warp-mate's volatile write with no
		// __syncwarp between races with (warpVolatile). Keeping the
		// newest, the owner's own read of s[i] before it rewrote s[i]
		// displaced lane 0's read of s[i] in a warp-synchronous unroll.
		//
		// A strong read the thread's own, or one that comes before it,
		// is free to replace only if this read conflicts with every write
		// that one conflicts with (covers): then a write that races with
		// the old one, which does not come after it, does not come after
		// this one either, and races with it. Otherwise it is replaced only
		// where no slot is free (the lesser loss: it races with fewer
		// writes than another thread's read this one does not come after).
		// A thread's atomic_ref load used to replace its own volatile read
		// of a shared element, and a warp-mate's volatile write then raced
		// with neither (found by the differential fuzzer).
		//
		// The thread's own earlier read in a slot, made in the same
		// barrier phase, warp-sync and fence clocks, stands in for this
		// one where it conflicts with every write this one does (a plain
		// read; a strong one by v.covers the other way round): what comes
		// after one comes after the other, and this one is not recorded.
		// (A lane's atomic load after its volatile read of a shared
		// element used to replace it, the other slot holding a
		// warp-mate's read, and the warp-mate's volatile write then raced
		// with neither.)
		strongRead := func(a *access) bool { return a.site&(atomicBit|writeBit) == atomicBit }
		before := func(a *access) bool { return strongRead(a) && (a.gid == g || ordered(a)) }
		standsIn := func(a *access) bool {
			return a.gid == g && a.site&writeBit == 0 && a.when == when && a.clock == h.clock &&
				(a.site&atomicBit == 0 || v.coveredBy(a, flags, shared))
		}
		switch {
		case standsIn(&a0) || standsIn(&a1):
			return
		case a0.gid < floor || before(&a0) && v.covers(&a0, flags, shared):
			p[0] = nr
		case a1.gid < floor || before(&a1) && v.covers(&a1, flags, shared):
			p[1] = nr
		case before(&a0):
			p[0] = nr
		case before(&a1):
			p[1] = nr
		case strongRead(&a1) && aw.gid == g && !strongRead(&a0):
			return
		case strongRead(&a1):
			p[1] = nr
		case strongRead(&a0):
			p[0] = p[1]
			p[1] = nr
		default:
			return
		}
		r.storeReads(c, p, &buf)
		return
	}
	for k, a := range [2]*access{&a0, &a1} {
		if a.gid >= floor && a.gid != g && (!v.morallyStrong(a, flags) || v.warpVolatile(a, flags, shared, m, i)) && !ordered(a) &&
			!(a.site&writeBit != 0 && t.sawWriteOf(v, c, p[k])) && !t.chainOrdered(v, c, a, kind == accAtomic && v.morallyStrong(&aw, flags)) {
			t.raceOp(m, i, strongOpName(kind, flags), s, a, true)
			break
		}
	}
	// A strong store that a read-modify-write replaces is kept too, marked
	// as the start of the RMW chain (chainBit): the RMW's thread and
	// those that read the chain come after it (chainOrdered), but another
	// thread's plain read that races with the RMW races with the store as
	// well, and a CAS after that read excuses only the former (a thread's
	// atomicAdd replacing its own atomic_ref store hid the store's race
	// with a CAS loop's plain first guess: TestRacePlainGuessOfStoreAnRMWReplaced).
	chain := kind == accAtomic && aw.site&atomicBit != 0 && aw.site&(storeBit|volatileBit) != 0
	if chain && aw.gid >= floor && aw.gid != g && v.morallyStrong(&aw, flags) && !ordered(&aw) {
		// The read-modify-write reads the store it replaces: the store
		// comes before the thread's later accesses (observation order),
		// also once the thread's own store has ended the chain and
		// chainOrdered no longer finds it through the cell's write.
		t.sawWrite(c, aw)
	}
	if kind == accAtomic && v.morallyStrong(&aw, flags) {
		t.sawChainStart(v, c, &a0, &a1)
	}
	if aw.gid >= floor && (aw.site&atomicBit == 0 || chain || kind == accWrite && aw.gid != g && !ordered(&aw) && !t.sawWriteOf(v, c, c.w)) {
		// A plain write that strong writes now come after, or another
		// thread's strong write that this strong store does not come
		// after (they do not race): kept where the next accesses see
		// it. A read-modify-write reads the value it replaces, so the
		// write it replaces (and the chain of read-modify-writes before
		// it) precedes the thread's later accesses in PTX's causality
		// order (through observation order): it need not be kept. A
		// store reads nothing: a thread's plain read of a flag right
		// after its own atomic store races with another thread's store,
		// unless a strong read of the thread read that store (seenWrites).
		p[1] = p[0]
		if a0.site&(writeBit|chainBit) == writeBit|chainBit && a0.site&(storeBit|volatileBit) != 0 {
			// Only the slot in front marks the chain's start.
			p[1] = rec{a0.gid, t.w.ctxOf(a0.site&^chainBit, uint64(a0.when)|uint64(a0.clock)<<32)}
		}
		bits := aw.site | writeBit
		if chain {
			bits |= chainBit
		}
		p[0] = rec{aw.gid, t.w.ctxOf(bits, uint64(aw.when)|uint64(aw.clock)<<32)}
		r.storeReads(c, p, &buf)
	}
	if flags&casBit != 0 {
		t.markGuesses(r, c, v, g)
	}
	c.w = nr
}

// sawChainStart records, for the current strong access, which reads the
// cell's write (morally strong with it), the start of the chain of
// read-modify-writes that write ends, kept in slot a0 or a1 (chainBit),
// where another thread's: reading the chain's last RMW reads through the
// chain to the store that started it (observation order), so the store
// comes before the thread's later accesses also once the thread's own
// store has ended the chain and chainOrdered no longer finds it through
// the cell's write. (A thread that read another thread's add, made after
// that thread's store, with an exchange or a load, then stored and read
// the element plainly, was reported racing with the store; found by
// -fuzz.)
func (t *Thread) sawChainStart(v *hbView, c *cell, a0, a1 *access) {
	for _, a := range [2]*access{a0, a1} {
		if a.gid >= v.floor && a.gid != t.gid && t.chainOrdered(v, c, a, true) {
			t.sawWrite(c, *a)
		}
	}
}

// countAccess counts a strong load or store towards the spin watch, as
// Load and Store count theirs: a thread polling a volatile flag is seen
// spinning and parked, so that the block that will set it can run.
func (t *Thread) countAccess(m *mem, i int, changed bool) {
	l := t.w.l
	if l.detect || l.prof != nil {
		// A strong access costs a detected thread a microsecond or so: a
		// poller is watched every strongOps of them, not defaultBudget
		// (a two-warp hand-off polled 4,161 times per turn).
		t.ops = min(t.ops, strongOps)
		if t.watch == 0 && t.ops > 1 {
			t.ops--
			return
		}
		t.spinAccount(m, i, changed, true)
		return
	}
	t.budget--
	if t.budget < 0 {
		t.spinAccount(m, i, changed, true)
	}
}

// seenWrites are the last writes a thread's strong reads read from, each
// with the cell it is the write of. PTX's causality order puts a write
// that a morally strong read reads before everything after the read in
// the reader's program order (observation order, then base causality):
// the thread's later plain accesses of the element do not race with it (a
// poller resetting or re-reading its flag). Only the write itself is
// ordered, not what came before it: that takes a release and an acquire.
// A write is told by its decoded access, which the copy a cell keeps in a
// read slot (marked writeBit) shares.
type seenWrites struct {
	gid  uint32 // the thread they are of (the slot's threads follow one another)
	next uint8
	cell [4]*cell
	w    [4]access
}

// sawWrite records that t's strong read of cell c read w, c's write.
func (t *Thread) sawWrite(c *cell, w access) {
	sw := t.x.seen
	if sw == nil {
		sw = new(seenWrites)
		t.x.seen = sw
	}
	if sw.gid != t.gid {
		*sw = seenWrites{gid: t.gid}
	}
	w.site &^= writeBit | chainBit
	for k := range sw.cell {
		if sw.cell[k] == c && sw.w[k] == w {
			return
		}
	}
	k := sw.next % uint8(len(sw.cell))
	sw.cell[k], sw.w[k] = c, w
	sw.next++
}

// sawWriteOf reports whether a strong read of t read record r of cell c
// (the cell's write, or the copy a read slot keeps).
func (t *Thread) sawWriteOf(v *hbView, c *cell, r rec) bool {
	sw := t.x.seen
	if sw == nil || sw.gid != t.gid || r.gid < v.floor {
		return false
	}
	a := v.decode(r)
	// (A write kept in a read slot is marked writeBit, and chainBit where
	// a read-modify-write replaced it: neither is part of the write.)
	a.site &^= writeBit | chainBit
	for k := range sw.cell {
		if sw.cell[k] == c && sw.w[k] == a {
			return true
		}
	}
	return false
}
