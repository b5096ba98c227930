package fuzz

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

// The reference detector: a deliberately simple, separate implementation
// of the happens-before rules gpusim documents (sim/doc.go, RATIONALE.md's
// "Race detection" section, sim/memorder.go), applied to a full trace. It
// keeps every access of every cell and tests each new access against all
// of them with vector clocks; it keeps no shadow cells and drops nothing.
//
// A thread's knowledge of the others is a vector clock (one entry per
// thread of the grid: the number of its events known to precede) made of
// the parts the rules distinguish:
//
//   - own: program order orders a thread's events.
//   - bar: __syncthreads. When a barrier releases, every waiting thread
//     learns everything every waiting thread knew, and every access of the
//     block's exited threads ("orders every memory access before it in any
//     thread of the block before every access after it").
//   - warp: __syncwarp orders the accesses of the lanes in its mask before
//     everything they do next; the lanes join what they know of the warp's
//     lanes (RATIONALE rule 3: "32 entries per lane"). Shuffles and votes
//     order nothing (PTX: only bar.warp.sync orders memory).
//   - acq: release/acquire through strong accesses (rule 4). A fence, or
//     a release order on the access itself, followed by a strong write to
//     a cell (any strong write after it: PTX's release pattern) publishes
//     into the cell's release history what the thread knew at the fence:
//     its accesses before the fence, its bar knowledge and its acq
//     knowledge then. __threadfence_block publishes to its own block only.
//     A strong read of the cell takes in everything published to it so far
//     (pending): a later fence makes it the thread's own (a block-scope
//     fence only what threads of its own block published), as does an
//     acquire order on the read itself; a __syncthreads does it for what
//     read-modify-writes read, and then shares every waiting thread's acq
//     with the others. seq_cst is a fence at the operation's scope, then
//     acq_rel.
//   - observation order: a strong read of a cell that reads a strong write
//     with a scope that includes it, or a read-modify-write that read one
//     (a chain), comes after that write, and so, in causality order, do
//     the reader's later accesses: they do not race with it. Only the write
//     itself; what came before it takes a release and an acquire.
//
// Event e1 of thread u happens before event e2 of thread v if u == v and
// e1 comes first, or if e2's thread knows, through bar, warp or acq, u's
// events up to e1.
//
// Two accesses of one cell (a shared cell is one per block) by different
// threads race when at least one writes (an RMW writes, whatever it
// changed), neither happens before the other, and they are not both strong
// with scopes that include each other (a block-scope operation includes
// only its block; volatile accesses are system scope, legacy atomics
// device scope), except a volatile read of a shared cell followed by a
// volatile write of it by another lane of the reader's warp, which race
// when the reader's latest access is no longer that read (the
// warp-synchronous idiom without __syncwarp; sim's warpVolatile). A plain load racing with an atomic read-modify-write is
// not a race when the loading thread compare-and-swaps the cell after the
// load (the Programming Guide's CAS loop; decided at the run's end).
//
// Barrier divergence: a thread arriving at a __syncthreads at another slot
// than the one the block's first waiter waits at; and a thread that exits
// while others wait, having executed since its last barrier a memory
// access at a slot after the awaited barrier's (slots are in program text
// order, as source lines are), unless the block's previous barrier is at
// or after the awaited one and the access after that (the bottom of a
// loop), and no lane of its warp waits; and a thread that exits with no
// memory access since the block's previous barrier, when that barrier is at
// or after the awaited one (it left a loop of barriers at the bottom) and a
// lane of its warp waits.
//
// Warp collectives complete when every lane of the mask that exists and
// has not exited has arrived; a lane whose mask leaves it out, or lanes
// meeting with one mask in different collectives, are warp divergence and
// end the run. A shuffle reading a lane outside the collective is an
// invalid shuffle. Reading a cell nothing wrote is an uninitialised read,
// once per cell. A run whose trace ends with threads left is a deadlock,
// and every thread left must be blocked: at a barrier, in a collective, or
// in a WAIT whose cell does not hold its value.

// vclock is a vector clock over the grid's threads.
type vclock []int32

func (v vclock) join(o vclock) {
	for i, c := range o {
		if c > v[i] {
			v[i] = c
		}
	}
}

func (v vclock) clone() vclock { return slices.Clone(v) }

// release is one publication into a cell's release history.
type release struct {
	from  int    // releasing thread
	block bool   // by __threadfence_block: visible in the releaser's block only
	k     vclock // what it publishes
}

type refThread struct {
	g, block, lane, warp int
	own                  int32 // events so far
	bar, warp2, acq      vclock
	fenced, fenceBlock   bool
	fenceK               vclock // what t knew at its last fence (markRelease)
	// pend is, per cell instance, how much of its release history
	// (reference.sync, which only grows) t's strong reads read and made
	// their own (see pendRange).
	pend            map[int]*pendRange
	started, exited bool
	atBarrier       bool
	barSlot         int
	inColl          *refColl
	collRes         int32
	pastMax         int // highest slot of a memory access since the last barrier; -1 none
	exitStamp       int32
	waitCell        int   // cell of a WAIT the thread polls; -1 none
	waitVal         int32 // the value it waits for
	regs            [nRegs]int32
	// pollInst is 1 + the cell instance the thread's latest access read
	// with a volatile load, 0 after any other access.
	pollInst int
	// seen are the writes (trace indices) before one of t's strong reads
	// in observation order: causality order puts them before t's later
	// accesses.
	seen map[int]bool
}

