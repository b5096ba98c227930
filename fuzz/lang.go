package fuzz

import (
	"fmt"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

// The fuzzing language: a tiny kernel language that every byte string
// decodes to. A program is a launch shape, initial memory and a structured
// body of instructions; every thread runs the same body, branching only on
// its own indices (threadIdx, lane, warp, blockIdx) and looping a constant
// number of times, so which instructions a thread executes depends on the
// program and the thread alone, never on the schedule. Only the values the
// instructions read, and what the detectors make of the order, depend on
// the schedule. (WAIT, a spin until a cell holds a value, repeats its load
// as often as the schedule makes it.)
//
// # Encoding
//
// Byte 0 is the shape: bit 0 chooses one or two blocks, bits 1-3 index
// tpbTable for the threads per block (1, 2, 3, 4, 6, 8, 33 or 40: the last
// two have a second warp). Byte 1 holds the initial values of the global
// cells g0, g1 and g2 (two bits each, 0-3); g3 is left uninitialised, as are
// the shared cells s0 and s1 of every block. Missing bytes read as zero.
//
// Then come instructions of four bytes, [op a b c], op taken modulo the
// number of opcodes, until the input ends or the program holds maxSlots
// instructions. IF and LOOP open a body of the instructions that follow
// (their length is in the operands, cut to what the input and maxSlots
// allow), so nesting is always well formed. Operand fields:
//
//	cell  = (a&7) % 6 (g0 g1 g2 g3 s0 s1)  reg = (a>>3) & 3
//	scope = (a>>5) % 3 (system device block)   order = c % 5 (relaxed acquire release acq_rel seq_cst)
//	src   = b & 15: 0-3 register r0-r3, 4-11 the constant 1-8, 12 tid+1, 13 block+1, 14 lane+1, 15 zero
//	mask  = one byte: bits 0-6 are lanes 0-6, bit 7 lanes 7-31 (0xff is the full mask)
//
//	LD    rd = cell                         plain load
//	ST    cell = src                        plain store
//	ADD   rd = atomicAdd(cell, 1+(b&3))     always changes the cell
//	EXCH  rd = atomicExch(cell, src)
//	CAS   rd = atomicCAS(cell, src(b), src(b>>4))
//	LDV   rd = volatile load                STV   volatile store of src
//	RLD   rd = atomic_ref<scope>(cell).load(order)
//	RST   atomic_ref<scope>(cell).store(src, order)
//	RADD  rd = atomic_ref.fetch_add(1+(b&3), order)
//	REXCH rd = atomic_ref.exchange(src, order)
//	RCAS  rd = atomic_ref.compare_exchange_strong(src(b), src(b>>4), order)
//	FENCE a%7: __threadfence_block, __threadfence, __threadfence_system,
//	      or atomic_thread_fence(order, scope) (a%7 >= 3)
//	BAR   __syncthreads
//	SYNCWARP mask(b)
//	SHFL  rd = shfl{,_up,_down,_xor}_sync(mask(c), r[(a>>2)&3], b&7), mode a>>4 & 3, rd = a&3
//	VOTE  rd = ballot/any/all_sync(mask(c), r[(a>>2)&3] != 0), mode (a>>4)%3, rd = a&3
//	WAIT  spin until cell == b&3: volatile loads, or atomic_ref<scope>
//	      loads with order (c%5) when (b>>2)&1; __nanosleep between polls
//	IF    cond(a) { b&7+1 instructions } [else { (c>>1)&7+1 instructions } if c&1]
//	LOOP  (a%3)+1 times { b&7+1 instructions }
//
// Conditions, cond(a): kind a&7 with k = a>>3: tid<k, tid>=k, tid==k,
// tid odd, lane<k, warp==k&1, block==k&1, tid%3==k%3.

// maxSlots bounds a program's instructions: each has its own source lines
// in slots_gen.go, so that sim names it in findings.
const maxSlots = 40

var tpbTable = [8]int{1, 2, 3, 4, 6, 8, 33, 40}

// Cells: four global and two shared int32 cells, each its own buffer (or
// shared array) so that sim's findings, which name the memory, tell cells
// apart.
const (
	nGlobal = 4
	nShared = 2
	nCells  = nGlobal + nShared
	nRegs   = 4
)

var cellNames = [nCells]string{"g0", "g1", "g2", "g3", "s0", "s1"}

func isShared(c int) bool { return c >= nGlobal }

type opcode uint8

const (
	opLD opcode = iota
	opST
	opADD
	opEXCH
	opCAS
	opLDV
	opSTV
	opRLD
	opRST
	opRADD
	opREXCH
	opRCAS
	opFENCE
	opBAR
	opSYNCWARP
	opSHFL
	opVOTE
	opWAIT
	opIF
	opLOOP
	nOps
)

var opNames = [nOps]string{"LD", "ST", "ADD", "EXCH", "CAS", "LDV", "STV", "RLD", "RST", "RADD", "REXCH", "RCAS",
	"FENCE", "BAR", "SYNCWARP", "SHFL", "VOTE", "WAIT", "IF", "LOOP"}

func (o opcode) String() string {
	if o < nOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// inst is one decoded instruction; slot is its index in program text
// order, which is also the order of its source lines in slots_gen.go.
type inst struct {
	op      opcode
	a, b, c uint8
	slot    int
	body    []*inst // IF's then-body, LOOP's body
	els     []*inst // IF's else-body
}

// Program is a decoded program.
type Program struct {
	Blocks, TPB int
	Init        [nGlobal - 1]int32 // g0-g2; g3 is uninitialised
	Body        []*inst
	Slots       []*inst // every instruction by slot
	Raw         []byte  // the input it was decoded from
}

// Threads is the number of threads of the grid.
func (p *Program) Threads() int { return p.Blocks * p.TPB }

type decoder struct {
	data []byte
	pos  int
	p    *Program
}

func (d *decoder) byte() uint8 {
	if d.pos >= len(d.data) {
		d.pos++
		return 0
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

func (d *decoder) more() bool { return d.pos < len(d.data) && len(d.p.Slots) < maxSlots }

// Decode turns any byte string into a valid program.
func Decode(data []byte) *Program {
	p := &Program{Raw: append([]byte(nil), data...)}
	d := &decoder{data: data, p: p}
	shape := d.byte()
	p.Blocks = 1 + int(shape&1)
	p.TPB = tpbTable[(shape>>1)&7]
	v := d.byte()
	for i := range p.Init {
		p.Init[i] = int32(v >> (2 * i) & 3)
	}
	p.Body = d.block(1 << 30)
	return p
}

// block decodes up to n instructions (counting nested ones).
func (d *decoder) block(n int) []*inst {
	var out []*inst
	start := len(d.p.Slots)
	for d.more() && len(d.p.Slots)-start < n {
		in := &inst{op: opcode(d.byte() % uint8(nOps)), a: d.byte(), b: d.byte(), c: d.byte(), slot: len(d.p.Slots)}
		d.p.Slots = append(d.p.Slots, in)
		out = append(out, in)
		left := n - (len(d.p.Slots) - start)
		switch in.op {
		case opIF:
			in.body = d.block(min(int(in.b&7)+1, left))
			if in.c&1 != 0 {
				left = n - (len(d.p.Slots) - start)
				in.els = d.block(min(int(in.c>>1&7)+1, left))
			}
		case opLOOP:
			in.body = d.block(min(int(in.b&7)+1, left))
		}
	}
	return out
}

// Operand fields.
func (in *inst) cell() int              { return int(in.a&7) % nCells }
func (in *inst) reg() int               { return int(in.a >> 3 & 3) }
func (in *inst) scope() sim.ThreadScope { return sim.ThreadScope(in.a >> 5 % 3) }
func (in *inst) order() sim.MemoryOrder { return sim.MemoryOrder(in.c % 5) }
func (in *inst) addend() int32          { return 1 + int32(in.b&3) }
func (in *inst) waitValue() int32       { return int32(in.b & 3) }
func (in *inst) waitRef() bool          { return in.b>>2&1 != 0 }
func (in *inst) trips() int             { return int(in.a%3) + 1 }

// fenceKind: 0 block, 1 device, 2 system, 3 atomic_thread_fence.
func (in *inst) fenceKind() int { return min(int(in.a%7), 3) }

// atomicFenceScope is the scope of an atomic_thread_fence: (a%7-3)%3.
func (in *inst) atomicFenceScope() sim.ThreadScope { return sim.ThreadScope((in.a%7 - 3) % 3) }

// Collective operands.
func (in *inst) collDst() int  { return int(in.a & 3) }
func (in *inst) collSrc() int  { return int(in.a >> 2 & 3) }
func (in *inst) shflMode() int { return int(in.a >> 4 & 3) }
func (in *inst) voteMode() int { return int(in.a>>4&3) % 3 }
func (in *inst) shflArg() int  { return int(in.b & 7) }
func (in *inst) collMask() uint32 {
	if in.op == opSYNCWARP {
		return decodeMask(in.b)
	}
	return decodeMask(in.c)
}

func decodeMask(m uint8) uint32 {
	out := uint32(m & 0x7f)
	if m&0x80 != 0 {
		out |= 0xffffff80
	}
	return out
}

// src is the value operand: a register, a constant or an index.
type ids struct{ tid, block, lane, warp int }

func srcValue(s uint8, regs *[nRegs]int32, id ids) int32 {
	switch s &= 15; {
	case s < 4:
		return regs[s]
	case s < 12:
		return int32(s) - 3
	case s == 12:
		return int32(id.tid) + 1
	case s == 13:
		return int32(id.block) + 1
	case s == 14:
		return int32(id.lane) + 1
	}
	return 0
}

func cond(a uint8, id ids) bool {
	k := int(a >> 3)
	switch a & 7 {
	case 0:
		return id.tid < k
	case 1:
		return id.tid >= k
	case 2:
		return id.tid == k
	case 3:
		return id.tid%2 == 1
	case 4:
		return id.lane < k
	case 5:
		return id.warp == k&1
	case 6:
		return id.block == k&1
	}
	return id.tid%3 == k%3
}

func srcString(s uint8) string {
	switch s &= 15; {
	case s < 4:
		return fmt.Sprintf("r%d", s)
	case s < 12:
		return fmt.Sprint(int(s) - 3)
	case s == 12:
		return "tid+1"
	case s == 13:
		return "block+1"
	case s == 14:
		return "lane+1"
	}
	return "0"
}

func condString(a uint8) string {
	k := int(a >> 3)
	return [...]string{fmt.Sprintf("tid<%d", k), fmt.Sprintf("tid>=%d", k), fmt.Sprintf("tid==%d", k), "tid%2==1",
		fmt.Sprintf("lane<%d", k), fmt.Sprintf("warp==%d", k&1), fmt.Sprintf("block==%d", k&1), fmt.Sprintf("tid%%3==%d", k%3)}[a&7]
}

var orderShort = [...]string{"relaxed", "acquire", "release", "acq_rel", "seq_cst"}
var scopeShort = [...]string{"system", "device", "block"}

func (in *inst) String() string {
	c := cellNames[in.cell()]
	r := fmt.Sprintf("r%d", in.reg())
	ref := func(s string) string {
		return fmt.Sprintf("%s<%s>(%s).%s", "ref", scopeShort[in.scope()], c, s)
	}
	ord := orderShort[in.order()]
	switch in.op {
	case opLD:
		return fmt.Sprintf("%s = %s", r, c)
	case opST:
		return fmt.Sprintf("%s = %s", c, srcString(in.b))
	case opADD:
		return fmt.Sprintf("%s = atomicAdd(%s, %d)", r, c, in.addend())
	case opEXCH:
		return fmt.Sprintf("%s = atomicExch(%s, %s)", r, c, srcString(in.b))
	case opCAS:
		return fmt.Sprintf("%s = atomicCAS(%s, %s, %s)", r, c, srcString(in.b), srcString(in.b>>4))
	case opLDV:
		return fmt.Sprintf("%s = volatile %s", r, c)
	case opSTV:
		return fmt.Sprintf("volatile %s = %s", c, srcString(in.b))
	case opRLD:
		return fmt.Sprintf("%s = %s", r, ref("load("+ord+")"))
	case opRST:
		return ref(fmt.Sprintf("store(%s, %s)", srcString(in.b), ord))
	case opRADD:
		return fmt.Sprintf("%s = %s", r, ref(fmt.Sprintf("fetch_add(%d, %s)", in.addend(), ord)))
	case opREXCH:
		return fmt.Sprintf("%s = %s", r, ref(fmt.Sprintf("exchange(%s, %s)", srcString(in.b), ord)))
	case opRCAS:
		return fmt.Sprintf("%s = %s", r, ref(fmt.Sprintf("cas(%s, %s, %s)", srcString(in.b), srcString(in.b>>4), ord)))
	case opFENCE:
		switch in.fenceKind() {
		case 0:
			return "__threadfence_block()"
		case 1:
			return "__threadfence()"
		case 2:
			return "__threadfence_system()"
		}
		return fmt.Sprintf("atomic_thread_fence(%s, %s)", ord, scopeShort[in.atomicFenceScope()])
	case opBAR:
		return "__syncthreads()"
	case opSYNCWARP:
		return fmt.Sprintf("__syncwarp(%#x)", in.collMask())
	case opSHFL:
		return fmt.Sprintf("r%d = %s(%#x, r%d, %d)", in.collDst(), [...]string{"shfl", "shfl_up", "shfl_down", "shfl_xor"}[in.shflMode()],
			in.collMask(), in.collSrc(), in.shflArg())
	case opVOTE:
		return fmt.Sprintf("r%d = %s(%#x, r%d != 0)", in.collDst(), [...]string{"ballot", "any", "all"}[in.voteMode()], in.collMask(), in.collSrc())
	case opWAIT:
		if in.waitRef() {
			return fmt.Sprintf("while (%s != %d) __nanosleep(0)", ref("load("+ord+")"), in.waitValue())
		}
		return fmt.Sprintf("while (volatile %s != %d) __nanosleep(0)", c, in.waitValue())
	case opIF:
		return fmt.Sprintf("if (%s)", condString(in.a))
	case opLOOP:
		return fmt.Sprintf("loop %d", in.trips())
	}
	return in.op.String()
}

// String disassembles the program, one instruction per line with its slot.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<<<%d, %d>>> g0..g2=%v (g3, s0, s1 uninitialised)\n", p.Blocks, p.TPB, p.Init)
	var walk func(body []*inst, depth int)
	walk = func(body []*inst, depth int) {
		for _, in := range body {
			fmt.Fprintf(&b, "%2d %s%s", in.slot, strings.Repeat("  ", depth), in)
			if in.op == opIF || in.op == opLOOP {
				b.WriteString(" {\n")
				walk(in.body, depth+1)
				fmt.Fprintf(&b, "   %s}", strings.Repeat("  ", depth))
				if in.els != nil {
					b.WriteString(" else {\n")
					walk(in.els, depth+1)
					fmt.Fprintf(&b, "   %s}", strings.Repeat("  ", depth))
				}
			}
			b.WriteByte('\n')
		}
	}
	walk(p.Body, 0)
	return b.String()
}

// idsOf is thread g's indices (g linear over the grid).
func (p *Program) idsOf(g int) ids {
	tid := g % p.TPB
	return ids{tid: tid, block: g / p.TPB, lane: tid % 32, warp: tid / 32}
}

// steps lists the instructions thread g executes, in order: a pure function
// of the program and the thread (IF and LOOP expanded).
func (p *Program) steps(g int) []*inst {
	id := p.idsOf(g)
	var out []*inst
	var walk func(body []*inst)
	walk = func(body []*inst) {
		for _, in := range body {
			switch in.op {
			case opIF:
				if cond(in.a, id) {
					walk(in.body)
				} else {
					walk(in.els)
				}
			case opLOOP:
				for range in.trips() {
					walk(in.body)
				}
			default:
				out = append(out, in)
			}
		}
	}
	walk(p.Body)
	return out
}
