package sim

import (
	"sync/atomic"
	"unsafe"
)

// Shadow memory: what detection records of the bytes kernels touch.
//
// An allocation's bytes are divided into units of min(element size, 4)
// bytes (4 for dynamic shared memory, which kernels carve into arrays of
// wider types). Each unit has a cell of 16 bytes: the last write (or
// atomic) and the last read, 8 bytes each. An access is checked on every
// unit its bytes cover: a float4 store on four units of a float32 buffer,
// a double on two. So detection keeps 4 bytes of shadow per byte of
// elements of 4 bytes or more, 8 per byte of 2-byte elements and 16 per
// byte of 1-byte elements, plus one initialisation bit per unit.
//
// Two rarer states live beside the cells, in side tables of the
// allocation, reached through a cell whose record holds tagGid:
//   - a read pair: a second concurrent reader (FastTrack's read-shared
//     state, bounded at two readers as before): the cell's read record
//     names an entry of mem.pairs;
//   - a split unit: an access to part of a unit (a byte of a float32
//     buffer, through a view): the unit becomes one cell per byte, with
//     one initialisation bit per byte, so that threads writing different
//     bytes of one word do not race and a uint32 load of a word one byte
//     of which was written is an uninitialised read. The cell's write
//     record names an entry of mem.splits. A unit stays split.
//
// A record is a thread id and a context: the index of (site, barrier
// phase and warp-sync clock, fence clock) in the launch's table of
// contexts (launch.ctxs). Threads of a kernel share contexts (they run the
// same lines in the same phases), so the table stays small; it is rebuilt
// by every launch, and records of earlier launches and earlier blocks
// (below hbView.floor) are never decoded.

// rec is one recorded access: a thread and its context.
type rec struct {
	gid uint32 // thread id (see Device.takeGids); 0 is none or the host; tagGid marks a side-table entry
	ctx uint32 // index in launch.ctxs, or of the side-table entry
}

// tagGid is no thread's id (takeGids stops below it): a cell's w with it
// is a split unit, its r a read pair.
const tagGid = ^uint32(0)

// cell is the shadow of one unit: the last write and the last read since.
type cell struct {
	w, r rec
}

// cellBytes is the shadow memory detection keeps per unit.
const cellBytes = int64(unsafe.Sizeof(cell{}))

// accessCtx is what a record says besides its thread: site (with the
// flags of access.site), when (barrier phase and warp-sync clock) and the
// thread's fence clock.
type accessCtx struct {
	site, when, clock uint32
}

// splitUnit is a unit accessed in parts: one cell per byte.
type splitUnit struct {
	bytes [4]cell
	init  uint8 // one bit per byte
}

// ctxCache maps contexts to their ids in the launch's table, direct
// mapped by site: a worker's accesses at a site repeat one (phase, clock)
// until the next barrier or fence (threads run phase by phase), which
// must not cost a map lookup each. The empty entry is the context of
// nothing, id 0.
type ctxCache [1 << ctxCacheBits]struct {
	site, id uint32
	wc       uint64 // when | clock<<32
}

const ctxCacheBits = 8 // indexed by the site's low byte (no bounds check)

// ctxOf returns the id of the context (site, when, clock) in the launch's
// table; wc is when | clock<<32.
func (w *worker) ctxOf(site uint32, wc uint64) uint32 {
	if e := &w.ctxs[uint8(site)]; e.site == site && e.wc == wc {
		return e.id
	}
	return w.internCtx(site, wc)
}

//go:noinline
func (w *worker) internCtx(site uint32, wc uint64) uint32 {
	k := accessCtx{site, uint32(wc), uint32(wc >> 32)}
	l := w.l
	if s := l.epoch; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	id, ok := l.ctxIndex[k]
	if !ok {
		id = uint32(len(l.ctxs))
		l.ctxs = append(l.ctxs, k)
		l.ctxIndex[k] = id
	}
	w.ctxView = l.ctxs
	e := &w.ctxs[uint8(site)]
	e.site, e.wc, e.id = site, wc, id
	return id
}

// decode returns record r as an access, or the access of none (gid only)
// if r is older than the view's floor, whose context is of another launch.
func (v *hbView) decode(r rec) access {
	if r.gid < v.floor {
		return access{gid: r.gid}
	}
	c := &v.ctxs[r.ctx]
	return access{gid: r.gid, site: c.site, when: c.when, clock: c.clock}
}

// ordered reports whether recorded access r happens before the current
// access: orderedInBlock || orderedOtherwise on the record, decoding only
// what each test needs. (Hot callers write the two halves, inBlock ||
// orderedElse, so that the first is inlined.)
func (v *hbView) ordered(r rec) bool { return v.inBlock(r) || v.orderedElse(r) }

// inBlock is orderedInBlock on a record.
func (v *hbView) inBlock(r rec) bool {
	ut := r.gid - v.base
	return ut < v.n && (ut == v.tid || v.orderedWhen(ut, v.ctxs[r.ctx].when))
}