// know is what t knows of thread u's events: the highest stamp.
func (t *refThread) know(u int) int32 {
	return max(t.bar[u], t.warp2[u], t.acq[u])
}

type refAccess struct {
	idx    int // in the placed trace
	g      int
	stamp  int32
	slot   int
	write  bool
	strong bool
	block  bool // block scope
	op     opcode
	// volatile marks a volatile access (isVolatile).
	volatile bool
	// obs are the writes (trace indices) before this read-modify-write in
	// observation order: the one it read, if strong and morally strong
	// with it, and that one's obs.
	obs []int
	// keeps marks a strong write after which sim keeps the cell's
	// previous write in a read slot, displacing a read: a plain write, or
	// another thread's strong write a strong store neither comes after
	// nor saw. dropped marks a strong read sim does not record: since the
	// cell's last plain write, two writes were kept, and the read slots
	// hold only kept writes and plain reads, which a strong read does not
	// displace (see reference.shadow).
	keeps, dropped bool
}

type refColl struct {
	kind    int8
	mask    uint32
	arrived uint32
	vals    [32]int32
	args    [32]int32
	slot    int
}

type refBlock struct {
	waiting   int
	firstSlot int
	first     int
	lastBar   int // slot of the barrier the block passed last; -1 none
	exited    []int
	exitedNow []int // exited in the current phase
	live      int
}

// RaceKey is a racing pair of slots on a cell, earlier access first.
type raceKey struct {
	cell      string
	prev, cur int
}

// barKey is a barrier divergence: "diverge" (cur arrived at another
// barrier than prev) or "passed" (cur's exit, at the access slot, passed
// barrier prev by).
type barKey struct {
	what      string
	cur, prev int
}

type uninitKey struct {
	cell string
	slot int
}

// verdict is what the reference decides about a trace.
type verdict struct {
	kinds      map[sim.Kind]bool
	races      map[raceKey]bool
	raceCells  map[string]bool
	barriers   map[barKey]bool
	uninit     map[uninitKey]bool
	deadlock   bool
	final      [nGlobal]int32
	regs       [][nRegs]int32
	errs       []string // the trace contradicts the language or the rules
	ambiguous  int      // strong accesses whose place in the trace is uncertain
	fatal      bool
	stuckInfo  []string // deadlock: where each left thread is
	unstartedW bool     // deadlock: a thread that never started writes a cell a WAIT polls
	// unknownInflight: under RandomOrder a fatal finding ended the run
	// while a thread was in a read-modify-write that may or may not have
	// acted.
	unknownInflight bool
	pairs           []racePair    // per earlier access, its first racing pair (see addRace)
	choices         []placeChoice // ambiguous no-change atomics
	flights         []flight      // RandomOrder's no-change atomics
	// idlePolls counts the polls that changed nothing since the trace's
	// last progress (see reference.progress): read-modify-writes that
	// left the value, and WAIT polls that did not see theirs (each
	// followed by __nanosleep). sim parks a thread at each, and takes
	// idleLivelockPolls of them in all for a livelock.
	idlePolls int
	tpb       int
	p         *Program
	trace     []event // the trace as placed
	// keeps marks the strong writes (trace indices) after which sim
	// keeps the previous write in a read slot (refAccess.keeps).
	keeps map[int]bool
}

func (v *verdict) errorf(format string, args ...any) {
	if len(v.errs) < 20 {
		v.errs = append(v.errs, fmt.Sprintf(format, args...))
	}
}

type reference struct {
	p      *Program
	v      *verdict
	th     []*refThread
	blocks []*refBlock
	mem    map[int]int32 // cell instance -> value
	init   map[int]bool
	accs   map[int][]refAccess
	lastW  map[int]int // cell instance -> index in accs of its latest write
	// weak holds, per cell instance, the accesses that a strong access at
	// device or system scope may race with: plain ones, block-scope ones,
	// and volatile reads of shared cells (warpVolatile).
	weak map[int][]refAccess
	// kept counts, per cell instance, the writes kept in its read slots
	// since its last plain write (refAccess.keeps).
	kept    map[int]int
	sync    map[int][]*release
	warps   map[int][]*refColl // block*2+warp -> pending collectives
	stopped bool
	cur     int // index of the event being processed in the placed trace
	latest  bool
	at      map[int]int // placements chosen for ambiguous no-change atomics
	steps   [][]*inst   // each thread's instructions
	pcs     []int       // each thread's next instruction
	// guesses are races of a plain load with an atomic read-modify-write,
	// decided at the end (settleGuesses); lastCAS is the stamp of each
	// thread's latest CAS of each cell instance.
	guesses []guessPair
	lastCAS map[[2]int]int32
	// firstPair indexes verdict.pairs by cell instance and earlier
	// access's trace index.
	firstPair map[[2]int]int
}

// guessPair is a race of a plain load by thread reader, at its event
// stamp, with an atomic read-modify-write: the Programming Guide's CAS
// loop reads its first guess plainly, and gpusim accepts the race when
// the reader compare-and-swaps the cell after the load.
type guessPair struct {
	key    raceKey
	pair   racePair
	reader int
	stamp  int32
}

// flight is a no-change atomic under RandomOrder, recorded at trace index
// j by thread g, begun at pre, on cell instance inst, which may have acted
// before any of the indices in cands.
type flight struct {
	j, pre, inst int
	g            int32
	cands        []int
}

