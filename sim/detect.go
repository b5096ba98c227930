package sim

import (
	"fmt"
	"maps"
	"strings"
	"sync"
)

// This file holds the detectors' per-access work: shadow memory, the
// happens-before test, uninitialised reads, and the spin watch that keeps
// launches from hanging. RATIONALE.md explains the algorithm.

type accKind uint8

const (
	accRead accKind = iota
	accWrite
	accAtomic
)

// access is a record decoded (hbView.decode): the thread, and its
// context's site, when and clock. Records are stored as rec (shadow.go).
type access struct {
	gid   uint32 // global thread id + 1; 0 means none (or the host)
	site  uint32 // site id; atomicBit marks an atomic
	when  uint32 // barrier phase (low 16 bits) and warp-sync clock (high 16) at the access, mod 2^16
	clock uint32 // the thread's fence clock at the access
}

// phase is the block barrier phase of the thread at the access.
func (a *access) phase() uint16 { return uint16(a.when) }

// wclk is the lane's warp-sync clock at the access.
func (a *access) wclk() uint16 { return uint16(a.when >> 16) }

// Flags in a record's site field, above the site id.
const (
	atomicBit     = 1 << 31 // a strong access: an atomic, an atomic_ref operation, a volatile load or store
	blockScopeBit = 1 << 30 // the strong access's scope is its block (thread_scope_block)
	writeBit      = 1 << 29 // in a read slot: a write kept there, a plain one that strong writes came after or a strong one (with atomicBit) another thread's came after (see strongCheck)
	volatileBit   = 1 << 28 // the strong access is a volatile load or store (for reports)
	// casBit marks a compare-and-swap; in a read slot, a plain read its
	// thread compare-and-swapped the element after (a CAS loop's guess, see
	// guessRace).
	casBit = 1 << 27
	// storeBit marks a strong write that is a store (atomic_ref's store),
	// not a read-modify-write (for reports).
	storeBit = 1 << 26
	// sizeBits is a strong access's scalar size, log2 of 1, 2, 4 or 8
	// bytes (a vector's element: PTX models a vector access as one
	// access per element). Strong accesses of different sizes that
	// overlap are not morally strong (PTX: they must overlap completely),
	// and race.
	sizeBits  = 3 << sizeShift
	sizeShift = 24
	siteMask  = 1<<sizeShift - 1
	// chainBit marks, on a strong store kept in a read slot (writeBit and
	// storeBit or volatileBit; a store never has casBit of its own), the
	// store a read-modify-write replaced: the start of the chain of
	// read-modify-writes the cell's write ends (see chainOrdered).
	chainBit = casBit
)

// chainOrdered reports whether recorded access a, a strong store kept in
// a read slot of cell c when a read-modify-write replaced it (chainBit),
// comes before the current access of the view's thread through the
// cell's write, still a read-modify-write of that chain: the store
// precedes it in observation order (the RMW read it, or read an RMW that
// did), so whatever comes after the cell's write in causality order comes
// after the store too. That is the current access when its thread wrote
// the cell's write, is ordered after it, saw it, or reads it now
// (readsW: a strong read or RMW morally strong with it).
func (t *Thread) chainOrdered(v *hbView, c *cell, a *access, readsW bool) bool {
	if a.site&(writeBit|atomicBit|chainBit) != writeBit|atomicBit|chainBit || a.site&(storeBit|volatileBit) == 0 {
		return false
	}
	w := v.decode(c.w)
	if c.w.gid < v.floor || w.site&atomicBit == 0 || w.site&(storeBit|volatileBit) != 0 {
		return false
	}
	return readsW || c.w.gid == t.gid || v.ordered(c.w) || t.sawWriteOf(v, c, c.w)
}

// keptSlotRaces reports whether slot record p, a write kept in a read slot
// of cell c, is unordered with the current plain access.
func (t *Thread) keptSlotRaces(v *hbView, c *cell, p rec) bool {
	if t.sawWriteOf(v, c, p) {
		return false
	}
	a := v.decode(p)
	return !t.chainOrdered(v, c, &a, false)
}

// hbState is a thread's happens-before knowledge.
type hbState struct {
	known [warpSize]uint32 // warp-sync clocks of the warp's lanes as this lane knows them; known[lane] is its own
	clock uint32           // fences executed
	// fenced says a fence came since the thread began: every strong write
	// after it releases what came before the last fence (PTX's release
	// pattern: a fence followed, anywhere later, by a strong write).
	fenced, blockFence bool
	// relClock and relPhase are the clock and the block's barrier phase at
	// the last release fence: what the next strong write publishes (the
	// fence, not the write, decides what is released).
	relClock, relPhase uint32
	relVC              *vclock // vc at that fence; changed in place only after a copy (ownVC)
	// relKnown is known at the last release fence: the warp-mates whose
	// accesses before a warp sync the next strong write publishes too.
	// Made at the slot's first fence and kept; read only while fenced.
	relKnown *[warpSize]uint32
	vc, pend *vclock // acquired knowledge; acquired but not yet fenced
	// pendOwn is the part of pend that threads of the thread's own block
	// released (at any scope): what a block-scope fence acquires. (A
	// fence.cta synchronises with releases of its own CTA only, whoever
	// wrote what they publish.)
	pendOwn *vclock
	// pubVar and pubClock are the sync variable the thread last published
	// to and the release fence (relClock) it published: a later strong
	// write to it with no fence between publishes nothing new.
	pubVar    *syncVar
	pubClock  uint32
	pendRMW   *vclock  // the part of pend read by read-modify-writes (see barrierAcquire)
	past      []pastOp // kernel lines executed since the last barrier
	exitPhase uint32   // barrier phase + 1 in which the thread exited with a past; 0 if not
	// seen is the sync variable the thread's strong reads last took in, at
	// version seenVersion; seenRMW says a read-modify-write did (pendRMW).
	seen        *syncVar
	seenVersion uint64
	seenRMW     bool
}

// pastOp is a kernel line a thread ran: its function, line and site.
type pastOp struct {
	fn, line int32
	site     site
}

func (h *hbState) reset() {
	h.known = [warpSize]uint32{}
	h.clock = 0
	h.fenced, h.blockFence = false, false
	h.relClock, h.relPhase, h.relVC = 0, 0, nil
	h.vc, h.pend, h.pendRMW, h.pendOwn = nil, nil, nil, nil
	h.pubVar, h.pubClock = nil, 0
	h.past = h.past[:0]
	h.exitPhase = 0
	h.seen, h.seenVersion, h.seenRMW = nil, 0, false
}

func (h *hbState) notePast(fn, line int32, s site) {
	for i := range h.past {
		if h.past[i].fn == fn {
			if line > h.past[i].line {
				h.past[i].line, h.past[i].site = line, s
			}
			return
		}
	}
	if len(h.past) < 8 {
		h.past = append(h.past, pastOp{fn, line, s})
	}
}

