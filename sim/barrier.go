package sim

import "fmt"

type barKind uint8

const (
	barPlain barKind = iota
	barCount
	barAnd
	barOr
)

var barNames = [...]string{"SyncThreads", "SyncThreadsCount", "SyncThreadsAnd", "SyncThreadsOr"}

// barrierState is the block's barrier in progress: who arrived, where, and
// the predicate tally of the _count/_and/_or forms.
type barrierState struct {
	waiting int
	site    site
	cls     pcClass
	kind    barKind
	count   int
	first   *Thread // first arrival, for divergence reports
}

// SyncThreads is __syncthreads(): it waits until every thread of the block
// that has not exited has arrived, and orders every memory access before it
// in any thread of the block before every access after it.
func (t *Thread) SyncThreads() { t.barrier(barPlain, false) }

// SyncThreadsCount is __syncthreads_count(pred): a barrier that returns the
// number of threads of the block whose pred was true.
func (t *Thread) SyncThreadsCount(pred bool) int { return t.barrier(barCount, pred) }

// SyncThreadsAnd is __syncthreads_and(pred): true if pred was true for all.
func (t *Thread) SyncThreadsAnd(pred bool) bool { return t.barrier(barAnd, pred) == t.barLive() }

// SyncThreadsOr is __syncthreads_or(pred): true if pred was true for any.
func (t *Thread) SyncThreadsOr(pred bool) bool { return t.barrier(barOr, pred) > 0 }

// barLive is stashed by the release: how many threads took part.
func (t *Thread) barLive() int { return int(t.collRes) }

// barrier is never inlined: callerPCs01 reads its own frame.
//
//go:noinline
func (t *Thread) barrier(kind barKind, pred bool) int {
	w := t.w
	if w.cur != t || !onStackWithin(w.g, w.stackMax) || w.l.aborted.Load() {
		t.ownSlow() // own, written out: the call was a percent of a barrier
	}
	b := t.blk
	cls := w.sites.entrySite(callerPCs01()) // barrier <- SyncThreads (inlined or not) <- the kernel
	s := cls.site
	w.tick()
	w.syncArrival(t)
	w.stats.Barriers++
	bar := &b.bar
	if bar.waiting == 0 {
		bar.site, bar.cls, bar.kind, bar.count, bar.first = s, *cls, kind, 0, t
		if w.l.detect {
			b.barChain = w.sites.kernelChain(b.barChain[:0])
			b.recordBarPath()
		}
	} else if bar.site != s || bar.kind != kind {
		w.barrierDivergence(t, kind, s)
	} else if w.l.detect && len(b.barChain) > 1 && !b.sameBarPath() {
		w.helperBarrierCallers(t, kind)
	}
	if pred {
		bar.count++
	}
	bar.waiting++
	if w.l.prof != nil {
		w.profArrive(t)
	}
	t.state = stBarrier
	t.waitSite = s
	if w.l.detect {
		t.x.hb.past = t.x.hb.past[:0]
	}
	if bar.waiting == b.live {
		w.releaseBarrier(b)
	} else if w.l.opts.warpModel == Lockstep {
		w.lockstepCheck(b, t.warp)
	}
	t.suspendOwned()
	t.state = stRunning
	return t.barCount
}

// shareAcquired passes on, at a barrier, what any waiting thread of b had
// acquired through atomics: __syncthreads orders everything before it in
// any thread before everything after it in every thread, so what thread 0
// learned polling a flag (the last-block-done pattern, a grid barrier) is
// known to the whole block after it. What a waiting thread's atomics read
// counts too, fence or not: the Programming Guide's last-block sum relies
// on it (see hbState.barrierAcquire).
func shareAcquired(b *block) {
	var u clockUnion
	for k := range b.threads {
		t := &b.threads[k]
		if t.state != stBarrier {
			continue
		}
		if h := &t.x.hb; h.barrierAcquire() {
			u.add(h.vc)
		}
	}
	all := u.clock()
	if all == nil {
		return
	}
	for k := range b.threads {
		t := &b.threads[k]
		if t.state != stBarrier {
			continue
		}
		t.x.hb.vc = all // shared, frozen: a thread copies it before adding (ownVC)
	}
}