// placeChoice is a no-change atomic, recorded at trace index j, whose
// place is ambiguous: it may have acted before any of the indices in at.
type placeChoice struct {
	j  int
	at []int
}

// racePair is a race the reference found: access a and the access at
// trace index b.
type racePair struct {
	inst int
	cell string
	a    refAccess
	b    int
}

// instance is the memory a cell names for thread g: shared cells are one
// per block.
func (r *reference) instance(cell, g int) int {
	if isShared(cell) {
		return cell + nCells*(1+g/r.p.TPB)
	}
	return cell
}

func newVerdict(p *Program) *verdict {
	return &verdict{tpb: p.TPB, p: p, kinds: map[sim.Kind]bool{}, races: map[raceKey]bool{}, raceCells: map[string]bool{},
		barriers: map[barKey]bool{}, uninit: map[uninitKey]bool{}, regs: make([][nRegs]int32, p.Threads())}
}

// analyze runs the reference over trace, a run of p.
func analyze(p *Program, trace []event, random bool, inflight []inflight) *verdict {
	return analyzePlaced(p, trace, random, inflight, false)
}

// analyzePlaced is analyze, placing no-change atomics at the latest point
// they may have acted at, instead of the earliest, if latest.
func analyzePlaced(p *Program, trace []event, random bool, inflight []inflight, latest bool) *verdict {
	return analyzeAt(p, trace, random, inflight, latest, nil)
}

// analyzeAt is analyzePlaced, placing the no-change atomics recorded at
// trace index j at at[j] (one of their placeChoice candidates).
func analyzeAt(p *Program, trace []event, random bool, inflight []inflight, latest bool, at map[int]int) *verdict {
	r := newReference(p)
	r.latest, r.at = latest, at
	// A read-modify-write a thread was in when a fatal finding ended the
	// run: under NaturalOrder it acted when it began (it changed nothing,
	// or it would have returned); under RandomOrder it may not have acted.
	for _, f := range inflight {
		k, strong, order, scope := accessOf(f.in)
		if k != accRMW {
			continue
		}
		if random {
			r.v.unknownInflight = true
			continue
		}
		inst := r.instance(f.in.cell(), int(f.g))
		val := r.valueBefore(trace, inst, int(f.pre))
		trace = append(trace, event{kind: evAccess, g: f.g, slot: int16(f.in.slot), op: f.in.op, cell: int8(f.in.cell()),
			acc: k, strong: strong, order: order, scope: scope, val: val, nv: rmwNew(f.in, val, &f.regs, p.idsOf(int(f.g))), pre: f.pre})
	}
	trace = r.place(trace, random)
	r.v.trace = trace
	for i := range trace {
		if !r.feed(&trace[i]) {
			break
		}
	}
	r.finish()
	return r.v
}

func newReference(p *Program) *reference {
	n := p.Threads()
	r := &reference{p: p, v: newVerdict(p), mem: map[int]int32{}, init: map[int]bool{}, accs: map[int][]refAccess{}, lastW: map[int]int{}, kept: map[int]int{}, weak: map[int][]refAccess{},
		sync: map[int][]*release{}, warps: map[int][]*refColl{}, steps: make([][]*inst, n), pcs: make([]int, n)}
	for c := range nGlobal - 1 {
		r.mem[c] = p.Init[c]
		r.init[c] = true
	}
	for g := range n {
		id := p.idsOf(g)
		r.th = append(r.th, &refThread{g: g, block: id.block, lane: id.lane, warp: id.warp,
			bar: make(vclock, n), warp2: make(vclock, n), acq: make(vclock, n), pastMax: -1, waitCell: -1})
		r.steps[g] = p.steps(g)
	}
	for range p.Blocks {
		r.blocks = append(r.blocks, &refBlock{lastBar: -1, live: p.TPB})
	}
	return r
}

// feed processes the next event of the trace; it reports false when the
// trace cannot go on (an error, or events after a fatal finding).
func (r *reference) feed(e *event) bool {
	i := r.cur
	defer func() { r.cur++ }()
	if r.stopped {
		r.v.errorf("event %d after the run ended: %v", i, e)
		return false
	}
	g := int(e.g)
	if g < 0 || g >= len(r.th) {
		r.v.errorf("event %d of thread %d outside the grid", i, g)
		return false
	}
	steps, pcs := r.steps, r.pcs
	// The event must be the thread's next instruction.
	if e.kind == evAccess || e.kind == evFence || e.kind == evBarArrive || e.kind == evCollArrive {
		if e.kind == evAccess && e.op == opWAIT && pcs[g] > 0 && steps[g][pcs[g]-1].slot == int(e.slot) &&
			r.th[g].waitCell >= 0 {
			// another poll of the same WAIT
		} else {
			if pcs[g] >= len(steps[g]) || steps[g][pcs[g]].slot != int(e.slot) {
				r.v.errorf("event %d: thread %d runs slot %d, but its next instruction is %s", i, g, e.slot, nextSlot(steps[g], pcs[g]))
				r.stopped = true
				return false
			}
			pcs[g]++
		}
	}
	r.step(e, steps[g][max(pcs[g]-1, 0):])
	return true
}

func nextSlot(steps []*inst, pc int) string {
	if pc >= len(steps) {
		return "the exit"
	}
	return fmt.Sprintf("slot %d", steps[pc].slot)
}

