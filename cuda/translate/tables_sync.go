package translate

import (
	"go/ast"
	"go/constant"
	"go/types"
)

// Translations of sim's memory-order operations: volatile loads and stores,
// __threadfence_system, cuda::atomic_thread_fence and __nanosleep. This
// file's init runs after tables.go's (files initialise in name order),
// which makes simCalls.
func init() {
	u32 := types.Uint32
	simCalls["Buffer.LoadVolatile"] = simCall{"((volatile T*)b)[i]", classLoad, emitLoadVolatile}
	simCalls["Buffer.StoreVolatile"] = simCall{"((volatile T*)b)[i] = v", classEffect, emitStoreVolatile}
	simCalls["Thread.ThreadFenceSystem"] = simCall{"__threadfence_system()", classEffect, fixed("__threadfence_system()")}
	simCalls["Thread.Nanosleep"] = simCall{"__nanosleep(ns)", classEffect, fixed("__nanosleep(%0)", u32)}
	simCalls["Thread.AtomicThreadFence"] = simCall{"cuda::atomic_thread_fence(order, scope), as PTX fence", classEffect, emitAtomicThreadFence}
}

func emitLoadVolatile(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
	e, _ := f.tr.isBuffer(f.typeOf(recv))
	if !f.volatileElem(c, e) {
		return "0"
	}
	if from, _, ok := halfBits(f.tr.simValueC(e)); ok {
		// __half and __nv_bfloat16 have no volatile copy: load the bits.
		return from + "(((volatile unsigned short *)" + f.expr(recv) + ")[" + f.index(c.Args[1]) + "])"
	}
	return "((volatile " + f.tr.ctype(e) + " *)" + f.expr(recv) + ")[" + f.index(c.Args[1]) + "]"
}

func emitStoreVolatile(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	e, _ := f.tr.isBuffer(f.typeOf(recv))
	if !stmt {
		f.errorf(c.Pos(), "StoreVolatile has no value")
		return "0"
	}
	if !f.volatileElem(c, e) {
		return "0"
	}
	if _, to, ok := halfBits(f.tr.simValueC(e)); ok {
		return "((volatile unsigned short *)" + f.expr(recv) + ")[" + f.index(c.Args[1]) + "] = " + to + "(" + strip(f.valueAs(c.Args[2], e)) + ")"
	}
	return "((volatile " + f.tr.ctype(e) + " *)" + f.expr(recv) + ")[" + f.index(c.Args[1]) + "] = " + strip(f.valueAs(c.Args[2], e))
}

// halfBits names the intrinsics that turn 16-bit float type c's bits into
// a value and back.
func halfBits(c string) (from, to string, ok bool) {
	switch c {
	case "__half":
		return "__ushort_as_half", "__half_as_ushort", true
	case "__nv_bfloat16":
		return "__ushort_as_bfloat16", "__bfloat16_as_ushort", true
	}
	return "", "", false
}

// volatileElem refuses a volatile access of a vector element: CUDA's
// vector types are structs with no volatile copy (nvcc and clang reject
// `float4 v = ((volatile float4 *)p)[i]`), and their components one by one
// would be several accesses where sim makes one.
func (f *fn) volatileElem(c *ast.CallExpr, e types.Type) bool {
	if f.tr.isVec(e) {
		f.errorf(c.Pos(), "a volatile access of a vector element (%s) has no CUDA form: CUDA's vector types have no volatile copy; Reinterpret the buffer to its component type and access the components", f.tr.ctype(e))
		return false
	}
	return true
}

// emitAtomicThreadFence writes cuda::atomic_thread_fence(order, scope) as
// the PTX fence libcu++ compiles it to, so that the twin needs no libcu++
// header: relaxed is no fence, seq_cst is fence.sc, the other orders
// fence.acq_rel, at .cta, .gpu or .sys. Order and scope must be constants.
func emitAtomicThreadFence(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	order, ok1 := f.simConst(c.Args[0])
	scope, ok2 := f.simConst(c.Args[1])
	if !ok1 || !ok2 {
		f.errorf(c.Pos(), "AtomicThreadFence takes a constant order and scope (sim.MemoryOrder..., sim.ThreadScope...)")
		return "0"
	}
	sem := map[int64]string{1: "acq_rel", 2: "acq_rel", 3: "acq_rel", 4: "sc"}[order] // sim.MemoryOrder's values
	if sem == "" {
		return "((void)0)" // memory_order_relaxed: no fence
	}
	sc := map[int64]string{0: "sys", 1: "gpu", 2: "cta"}[scope] // sim.ThreadScope's values
	return `asm volatile("fence.` + sem + "." + sc + `;" ::: "memory")`
}

// simConst is the value of a constant argument (a sim.MemoryOrder or
// sim.ThreadScope), if it is one.
func (f *fn) simConst(e ast.Expr) (int64, bool) {
	tv, ok := f.tr.info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	return constant.Int64Val(tv.Value)
}