// vclock is sparse vector-clock knowledge acquired through atomics: for a
// thread, the fence clock up to which its accesses are ordered before us;
// for a block, the barrier phase below which all its accesses are; for a
// thread, the warp-sync clock below which its accesses are (the lanes a
// releasing lane had synchronised with through __syncwarp or a collective
// before its release fence: bar.warp.sync orders their accesses before the
// fence, which is cumulative). wclks is nil until a release carries some.
//
// A clock shared by several threads (what a barrier or warp sync gave them
// all, see clockUnion) is frozen: a thread copies it before adding to it
// (ownVC).
type vclock struct {
	threads map[uint32]uint32
	blocks  map[int]uint32
	wclks   map[uint32]uint32
	frozen  bool
}

func newVClock() *vclock {
	return &vclock{threads: map[uint32]uint32{}, blocks: map[int]uint32{}}
}

func (v *vclock) clone() *vclock {
	return &vclock{threads: maps.Clone(v.threads), blocks: maps.Clone(v.blocks), wclks: maps.Clone(v.wclks)}
}

func (v *vclock) join(o *vclock) {
	if o == nil {
		return
	}
	for k, c := range o.threads {
		if c > v.threads[k] {
			v.threads[k] = c
		}
	}
	for k, p := range o.blocks {
		if p > v.blocks[k] {
			v.blocks[k] = p
		}
	}
	for k, c := range o.wclks {
		v.noteWclk(k, c)
	}
}

// noteWclk records that gid's accesses below warp-sync clock c are ordered.
func (v *vclock) noteWclk(gid, c uint32) {
	if v.wclks == nil {
		v.wclks = map[uint32]uint32{}
	}
	if c > v.wclks[gid] {
		v.wclks[gid] = c
	}
}

// fence applies a fence to the thread's knowledge: it makes the next strong
// write a release (markRelease), and turns what earlier strong reads read
// into acquired knowledge (acquirePend).
func (h *hbState) fence(blockScope bool, phase uint32) {
	h.acquirePend(blockScope) // first: what it acquires, it releases too
	h.markRelease(blockScope, phase)
}

// markRelease is the release half of a fence, made in barrier phase phase:
// the thread's accesses so far, and those of its block before phase, are
// published by its next strong write (PTX's release pattern, a fence
// followed by a strong write), at block or device scope. What comes after
// the fence is not, though it comes before that write: a barrier or a
// group sync between the two orders other threads' accesses before the
// write, not before the fence.
func (h *hbState) markRelease(blockScope bool, phase uint32) {
	h.clock++
	h.fenced = true
	h.blockFence = blockScope
	h.relClock, h.relPhase, h.relVC = h.clock, phase, h.vc
	if h.relKnown == nil {
		h.relKnown = new([warpSize]uint32)
	}
	*h.relKnown = h.known
}

// ownVC returns the thread's acquired knowledge ready to be added to in
// place: made if there is none, copied if the last release fence holds it
// (relVC), whose snapshot must stay what the fence saw.
func (h *hbState) ownVC() *vclock {
	switch {
	case h.vc == nil:
		h.vc = newVClock()
	case h.vc == h.relVC || h.vc.frozen:
		h.vc = h.vc.clone()
	}
	return h.vc
}

// clockUnion gathers the acquired knowledge of the threads a barrier, a
// warp sync or a group sync orders, to give them all the union as one
// frozen clock: after the first sync of a phase the threads share one
// clock, and the next sync costs a pointer comparison per thread, not a
// join of the union into each (what made a grid of 132 blocks of 256
// threads 15x slower with detection on).
type clockUnion struct {
	first, all *vclock
}

func (u *clockUnion) add(vc *vclock) {
	switch {
	case vc == nil || vc == u.first || vc == u.all:
	case u.first == nil:
		u.first = vc
	default:
		if u.all == nil {
			u.all = u.first.clone()
		}
		u.all.join(vc)
	}
}

// clock returns the union, frozen, or nil if no thread had any.
func (u *clockUnion) clock() *vclock {
	c := u.all
	if c == nil {
		c = u.first
	}
	if c != nil {
		c.frozen = true
	}
	return c
}

// acquirePend is the acquire half of a fence: what the thread's strong
// reads read becomes its own (PTX's acquire pattern, a strong read followed
// by a fence). A block-scope fence acquires only what threads of the
// thread's own block released (a fence.cta does not synchronise with
// another CTA's release); knowledge from other blocks waits for a
// device-scope fence.
func (h *hbState) acquirePend(blockScope bool) {
	if !blockScope {
		if h.pend != nil {
			h.ownVC().join(h.pend) // (pendOwn is part of it)
		}
		h.pend, h.pendOwn, h.pendRMW = nil, nil, nil
		return
	}
	if h.pendOwn != nil {
		h.ownVC().join(h.pendOwn)
		h.pendOwn = nil // (pend keeps it, for a later device-scope fence)
	}
}

// syncVar is the release history of one element used as a synchronisation
// variable (a lock word, a flag): what acquirers learn from it.
type syncVar struct {
	gpu     *vclock
	byBlock map[int]*vclock // the part of gpu released by each block's threads
	block   map[int]*vclock // releases by __threadfence_block, per block
	// version counts the releases into it: a thread polling the element
	// takes in what it holds once per version (hbState.seen).
	version uint64
}

// syncKey names a synchronisation variable. A block's shared arrays are
// reused by the blocks that run after it, so a shared element's key also
// names the block: a later block must not acquire what an earlier one
// released to "the same" element.
type syncKey struct {
	m     *mem // the allocation
	i     int  // the byte offset
	block int  // the block's linear index for shared memory; -1 for global
}

// barrierAcquire makes what the thread's read-modify-writes read its own,
// at a __syncthreads: the Programming Guide's last-block sum (fence,
// atomicInc, __syncthreads, the last block reads every partial) relies on
// the barrier to complete the acquire, though PTX's letter asks for a fence
// after the atomic (bar.sync is a fence at CTA scope only). gpusim accepts
// what the Guide documents, and no more: what plain strong loads (volatile,
// relaxed) read still needs a fence. It reports whether the thread has
// knowledge to share.
func (h *hbState) barrierAcquire() bool {
	if h.pendRMW != nil {
		h.ownVC().join(h.pendRMW)
		h.pendRMW = nil
	}
	return h.vc != nil
}

