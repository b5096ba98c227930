package fuzz

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// A trace is every event of one run, in the order the threads executed
// them. The interpreter records it as sim runs the program (sim runs one
// thread at a time, so the order of the records is the global order);
// the oracle's machine records the same events for the schedules it
// enumerates. The reference detector rebuilds everything from it.

type evKind uint8

const (
	evStart      evKind = iota // a thread starts
	evExit                     // a thread returns from the kernel
	evAccess                   // a load, store, atomic or WAIT poll, after it returned
	evFence                    // a fence, after it returned
	evBarArrive                // a thread calls __syncthreads
	evBarLeave                 // it returns from it
	evCollArrive               // a thread calls a warp collective
	evCollDone                 // it returns from it, with the result
)

var evNames = [...]string{"start", "exit", "access", "fence", "bar-arrive", "bar-leave", "coll-arrive", "coll-done"}

type accKind uint8

const (
	accLoad  accKind = iota
	accStore         // plain or strong store
	accRMW           // read-modify-write: reads, then writes (even the same value)
)

// Collective kinds, in sim's terms (sim compares kinds to find lanes
// meeting in different collectives).
const (
	collShfl = iota
	collShflUp
	collShflDown
	collShflXor
	collBallot
	collAny
	collAll
	collSyncWarp
)

