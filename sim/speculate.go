package sim

import (
	"cmp"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Detection on every core.
//
// A launch with detection on must report what it reports on one worker,
// where blocks run one after another in order: block k sees every access of
// blocks 0..k-1 in the shadow, and their writes in memory. Blocks on
// several workers keep that promise only where they do not meet: where no
// two blocks running at once touch a common unit of global memory. So a
// detected launch on several workers speculates, epoch by epoch:
//
//   - Block 0 runs alone (it makes the buffers' shadow and most contexts).
//   - An epoch runs the next blocks on every worker, up to specBatch
//     consecutive blocks at a time. A worker records the units of each global buffer
//     its batch touches (the footprint: lowest and highest), and before a
//     write saves the 1024-unit chunk it falls in (memory and
//     initialisation bits) once per epoch.
//   - The epoch fails, at once, on anything whose outcome could depend on
//     the order of blocks: a record of another block of the launch in a
//     cell the block touches, an atomic, fence or strong operation, a part
//     of a unit, spinning, a buffer with no shadow yet, and any finding at
//     all (findings are rare; a launch with them is what must match
//     exactly). When the epoch ends, footprints of batches that overlap
//     fail it too: that catches two blocks on two workers touching a unit
//     at the same moment, which neither record check sees (blocks of one
//     worker run one after another, so the record check sees them).
//   - A failed epoch is undone: the saved chunks restore memory and
//     initialisation bits, and the cells in its blocks' footprints lose the
//     records of its blocks (cells an epoch's block changes held no record
//     of another block of the launch, or it would have failed, so this is
//     exact). The launch then goes on from the epoch's first block on one
//     worker, and the device runs the kernel on one worker from then on.
//   - An epoch that succeeds is committed: its saved chunks are dropped. An
//     epoch ends when its saved chunks reach specUndoBudget, which bounds
//     the memory speculation takes.
//
// So every finding is made on one worker, in block order: the set and the
// text are those of Workers(1) (TestParallelDetectionMatchesOneWorker).
// Under the Go race detector (whose reports the speculative races on
// shadow cells would trigger, though a failed epoch discards them)
// detection runs on one worker.

const (
	undoChunkUnits = 1024    // units a saved chunk covers
	specUndoBudget = 4 << 20 // bytes of saved chunks an epoch may hold
	specBatch      = 16      // blocks a worker takes at once in an epoch, at most
)

// specState is an epoch of speculation.
type specState struct {
	// mu guards the fields below and, while the epoch runs, the launch's
	// context table and every global buffer's read pairs.
	mu     sync.Mutex
	failed atomic.Bool
	full   atomic.Bool // the saved chunks reached specUndoBudget: admit no more blocks
	why    string      // what failed the epoch, set by the thread that failed it
	chunks []undoChunk
	bytes  int
	mems   []*mem // buffers with chunks saved
	// gidLo and gidHi bound the thread ids of the epoch's blocks.
	gidLo, gidHi uint32
	dev          *Device // whose arenas the saved chunks are in
	workers      int     // running the epoch
	budget       int     // specUndoBudget, or less (Options.specBudget)
}

// undoChunk is a chunk of a buffer as it was before the epoch wrote it.
type undoChunk struct {
	r    *mem
	c    int
	data []byte // nil: the chunk was never written, and is zero
	init []uint64
}

// footprint is the units [lo, hi] of buffer r a block touched.
type footprint struct {
	r      *mem
	lo, hi int
}

// specFail fails the epoch: every worker stops at its next access.
func (l *launch) specFail(why string) {
	// (No lock: a thread may fail the epoch while it holds s.mu. The
	// launch reads why once the workers are done.)
	if s := l.epoch; s.failed.CompareAndSwap(false, true) {
		s.why = why
	}
	l.aborted.Store(true)
}

// specAbort fails the epoch from a thread, which stops here: nothing it
// would do next (an initialisation bit a read sets) is saved.
func (t *Thread) specAbort(why string) {
	t.w.l.specFail(why)
	t.halt()
}

// specAccess is what an epoch does before an access of element i of m (an
// allocation or a view of root r) in global memory: the checks that must
// come before the access, the footprint, and the chunks a write changes.
func (t *Thread) specAccess(m, r *mem, i int, kind accKind) {
	k0, k1 := i, i
	if m != r || !r.oneCell {
		_, b0, size := m.span(i)
		u := r.unit
		if b0%u != 0 || size%u != 0 {
			t.specAbort("an access to part of a unit")
		}
		k0, k1 = b0/u, (b0+size)/u-1
	}
	for k := k0; k <= k1; k++ {
		if r.shadow[k].w.gid == tagGid {
			t.specAbort("a split unit")
		}
	}
	t.w.noteFootprint(r, k0, k1)
	if kind != accRead {
		for c := k0 / undoChunkUnits; c <= k1/undoChunkUnits; c++ {
			if !r.chunkSaved(c*undoChunkUnits) && !t.w.l.epoch.save(r, c) {
				t.specAbort("a buffer whose bytes cannot be saved")
			}
		}
	}
}

// chunkSaved reports whether the chunk of unit k of r is saved in this
// epoch.
func (r *mem) chunkSaved(k int) bool {
	bits := r.undo.Load()
	c := k / undoChunkUnits
	return bits != nil && atomic.LoadUint32(&(*bits)[c>>5])&(1<<(c&31)) != 0
}

// inFootprint widens the batch's footprint in r to unit k, if the batch
// has one in r (in r's slot), and reports whether it had.
func (w *worker) inFootprint(r *mem, k int) bool {
	f := &w.bfp[uint32(r.id)&uint32(len(w.bfp)-1)]
	if f.r != r {
		return false
	}
	if k < f.lo {
		f.lo = k
	}
	if k > f.hi {
		f.hi = k
	}
	return true
}

// noteFootprint widens the batch's footprint in r to units [k0, k1]: in
// r's slot of w.bfp, or if another buffer holds it, in w.bmore.
func (w *worker) noteFootprint(r *mem, k0, k1 int) {
	f := &w.bfp[uint32(r.id)&uint32(len(w.bfp)-1)]
	if f.r == nil {
		*f = footprint{r, k0, k1}
		return
	}
	if f.r != r {
		for j := range w.bmore {
			if w.bmore[j].r == r {
				f = &w.bmore[j]
				goto widen
			}
		}
		w.bmore = append(w.bmore, footprint{r, k0, k1})
		return
	}
widen:
	f.lo, f.hi = min(f.lo, k0), max(f.hi, k1)
}

// endBatch moves the batch's footprints to w.fps.
func (w *worker) endBatch() {
	for j := range w.bfp {
		if w.bfp[j].r != nil {
			w.fps = append(w.fps, w.bfp[j])
			w.bfp[j] = footprint{}
		}
	}
	w.fps = append(w.fps, w.bmore...)
	w.bmore = w.bmore[:0]
}

// specCheckCell fails the epoch if cell c of global buffer r holds a
// record of another block of the launch: the order of the two blocks
// matters. It runs before the cell's records are decoded or changed.
func (t *Thread) specCheckCell(r *mem, c *cell) {
	l := t.w.l
	other := func(g uint32) bool {
		return g >= l.gidBase && g != tagGid && g-t.blk.gidBase >= uint32(l.tpb)
	}
	w, rd := c.w, c.r
	if w.gid == tagGid {
		t.specAbort("a split unit")
	}
	if other(w.gid) || other(rd.gid) {
		t.specAbort("a unit another block touched")
	}
	if rd.gid == tagGid {
		s := l.epoch
		s.mu.Lock()
		p := r.pairs[rd.ctx]
		s.mu.Unlock()
		if other(p[0].gid) || other(p[1].gid) {
			t.specAbort("a unit another block read")
		}
	}
}

// save copies chunk c of r before the epoch's first write to it. It
// reports false if r's bytes are not reachable.
func (s *specState) save(r *mem, c int) bool {
	if r.raw == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	bits := r.undo.Load()
	if bits == nil {
		nc := (r.units() + undoChunkUnits - 1) / undoChunkUnits
		b := make([]uint32, (nc+31)/32)
		bits = &b
		r.undo.Store(bits)
		s.mems = append(s.mems, r)
	}
	if atomic.LoadUint32(&(*bits)[c>>5])&(1<<(c&31)) != 0 {
		return true // another worker saved it meanwhile
	}
	w0 := c * undoChunkUnits / 64
	w1 := min(w0+undoChunkUnits/64, len(r.init))
	u := undoChunk{r: r, c: c, init: keep(&s.dev.undoInit, r.init[w0:w1])}
	// A chunk no one ever wrote is zero (Alloc's storage) and need not be
	// copied; but no initialisation bit does not mean no byte (a Copy of
	// a partly initialised element writes bytes and no bit), so the
	// bytes are looked at.
	b0, b1 := r.chunkBytes(c)
	if data := unsafe.Slice((*byte)(r.raw), r.bytes)[b0:b1]; !allZero(data) {
		u.data = keep(&s.dev.undoData, data)
	}
	s.chunks = append(s.chunks, u)
	s.bytes += len(u.data) + 8*len(u.init)
	if s.bytes >= s.budget {
		s.full.Store(true)
	}
	atomic.OrUint32(&(*bits)[c>>5], 1<<(c&31))
	return true
}

// allZero reports whether every byte of b is 0.
func allZero(b []byte) bool {
	for len(b) >= 8 {
		if *(*uint64)(unsafe.Pointer(unsafe.SliceData(b))) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// keep copies b into arena (the device's, reused from epoch to epoch) and
// returns the copy; past the arena's capacity, into a new slice, so that
// the arena never moves under the copies it holds.
func keep[T any](arena *[]T, b []T) []T {
	if len(*arena)+len(b) > cap(*arena) {
		return slices.Clone(b)
	}
	n := len(*arena)
	*arena = append(*arena, b...)
	return (*arena)[n:len(*arena):len(*arena)]
}

// chunkBytes is the byte range of r that chunk c covers.
func (r *mem) chunkBytes(c int) (b0, b1 int) {
	n := undoChunkUnits * r.unit
	return c * n, min((c+1)*n, int(r.bytes))
}

// undo restores the chunks the epoch saved.
func (s *specState) undo() {
	for _, u := range s.chunks {
		r := u.r
		b0, b1 := r.chunkBytes(u.c)
		data := unsafe.Slice((*byte)(r.raw), r.bytes)[b0:b1]
		if u.data == nil {
			clear(data)
		} else {
			copy(data, u.data)
		}
		copy(r.init[u.c*undoChunkUnits/64:], u.init)
	}
}

// release drops the epoch's saved chunks.
func (s *specState) release() {
	for _, r := range s.mems {
		r.undo.Store(nil)
	}
	s.chunks, s.mems = nil, nil
	d := s.dev
	d.undoData, d.undoInit = d.undoData[:0], d.undoInit[:0]
}

// scrub removes the epoch's records from the cells of footprints fps.
func (s *specState) scrub(fps []footprint) {
	in := func(g uint32) bool { return g >= s.gidLo && g < s.gidHi }
	for _, f := range fps {
		r := f.r
		for k := f.lo; k <= f.hi; k++ {
			c := &r.shadow[k]
			if in(c.w.gid) {
				c.w = rec{}
			}
			if c.r.gid == tagGid {
				if p := r.pairs[c.r.ctx]; in(p[0].gid) || in(p[1].gid) {
					r.clearReads(c)
				}
			} else if in(c.r.gid) {
				c.r = rec{}
			}
		}
	}
}

// overlapping reports whether two of the footprints share a unit.
func overlapping(fps []footprint) bool {
	slices.SortFunc(fps, func(a, b footprint) int {
		if a.r != b.r {
			return cmp.Compare(uintptr(unsafe.Pointer(a.r)), uintptr(unsafe.Pointer(b.r)))
		}
		return cmp.Compare(a.lo, b.lo)
	})
	for j := 1; j < len(fps); j++ {
		if fps[j].r == fps[j-1].r && fps[j].lo <= fps[j-1].hi {
			return true
		}
	}
	return false
}

// kernelKey identifies a kernel's code (not its closure): what the device
// remembers of kernels whose speculation failed.
func kernelKey(k Kernel) uintptr { return reflect.ValueOf(k).Pointer() }

// speculates reports whether the launch runs its detection on n workers.
func (l *launch) speculates(n int) bool {
	if raceDetector || !l.detect || n < 2 || l.nblocks < 3 || l.opts.cooperative ||
		l.prof != nil || l.opts.schedule == RandomOrder {
		return false
	}
	l.dev.mu.Lock()
	defer l.dev.mu.Unlock()
	_, failed := l.dev.oneWorker[kernelKey(l.kernel)]
	return !failed
}

// runSpeculative runs the launch's blocks on n workers with detection on:
// block 0 alone, then epochs (see the top of this file) on n workers that
// wait between epochs.
func (l *launch) runSpeculative(n int) {
	l.limit.Store(1)
	if !l.runWorkers(1) || l.limit.Load() > 1 {
		return // aborted, or block 0 spun and the worker ran the launch (admitMore)
	}
	if len(l.findings.list) > 0 {
		// An epoch would fail on the first finding too: the kernel's
		// later launches go straight to one worker.
		l.runOnOneWorker("a finding in block 0")
		l.runRest(1)
		return
	}
	d := l.dev
	if d.undoData == nil {
		d.undoData = make([]byte, 0, specUndoBudget+undoChunkUnits*4)
		d.undoInit = make([]uint64, 0, (specUndoBudget+undoChunkUnits*4)/32)
	}
	n = min(n, l.nblocks-1)
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = l.newWorker(true)
	}
	l.mu.Lock()
	l.workers = append(l.workers, ws...)
	l.mu.Unlock()
	gos := make([]chan bool, n) // true: run an epoch; closed: stop
	done := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, w := range ws {
		gos[i] = make(chan bool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.finished.Store(true)
			defer w.shutdown()
			for range gos[i] {
				// A kernel's runtime.Goexit ends this goroutine: the
				// epoch still ends (the finding it made fails it).
				ended := false
				func() {
					defer func() {
						if !ended {
							done <- struct{}{}
						}
					}()
					w.runBlocks()
					ended = true
				}()
				done <- struct{}{}
			}
		}()
	}
	failedAt := -1
	var failure string
	kept := make([]Counters, n) // the workers' counters before the epoch
	for next := 1; next < l.nblocks && failedAt < 0; {
		s := &specState{gidLo: l.gidBase + uint32(next*l.tpb), dev: d, budget: specUndoBudget, workers: n}
		if b := l.opts.specBudget; b > 0 {
			s.budget = b
		}
		l.epoch = s
		l.nextBlock.Store(int64(next))
		l.limit.Store(int64(l.nblocks))
		for i, w := range ws {
			w.endBatch()
			w.fps = w.fps[:0]
			kept[i] = w.stats
			gos[i] <- true
		}
		for range ws {
			<-done
		}
		end := min(int(l.nextBlock.Load()), l.nblocks)
		s.gidHi = l.gidBase + uint32(end*l.tpb)
		var fps []footprint
		for _, w := range ws {
			w.endBatch()
			fps = append(fps, w.fps...)
		}
		if l.stop.Load() != 0 {
			// Stopped from outside: what ran stays, as on one worker
			// (the epoch counts as kept).
			l.mu.Lock()
			l.stats.Epochs++
			l.mu.Unlock()
			l.epoch = nil
			s.release()
			break
		}
		if !s.failed.Load() && overlapping(fps) {
			s.failed.Store(true)
			s.why = "blocks that touched a common unit"
		}
		l.mu.Lock()
		if s.failed.Load() {
			s.undo()
			s.scrub(fps)
			failedAt, failure = next, s.why
			l.stats.EpochsUndone++
		} else {
			l.stats.Epochs++
		}
		l.mu.Unlock()
		s.release()
		l.epoch = nil
		next = end
	}
	for i := range ws {
		close(gos[i])
	}
	wg.Wait()
	if failedAt >= 0 {
		// The failed epoch's blocks and their counts are forgotten: the
		// launch goes on from its first block on one worker.
		var ran int64
		for i, w := range ws {
			ran += int64(w.stats.Blocks - kept[i].Blocks)
			w.stats = kept[i]
		}
		if p := l.prog; p != nil {
			p.done.Add(-ran)
		}
	}
	for _, w := range ws {
		l.mergeStats(w)
	}
	if failedAt < 0 {
		return
	}
	l.runOnOneWorker(failure)
	l.aborted.Store(false)
	l.runRest(failedAt)
}

// runOnOneWorker has the device run the kernel's later detected launches on
// one worker, for the reason given.
func (l *launch) runOnOneWorker(reason string) {
	d := l.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.oneWorker == nil {
		d.oneWorker = map[uintptr]string{}
	}
	d.oneWorker[kernelKey(l.kernel)] = reason
}

// runRest runs blocks from next on one worker, without speculation.
func (l *launch) runRest(next int) {
	if l.aborted.Load() {
		return
	}
	l.nextBlock.Store(int64(next))
	l.limit.Store(int64(l.nblocks))
	l.runWorkers(1)
}