// syncStrong applies a strong access's synchronisation through element i:
// a read takes in what releases to it published (pending until a fence, an
// acquire order or a barrier makes it the thread's own); a write after a
// fence or with a release order publishes the thread's accesses before it.
func (t *Thread) syncStrong(m *mem, i int, reads, writes bool) {
	l := t.w.l
	h := &t.x.hb
	r, b0, _ := m.span(i)
	key := syncKey{r, b0, -1}
	if m.space == SharedSpace {
		key.block = t.blk.linear
	}
	sv := l.syncVars[key]
	if reads && sv != nil && (h.seen != sv || h.seenVersion != sv.version || writes && !h.seenRMW) {
		// (Knowledge taken in stays: pending, or acquired. A poll of an
		// element nobody released to since costs no join.)
		h.seen, h.seenVersion, h.seenRMW = sv, sv.version, writes
		if h.pend == nil {
			h.pend = newVClock()
		}
		h.pend.join(sv.gpu)
		h.pend.join(sv.block[t.blk.linear])
		if own, blk := sv.byBlock[t.blk.linear], sv.block[t.blk.linear]; own != nil || blk != nil {
			if h.pendOwn == nil {
				h.pendOwn = newVClock()
			}
			h.pendOwn.join(own)
			h.pendOwn.join(blk)
		}
		if writes {
			if h.pendRMW == nil {
				h.pendRMW = newVClock()
			}
			h.pendRMW.join(sv.gpu)
			h.pendRMW.join(sv.block[t.blk.linear])
		}
	}
	if reads && writes && sv != nil {
		t.blk.acquired = true // the block's barriers have knowledge to share
	}
	if !writes || !h.fenced || sv != nil && sv == h.pubVar && h.pubClock == h.relClock {
		return
	}
	if l.syncVars == nil {
		l.syncVars = map[syncKey]*syncVar{}
	}
	if sv == nil {
		sv = &syncVar{gpu: newVClock()}
		l.syncVars[key] = sv
	}
	h.pubVar, h.pubClock = sv, h.relClock
	sv.version++
	if h.blockFence {
		t.publish(blockClock(&sv.block, t.blk.linear))
		return
	}
	t.publish(sv.gpu)
	t.publish(blockClock(&sv.byBlock, t.blk.linear))
}

// blockClock returns the clock of block b in *m, made if missing.
func blockClock(m *map[int]*vclock, b int) *vclock {
	if *m == nil {
		*m = map[int]*vclock{}
	}
	c := (*m)[b]
	if c == nil {
		c = newVClock()
		(*m)[b] = c
	}
	return c
}

// publish adds what the thread's last release fence released to dst.
func (t *Thread) publish(dst *vclock) {
	h := &t.x.hb
	dst.join(h.relVC)
	if h.relClock > dst.threads[t.gid] {
		dst.threads[t.gid] = h.relClock
	}
	if p := h.relPhase; p > dst.blocks[t.blk.linear] {
		dst.blocks[t.blk.linear] = p
	}
	// Warp-mates' accesses before a warp sync the releasing lane took part
	// in before its fence: their gids are consecutive with its own.
	first := t.gid - uint32(t.lane)
	for k, c := range h.relKnown {
		if k != t.lane && c > 0 {
			dst.noteWclk(first+uint32(k), c)
		}
	}
}

// hbView is what the happens-before test needs of the current thread,
// loaded once per checked access: checkOrder and checkReads test up to three
// recorded accesses against it.
type hbView struct {
	// floor is the lowest gid whose records are of the current epoch: the
	// launch's first thread for global memory, the block's for shared
	// memory (whose records from the block that last used the array are
	// stale). Lower ones, and the host's 0, come before the access.
	floor uint32
	base  uint32 // gid of thread 0 of the thread's block
	n     uint32 // threads per block
	tid   uint32 // the thread's index in its block
	warp  uint32
	phase uint16
	// lockstep is set under the pre-Volta warp model (Options.WithWarpModel).
	lockstep bool
	atomics  bool // the thread acquired knowledge through atomics
	known    *[warpSize]uint32
	t        *Thread
	ctxs     []accessCtx // the launch's contexts, which records index
}

// view returns t's hbView, kept in its thread slot: what never changes for
// the slot is set when its block is made (newBlock), the block's first gid
// when the thread starts, and the rest here.
func (t *Thread) view(floor uint32) *hbView {
	v := &t.x.view
	v.floor, v.phase, v.atomics = floor, uint16(t.blk.phase), t.x.hb.vc != nil
	v.ctxs = t.w.ctxView
	v.lockstep = t.w.l.opts.warpModel == Lockstep
	return v
}

// orderedInBlock and orderedOtherwise together decide whether a happens
// before the current access (callers write `v.orderedInBlock(a) ||
// v.orderedOtherwise(a)`, so that the first is inlined and the second runs
// only when it fails): a is the thread's own, or of its block in an earlier
// barrier phase, or of its warp before a warp synchronisation the thread
// took part in; otherwise what the thread acquired through atomics decides.
// Gids of a block are consecutive, so "same block" is a subtraction; the
// division by the block size it replaced was a third of detection's time on
// shared-memory kernels.
func (v *hbView) orderedInBlock(a *access) bool {
	ut := a.gid - v.base
	return ut < v.n && (ut == v.tid || v.phase != uint16(a.when) ||
		ut/warpSize == v.warp && int16(uint16(v.known[ut%warpSize])-uint16(a.when>>16)) > 0)
}

// orderedOtherwise looks beyond the block's own synchronisation: records
// of an earlier epoch (see floor) come first, and atomics may have carried
// knowledge.
func (v *hbView) orderedOtherwise(a *access) bool {
	return a.gid < v.floor || v.atomics && v.t.orderedByAtomics(a)
}

// orderedByAtomics is ordered's test against the knowledge t acquired
// through atomics (fence + atomic release, atomic acquire). Not inlined,
// so that orderedOtherwise is.
//
//go:noinline
func (t *Thread) orderedByAtomics(a *access) bool {
	vc := t.x.hb.vc
	if c, ok := vc.threads[a.gid]; ok && c > a.clock {
		return true
	}
	ublk := int(a.gid-t.w.l.gidBase) / t.w.l.tpb
	if p, ok := vc.blocks[ublk]; ok && int16(uint16(p)-a.phase()) > 0 {
		return true
	}
	if c, ok := vc.wclks[a.gid]; ok && int16(uint16(c)-a.wclk()) > 0 {
		return true
	}
	return false
}

var opNames = [...]string{"read", "write", "atomic"}

// opOf names recorded access a: in a read slot (slot) or as the last write.
func opOf(a *access, slot bool) string {
	switch {
	case a.site&(writeBit|atomicBit) == writeBit:
		return "write"
	case a.site&writeBit != 0 && a.site&volatileBit != 0: // strong writes kept in a read slot
		return "volatile write"
	case a.site&writeBit != 0 && a.site&storeBit != 0:
		return "atomic store"
	case a.site&writeBit != 0:
		return "atomic"
	case a.site&volatileBit != 0 && slot:
		return "volatile read"
	case a.site&volatileBit != 0:
		return "volatile write"
	case a.site&atomicBit != 0 && slot:
		return "atomic load"
	case a.site&atomicBit != 0 && a.site&storeBit != 0:
		return "atomic store"
	case a.site&atomicBit != 0:
		return "atomic"
	case slot:
		return "read"
	}
	return "write"
}