// place puts each strong access where it acted. sim may suspend a thread
// in a strong access before it acts (RandomOrder yields at every atomic)
// and, when an atomic changes nothing, after it acts (a spin): the
// interpreter records it when the call returns, with pre, the trace length
// when the call began. An access that changed its cell acted just before
// it returned; one that did not acted at pre under NaturalOrder, and
// under RandomOrder somewhere since pre. It is put at
// the earliest point since pre where the cell held the value it read;
// when another thread accessed the cell between that point and the
// return, its place is ambiguous, and counted (and the comparison tries
// the latest such point too).
func (r *reference) place(trace []event, random bool) []event {
	type keyed struct {
		at, moved, orig int
	}
	keys := make([]keyed, len(trace))
	for j := range trace {
		keys[j] = keyed{j, 1, j}
		e := &trace[j]
		if e.kind != evAccess || !e.strong || e.acc != accRMW || e.nv != e.val || int(e.pre) >= j {
			continue
		}
		// A no-change RMW (a failed CAS, an exchange of the same value),
		// which changes no value: the cell's values over the trace are
		// the same wherever it goes. Under NaturalOrder nothing runs
		// between the call and the act.
		p := int(e.pre)
		inst := r.instance(int(e.cell), int(e.g))
		if random {
			// The points since pre where the cell held the value read.
			cur := r.valueBefore(trace, inst, p)
			first, last := -1, -1
			var cands []int
			for k := p; k <= j; k++ {
				if cur == e.val {
					if first < 0 {
						first = k
					}
					last = k
					cands = append(cands, k)
				}
				if k < j {
					if w, ok := writes(&trace[k], inst, r); ok {
						cur = w
					}
				}
			}
			p = first
			if r.latest {
				p = last
			}
			orig := j
			if at, ok := r.at[j]; ok {
				p = at
				if at < 0 {
					// At -at-1, before the others placed there: two
					// no-change atomics in flight at once acted in
					// either order.
					p, orig = -at-1, -1
				}
			}
			if p < 0 {
				p = j
			}
			ambiguous := false
			for k := first; k < j && k >= 0; k++ {
				if trace[k].kind == evAccess && trace[k].g != e.g && r.instance(int(trace[k].cell), int(trace[k].g)) == inst {
					ambiguous = true
					break
				}
			}
			// Another thread's no-change atomic of the cell recorded
			// later but begun before this one returned may have acted
			// first.
			for _, c := range r.v.flights {
				if c.inst == inst && c.g != e.g && c.j < j && j > c.pre && int(e.pre) <= c.j {
					ambiguous = true
				}
			}
			r.v.flights = append(r.v.flights, flight{j: j, pre: int(e.pre), inst: inst, g: e.g, cands: cands})
			if ambiguous {
				r.v.ambiguous++
				r.v.choices = append(r.v.choices, placeChoice{j, cands})
			}
			keys[j] = keyed{p, 0, orig}
			continue
		}
		keys[j] = keyed{p, 0, j}
	}
	order := make([]int, len(trace))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := keys[order[a]], keys[order[b]]
		if ka.at != kb.at {
			return ka.at < kb.at
		}
		if ka.moved != kb.moved {
			return ka.moved < kb.moved
		}
		return ka.orig < kb.orig
	})
	out := make([]event, len(trace))
	for i, j := range order {
		out[i] = trace[j]
	}
	return out
}

// writes reports the value event e leaves in cell instance inst, if it writes it.
func writes(e *event, inst int, r *reference) (int32, bool) {
	if e.kind != evAccess || r.instance(int(e.cell), int(e.g)) != inst {
		return 0, false
	}
	switch e.acc {
	case accStore:
		return e.val, true
	case accRMW:
		// One that changed nothing may be recorded away from where it
		// acted, with the value it read there: it is no write here.
		return e.nv, e.nv != e.val
	}
	return 0, false
}

// valueBefore is the value of inst after out[:k].
func (r *reference) valueBefore(out []event, inst, k int) int32 {
	v := int32(0)
	if inst < nGlobal-1 {
		v = r.p.Init[inst]
	}
	for i := range out[:min(k, len(out))] {
		if w, ok := writes(&out[i], inst, r); ok {
			v = w
		}
	}
	return v
}

func (r *reference) finding(k sim.Kind) {
	r.v.kinds[k] = true
	if k.Fatal() {
		r.v.fatal = true
	}
}

func (r *reference) step(e *event, next []*inst) {
	t := r.th[e.g]
	switch e.kind {
	case evStart:
		if t.started {
			r.v.errorf("thread %d starts twice", t.g)
		}
		if r.blocks[t.block].live == r.p.TPB && !r.blockStarted(t.block) {
			r.v.idlePolls = 0 // sim admitted the block: progress
		}
		t.started = true
	case evExit:
		r.v.idlePolls = 0 // a thread exit is progress to sim
		r.exit(t)
	case evAccess:
		if len(next) == 0 {
			r.v.errorf("access by thread %d past its program", t.g)
			return
		}
		r.access(t, e, next[0])
	case evFence:
		t.own++
		if e.rel {
			r.markRelease(t, e.scope == sim.ThreadScopeBlock)
		}
		if e.acq {
			r.acquire(t, e.scope == sim.ThreadScopeBlock)
		}
	case evBarArrive:
		r.arrive(t, int(e.slot))
	case evBarLeave:
		if t.atBarrier {
			r.v.errorf("thread %d leaves the barrier at slot %d before it was released", t.g, e.slot)
		}
	case evCollArrive:
		r.collArrive(t, e)
	case evCollDone:
		if t.inColl != nil {
			r.v.errorf("thread %d returns from %s before it completed", t.g, collNames[e.coll])
		} else if e.cval != t.collRes {
			r.v.errorf("thread %d: %s at slot %d returned %d, the reference computes %d", t.g, collNames[e.coll], e.slot, e.cval, t.collRes)
		}
		if in := r.p.Slots[e.slot]; e.coll != collSyncWarp {
			t.regs[in.collDst()] = t.collRes
		}
	}
}