// distance is how far from the current thread the thread of record r is:
// 0 in its warp, 1 in its block, 2 in another block (or the host).
func (v *hbView) distance(r rec) int {
	switch ut := r.gid - v.base; {
	case ut >= v.n:
		return 2
	case ut/warpSize != v.warp:
		return 1
	}
	return 0
}

// orderedElse is ordered beyond the block's own synchronisation: records
// of an earlier epoch (which the block's test never decodes: they are
// below the block's first id too) come first, and atomics may have
// carried knowledge.
func (v *hbView) orderedElse(r rec) bool {
	return r.gid < v.floor || v.atomics && v.orderedRecByAtomics(r)
}

// orderedWhen is orderedInBlock's test of a record of the block's thread
// ut, made at when, other than the current thread's.
func (v *hbView) orderedWhen(ut, when uint32) bool {
	return v.phase != uint16(when) || ut/warpSize == v.warp && int16(uint16(v.known[ut%warpSize])-uint16(when>>16)) > 0
}

//go:noinline
func (v *hbView) orderedRecByAtomics(r rec) bool {
	a := v.decode(r)
	return v.t.orderedByAtomics(&a)
}

// unitBytes is the size of a shadow unit of an allocation of elemSize-byte
// elements in space.
func unitBytes(elemSize int, dynamicShared bool) int {
	if dynamicShared || elemSize > 4 {
		return 4
	}
	return elemSize
}

// units is the number of shadow units of allocation r.
func (r *mem) units() int { return (r.n*r.elemSize + r.unit - 1) / r.unit }

// newInit returns the initialisation bits of allocation r, one per unit.
func (r *mem) newInit() []uint64 { return make([]uint64, (r.units()+63)/64) }

func (r *mem) unitInit(u int) bool {
	return r.initAll || r.init[u>>6]&(1<<(uint(u)&63)) != 0
}

func (r *mem) setUnitInit(u int) { r.init[u>>6] |= 1 << (uint(u) & 63) }

// setUnitInitShared is setUnitInit while blocks on other workers may set
// bits of the same word (speculate.go).
func (r *mem) setUnitInitShared(u int) {
	w, bit := &r.init[u>>6], uint64(1)<<(uint(u)&63)
	if *w&bit == 0 {
		atomic.OrUint64(w, bit)
	}
}

// span is the part of its allocation that element i of m (an allocation or
// a view) covers: from byte b0, size bytes.
func (m *mem) span(i int) (r *mem, b0, size int) {
	if m.vroot != nil {
		return m.vroot, m.vbyte + i*m.elemSize, m.elemSize
	}
	return m, i * m.elemSize, m.elemSize
}

// initBytes marks bytes [b0, b0+n) of allocation r initialised.
func (r *mem) initBytes(b0, n int) {
	if n <= 0 || r.freed {
		return
	}
	u := r.unit
	for b := b0; b < b0+n; {
		k := b / u
		lo, hi := b-k*u, min(b0+n-k*u, u)
		if lo == 0 && hi == u && (r.shadow == nil || r.shadow[k].w.gid != tagGid) {
			r.setUnitInit(k)
		} else {
			r.initPart(k, lo, hi)
		}
		b = (k + 1) * u
	}
}

// initPart marks bytes [lo, hi) of unit k initialised, splitting it.
func (r *mem) initPart(k, lo, hi int) {
	if r.unitInit(k) && (r.shadow == nil || r.shadow[k].w.gid != tagGid) {
		return
	}
	if r.shadow == nil {
		// No shadow yet to split the unit in: the bytes wait in
		// partInit until there is (applyPartInit).
		if r.partInit == nil {
			r.partInit = map[int]uint8{}
		}
		r.partInit[k] |= uint8((1<<(hi-lo) - 1) << lo)
		if r.partInit[k] == 1<<r.unit-1 {
			delete(r.partInit, k)
			r.setUnitInit(k)
		}
		return
	}
	sp := &r.splits[r.split(k)]
	sp.init |= uint8((1<<(hi-lo) - 1) << lo)
	if sp.init == 1<<r.unit-1 {
		r.setUnitInit(k)
	}
}

// bytesInit reports whether bytes [b0, b0+n) of allocation r are all
// initialised.
func (r *mem) bytesInit(b0, n int) bool {
	if r.freed || r.initAll {
		return true
	}
	u := r.unit
	for b := b0; b < b0+n; {
		k := b / u
		lo, hi := b-k*u, min(b0+n-k*u, u)
		if !r.unitInit(k) {
			want := uint8((1<<(hi-lo) - 1) << lo)
			switch {
			case r.shadow == nil:
				if r.partInit[k]&want != want {
					return false
				}
			case r.shadow[k].w.gid != tagGid || r.splits[r.shadow[k].w.ctx].init&want != want:
				return false
			}
		}
		b = (k + 1) * u
	}
	return true
}