// checkCell is detection's race check of one access of kind at site s by
// t to cell c of allocation r, for element i of m (a view of r, or r),
// which reports name: it tests the cell's records against the access and
// records it.
func (t *Thread) checkCell(r, m *mem, i int, c *cell, kind accKind, s site, floor uint32) {
	h := &t.x.hb
	g := t.gid
	when := t.blk.phase&0xffff | h.known[t.lane]<<16
	if (c.w.gid < floor || c.w.gid == g) && (c.r.gid < floor || c.r.gid == g) {
		// The cell holds only the thread's own accesses and those of
		// earlier epochs (see hbView.floor): all ordered before this
		// one. Most accesses take this path; it needs no hbView.
		if kind == accRead {
			c.r = rec{g, t.w.ctxOf(uint32(s), uint64(when)|uint64(h.clock)<<32)}
		} else {
			c.w = rec{g, t.w.ctxOf(siteBits(s, kind), uint64(when)|uint64(h.clock)<<32)}
			c.r = rec{}
		}
		return
	}
	if kind == accRead {
		t.checkRead(r, m, i, c, s, when, floor)
		return
	}
	t.checkOrder(r, m, i, kind, c, s, when, floor)
}

// checkRead is checkCell's test of a read of a cell others use (a shared
// tile every lane reads): against the write, then into a read slot. A new
// read replaces a recorded read that happens before it (or is its own
// thread's); two concurrent readers are both kept (a read pair), which is
// what finds a warp-synchronous reduction without __syncwarp. A third
// concurrent reader replaces the older: FastTrack's read-shared vector
// clock, bounded at two. RATIONALE.md discusses what that misses.
func (t *Thread) checkRead(r, m *mem, i int, c *cell, s site, when, floor uint32) {
	var mu *sync.Mutex
	if e := t.w.l.epoch; e != nil && r.space == GlobalSpace {
		t.specCheckCell(r, c)
		mu = &e.mu
	}
	v := t.view(floor)
	g := t.gid
	if c.w.gid >= floor && !(v.inBlock(c.w) || v.orderedElse(c.w)) && !t.sawWriteOf(v, c, c.w) {
		t.race(m, i, accRead, s, c.w, false)
	}
	nr := rec{g, t.w.ctxOf(uint32(s), uint64(when)|uint64(t.x.hb.clock)<<32)}
	if mu != nil {
		// Another worker may add or free a pair of this buffer.
		mu.Lock()
		defer mu.Unlock()
	}
	var buf [2]rec
	p := r.readSlots(c, &buf)
	// A slot may hold a write strong writes came after (strongCheck keeps
	// it there): it conflicts with this read as the cell's write does.
	// Otherwise a slot is replaced if free: older than the epoch, the
	// thread's own, or ordered before this read.
	//
	// The read stands in for the thread's own earlier reads, plain or
	// strong: it conflicts with every write they conflict with, and what
	// comes after it comes after them. One left in the other slot is
	// dropped (a thread's strong read and its plain read after it filled
	// both slots, and another thread's read then pushed the plain one out:
	// found by the differential fuzzer).
	own := func(k int) {
		if a := p[1-k]; a.gid == g && v.ctxs[a.ctx].site&writeBit == 0 {
			p[0], p[1] = nr, rec{}
		}
	}
	switch {
	case p[0].gid < floor || p[0].gid == g || v.inBlock(p[0]) || v.orderedElse(p[0]):
		if a := p[1]; a.gid >= floor && a.gid != g && v.ctxs[a.ctx].site&writeBit != 0 && !(v.inBlock(a) || v.orderedElse(a)) && t.keptSlotRaces(v, c, a) {
			t.race(m, i, accRead, s, a, true)
		}
		p[0] = nr
		own(0)
		if a := p[1]; a.gid >= floor && a.gid != g && v.ctxs[a.ctx].site&writeBit == 0 {
			// Another thread's read stays first, the older: a third
			// concurrent read displaces the older of two (the default
			// case below), and this one is the newer. (Left in place,
			// a thread's read that replaced its own earlier one was
			// displaced before an older read of another thread.)
			p[0], p[1] = a, nr
		}
	case v.ctxs[p[0].ctx].site&writeBit != 0:
		if t.keptSlotRaces(v, c, p[0]) {
			t.race(m, i, accRead, s, p[0], true)
		}
		p[1] = nr
	case p[1].gid < floor || p[1].gid == g || v.inBlock(p[1]) || v.orderedElse(p[1]):
		p[1] = nr
		own(1)
	case v.ctxs[p[1].ctx].site&writeBit == 0 && v.distance(p[1]) < v.distance(p[0]):
		// Two reads this one does not come after: the one from nearer
		// (the reader's warp, then its block) gives way, as a __syncwarp
		// or a barrier orders it with the writes to come. Dropping the
		// older instead, every block's read of a parameter was displaced
		// by the last block's own before its thread 0 rewrote it.
		p[1] = nr
	default:
		if v.ctxs[p[1].ctx].site&writeBit != 0 && t.keptSlotRaces(v, c, p[1]) {
			t.race(m, i, accRead, s, p[1], true)
		}
		p[0] = p[1]
		p[1] = nr
	}
	r.storeReads(c, p, &buf)
}

// checkOrder is checkCell's race check of a write or atomic when the cell
// holds another thread's access of the current epoch: it tests
// happens-before against each record.
//
//go:noinline
func (t *Thread) checkOrder(r, m *mem, i int, kind accKind, c *cell, s site, when, floor uint32) {
	e := t.w.l.epoch
	if e != nil && r.space == GlobalSpace {
		t.specCheckCell(r, c)
	} else {
		e = nil
	}
	v := t.view(floor)
	// Atomics never race with atomics.
	atomics := kind == accAtomic && v.decode(c.w).site&atomicBit != 0
	if c.w.gid >= v.floor && !atomics && !v.ordered(c.w) && !t.sawWriteOf(v, c, c.w) {
		t.race(m, i, kind, s, c.w, false)
	}
	nw := rec{t.gid, t.w.ctxOf(siteBits(s, kind), uint64(when)|uint64(t.x.hb.clock)<<32)}
	if e != nil {
		// Another worker may add or free a pair of this buffer.
		e.mu.Lock()
		defer e.mu.Unlock()
	}
	var buf [2]rec
	p := r.readSlots(c, &buf)
	for k := range p {
		if p[k].gid >= v.floor && !v.ordered(p[k]) && !(v.ctxs[p[k].ctx].site&writeBit != 0 && !t.keptSlotRaces(v, c, p[k])) {
			t.race(m, i, kind, s, p[k], true)
			break
		}
	}
	c.w = nw
	r.clearReads(c)
}

// siteBits is a record's site field: the site, marked if the access is an
// atomic.
func siteBits(s site, kind accKind) uint32 {
	if kind == accAtomic {
		return uint32(s) | atomicBit
	}
	return uint32(s)
}

