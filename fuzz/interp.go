package fuzz

import (
	"errors"
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// The interpreter turns a Program into a sim.Kernel: a closure that walks
// the program and calls sim's API once per instruction, recording every
// event in the trace as it goes. Accesses and barriers are made from
// execSlot (slots_gen.go), where each slot has source lines of its own, so
// that sim's findings name the instruction.

// simRun is one launch of a program on sim.
type simRun struct {
	p      *Program
	opts   sim.Options
	trace  []event
	report *sim.Report // nil for a clean run
	err    error       // a launch error or an error that is not a Report
	final  [nGlobal]int32
	regs   [][nRegs]int32
	exited []bool
	// inflight lists the strong accesses threads were in when the launch
	// ended (a fatal finding unwinds them): whether they acted is not in
	// the trace.
	inflight []inflight
	// long is set when a thread made so many accesses that sim's spin
	// watch may have parked it between an access's detection and its
	// data (see launchBudget): the trace's order is then not guaranteed.
	long bool
}

// inflight is a strong access a thread had begun when the launch ended.
type inflight struct {
	g    int32
	in   *inst
	pre  int32
	regs [nRegs]int32
}

// spinWatchAfter is the number of accesses after which sim first watches a
// thread for spinning (sim's defaultBudget, 4096), less a margin.
const spinWatchAfter = 4000

// thread is the interpreter's state of one simulated thread.
type thread struct {
	r        *simRun
	g        int32
	id       ids
	regs     [nRegs]int32
	bufs     [nCells]*sim.Buffer[int32]
	pre      int32 // trace length when the current strong access began
	inflight *inst // the strong access the thread is in, if any
	stv      int32 // the value the current store writes
	accesses int
}

func (x *thread) rec(e event) {
	e.g = x.g
	x.r.trace = append(x.r.trace, e)
}

func (x *thread) src(s uint8) int32 { return srcValue(s, &x.regs, x.id) }

func (x *thread) buf(in *inst) *sim.Buffer[int32] { return x.bufs[in.cell()] }

func (x *thread) ref(in *inst) sim.AtomicRef[int32] {
	return sim.NewAtomicRef(x.bufs[in.cell()], 0, in.scope())
}

func (x *thread) access(in *inst, val, nv int32) {
	x.accesses++
	if x.accesses > spinWatchAfter {
		x.r.long = true
	}
	k, strong, order, scope := accessOf(in)
	x.rec(event{kind: evAccess, slot: int16(in.slot), op: in.op, cell: int8(in.cell()), acc: k, strong: strong,
		order: order, scope: scope, val: val, nv: nv, pre: x.pre})
}

// loaded records a load of v into the instruction's register.
func (x *thread) loaded(in *inst, v int32) {
	x.access(in, v, 0)
	x.regs[in.reg()] = v
}

// stored returns the value a store writes, remembered for storeDone.
func (x *thread) stored(in *inst) int32 {
	x.stv = x.src(in.b)
	return x.stv
}

func (x *thread) storeDone(in *inst) { x.access(in, x.stv, 0) }

// rmwDone records an RMW that returned old.
func (x *thread) rmwDone(in *inst, old int32) {
	x.access(in, old, rmwNew(in, old, &x.regs, x.id))
	x.regs[in.reg()] = old
}

// casOld drops compare_exchange's success flag.
func casOld(old int32, _ bool) int32 { return old }

// polled records a WAIT's poll and reports whether it saw the value.
func (x *thread) polled(in *inst, v int32) bool {
	x.access(in, v, 0)
	return v == in.waitValue()
}

// strongOp reports whether in calls sim through rmw, which may yield
// before it acts.
func strongOp(in *inst) bool {
	switch in.op {
	case opLD, opST, opBAR:
		return false
	}
	return true
}

func (x *thread) exec(t *sim.Thread, body []*inst) {
	for _, in := range body {
		switch in.op {
		case opIF:
			if cond(in.a, x.id) {
				x.exec(t, in.body)
			} else {
				x.exec(t, in.els)
			}
		case opLOOP:
			for range in.trips() {
				x.exec(t, in.body)
			}
		case opFENCE:
			rel, acq, scope := fenceOf(in)
			switch in.fenceKind() {
			case 0:
				t.ThreadFenceBlock()
			case 1:
				t.ThreadFence()
			case 2:
				t.ThreadFenceSystem()
			default:
				t.AtomicThreadFence(in.order(), in.atomicFenceScope())
			}
			x.rec(event{kind: evFence, slot: int16(in.slot), op: in.op, rel: rel, acq: acq, scope: scope})
		case opSYNCWARP, opSHFL, opVOTE:
			x.collective(t, in)
		case opBAR:
			x.rec(event{kind: evBarArrive, slot: int16(in.slot), op: in.op})
			execSlot(t, x, in)
			x.rec(event{kind: evBarLeave, slot: int16(in.slot), op: in.op})
		default:
			x.pre = int32(len(x.r.trace))
			x.inflight = in
			execSlot(t, x, in)
			x.inflight = nil
		}
	}
}

func (x *thread) collective(t *sim.Thread, in *inst) {
	kind, mask, arg := collOf(in)
	v := collOperand(in, &x.regs)
	x.rec(event{kind: evCollArrive, slot: int16(in.slot), op: in.op, coll: kind, mask: mask, arg: arg, cval: v})
	var r int32
	switch kind {
	case collSyncWarp:
		t.SyncWarp(mask)
	case collShfl:
		r = sim.ShflSync(t, mask, v, int(arg))
	case collShflUp:
		r = sim.ShflUpSync(t, mask, v, int(arg))
	case collShflDown:
		r = sim.ShflDownSync(t, mask, v, int(arg))
	case collShflXor:
		r = sim.ShflXorSync(t, mask, v, int(arg))
	case collBallot:
		r = int32(t.BallotSync(mask, v != 0))
	case collAny:
		if t.AnySync(mask, v != 0) {
			r = 1
		}
	case collAll:
		if t.AllSync(mask, v != 0) {
			r = 1
		}
	}
	x.rec(event{kind: evCollDone, slot: int16(in.slot), op: in.op, coll: kind, mask: mask, arg: arg, cval: r})
	if kind != collSyncWarp {
		x.regs[in.collDst()] = r
	}
}

// runOnSim launches p on a fresh H100 with opts (detection on) and returns
// the run with its trace.
func runOnSim(p *Program, opts sim.Options) *simRun {
	r := &simRun{p: p, opts: opts, regs: make([][nRegs]int32, p.Threads()), exited: make([]bool, p.Threads())}
	dev := sim.NewDevice(sim.H100)
	var gbufs [nGlobal]*sim.Buffer[int32]
	for c := range nGlobal {
		b, err := sim.Alloc[int32](dev, cellNames[c], 1)
		if err != nil {
			r.err = err
			return r
		}
		if c < nGlobal-1 {
			if err := b.CopyFromHost([]int32{p.Init[c]}); err != nil {
				r.err = err
				return r
			}
		}
		gbufs[c] = b
	}
	threads := make([]thread, p.Threads())
	kernel := func(t *sim.Thread) {
		g := t.BlockIdx.X*p.TPB + t.LinearThreadIdx()
		x := &threads[g]
		*x = thread{r: r, g: int32(g), id: p.idsOf(g)}
		for c := range nGlobal {
			x.bufs[c] = gbufs[c]
		}
		x.bufs[nGlobal] = sim.Shared[int32](t, cellNames[nGlobal], 1)
		x.bufs[nGlobal+1] = sim.Shared[int32](t, cellNames[nGlobal+1], 1)
		x.rec(event{kind: evStart, slot: -1})
		x.exec(t, p.Body)
		x.rec(event{kind: evExit, slot: -1})
		r.exited[g] = true
	}
	cfg := sim.Config{Grid: sim.Dim(p.Blocks), Block: sim.Dim(p.TPB), Options: opts.WithDetection(true)}
	err := dev.Launch(cfg, kernel)
	if err != nil {
		var rep *sim.Report
		if errors.As(err, &rep) {
			r.report = rep
		} else {
			r.err = fmt.Errorf("launch: %w", err)
		}
	}
	for c := range nGlobal {
		r.final[c] = gbufs[c].ToHost()[0]
	}
	for g := range threads {
		r.regs[g] = threads[g].regs
		if in := threads[g].inflight; in != nil {
			r.inflight = append(r.inflight, inflight{g: int32(g), in: in, pre: threads[g].pre, regs: threads[g].regs})
		}
	}
	return r
}