// isVolatile reports whether in is a volatile access (LDV, STV, or a WAIT
// that polls with volatile loads).
func isVolatile(in *inst) bool {
	return in.op == opLDV || in.op == opSTV || in.op == opWAIT && !in.waitRef()
}

// markRelease is a fence's release half: every later strong write of t
// publishes what t knew at the fence (its bar and acq knowledge, and its
// own events up to the fence).
func (r *reference) markRelease(t *refThread, block bool) {
	t.fenced, t.fenceBlock = true, block
	k := t.bar.clone()
	k.join(t.acq)
	k[t.g] = max(k[t.g], t.own)
	t.fenceK = k
}

// pendRange is a thread's part of one cell's release history: the
// releases before upto are pending, read by its strong reads (before
// rmwUpto, by its read-modify-writes); it made those before done its own,
// and before ownDone those of its own block's threads. (A list of the
// pending releases, to which every strong read appended the cell's whole
// history, took 5 s a run and gigabytes on 80 threads' 15,000 acq_rel
// stores and CASes of one cell.)
type pendRange struct{ upto, done, ownDone, rmwUpto, rmwDone int }

// visible reports whether rel can be acquired by t: a __threadfence_block
// release publishes to its own block only.
func (r *reference) visible(rel *release, t *refThread) bool {
	return !rel.block || r.th[rel.from].block == t.block
}

// acquire makes pending releases t's own: all of them at device or system
// scope, those of its own block's threads at block scope.
func (r *reference) acquire(t *refThread, block bool) {
	for key, p := range t.pend {
		rels := r.sync[key]
		if block {
			for _, rel := range rels[p.ownDone:p.upto] {
				if r.visible(rel, t) && r.th[rel.from].block == t.block {
					t.acq.join(rel.k)
				}
			}
			p.ownDone = p.upto
			continue
		}
		for _, rel := range rels[p.done:p.upto] {
			if r.visible(rel, t) {
				t.acq.join(rel.k)
			}
		}
		p.done, p.ownDone, p.rmwDone = p.upto, p.upto, p.rmwUpto
	}
}

// acquireRMW makes what t's read-modify-writes read its own (a barrier
// does, for the Programming Guide's atomicInc + __syncthreads).
func (r *reference) acquireRMW(t *refThread) {
	for key, p := range t.pend {
		for _, rel := range r.sync[key][p.rmwDone:p.rmwUpto] {
			if r.visible(rel, t) {
				t.acq.join(rel.k)
			}
		}
		p.rmwDone = p.rmwUpto
	}
}