// uninitRead reports a read of element i of m some byte of which nothing
// wrote before (the caller marks the bytes initialised, so that each is
// reported once). Kept out of the access path, whose frame it would swell.
//
//go:noinline
func (t *Thread) uninitRead(m *mem, i int, kind accKind, s site) {
	if t.w.l.epoch != nil {
		t.specAbort("a finding")
	}
	x := t.x
	if x.spanMute&muteUninit != 0 {
		return
	}
	x.spanHit |= muteUninit
	t.w.l.addFinding(Finding{Kind: UninitializedRead, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Detail:  "read before the host or any thread wrote it",
		Current: threadAccess(t, opNames[kind], s)})
}

// race reports the current access racing with record prev (in a read slot
// if slot).
func (t *Thread) race(m *mem, i int, kind accKind, s site, prev rec, slot bool) {
	if l := t.w.l; l.epoch != nil {
		// (No halt: the caller may hold the epoch's lock.)
		l.specFail("a finding")
		return
	}
	w := t.w
	q := raceMemo{m: m, ctx: prev.ctx, s: s, kind: kind, slot: slot, host: prev.gid < w.l.gidBase}
	for j := range w.repeats {
		if r := &w.repeats[j]; r.memo == q {
			// A race counted lately, again: raceOp would build the same
			// key and find it here.
			x := t.x
			if x.spanMute&muteRace == 0 {
				x.spanHit |= muteRace
				r.n++
			}
			return
		}
	}
	c := &w.ctxView[prev.ctx]
	a := access{gid: prev.gid, site: c.site, when: c.when, clock: c.clock}
	if j := t.raceOp(m, i, opNames[kind], s, &a, slot); j >= 0 {
		w.repeats[j].memo = q
	}
}

// raceMemo is what decides the key of a race race reports: the
// allocation, the recorded access's context (its site and operation), the
// current site and kind, the slot, and whether the host made the record.
// An access with all of these equal to a counted race's is the same race,
// counted with comparisons and an increment (a racy kernel repeats a few
// races at every thread), not by rebuilding its key.
type raceMemo struct {
	m          *mem
	ctx        uint32
	s          site
	kind       accKind
	slot, host bool
}

// The Programming Guide's atomicAdd for double (and every CAS loop built
// like it: atomicMax on floats, atomicMul) reads the element plainly for a
// first guess, then compare-and-swaps until the guess holds:
//
//	old := x.Load(t, 0)
//	for {
//		assumed := old
//		old = sim.AtomicCAS(t, x, 0, assumed, f(assumed))
//		if old == assumed { break }
//	}
//
// By PTX's letter the plain read races with the other threads' atomics;
// the Guide documents the loop as correct, and the CAS checks the guess.
// gpusim accepts it: a race between a plain read and an atomic on the same
// element is held back (guessRace) and dropped at the launch's end if the
// reading thread compare-and-swapped that element; otherwise it is
// reported as any race. Races of plain writes with atomics, and of plain
// reads with plain writes, are reported as always.

// casKey names an element (its allocation and first byte) and a thread
// that compare-and-swapped it, or that read it plainly.
type casKey struct {
	gid uint32
	r   *mem
	b0  int
}

// guessKey is a held-back race: the reading thread and element, and the
// race's sites.
type guessKey struct {
	reader casKey
	k      raceKey
}

// guessRace is a race of a plain read with an atomic, held back until the
// launch ends; n counts its occurrences. It is dropped if the reading
// thread's compare-and-swaps of the element outnumber cas, their count
// when the race was found (the latest occurrence's): a CAS came after
// the read.
type guessRace struct {
	guessKey
	f   Finding
	n   int
	cas int
}

// maxGuesses bounds a worker's held-back races: past it, races are
// reported at once (a kernel reading plainly what atomics write all over
// a buffer is not a CAS loop).
const maxGuesses = 4096

// guessReader reports whether the current access, op, racing with prev,
// is a plain read racing with an atomic read-modify-write or an atomic
// racing with a plain read not yet followed by its thread's CAS, and which
// thread read.
func guessReader(op string, prev *access, slot bool, gid uint32) (uint32, bool) {
	switch {
	case op == "read" && (!slot || prev.site&writeBit != 0) && prev.site&(atomicBit|volatileBit|storeBit) == atomicBit:
		return gid, true
	case op == "atomic" && slot && prev.site&(atomicBit|writeBit|casBit) == 0:
		return prev.gid, true
	}
	return 0, false
}

// checkedGuess reports whether prev, racing with the current atomic op,
// is a plain read its thread compare-and-swapped the element after: the
// CAS checked the guess (see guessRace).
func checkedGuess(op string, prev *access, slot bool) bool {
	return op == "atomic" && slot && prev.site&(atomicBit|writeBit) == 0 && prev.site&casBit != 0
}

// markGuesses marks the plain reads of cell c by thread g in the read
// slots as checked by g's compare-and-swap now (casBit).
func (t *Thread) markGuesses(r *mem, c *cell, v *hbView, g uint32) {
	v.ctxs = t.w.ctxView // (strongCheck may have interned contexts since the view was taken)
	var buf [2]rec
	p := r.readSlots(c, &buf)
	marked := false
	for k := range p {
		if p[k].gid != g {
			continue
		}
		if a := v.decode(p[k]); a.site&(atomicBit|writeBit|casBit) == 0 {
			p[k] = rec{g, t.w.ctxOf(a.site|casBit, uint64(a.when)|uint64(a.clock)<<32)}
			marked = true
		}
	}
	if marked {
		r.storeReads(c, p, &buf)
	}
}

// holdGuess holds back the race of the current access, op at site s, with
// prev, whose reading thread is reader (see guessRace).
//
//go:noinline
func (t *Thread) holdGuess(m *mem, i int, op string, s site, prev *access, slot bool, reader uint32) {
	w, l := t.w, t.w.l
	pop := opOf(prev, slot)
	r, b0, _ := m.span(i)
	k := guessKey{casKey{reader, r, b0}, raceKey{mem: m, cur: s, prev: site(prev.site & siteMask), curOp: opIndex(op), prevOp: opIndex(pop)}}
	cas := w.casDone[k.reader]
	if j, ok := w.guessAt[k]; ok {
		w.guesses[j].n++
		w.guesses[j].cas = cas
		return
	}
	if w.guessAt == nil {
		w.guessAt = map[guessKey]int{}
	}
	w.guessAt[k] = len(w.guesses)
	w.guesses = append(w.guesses, guessRace{guessKey: k, n: 1, cas: cas, f: Finding{Kind: DataRace, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Current:  threadAccess(t, op, s),
		Previous: l.accessOf(prev.gid, pop, site(prev.site&siteMask))}})
}

// noteCAS counts t's compare-and-swap of element i of m (rmw calls it
// with detection on): a race held back before or after may need it.
func (t *Thread) noteCAS(m *mem, i int) {
	w := t.w
	r, b0, _ := m.span(i)
	if w.casDone == nil {
		w.casDone = map[casKey]int{}
	}
	w.casDone[casKey{t.gid, r, b0}]++
}