var collNames = [...]string{"shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "syncwarp"}

type event struct {
	kind evKind
	g    int32 // the thread, linear over the grid
	slot int16
	op   opcode
	// accesses
	cell   int8
	acc    accKind
	strong bool // atomics, volatile and atomic_ref operations
	order  sim.MemoryOrder
	scope  sim.ThreadScope // of a strong access or a fence
	val    int32           // loaded, old (RMW) or stored value
	nv     int32           // an RMW's new value
	pre    int32           // strong accesses: the trace length when the call began
	// fences: what they do (an atomic_thread_fence(relaxed) does neither)
	rel, acq bool
	// collectives
	coll int8
	mask uint32
	arg  int32
	cval int32 // operand (arrive) or result (done)
}

func (e *event) String() string {
	s := fmt.Sprintf("t%d %s", e.g, evNames[e.kind])
	switch e.kind {
	case evAccess:
		s += fmt.Sprintf(" slot %d %s %s val=%d", e.slot, e.op, cellNames[e.cell], e.val)
		if e.acc == accRMW {
			s += fmt.Sprintf(" new=%d", e.nv)
		}
		if e.strong {
			s += fmt.Sprintf(" %s %s pre=%d", orderShort[e.order], scopeShort[e.scope], e.pre)
		}
	case evFence:
		s += fmt.Sprintf(" slot %d rel=%v acq=%v %s", e.slot, e.rel, e.acq, scopeShort[e.scope])
	case evBarArrive:
		s += fmt.Sprintf(" slot %d", e.slot)
	case evCollArrive, evCollDone:
		s += fmt.Sprintf(" slot %d %s mask=%#x arg=%d val=%d", e.slot, collNames[e.coll], e.mask, e.arg, e.cval)
	}
	return s
}

// accessOf describes instruction in as an access: its kind, strength,
// order and scope. Legacy atomics are relaxed at device scope, volatile
// accesses relaxed at system scope (sim's memorder.go).
func accessOf(in *inst) (k accKind, strong bool, order sim.MemoryOrder, scope sim.ThreadScope) {
	order, scope = sim.MemoryOrderRelaxed, sim.ThreadScopeDevice
	switch in.op {
	case opLD:
		return accLoad, false, order, scope
	case opST:
		return accStore, false, order, scope
	case opADD, opEXCH, opCAS:
		return accRMW, true, order, scope
	case opLDV:
		return accLoad, true, order, sim.ThreadScopeSystem
	case opSTV:
		return accStore, true, order, sim.ThreadScopeSystem
	case opRLD:
		return accLoad, true, in.order(), in.scope()
	case opRST:
		return accStore, true, in.order(), in.scope()
	case opRADD, opREXCH, opRCAS:
		return accRMW, true, in.order(), in.scope()
	case opWAIT:
		if in.waitRef() {
			return accLoad, true, in.order(), in.scope()
		}
		return accLoad, true, order, sim.ThreadScopeSystem
	}
	panic("accessOf: not an access: " + in.op.String())
}

// rmwNew is the value an RMW writes, given the old value and the thread's
// registers before it.
func rmwNew(in *inst, old int32, regs *[nRegs]int32, id ids) int32 {
	switch in.op {
	case opADD, opRADD:
		return old + in.addend()
	case opEXCH, opREXCH:
		return srcValue(in.b, regs, id)
	case opCAS, opRCAS:
		if old == srcValue(in.b, regs, id) {
			return srcValue(in.b>>4, regs, id)
		}
		return old
	}
	panic("rmwNew: not an RMW")
}

// fenceOf says what a FENCE instruction does: release, acquire, scope.
func fenceOf(in *inst) (rel, acq bool, scope sim.ThreadScope) {
	switch in.fenceKind() {
	case 0:
		return true, true, sim.ThreadScopeBlock
	case 1:
		return true, true, sim.ThreadScopeDevice
	case 2:
		return true, true, sim.ThreadScopeSystem
	}
	o := in.order()
	rel = o == sim.MemoryOrderRelease || o >= sim.MemoryOrderAcqRel
	acq = o == sim.MemoryOrderAcquire || o >= sim.MemoryOrderAcqRel
	return rel, acq, in.atomicFenceScope()
}

// collOf is a collective instruction's kind, mask and argument.
func collOf(in *inst) (kind int8, mask uint32, arg int32) {
	switch in.op {
	case opSYNCWARP:
		return collSyncWarp, in.collMask(), 0
	case opSHFL:
		return int8(collShfl + in.shflMode()), in.collMask(), int32(in.shflArg())
	}
	return int8(collBallot + in.voteMode()), in.collMask(), 0
}

// collResult is lane's result of a completed collective in which the lanes
// of arrived took part with operands vals and arguments args: CUDA's
// semantics as sim documents them (width 32), and whether a shuffle read
// a lane outside the collective (the reader gets its own value).
func collResult(kind int8, arrived uint32, vals, args *[32]int32, lane int) (r int32, outside bool) {
	src := -1
	switch kind {
	case collShfl:
		src = int(args[lane]) & 31
	case collShflUp:
		src = lane
		if lane >= int(args[lane]) {
			src = lane - int(args[lane])
		}
	case collShflDown:
		src = lane
		if lane+int(args[lane]) < 32 {
			src = lane + int(args[lane])
		}
	case collShflXor:
		src = lane ^ int(args[lane]&31)
	case collBallot:
		var b uint32
		for l := range 32 {
			if arrived&(1<<l) != 0 && vals[l] != 0 {
				b |= 1 << l
			}
		}
		return int32(b), false
	case collAny:
		for l := range 32 {
			if arrived&(1<<l) != 0 && vals[l] != 0 {
				return 1, false
			}
		}
		return 0, false
	case collAll:
		for l := range 32 {
			if arrived&(1<<l) != 0 && vals[l] == 0 {
				return 0, false
			}
		}
		return 1, false
	case collSyncWarp:
		return 0, false
	}
	if arrived&(1<<src) == 0 {
		return vals[lane], true
	}
	return vals[src], false
}

// collOperand is the operand a thread brings to collective in: the source
// register, as a predicate for votes.
func collOperand(in *inst, regs *[nRegs]int32) int32 {
	kind, _, _ := collOf(in)
	v := regs[in.collSrc()]
	switch {
	case kind == collSyncWarp:
		return 0
	case kind >= collBallot && v != 0:
		return 1
	}
	return v
}