func (r *reference) access(t *refThread, e *event, in *inst) {
	k, strong, order, scope := accessOf(in)
	if in.op != e.op || int(in.cell()) != int(e.cell) || k != e.acc {
		r.v.errorf("thread %d: slot %d recorded as %s, the program has %s", t.g, e.slot, e.op, in.op)
		return
	}
	block := scope == sim.ThreadScopeBlock
	reads, writes := k != accStore, k != accLoad
	if strong && order == sim.MemoryOrderSeqCst {
		r.markRelease(t, block)
		r.acquire(t, block)
	} else if strong && writes && (order == sim.MemoryOrderRelease || order >= sim.MemoryOrderAcqRel) {
		r.markRelease(t, block)
	}
	t.own++
	inst := r.instance(int(e.cell), t.g)
	name := cellNames[e.cell]
	slot := int(e.slot)
	t.pastMax = max(t.pastMax, slot)
	if reads && !r.init[inst] {
		r.v.uninit[uninitKey{name, slot}] = true
		r.finding(sim.UninitializedRead)
	}
	r.init[inst] = true // written, or reported once
	// Observation order: a strong read that reads a morally strong write
	// (directly, or through a chain of read-modify-writes) comes after it.
	var obs []int
	if j, ok := r.lastW[inst]; ok && reads && strong {
		if w := &r.accs[inst][j]; w.strong && (!w.block && !block || r.th[w.g].block == t.block) {
			if t.seen == nil {
				t.seen = map[int]bool{}
			}
			t.seen[w.idx] = true
			for _, x := range w.obs {
				t.seen[x] = true
			}
			if writes {
				obs = append(slices.Clone(w.obs), w.idx)
			}
		}
	}
	// Race check against every earlier access of the cell: for a strong
	// access at device or system scope, those in weak (the rest are
	// morally strong with it), which keeps a run of 80 threads' 15,000
	// atomics of one cell linear.
	earlier := r.accs[inst]
	if strong && !block {
		earlier = r.weak[inst]
	}
	for _, a := range earlier {
		if a.g == t.g || !(a.write || writes) {
			continue
		}
		if a.strong && strong && (!a.block && !block || r.th[a.g].block == t.block) &&
			!(isShared(int(e.cell)) && a.volatile && !a.write && isVolatile(in) && writes &&
				r.th[a.g].warp == t.warp && r.th[a.g].block == t.block && r.th[a.g].pollInst != inst+1) {
			continue
		}
		if t.know(a.g) >= a.stamp || a.write && t.seen[a.idx] {
			continue
		}
		rk, pair := raceKey{name, a.slot, slot}, racePair{inst: inst, cell: name, a: a, b: r.cur}
		switch {
		case !a.write && !a.strong && k == accRMW:
			r.guesses = append(r.guesses, guessPair{rk, pair, a.g, a.stamp})
			continue
		case k == accLoad && !strong && a.write && a.strong && isRMW(a.op):
			r.guesses = append(r.guesses, guessPair{rk, pair, t.g, t.own})
			continue
		}
		r.addRace(rk, pair)
	}
	if in.op == opCAS || in.op == opRCAS {
		if r.lastCAS == nil {
			r.lastCAS = map[[2]int]int32{}
		}
		r.lastCAS[[2]int{inst, t.g}] = t.own
	}
	t.pollInst = 0
	if isVolatile(in) && k == accLoad {
		t.pollInst = inst + 1
	}
	keeps, dropped := r.shadow(t, inst, k, strong)
	if keeps {
		if r.v.keeps == nil {
			r.v.keeps = map[int]bool{}
		}
		r.v.keeps[r.cur] = true
	}
	r.accs[inst] = append(r.accs[inst], refAccess{idx: r.cur, g: t.g, stamp: t.own, slot: slot, write: writes, strong: strong, block: block, op: in.op, volatile: isVolatile(in), obs: obs,
		keeps: keeps, dropped: dropped})
	if a := &r.accs[inst][len(r.accs[inst])-1]; !strong || block || isShared(int(e.cell)) && a.volatile && !writes {
		r.weak[inst] = append(r.weak[inst], *a)
	}
	if writes {
		r.lastW[inst] = len(r.accs[inst]) - 1
	}
	// Values.
	cur := r.mem[inst]
	if reads && e.val != cur {
		r.v.errorf("thread %d: %s at slot %d read %d, the cell holds %d", t.g, e.op, slot, e.val, cur)
	}
	r.countIdle(e, in, k, cur)
	id := r.p.idsOf(t.g)
	switch k {
	case accStore:
		if want := srcValue(in.b, &t.regs, id); e.val != want {
			r.v.errorf("thread %d: slot %d stored %d, the program stores %d", t.g, slot, e.val, want)
		}
		r.mem[inst] = e.val
	case accRMW:
		nv := rmwNew(in, e.val, &t.regs, id)
		if nv != e.nv {
			r.v.errorf("thread %d: slot %d wrote %d, the program writes %d", t.g, slot, e.nv, nv)
		}
		r.mem[inst] = nv
	}
	switch in.op {
	case opWAIT:
		if e.val == in.waitValue() {
			t.waitCell = -1
		} else {
			t.waitCell, t.waitVal = inst, in.waitValue()
		}
	case opST, opSTV, opRST:
	default:
		t.regs[in.reg()] = e.val
	}
	if !strong {
		return
	}
	// Synchronisation through the cell.
	key := inst
	if reads {
		if t.pend == nil {
			t.pend = map[int]*pendRange{}
		}
		p := t.pend[key]
		if p == nil {
			p = new(pendRange)
			t.pend[key] = p
		}
		p.upto = len(r.sync[key])
		if writes {
			p.rmwUpto = p.upto
		}
	}
	if writes && t.fenced {
		r.sync[key] = append(r.sync[key], &release{from: t.g, block: t.fenceBlock, k: t.fenceK})
	}
	if reads && (order == sim.MemoryOrderAcquire || order >= sim.MemoryOrderAcqRel) {
		r.acquire(t, block)
	}
}

// shadow applies an access of t (kind k, strong or not) of cell instance
// inst to what sim's read slots hold, before the access is recorded, and
// reports whether it keeps the previous write (a strong write) or goes
// unrecorded (a strong read). sim keeps the last write and two read slots
// (RATIONALE): a strong write after a plain one, a strong store after
// another thread's strong write it neither comes after nor saw, or a
// read-modify-write after a strong store, keeps that write in a slot,
// pushing a read out; a plain write empties the
// slots; a plain read takes a slot, a kept write's included. A strong read
// displaces neither kept writes nor plain reads: from the second kept
// write since the last plain write, both slots hold such records, and a
// strong read is not recorded.
func (r *reference) shadow(t *refThread, inst int, k accKind, strong bool) (keeps, dropped bool) {
	switch {
	case k != accLoad && !strong:
		r.kept[inst] = 0
	case k != accLoad:
		if j, ok := r.lastW[inst]; ok {
			w := &r.accs[inst][j]
			keeps = !w.strong || k == accStore && w.g != t.g && t.know(w.g) < w.stamp && !t.seen[w.idx] ||
				k == accRMW && !isRMW(w.op) // a strong store an RMW replaces (sim's chainBit)
		}
		if keeps {
			r.kept[inst]++
		}
	case strong:
		dropped = r.kept[inst] >= 2
	}
	return keeps, dropped
}