// gatherGuesses adds a finished worker's held-back races and CAS records
// to the launch's (under l.mu).
func (l *launch) gatherGuesses(w *worker) {
	l.guesses = append(l.guesses, w.guesses...)
	for k, n := range w.casDone {
		if l.casDone == nil {
			l.casDone = map[casKey]int{}
		}
		l.casDone[k] += n
	}
	w.guesses, w.guessAt, w.casDone = nil, nil, nil
}

// settleGuesses reports the held-back races whose reading thread never
// compare-and-swapped the element (under l.mu).
func (l *launch) settleGuesses() {
	for _, g := range l.guesses {
		if l.casDone[g.reader] > g.cas {
			continue
		}
		if j, ok := l.races[g.k]; ok {
			if j >= 0 {
				l.findings.list[j].Count += g.n
			}
			continue
		}
		if l.races == nil {
			l.races = map[raceKey]int{}
		}
		j := l.findings.add(g.f)
		l.races[g.k] = j
		if j >= 0 {
			l.findings.list[j].Count += g.n - 1
		}
	}
	l.guesses, l.casDone = nil, nil
}

// Bits of threadExtra.spanHit and spanMute: an access covering several
// cells (a float4, a double) reports a race and an uninitialised read once,
// on the first cell that shows it.
const (
	muteRace = 1 << iota
	muteUninit
)

// raceOp reports the current access, op at site s, racing with the
// recorded access prev (in a read slot if slot). A race already reported
// at the same pair of sites only counts (raceKey): a kernel racing on
// every element costs at most a map lookup per access, not a report; the
// worker's repeats (and race's raceMemo in front of them) spare even that.
//
// It returns the index in the worker's repeats of the race's key when the
// race was one counted before and holding back was not in question (see
// raceMemo), else -1.
//
//go:noinline
func (t *Thread) raceOp(m *mem, i int, op string, s site, prev *access, slot bool) int {
	x := t.x
	if x.spanMute&muteRace != 0 {
		return -1
	}
	x.spanHit |= muteRace
	l := t.w.l
	if l.epoch != nil {
		l.specFail("a finding")
		return -1
	}
	if checkedGuess(op, prev, slot) {
		return -1
	}
	reader, guess := guessReader(op, prev, slot, t.gid)
	if guess && len(t.w.guesses) < maxGuesses {
		t.holdGuess(m, i, op, s, prev, slot, reader)
		return -1
	}
	pop := opOf(prev, slot)
	k := raceKey{mem: m, cur: s, prev: site(prev.site & siteMask), curOp: opIndex(op), prevOp: opIndex(pop)}
	if k.curOp == 0 || k.prevOp == 0 {
		k.mem = nil // never cached: findings' key decides
	}
	if prev.gid < l.gidBase {
		k.prev, k.host = 0, true
	}
	if k.mem != nil {
		j := t.w.repeated(k)
		counted := j >= 0
		if !counted {
			j, counted = l.countRace(t.w, k)
		}
		if counted {
			if guess {
				return -1 // held back next time, if room is made
			}
			return j
		}
	}
	f := Finding{Kind: DataRace, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Current:  threadAccess(t, op, s),
		Previous: l.accessOf(prev.gid, pop, site(prev.site&siteMask))}
	if cur := t.x.strong; prev.site&atomicBit != 0 && cur != 0 && (prev.site^cur)&sizeBits != 0 {
		// Two strong accesses of overlapping bytes, of different
		// sizes (morallyStrong).
		f.Detail = fmt.Sprintf("both accesses are strong (atomic or volatile), but of different widths (this one %d bytes, the previous %d): strong accesses that overlap without overlapping completely are not morally strong, so they race (PTX); access the bytes with one width",
			1<<(cur&sizeBits>>sizeShift), 1<<(prev.site&sizeBits>>sizeShift))
	} else if prev.site&atomicBit != 0 && strings.HasPrefix(op, "atomic") {
		// Two strong accesses race only when a block scope leaves the
		// other's thread out (morallyStrong).
		f.Detail = "both accesses are atomic, but one has block scope (thread_scope_block) and the threads are in different blocks: they are not morally strong, so they race (PTX); use device scope"
	} else if prev.site&volatileBit != 0 && (op == "volatile read" || op == "volatile write") {
		f.Detail = "volatile accesses by two lanes of one warp with no __syncwarp between them: volatile makes each access reach memory, but orders nothing between lanes; since Volta (independent thread scheduling) a warp-synchronous exchange through shared memory needs __syncwarp (Programming Guide)"
	}
	l.addRace(k, f)
	return -1
}

// warpSync orders the accesses of the lanes in mask before everything they
// do next: each lane's clock advances and all of them learn what any of them
// knew (so knowledge passes on through chains of collectives).
func (w *worker) warpSync(b *block, first int, mask uint32) {
	var join [warpSize]uint32
	for m := mask; m != 0; m &= m - 1 {
		lane := trailing(m)
		h := &b.threads[first+lane].x.hb
		h.known[lane]++
		for k, v := range h.known {
			if v > join[k] {
				join[k] = v
			}
		}
	}
	var u clockUnion
	for m := mask; m != 0; m &= m - 1 {
		h := &b.threads[first+trailing(m)].x.hb
		h.known = join
		u.add(h.vc)
	}
	all := u.clock()
	if all == nil {
		return
	}
	// What a lane acquired (through atomics and a fence) is ordered before
	// the sync, and so before every lane's accesses after it: the lane
	// that polled a flag passes it on, as a barrier does (shareAcquired).
	for m := mask; m != 0; m &= m - 1 {
		b.threads[first+trailing(m)].x.hb.vc = all
	}
	b.acquired = true
}

// exitCheck looks for a thread that passed by a barrier: it exits while (or
// before) others wait at a SyncThreads, having executed kernel lines that
// come after that barrier in the same function. A thread that returns before
// reaching the barrier's line counts as arrived, as on Volta and later.
func (w *worker) exitCheck(t *Thread) {
	b := t.blk
	if len(t.x.hb.past) == 0 && b.phase == 0 {
		// No kernel line since the start and no barrier passed: the
		// thread returned before any barrier, which counts as arrived.
		return
	}
	// The exited thread's past stays as it is until its slot is prepared
	// for the next block. It is checked when the barrier the others meet
	// at is released; until then the thread is marked with its phase (a
	// list of exited threads cost a third of thread exit).
	t.x.hb.exitPhase = b.phase + 1
	b.exitedPast++
}

// checkExitedPast checks the threads that exited in the barrier phase now
// ending, having run kernel lines since their last barrier.
func (w *worker) checkExitedPast(b *block) {
	if b.exitedPast == 0 {
		return
	}
	for k := range b.threads[:b.started] {
		if t := &b.threads[k]; t.state == stDone && t.x.hb.exitPhase == b.phase+1 {
			w.checkPast(b, t)
		}
	}
}