// barrierDivergence reports t arriving at barrier site s while others of
// its block wait at another. It is kept out of barrier, whose stack frame
// (touched on every switch) would otherwise hold the finding under
// construction.
//
//go:noinline
func (w *worker) barrierDivergence(t *Thread, kind barKind, s site) {
	b, bar := t.blk, &t.blk.bar
	w.l.addFinding(Finding{Kind: BarrierDivergence,
		Detail:   fmt.Sprintf("threads of block %s wait at different barriers", b.idx.IndexString()),
		Current:  threadAccess(t, barNames[kind], s),
		Previous: threadAccess(bar.first, barNames[bar.kind], bar.site)})
}

// helperBarrierCallers reports t arriving at the barrier others of its
// block wait at, which stands in a helper function (or closure) that t
// reached through another call line: `if tid < 32 { sync(t) } else {
// sync(t) }` is the two __syncthreads of an if and its else, which the
// Programming Guide allows only when the whole block takes one branch, and
// which a barrier's line alone cannot tell from one call. The call chains
// are compared from the barrier out to the kernel, as far as both reach
// (kernelChain reads maxFrames frames); the finding names the first lines
// at which they part.
//
//go:noinline
func (w *worker) helperBarrierCallers(t *Thread, kind barKind) {
	b, bar := t.blk, &t.blk.bar
	w.chain = w.sites.kernelChain(w.chain[:0])
	mine, first := w.chain, b.barChain
	i := 0
	for i < len(mine) && i < len(first) && mine[i].fn == first[i].fn && mine[i].line == first[i].line {
		i++
	}
	if i == len(mine) || i == len(first) {
		// One chain is the other's start: the walk reads maxFrames
		// frames, so a deep one (recursion) is cut, not different.
		return
	}
	at := func(c []pastOp) site { return c[i].site }
	w.l.addFinding(Finding{Kind: BarrierDivergence,
		Detail: fmt.Sprintf("threads of block %s wait at the barrier at %v through different calls of the function holding it: "+
			"like a barrier in each branch of an if, that is legal only if every thread of the block takes the same path; "+
			"make the condition uniform across the block, or call the function once where all threads reach it",
			b.idx.IndexString(), bar.site),
		Current:  threadAccess(t, barNames[kind], at(mine)),
		Previous: threadAccess(bar.first, barNames[bar.kind], at(first))})
}

// recordBarPath and sameBarPath keep and compare the return addresses
// above barrier, its caller's first: both are called from barrier, so that
// the addresses past their own (each its call site's in barrier) are
// those of one call path exactly when they are equal. A thread whose path
// is its block's first arrival's came through the same calls of every
// helper, and helperBarrierCallers, which resolves lines, has nothing to
// compare (it cost a barrier in a helper a sixth more with detection on).
//
//go:noinline
func (b *block) recordBarPath() { b.barPCn = framePCs(&b.barPCs, maxFrames) }

//go:noinline
func (b *block) sameBarPath() bool {
	var pcs [maxFrames]uintptr
	n := framePCs(&pcs, maxFrames)
	if n != b.barPCn {
		return false
	}
	for i := 1; i < n; i++ {
		if pcs[i] != b.barPCs[i] {
			return false
		}
	}
	return true
}

// releaseBarrier lets every waiting thread of b go, in threadIdx order (or
// shuffled under RandomOrder), and starts the next barrier phase.
func (w *worker) releaseBarrier(b *block) {
	bar := &b.bar
	if w.l.prof != nil {
		w.profRelease(b)
	}
	n := bar.waiting
	first := len(w.runq)
	if w.l.detect {
		// A thread unwound by a fatal finding (the launch is aborting)
		// exits without having passed anything by: only threads that
		// returned are judged.
		if !w.l.aborted.Load() {
			w.checkExitedPast(b)
		}
		if b.acquired {
			shareAcquired(b)
		}
		b.lastChain = append(b.lastChain[:0], b.barChain...)
	}
	for k := range b.threads {
		t := &b.threads[k]
		if t.state != stBarrier {
			continue
		}
		t.state = stRunnable
		t.barCount = bar.count
		t.collRes = uint64(n)
		w.runq = append(w.runq, t)
	}
	b.phase++
	if w.l.opts.schedule == RandomOrder {
		q := w.runq[first:]
		w.rng.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	}
	b.exitedPast = 0
	*bar = barrierState{}
	// Not progress for the spin rounds: a loop that polls memory nobody
	// changes and meets at a barrier each time round is a livelock.
}
