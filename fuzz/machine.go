package fuzz

import (
	"fmt"
	"slices"
	"strings"
)

// The machine runs a program without sim, under a schedule it is told, to
// let the oracle enumerate schedules. It feeds each event to a reference
// as it makes it, and takes from the reference what the language's
// semantics need (memory, whether a barrier or a collective completed,
// collective results), so the machine itself decides only who runs.
//
// A thread runs in segments, as under sim's RandomOrder: a chosen thread
// runs until the next strong access or fence (where RandomOrder yields,
// before it acts), or until it blocks: at a barrier (it suspends even
// when it completes the barrier), in a collective that others have not
// reached, in a WAIT whose cell does not hold its value (it spins), after
// an atomic that changed nothing (a spin: sim parks it), or at its exit.
//
// Two models of who may run next:
//
//   - modelSim, sim's scheduler: threads start in linear order, the next
//     one only when chosen; a block starts when the blocks before it have
//     finished or every live thread is blocked with some spinning (sim
//     admits more blocks for spinners); a parked or spinning thread runs
//     again only when no other thread can.
//   - modelGrid, hardware: every thread of the grid may run whenever it is
//     not blocked.
//
// Either way a spinning WAIT runs again only when its cell holds the value
// (a poll that fails again changes nothing), so every run is finite.

type model int

const (
	modelSim model = iota
	modelGrid
)

func (m model) String() string { return [...]string{"sim", "grid"}[m] }

type mState uint8

const (
	msUnstarted mState = iota
	msReady
	msParked   // after a no-change atomic
	msBarrier  // waiting at __syncthreads, or released and not yet resumed
	msColl     // in a collective
	msSpinning // in a WAIT whose last poll failed
	msDone
)

type machine struct {
	p     *Program
	r     *reference
	model model
	st    []mState
	woken []bool // parked or spinning threads a spin round woke
	trace []event
}

func newMachine(p *Program, m model) *machine {
	mc := &machine{p: p, r: newReference(p), model: m, st: make([]mState, p.Threads()), woken: make([]bool, p.Threads())}
	mc.r.v.trace = nil
	return mc
}

func (m *machine) emit(e event) bool {
	m.trace = append(m.trace, e)
	m.r.v.trace = m.trace
	return m.r.feed(&m.trace[len(m.trace)-1]) && !m.r.stopped
}

// runnable lists the threads that may run next, in linear order. Under
// modelSim, when none but parked and spinning threads can, it wakes them
// all, as sim's spin round moves its spin queue to the run queue.
func (m *machine) runnable() []int {
	var ready, parked []int
	nextStart := -1
	for g, s := range m.st {
		t := m.r.th[g]
		switch s {
		case msUnstarted:
			if nextStart < 0 {
				nextStart = g
			}
			if m.model == modelGrid {
				ready = append(ready, g)
			}
		case msReady:
			ready = append(ready, g)
		case msBarrier:
			if !t.atBarrier {
				ready = append(ready, g)
			}
		case msColl:
			if t.inColl == nil {
				ready = append(ready, g)
			}
		case msParked, msSpinning:
			if s == msSpinning && m.r.mem[t.waitCell] != t.waitVal {
				continue // it would poll and fail again
			}
			if m.woken[g] || m.model == modelGrid {
				ready = append(ready, g)
			} else {
				parked = append(parked, g)
			}
		}
	}
	if m.model == modelSim && nextStart >= 0 && m.admitted(nextStart) {
		ready = append(ready, nextStart)
		slices.Sort(ready)
	}
	if len(ready) > 0 || m.model == modelGrid {
		return ready
	}
	for _, g := range parked {
		m.woken[g] = true
	}
	return parked
}

// admitted reports whether sim would start thread g, the first unstarted
// one: its block is resident (it has started threads, or is the first),
// or every thread before it is done, or blocked with one of them
// spinning in vain (sim admits another block after two spin rounds
// without progress; a thread parked after a no-change atomic goes on
// when its round comes, and is progress).
func (m *machine) admitted(g int) bool {
	if g%m.p.TPB != 0 || g == 0 {
		return true
	}
	spin, live := false, false
	for u := range g {
		t := m.r.th[u]
		switch m.st[u] {
		case msDone:
			continue
		case msSpinning:
			if m.r.mem[t.waitCell] == t.waitVal {
				return false // it will go on
			}
			spin = true
		case msBarrier:
			if !t.atBarrier {
				return false
			}
		case msColl:
			if t.inColl == nil {
				return false
			}
		default:
			return false
		}
		live = true
	}
	return !live || spin
}