// countIdle counts access e of instruction in (kind k, of a cell that
// held cur) towards idlePolls: a write that changes the cell is progress
// to sim, and resets it.
func (r *reference) countIdle(e *event, in *inst, k accKind, cur int32) {
	switch {
	case k == accStore && e.val != cur, k == accRMW && e.nv != e.val:
		r.v.idlePolls = 0
	case k == accRMW, in.op == opWAIT && e.val != in.waitValue():
		r.v.idlePolls++
	}
}

// blockStarted reports whether a thread of block blk started.
func (r *reference) blockStarted(blk int) bool {
	for g := blk * r.p.TPB; g < (blk+1)*r.p.TPB; g++ {
		if r.th[g].started {
			return true
		}
	}
	return false
}

func (r *reference) arrive(t *refThread, slot int) {
	b := r.blocks[t.block]
	t.own++
	if b.waiting == 0 {
		b.firstSlot, b.first = slot, t.g
	} else if slot != b.firstSlot {
		r.v.barriers[barKey{"diverge", slot, b.firstSlot}] = true
		r.finding(sim.BarrierDivergence)
	}
	b.waiting++
	t.atBarrier, t.barSlot = true, slot
	t.pastMax = -1
	if b.waiting == b.live {
		r.releaseBarrier(t.block)
	}
}

func (r *reference) releaseBarrier(blk int) {
	b := r.blocks[blk]
	first, last := blk*r.p.TPB, (blk+1)*r.p.TPB
	// Threads that exited in this phase after running on past the barrier.
	for _, g := range b.exitedNow {
		u := r.th[g]
		if u.pastMax < 0 {
			if b.lastBar >= b.firstSlot && r.warpWaits(u) {
				r.v.barriers[barKey{"passed", b.lastBar, b.firstSlot}] = true
				r.finding(sim.BarrierDivergence)
			}
			continue
		}
		if u.pastMax <= b.firstSlot {
			continue
		}
		if b.lastBar >= b.firstSlot && u.pastMax > b.lastBar && !r.warpWaits(u) {
			continue
		}
		r.v.barriers[barKey{"passed", u.pastMax, b.firstSlot}] = true
		r.finding(sim.BarrierDivergence)
	}
	b.exitedNow = nil
	// What read-modify-writes read becomes the waiters' own, then they
	// share what they acquired.
	acq := make(vclock, len(r.th))
	for g := first; g < last; g++ {
		if u := r.th[g]; u.atBarrier {
			r.acquireRMW(u)
			acq.join(u.acq)
		}
	}
	all := make(vclock, len(r.th))
	for g := first; g < last; g++ {
		u := r.th[g]
		switch {
		case u.atBarrier:
			u.acq.join(acq)
			all.join(u.bar)
			all.join(u.warp2)
			all.join(u.acq)
			all[g] = max(all[g], u.own)
		case u.exited:
			all[g] = max(all[g], u.exitStamp)
		}
	}
	for g := first; g < last; g++ {
		if u := r.th[g]; u.atBarrier {
			u.bar.join(all)
			u.atBarrier = false
		}
	}
	b.lastBar = b.firstSlot
	b.waiting = 0
}

func (r *reference) warpWaits(u *refThread) bool {
	for g := u.g - u.lane; g < min(u.g-u.lane+32, (u.block+1)*r.p.TPB); g++ {
		if r.th[g].atBarrier {
			return true
		}
	}
	return false
}

func (r *reference) exit(t *refThread) {
	if t.atBarrier || t.inColl != nil || t.exited {
		r.v.errorf("thread %d exits while blocked", t.g)
	}
	t.exited = true
	t.own++
	t.exitStamp = t.own
	r.v.regs[t.g] = t.regs
	b := r.blocks[t.block]
	b.live--
	b.exited = append(b.exited, t.g)
	if t.pastMax >= 0 || b.lastBar >= 0 {
		b.exitedNow = append(b.exitedNow, t.g)
	}
	// Collectives that waited for this lane alone complete.
	key := t.block*2 + t.warp
	for i := 0; i < len(r.warps[key]); {
		c := r.warps[key][i]
		if c.mask&(1<<t.lane) != 0 && c.arrived == c.mask&r.present(t.block, t.warp) {
			r.complete(t.block, t.warp, c)
			continue
		}
		i++
	}
	if b.waiting > 0 && b.waiting == b.live {
		r.releaseBarrier(t.block)
	}
}

// present is the lanes of a warp that exist and have not exited.
func (r *reference) present(blk, warp int) uint32 {
	var m uint32
	for l := range 32 {
		tid := warp*32 + l
		if tid < r.p.TPB && !r.th[blk*r.p.TPB+tid].exited {
			m |= 1 << l
		}
	}
	return m
}

func (r *reference) collArrive(t *refThread, e *event) {
	t.own++
	if want := collOperand(r.p.Slots[e.slot], &t.regs); e.cval != want {
		r.v.errorf("thread %d: %s at slot %d with operand %d, the program's is %d", t.g, collNames[e.coll], e.slot, e.cval, want)
	}
	if e.mask&(1<<t.lane) == 0 {
		r.finding(sim.WarpDivergence)
		r.stopped = true
		return
	}
	key := t.block*2 + t.warp
	var c *refColl
	for _, p := range r.warps[key] {
		if p.mask == e.mask {
			c = p
		}
	}
	if c == nil {
		c = &refColl{kind: e.coll, mask: e.mask, slot: int(e.slot)}
		r.warps[key] = append(r.warps[key], c)
	} else if c.kind != e.coll {
		r.finding(sim.WarpDivergence)
		r.stopped = true
		return
	}
	c.vals[t.lane], c.args[t.lane] = e.cval, e.arg
	c.arrived |= 1 << t.lane
	t.inColl = c
	if c.arrived == c.mask&r.present(t.block, t.warp) {
		r.complete(t.block, t.warp, c)
	}
}