// checkPast reports thread e.t if it ran, since its last barrier, a line
// that comes after the awaited barrier's place in some function of the
// barrier's call chain: past the barrier itself, or past the call of the
// helper function the barrier sits in. Lines after the thread's own last
// barrier, where that stands at or after the awaited one in the same
// function, are the rest of a loop iteration, not evidence: a thread that
// leaves a loop at the bottom of an iteration never came back round to the
// barrier the others wait at, and counts as arrived; unless lanes of its own
// warp wait at that barrier, as when a per-thread trip count ends a loop of
// barriers early for some lanes (synccheck's divergent-warp case). Runs
// when the barrier is released, when the waiting set is known.
func (w *worker) checkPast(b *block, t *Thread) {
	if len(t.x.hb.past) == 0 {
		w.checkLeftLoop(b, t)
		return
	}
	for _, p := range t.x.hb.past {
		for _, c := range b.barChain {
			if p.fn != c.fn || p.line <= c.line {
				continue
			}
			if last, ok := lineIn(b.lastChain, c.fn); ok && last >= c.line && p.line > last && !warpWaits(b, t) {
				continue
			}
			w.passedBy(b, t, p, b.bar.site)
			return
		}
	}
}

// checkLeftLoop reports thread t, which exited straight after the barrier
// the block passed last (no kernel line in between), if that barrier stands
// at or after the awaited one and lanes of t's warp wait: the per-thread
// trip count of a loop with its barrier at the bottom (for s := 32; s > tid;
// s /= 2 { ...; __syncthreads() }). A thread whose last barrier stands
// before the awaited one returned before reaching it, which counts as
// arrived; so does a whole warp leaving the loop.
//
// Which of the two barriers stands first is decided in the innermost
// function of the awaited barrier's call chain in which the two stand at
// different lines: a function in which both stand at one line (a helper
// holding the barrier, or the line calling it) orders nothing, so an outer
// caller decides (the helper called from two lines is in the order of its
// calls). Only when they stand at one line in every function they share
// are they one barrier, which the others came back round to.
func (w *worker) checkLeftLoop(b *block, t *Thread) {
	if !warpWaits(b, t) {
		return
	}
	var at pastOp
	shared := false
	for _, c := range b.barChain {
		last, ok := lastOp(b.lastChain, c.fn)
		if !ok {
			continue
		}
		if last.line < c.line {
			return
		}
		if !shared {
			at, shared = last, true // the innermost: the barrier (or the helper's) line
		}
		if last.line > c.line {
			break
		}
	}
	if !shared {
		return
	}
	w.l.addFinding(Finding{Kind: BarrierDivergence,
		Detail: fmt.Sprintf("thread %s of block %s did not arrive at the barrier: it left its loop after the barrier at line %d and exited while lanes of its warp wait",
			t.ThreadIdx.IndexString(), b.idx.IndexString(), at.line),
		Current:  Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "exit", Site: at.site.String()},
		Previous: threadAccess(b.bar.first, barNames[b.bar.kind], b.bar.site)})
}

// lastOp returns chain's entry in function fn.
func lastOp(chain []pastOp, fn int32) (pastOp, bool) {
	for _, c := range chain {
		if c.fn == fn {
			return c, true
		}
	}
	return pastOp{}, false
}

// warpWaits reports whether a lane of t's warp waits at b's barrier.
func warpWaits(b *block, t *Thread) bool {
	first := t.warp * warpSize
	for k := first; k < min(first+warpSize, len(b.threads)); k++ {
		if k >= b.started {
			break
		}
		if b.threads[k].state == stBarrier {
			return true
		}
	}
	return false
}

// lineIn returns chain's line in function fn.
func lineIn(chain []pastOp, fn int32) (int32, bool) {
	for _, c := range chain {
		if c.fn == fn {
			return c.line, true
		}
	}
	return 0, false
}

// passedBy reports t exiting, after running on to kernel line p, while others
// of block b wait at the barrier at site s.
//
//go:noinline
func (w *worker) passedBy(b *block, t *Thread, p pastOp, s site) {
	w.l.addFinding(Finding{Kind: BarrierDivergence,
		Detail: fmt.Sprintf("thread %s of block %s did not arrive at the barrier: it ran on to line %d and exited while others wait",
			t.ThreadIdx.IndexString(), b.idx.IndexString(), p.line),
		Current:  Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "exit", Site: p.site.String()},
		Previous: threadAccess(b.bar.first, barNames[b.bar.kind], s)})
}

// slowAccess is the part of Load and Store that runs only when the access
// budget runs out: always with detection on, otherwise once every
// defaultBudget accesses to look for spinning.
//
// Its callers are Load and Store, whose return address is the kernel's
// line, and rmw, called by an atomic that may or may not be inlined into the
// kernel: the two return addresses above slowAccess's caller decide the site
// (siteCache.entrySite).
//
//go:noinline
func (t *Thread) slowAccess(m *mem, i int, kind accKind, changed bool) site {
	// The launch's end first: a Thread kept past it learns so here, also
	// with an index out of bounds. A Thread whose thread does not run, or
	// that another goroutine than its coroutine's uses, is misused
	// (owner.go): with detection on every access comes here, and the
	// stack bounds cost a few loads.
	l := t.w.l
	if l.aborted.Load() || t.state != stRunning || !onStack(t.w.g) {
		t.ownSlow()
	}
	if uint(i) >= uint(m.n) {
		t.badIndex(m, i, kind != accRead)
	}
	var s site
	if l.detect || l.prof != nil {
		cls := t.w.sites.entrySite(callerPCs12())
		// cls points into the cache: read it before anything else looks up.
		s = cls.site
		if l.detect {
			// The race and uninitialised-read detectors: an
			// allocation's element of at most 4 bytes is one cell,
			// checked here; views and wider elements cover several
			// (eachCell).
			fn, line := cls.fn, cls.line
			t.x.poll = nil // (see warpVolatile)
			if m.space == ConstantSpace {
				// Read-only in kernels (a Store is a finding that ends
				// the launch) and initialised by the host: its cells
				// could never take part in a finding, so none are kept.
				t.x.hb.notePast(fn, line, s)
				goto checked
			}
			r := m
			if m.vroot != nil {
				r = m.vroot
			}
			if r.shadow == nil || r.dev != l.dev {
				if l.epoch != nil {
					t.specAbort("a buffer with no shadow yet")
				}
				t.firstShadow(r, s)
			}
			t.x.hb.notePast(fn, line, s)
			floor := l.gidBase
			if m.space == SharedSpace {
				floor = t.blk.gidBase
				if r.life.owner != t.blk {
					t.otherBlockShared(m, i, opNames[kind])
				}
			}
			if m.oneCell && r.shadow[i].w.gid != tagGid {
				// (m is an allocation: a view is never oneCell.)
				if l.epoch != nil && m.space == GlobalSpace && !((kind == accRead || r.chunkSaved(i)) && t.w.inFootprint(r, i)) {
					// specAccess's usual case is the test: in the
					// batch's footprint, and read or in a chunk saved
					// already.
					t.specAccess(m, r, i, kind)
				}
				c := &r.shadow[i]
				if kind != accWrite && !m.unitInit(i) {
					t.uninitRead(m, i, kind, s)
					m.setUnitInit(i)
				}
				if g := t.gid; (c.w.gid < floor || c.w.gid == g) && (c.r.gid < floor || c.r.gid == g) {
					// checkCell's usual case, written out: the cell
					// holds only the thread's own accesses and those
					// of earlier epochs.
					h := &t.x.hb
					wc := uint64(t.blk.phase&0xffff|h.known[t.lane]<<16) | uint64(h.clock)<<32
					sb := siteBits(s, kind)
					w := t.w
					var id uint32
					if e := &w.ctxs[uint8(sb)]; e.site == sb && e.wc == wc {
						id = e.id
					} else {
						id = w.internCtx(sb, wc)
					}
					if kind == accRead {
						c.r = rec{g, id}
					} else {
						c.w, c.r = rec{g, id}, rec{}
					}
				} else if when := t.blk.phase&0xffff | t.x.hb.known[t.lane]<<16; kind == accRead {
					t.checkRead(m, m, i, c, s, when, floor)
				} else {
					t.checkOrder(m, m, i, kind, c, s, when, floor)
				}
				if kind != accRead {
					if l.epoch != nil {
						m.setUnitInitShared(i)
					} else {
						m.setUnitInit(i)
					}
				}
			} else {
				if l.epoch != nil && m.space == GlobalSpace {
					t.specAccess(m, r, i, kind)
				}
				t.eachCell(m, i, kind, s, func(r *mem, c *cell) { t.checkCell(r, m, i, c, kind, s, floor) })
			}
		}
	checked:
		if kind == accAtomic {
			return s // rmw does the rest
		}
		if l.prof != nil {
			t.w.profAccess(t, m, i, kind, s)
		}
		if t.watch == 0 && t.ops > 1 {
			// Every checked access comes here: the usual case of the
			// spin accounting below, short. The budget stays below
			// zero, as it must while every access is checked.
			t.ops--
			return s
		}
	}
	t.spinAccount(m, i, changed, false)
	return s
}