// run runs thread g for one segment. It reports false when the run ended
// (a fatal finding or a trace error).
func (m *machine) run(g int) bool {
	m.woken[g] = false
	t := m.r.th[g]
	steps := m.r.steps[g]
	// A thread resumed at a yield acts first; one that starts, or
	// returns from a barrier, a collective or a spin, runs on to its next
	// strong access, where it yields.
	first := m.st[g] == msReady
	switch m.st[g] {
	case msUnstarted:
		if !m.emit(event{kind: evStart, g: int32(g), slot: -1}) {
			return false
		}
	case msBarrier:
		in := steps[m.r.pcs[g]-1]
		if !m.emit(event{kind: evBarLeave, g: int32(g), slot: int16(in.slot), op: in.op}) {
			return false
		}
	case msColl:
		in := steps[m.r.pcs[g]-1]
		if !m.done(g, in) {
			return false
		}
	case msSpinning:
		// Poll again: the cell now holds the value.
		in := steps[m.r.pcs[g]-1]
		m.st[g] = msReady
		if !m.access(g, in, true) {
			return false
		}
		if m.st[g] != msReady {
			return true
		}
	}
	m.st[g] = msReady
	for {
		pc := m.r.pcs[g]
		if pc == len(steps) {
			m.st[g] = msDone
			return m.emit(event{kind: evExit, g: int32(g), slot: -1})
		}
		in := steps[pc]
		if (strongOp(in) && in.op != opBAR && !isCollective(in)) && !first {
			return true // RandomOrder yields before a strong access or a fence
		}
		first = false
		switch {
		case in.op == opFENCE:
			rel, acq, scope := fenceOf(in)
			if !m.emit(event{kind: evFence, g: int32(g), slot: int16(in.slot), op: in.op, rel: rel, acq: acq, scope: scope}) {
				return false
			}
		case in.op == opBAR:
			m.st[g] = msBarrier
			return m.emit(event{kind: evBarArrive, g: int32(g), slot: int16(in.slot), op: in.op})
		case isCollective(in):
			kind, mask, arg := collOf(in)
			if !m.emit(event{kind: evCollArrive, g: int32(g), slot: int16(in.slot), op: in.op, coll: kind, mask: mask, arg: arg,
				cval: collOperand(in, &t.regs)}) {
				return false
			}
			if t.inColl != nil {
				m.st[g] = msColl
				return true
			}
			if !m.done(g, in) {
				return false
			}
		default:
			if !m.access(g, in, false) {
				return false
			}
			if m.st[g] != msReady {
				return true
			}
		}
	}
}

func isCollective(in *inst) bool {
	return in.op == opSYNCWARP || in.op == opSHFL || in.op == opVOTE
}

func (m *machine) done(g int, in *inst) bool {
	kind, mask, arg := collOf(in)
	m.st[g] = msReady
	return m.emit(event{kind: evCollDone, g: int32(g), slot: int16(in.slot), op: in.op, coll: kind, mask: mask, arg: arg, cval: m.r.th[g].collRes})
}

// access makes instruction in's access event; after it the thread may be
// parked (a no-change atomic) or spinning (a failed WAIT poll).
func (m *machine) access(g int, in *inst, repoll bool) bool {
	t := m.r.th[g]
	k, strong, order, scope := accessOf(in)
	inst := m.r.instance(in.cell(), g)
	id := m.p.idsOf(g)
	e := event{kind: evAccess, g: int32(g), slot: int16(in.slot), op: in.op, cell: int8(in.cell()), acc: k, strong: strong,
		order: order, scope: scope, pre: int32(len(m.trace))}
	switch k {
	case accLoad:
		e.val = m.r.mem[inst]
	case accStore:
		e.val = srcValue(in.b, &t.regs, id)
	case accRMW:
		e.val = m.r.mem[inst]
		e.nv = rmwNew(in, e.val, &t.regs, id)
	}
	if !m.emit(e) {
		return false
	}
	switch {
	case in.op == opWAIT && e.val != in.waitValue():
		m.st[g] = msSpinning
	case k == accRMW && e.nv == e.val && m.model == modelSim:
		m.st[g] = msParked
	}
	return true
}

// execution is one complete run of the machine: its trace and verdict.
type execution struct {
	trace   []event
	v       *verdict
	choices []int
}

// finalState is a run's outcome as a comparable string: global memory,
// each thread's registers (or that it did not finish).
func finalState(final [nGlobal]int32, regs [][nRegs]int32, exited []bool) string {
	var b strings.Builder
	fmt.Fprint(&b, final)
	for g := range regs {
		if exited[g] {
			fmt.Fprint(&b, regs[g])
		} else {
			b.WriteString("[-]")
		}
	}
	return b.String()
}

func (m *machine) state() string {
	exited := make([]bool, len(m.st))
	for g, s := range m.st {
		exited[g] = s == msDone
	}
	return finalState(m.r.v.final, m.r.v.regs, exited)
}

// enumerate runs p under every schedule of model m, depth first, calling
// visit with each complete run, up to limit runs; it reports whether it
// saw them all.
func enumerate(p *Program, md model, limit int, visit func(m *machine)) bool {
	var prefix []int // choice index at each decision
	var widths []int
	runs := 0
	for {
		m := newMachine(p, md)
		depth := 0
		for {
			rs := m.runnable()
			if len(rs) == 0 {
				break
			}
			c := 0
			if depth < len(prefix) {
				c = prefix[depth]
			} else {
				prefix = append(prefix, 0)
				widths = append(widths, len(rs))
			}
			widths[depth] = len(rs)
			depth++
			if !m.run(rs[c]) {
				break
			}
		}
		prefix, widths = prefix[:depth], widths[:depth]
		m.r.finish()
		visit(m)
		runs++
		// Next schedule: the deepest decision with an untried choice.
		for len(prefix) > 0 && prefix[len(prefix)-1]+1 >= widths[len(widths)-1] {
			prefix, widths = prefix[:len(prefix)-1], widths[:len(widths)-1]
		}
		if len(prefix) == 0 {
			return true
		}
		if runs >= limit {
			return false
		}
		prefix[len(prefix)-1]++
		prefix = slices.Clip(prefix)
	}
}