func (r *reference) complete(blk, warp int, c *refColl) {
	base := blk*r.p.TPB + warp*32
	w := make(vclock, len(r.th))
	for l := range 32 {
		if c.arrived&(1<<l) == 0 {
			continue
		}
		u := r.th[base+l]
		res, outside := collResult(c.kind, c.arrived, &c.vals, &c.args, l)
		if outside {
			r.finding(sim.InvalidShuffle)
		}
		u.collRes = res
		u.inColl = nil
		if c.kind == collSyncWarp {
			w.join(u.warp2)
			w[u.g] = max(w[u.g], u.own)
		}
	}
	if c.kind == collSyncWarp {
		for l := range 32 {
			if c.arrived&(1<<l) != 0 {
				r.th[base+l].warp2.join(w)
			}
		}
	}
	key := blk*2 + warp
	r.warps[key] = slices.DeleteFunc(r.warps[key], func(p *refColl) bool { return p == c })
}

// addRace records a race: the pair's key, the pair, the finding. Of the
// pairs of one earlier access, verdict.pairs keeps the one whose later
// access came first: whether sim could still see the earlier access is
// decided by what came between them (explainMissed), so that pair is the
// hardest to explain, and the others are explained when it is. (Every
// pair was kept: 80 threads' 5,200 block-scope stores of one cell make 6.7
// million, and listing them took the reference 5 s a run.)
func (r *reference) addRace(k raceKey, p racePair) {
	r.v.races[k] = true
	if r.firstPair == nil {
		r.firstPair = map[[2]int]int{}
	}
	if j, ok := r.firstPair[[2]int{p.inst, p.a.idx}]; !ok {
		r.firstPair[[2]int{p.inst, p.a.idx}] = len(r.v.pairs)
		r.v.pairs = append(r.v.pairs, p)
	} else if p.b < r.v.pairs[j].b {
		r.v.pairs[j] = p
	}
	r.v.raceCells[k.cell] = true
	r.finding(sim.DataRace)
}

func isRMW(op opcode) bool {
	switch op {
	case opADD, opEXCH, opCAS, opRADD, opREXCH, opRCAS:
		return true
	}
	return false
}

// settleGuesses reports the held-back races whose reading thread did not
// compare-and-swap the cell after its load.
func (r *reference) settleGuesses() {
	for _, g := range r.guesses {
		if r.lastCAS[[2]int{g.pair.inst, g.reader}] > g.stamp {
			continue
		}
		r.addRace(g.key, g.pair)
	}
	r.guesses = nil
}

// finish decides deadlock and records the final state.
func (r *reference) finish() {
	r.settleGuesses()
	steps, pcs := r.steps, r.pcs
	for c := range nGlobal {
		r.v.final[c] = r.mem[c]
	}
	if r.v.fatal {
		return
	}
	left := false
	for _, t := range r.th {
		if !t.exited {
			left = true
		}
	}
	if !left {
		return
	}
	r.v.deadlock = true
	r.finding(sim.Deadlock)
	for _, t := range r.th {
		switch {
		case t.exited:
		case !t.started:
			r.v.stuckInfo = append(r.v.stuckInfo, fmt.Sprintf("t%d not started", t.g))
		case t.atBarrier:
			r.v.stuckInfo = append(r.v.stuckInfo, fmt.Sprintf("t%d at barrier slot %d", t.g, t.barSlot))
		case t.inColl != nil:
			r.v.stuckInfo = append(r.v.stuckInfo, fmt.Sprintf("t%d in %s mask %#x", t.g, collNames[t.inColl.kind], t.inColl.mask))
		case t.waitCell >= 0 && r.mem[t.waitCell] != t.waitVal:
			r.v.stuckInfo = append(r.v.stuckInfo, fmt.Sprintf("t%d waits for %s == %d", t.g, cellNames[t.waitCell%nCells], t.waitVal))
		default:
			r.v.errorf("deadlock, but thread %d could go on (next: %s)", t.g, nextSlot(steps[t.g], pcs[t.g]))
		}
	}
	// A thread that never started but writes a cell a WAIT polls: sim
	// gave up before admitting the block that would have released it.
	for _, t := range r.th {
		if t.started || t.exited {
			continue
		}
		for _, in := range steps[t.g] {
			if in.op == opLD || in.op == opLDV || in.op == opRLD || in.op == opWAIT || in.op == opBAR ||
				in.op == opFENCE || in.op >= opSYNCWARP {
				continue
			}
			for _, u := range r.th {
				if u.waitCell >= 0 && u.waitCell == r.instance(in.cell(), t.g) {
					r.v.unstartedW = true
				}
			}
		}
	}
}

// slotOfSite maps a finding's site in slots_gen.go to its slot, -1 for
// other lines.
func slotOfSite(site string) int {
	file, line, ok := strings.Cut(site, ":")
	if !ok || !strings.HasSuffix(file, "slots_gen.go") {
		return -1
	}
	n, err := strconv.Atoi(line)
	if err != nil || n < slotStart[0] || n >= slotStart[maxSlots] {
		return -1
	}
	return sort.SearchInts(slotStart[:], n+1) - 1
}