// spinAccount counts an access towards the next spin check, and watches it
// while one runs. A thread whose watched accesses keep to a few addresses
// without changing memory is parked until others have run. Strong says
// the access is a strong one (volatile, atomic_ref): what a correct spin
// wait polls with.
func (t *Thread) spinAccount(m *mem, i int, changed, strong bool) {
	l := t.w.l
	if t.watch > 0 {
		t.x.spin.note(m.id, i, changed)
		t.x.spin.strong = t.x.spin.strong || strong
		t.watch--
		if t.watch == 0 {
			t.ops = defaultBudget
			if t.x.spin.looksStuck() {
				t.spinYield(t.x.spin.strong)
				t.resumeWatch()
			}
		}
	} else {
		t.periodic(m, i)
		if l.detect || l.prof != nil {
			t.ops--
		} else {
			t.ops = 0
		}
		if t.ops <= 0 {
			t.watch = watchOps
			if t.x.spin == nil {
				t.x.spin = new(spinWatch) // once per thread slot
			} else {
				t.x.spin.reset()
			}
		}
	}
	if l.detect || l.prof != nil || t.watch > 0 {
		t.budget = 0
	} else {
		t.budget = t.ops
	}
}

// spinWatch observes a thread's accesses for a while: a thread that keeps
// touching a handful of addresses without changing memory is spinning.
type spinWatch struct {
	// addrs holds the distinct addresses seen in the watch window. A window
	// of watchOps accesses over at most len(addrs) addresses revisits them:
	// polling (of up to 32 flags, say one per block of a grid barrier), not
	// a scan.
	addrs [32]struct {
		m int32
		i int
	}
	n        int
	overflow bool
	changed  bool
	// seq is the window's accesses in order, each as its index into addrs:
	// a plain-load window must repeat with a short period to count as
	// polling (see periodic).
	seq  [watchOps]uint8
	nseq int
	// strong is set when a watched access was strong (volatile or an
	// atomic_ref operation): the window polls as a spin wait does.
	strong bool
	// confirm is set while a resumed spinner is confirmed to keep to the
	// addresses it spun on (see resumeWatch): a new one ends the spin.
	confirm bool
}

func (s *spinWatch) reset() { *s = spinWatch{} }

func (s *spinWatch) note(m int32, i int, changed bool) {
	s.changed = s.changed || changed
	if s.overflow {
		return
	}
	for k := 0; k < s.n; k++ {
		if s.addrs[k].m == m && s.addrs[k].i == i {
			s.record(k)
			return
		}
	}
	if s.n == len(s.addrs) || s.confirm {
		s.overflow = true
		return
	}
	s.addrs[s.n] = struct {
		m int32
		i int
	}{m, i}
	s.record(s.n)
	s.n++
}

func (s *spinWatch) record(k int) {
	if s.nseq < len(s.seq) {
		s.seq[s.nseq] = uint8(k)
		s.nseq++
	}
}

// looksStuck reports whether the window looks like a spin wait: a few
// addresses, memory unchanged, and either a strong access among them or,
// for plain loads only, the same addresses in the same order over and over
// (periodic). A loop over a small read-only table whose order depends on
// what it computes (a Markov chain's next state) is not periodic; a loop
// reading the table in a fixed order is, and is told apart from polling
// only by how long it runs (spinRound).
func (s *spinWatch) looksStuck() bool {
	return !s.overflow && !s.changed && (s.strong || s.confirm || s.periodic())
}

// periodic reports whether the window's access sequence repeats with a
// period of at most half its length: a poll of one flag (period 1), of
// each of a few flags in turn, of a flag and a counter.
func (s *spinWatch) periodic() bool {
	q := s.seq[:s.nseq]
	if len(q) < 2 {
		return true // (the caller never checks so short a window)
	}
next:
	for p := 1; 2*p <= len(q); p++ {
		for k := p; k < len(q); k++ {
			if q[k] != q[k-p] {
				continue next
			}
		}
		return true
	}
	return false
}

// spinYield parks a thread that made no progress until others have run.
// Polled says how: with atomics or strong accesses, as spin waits poll, or
// (false) with plain loads only, as a long read-only loop also reads, which
// the deadlock verdict waits longer for (see spinRound).
func (t *Thread) spinYield(polled bool) {
	w := t.w
	if !polled {
		w.plainSpinners++
	}
	if w.l.epoch != nil {
		t.specAbort("spinning")
	}
	t.waitSite = w.sites.callerSite()
	t.state, t.waitFor = stSpinning, waitMemory
	w.spinq = append(w.spinq, t)
	if w.l.opts.warpModel == Lockstep {
		t.blk.warps[t.warp].spinning |= 1 << t.lane
	}
	t.suspend()
	t.state = stRunning
}

func trailing(m uint32) int {
	n := 0
	for m&1 == 0 {
		m >>= 1
		n++
	}
	return n
}