// split returns the index in r.splits of unit k of allocation r as one
// cell per byte, splitting it if it is whole: each byte inherits the unit's records (a read pair is
// copied for each) and initialisation.
func (r *mem) split(k int) uint32 {
	c := &r.shadow[k]
	if c.w.gid == tagGid {
		return c.w.ctx
	}
	var sp splitUnit
	for b := 0; b < r.unit; b++ {
		sp.bytes[b].w = c.w
		sp.bytes[b].r = c.r
		if c.r.gid == tagGid {
			sp.bytes[b].r.ctx = r.newPair(r.pairs[c.r.ctx])
		}
	}
	if c.r.gid == tagGid {
		r.freePair(c.r.ctx)
	}
	if r.unitInit(k) {
		sp.init = 1<<r.unit - 1
	}
	idx := uint32(len(r.splits))
	r.splits = append(r.splits, sp)
	c.w, c.r = rec{tagGid, idx}, rec{}
	return idx
}

// newPair stores two read records in the allocation's side table.
func (r *mem) newPair(p [2]rec) uint32 {
	if n := len(r.freePairs); n > 0 {
		idx := r.freePairs[n-1]
		r.freePairs = r.freePairs[:n-1]
		r.pairs[idx] = p
		return idx
	}
	r.pairs = append(r.pairs, p)
	return uint32(len(r.pairs) - 1)
}

func (r *mem) freePair(idx uint32) { r.freePairs = append(r.freePairs, idx) }

// readSlots returns cell c's two read slots: its pair, or buf holding its
// read record and an empty slot. storeReads writes buf back.
func (r *mem) readSlots(c *cell, buf *[2]rec) *[2]rec {
	if c.r.gid == tagGid {
		return &r.pairs[c.r.ctx]
	}
	*buf = [2]rec{c.r, {}}
	return buf
}

// storeReads writes the slots readSlots returned back to cell c: a second
// record makes the cell's reads a pair.
func (r *mem) storeReads(c *cell, p, buf *[2]rec) {
	if p == buf {
		r.storeBuf(c, buf)
	}
}

//go:noinline
func (r *mem) storeBuf(c *cell, buf *[2]rec) {
	if buf[1] == (rec{}) {
		c.r = buf[0]
		return
	}
	c.r = rec{tagGid, r.newPair(*buf)}
}

// clearReads empties cell c's reads, as a write does.
func (r *mem) clearReads(c *cell) {
	if c.r.gid == tagGid {
		r.freePair(c.r.ctx)
	}
	c.r = rec{}
}

// resetShadow forgets every record of allocation r (a shared array given
// to a new block): its cells may stay (their records are older than the
// block), but a split or a pair must not.
func (r *mem) resetShadow() {
	if len(r.splits) == 0 && len(r.pairs) == 0 {
		return
	}
	clear(r.shadow)
	r.splits, r.pairs, r.freePairs = r.splits[:0], r.pairs[:0], r.freePairs[:0]
}

// eachCell runs detection's work on every cell that element i of m (a view,
// or an allocation of wide elements) covers: uninitialised reads, then
// check on each cell. A part of a unit is checked on the unit's byte
// cells, splitting it. Each finding is reported once for the access,
// not once per cell.
func (t *Thread) eachCell(m *mem, i int, kind accKind, s site, check func(r *mem, c *cell)) {
	r, b0, size := m.span(i)
	u := r.unit
	x := t.x
	x.spanHit, x.spanMute = 0, 0
	for b := b0; b < b0+size; {
		k := b / u
		lo, hi := b-k*u, min(b0+size-k*u, u)
		if lo == 0 && hi == u && r.shadow[k].w.gid != tagGid {
			if kind != accWrite && !r.unitInit(k) {
				t.uninitRead(m, i, kind, s)
				r.setUnitInit(k)
			}
			check(r, &r.shadow[k])
			if kind != accRead {
				if t.w.l.epoch != nil {
					r.setUnitInitShared(k)
				} else {
					r.setUnitInit(k)
				}
			}
			x.spanMute = x.spanHit
		} else {
			idx := r.split(k)
			for y := lo; y < hi; y++ {
				bit := uint8(1) << y
				if kind != accWrite && !r.initAll && r.splits[idx].init&bit == 0 {
					t.uninitRead(m, i, kind, s)
					r.splits[idx].init |= bit
				}
				check(r, &r.splits[idx].bytes[y])
				if kind != accRead {
					r.splits[idx].init |= bit
				}
				x.spanMute = x.spanHit
			}
			if r.splits[idx].init == 1<<u-1 {
				r.setUnitInit(k)
			}
		}
		b = (k + 1) * u
	}
	x.spanMute = 0
}

// applyPartInit splits the units the host initialised in part before
// allocation r had shadow memory (see initPart).
func (r *mem) applyPartInit() {
	for k, bits := range r.partInit {
		r.splits[r.split(k)].init |= bits
	}
	r.partInit = nil
}
