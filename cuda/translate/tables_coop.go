package translate

import (
	_ "embed"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Cooperative groups (sim/coop.go, sim/grid.go) and cuda::atomic_ref
// (sim/memorder.go). A group variable is a cg object in CUDA:
//
//	sim.ThreadBlock      cg::thread_block       sim.ThisThreadBlock(t)        cg::this_thread_block()
//	sim.Tile[sim.SizeN]  cg::thread_block_tile<N>  sim.TiledPartitionOf[sim.SizeN](p)  cg::tiled_partition<N>(p)
//	sim.ThreadGroup      cg::thread_group       sim.TiledPartition(p, n)      cg::tiled_partition(p, n)
//	sim.CoalescedGroup   cg::coalesced_group    sim.CoalescedThreads(t)       cg::coalesced_threads()
//	sim.GridGroup        cg::grid_group         sim.ThisGrid(t)               cg::this_grid()
//	sim.AtomicRef[T]     cuda::atomic_ref<T, cuda::thread_scope_X>  sim.NewAtomicRef(b, i, scope)  (b[i])
//
// A group variable is declared from an expression of its type (a
// constructor, or another group variable): CUDA's groups have no zero
// value, so var g sim.ThreadBlock, arrays of groups, composite literals and
// kernel parameters of group type are refused. Tiles are translated up to
// 32 threads.

// coopKind is which cooperative type a type is.
type coopKind int

const (
	coopNone coopKind = iota
	coopBlock
	coopTile
	coopThreadGroup
	coopCoalesced
	coopGrid
	coopAtomicRef
)

var coopNames = map[string]coopKind{
	"ThreadBlock": coopBlock, "Tile": coopTile, "ThreadGroup": coopThreadGroup,
	"CoalescedGroup": coopCoalesced, "GridGroup": coopGrid, "AtomicRef": coopAtomicRef,
}

// coop reports which cooperative type t is, and a tile's size (0 when its
// size parameter is not a concrete sim.SizeN).
func (tr *translator) coop(t types.Type) (coopKind, int) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || !tr.isSim(n.Obj()) {
		return coopNone, 0
	}
	k := coopNames[n.Obj().Name()]
	if k != coopTile {
		return k, 0
	}
	return k, tileSize(tr, n.TypeArgs().At(0))
}

// tileSize is N of a sim.SizeN type, or 0.
func tileSize(tr *translator, t types.Type) int {
	s, ok := types.Unalias(t).(*types.Named)
	if !ok || !tr.isSim(s.Obj()) || !strings.HasPrefix(s.Obj().Name(), "Size") {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s.Obj().Name(), "Size"))
	if err != nil {
		return 0
	}
	return n
}

func (tr *translator) isCoop(t types.Type) bool {
	k, _ := tr.coop(t)
	return k != coopNone
}

// coopTypeError is typeError for the cooperative types (ok set when t is
// one, or an array of one).
func (tr *translator) coopTypeError(t types.Type) (msg string, ok bool) {
	if a, isArr := t.Underlying().(*types.Array); isArr {
		e := a.Elem()
		for {
			if a2, ok := e.Underlying().(*types.Array); ok {
				e = a2.Elem()
				continue
			}
			break
		}
		if tr.isCoop(e) {
			return "arrays of cooperative groups and atomic refs are not translated (CUDA's have no zero value); create the group where it is used", true
		}
		return "", false
	}
	if n, isNamed := types.Unalias(t).(*types.Named); isNamed && tr.isSim(n.Obj()) && n.Obj().Name() == "Dim3" {
		return "a Dim3 is not a kernel value (the group's GroupIndex, ThreadIndex, DimThreads, BlockIndex and DimBlocks give one); read the fields through the thread: t.BlockIdx.X, t.ThreadIdx.Y, t.BlockDim.Z, t.GridDim.X", true
	}
	k, n := tr.coop(t)
	switch {
	case k == coopNone:
		return "", false
	case k == coopTile && n == 0:
		return "a tile whose size is a type parameter is not translated; name the size (sim.Size32)", true
	case k == coopTile && n > 32:
		return "tiles of more than 32 threads (cg::thread_block_tile<" + strconv.Itoa(n) + ">) are not translated yet; use sim.ThisThreadBlock and its Sync", true
	}
	return "", true
}

// coopCType is the C type of a cooperative group (ok false for other
// types; an AtomicRef's type depends on its constructor's scope, and
// declare writes it).
func (tr *translator) coopCType(t types.Type) (string, bool) {
	k, n := tr.coop(t)
	switch k {
	case coopBlock:
		return "cg::thread_block", true
	case coopTile:
		return "cg::thread_block_tile<" + strconv.Itoa(n) + ">", true
	case coopThreadGroup:
		return "cg::thread_group", true
	case coopCoalesced:
		return "cg::coalesced_group", true
	case coopGrid:
		return "cg::grid_group", true
	case coopAtomicRef:
		return "void", true
	}
	return "", false
}

// coopParamError refuses a cooperative type where CUDA cannot have one: a
// kernel parameter (kernel), a helper's parameter holding an AtomicRef
// (its CUDA type carries the scope), or a helper's result.
func (tr *translator) coopParamError(t types.Type, kernel, result bool) string {
	k, _ := tr.coop(t)
	switch {
	case k == coopNone:
		return ""
	case kernel:
		return "cooperative groups and atomic refs are not kernel parameters; create them in the kernel body (block := sim.ThisThreadBlock(t))"
	case result:
		return "a function cannot return a cooperative group or an atomic ref in CUDA (they have no zero value); create it in the caller"
	case k == coopAtomicRef:
		return "an AtomicRef is not passed to functions (its CUDA type carries the scope); pass the buffer and index and call sim.NewAtomicRef where it is used"
	}
	return ""
}

// coopDeclare writes the declaration of a new group or atomic-ref variable
// o initialised by rhs, and reports whether o is one.
func (f *fn) coopDeclare(pos token.Pos, o types.Object, t types.Type, rhs ast.Expr) bool {
	k, _ := f.tr.coop(t)
	if k == coopNone {
		return false
	}
	if msg, _ := f.tr.coopTypeError(t); msg != "" {
		f.errorf(pos, "%s", msg)
		f.bad[o] = true
		return true
	}
	if k == coopAtomicRef {
		call, ok := ast.Unparen(rhs).(*ast.CallExpr)
		if !ok || !f.isSimFunc(call, "NewAtomicRef") {
			f.errorf(rhs.Pos(), "an AtomicRef variable is declared from sim.NewAtomicRef(b, i, scope) (its CUDA type carries the scope); call it here")
			f.bad[o] = true
			return true
		}
		typ, init, ok := f.atomicRef(call)
		if !ok {
			f.bad[o] = true
			return true
		}
		f.linef(pos, "%s %s(%s);", typ, f.names.name(o), init)
		return true
	}
	val := strip(f.expr(rhs))
	f.need("cg")
	f.linef(pos, "%s = %s;", f.tr.decl(t, f.names.name(o)), val)
	return true
}

// coopZeroDecl refuses var g sim.ThreadBlock (no initialiser).
func (f *fn) coopZeroDecl(pos token.Pos, t types.Type) bool {
	if !f.tr.isCoop(t) {
		if msg, ok := f.tr.coopTypeError(t); ok && msg != "" {
			f.errorf(pos, "%s", msg)
			return true
		}
		return false
	}
	f.errorf(pos, "a %s has no zero value in CUDA; declare the variable from its constructor (g := sim.ThisThreadBlock(t), sim.TiledPartitionOf[sim.Size32](g), sim.NewAtomicRef(b, i, scope), ...)", types.TypeString(t, f.tr.qualifier))
	return true
}

// ---- emitters ----

type emitter = func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string

// method emits recv.name(args...) with the arguments converted to the
// given Go types (nil: as they are), the result cast to cast if set.
func method(name, cast string, argTypes ...types.BasicKind) emitter {
	return func(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
		f.need("cg")
		var args []string
		for i, a := range c.Args {
			if i < len(argTypes) {
				args = append(args, strip(f.valueAs(a, types.Typ[argTypes[i]])))
			} else {
				args = append(args, strip(f.expr(a)))
			}
		}
		s := f.expr(recv) + "." + name + "(" + strings.Join(args, ", ") + ")"
		if cast == "bool" {
			return "(" + s + " != 0)"
		}
		if cast != "" {
			return "((" + cast + ")" + s + ")"
		}
		return s
	}
}

func refuseWith(msg string) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.errorf(c.Pos(), "%s", msg)
		return "0"
	}
}

// groupArg translates a group argument (a parent, the group of a
// collective), which must be one of kinds.
func (f *fn) groupArg(e ast.Expr, what string, kinds ...coopKind) (string, bool) {
	k, _ := f.tr.coop(f.typeOf(e))
	for _, want := range kinds {
		if k == want {
			return strip(f.expr(e)), true
		}
	}
	f.errorf(e.Pos(), "%s takes %s in CUDA; pass one of those", what, kindList(kinds))
	return "0", false
}

func kindList(ks []coopKind) string {
	names := map[coopKind]string{coopBlock: "a thread block", coopTile: "a tile (sim.Tile)", coopThreadGroup: "a dynamic tile (sim.ThreadGroup)", coopCoalesced: "a coalesced group"}
	var out []string
	for _, k := range ks {
		out = append(out, names[k])
	}
	return strings.Join(out, " or ")
}

// valueType checks the value type of a shuffle, match, scan or reduction:
// 32- and 64-bit integers and floats.
func (f *fn) valueType(c *ast.CallExpr, t types.Type) bool {
	if (isInteger(t) && !small(t)) || isFloat(t) {
		return true
	}
	f.errorf(c.Pos(), "cooperative-group collectives are translated for 32- and 64-bit integers and floats; convert the value (int32(v)) and back")
	return false
}

// uintArg is a delta or lane mask: an unsigned int in CUDA.
func (f *fn) uintArg(e ast.Expr) string {
	if v := f.tr.info.Types[e].Value; v != nil {
		return intConst(v, types.Uint32)
	}
	return "(unsigned int)" + f.expr(e)
}

// groupShfl emits g.name(v, arg) for TileShfl... and CoalescedShfl...
func groupShflEmit(name string, kind coopKind, unsigned bool) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need("cg")
		g, ok := f.groupArg(c.Args[0], name, kind)
		t := f.typeOf(c)
		if !ok || !f.valueType(c, t) {
			return "0"
		}
		arg := f.intArg(c.Args[2])
		if unsigned {
			arg = f.uintArg(c.Args[2])
		}
		return g + "." + name + "(" + strip(f.valueAs(c.Args[1], t)) + ", " + arg + ")"
	}
}

func groupMatchAnyEmit(kind coopKind) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need("cg")
		g, ok := f.groupArg(c.Args[0], "match_any", kind)
		t := f.typeOf(c.Args[1])
		if !ok || !f.valueType(c, t) {
			return "0"
		}
		return g + ".match_any(" + strip(f.valueAs(c.Args[1], t)) + ")"
	}
}

// groupMatchAllEmit is m, ok := sim.TileMatchAll(g, v): CUDA returns the
// predicate through a reference, which the prelude's gosim_cg_match_all
// turns into a second result.
func groupMatchAllEmit(kind coopKind) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need("cgmatchall")
		g, ok := f.groupArg(c.Args[0], "match_all", kind)
		t := f.typeOf(c.Args[1])
		if !ok || !f.valueType(c, t) {
			return "0"
		}
		f.lastRes = "gosim_cg_match_all_res"
		return "gosim_cg_match_all(" + g + ", " + strip(f.valueAs(c.Args[1], t)) + ")"
	}
}

// cgOps are sim's ReduceOp types and CUDA's function objects.
var cgOps = map[string]string{
	"Plus": "plus", "Less": "less", "Greater": "greater",
	"BitAnd": "bit_and", "BitOr": "bit_or", "BitXor": "bit_xor",
}

// collectiveEmit is cg::reduce(g, v, cg::plus<T>()) and the scans.
func collectiveEmit(name, need string) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need(need)
		g, ok := f.groupArg(c.Args[0], "cg::"+name, coopTile, coopCoalesced)
		t := f.typeOf(c)
		if !ok || !f.valueType(c, t) {
			return "0"
		}
		opT, _ := types.Unalias(f.resolve(f.typeOf(c.Args[2]))).(*types.Named)
		_, lit := ast.Unparen(c.Args[2]).(*ast.CompositeLit)
		if opT == nil || !f.tr.isSim(opT.Obj()) || cgOps[opT.Obj().Name()] == "" || !lit {
			f.errorf(c.Args[2].Pos(), "the operation of cg::%s is written as a literal: sim.Plus[T]{}, sim.Less[T]{}, sim.Greater[T]{}, sim.BitAnd[T]{}, sim.BitOr[T]{} or sim.BitXor[T]{}", name)
			return "0"
		}
		op := "cg::" + cgOps[opT.Obj().Name()] + "<" + f.tr.ctype(t) + ">()"
		return "cg::" + name + "(" + g + ", " + strip(f.valueAs(c.Args[1], t)) + ", " + op + ")"
	}
}

func emitTiledPartitionOf(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	f.need("cg")
	k, n := f.tr.coop(f.typeOf(c))
	if msg, _ := f.tr.coopTypeError(f.typeOf(c)); k != coopTile || msg != "" {
		if msg == "" {
			msg = "this tile is not translated"
		}
		f.errorf(c.Pos(), "%s", msg)
		return "0"
	}
	p, ok := f.groupArg(c.Args[0], "cg::tiled_partition<N>", coopBlock, coopTile)
	if !ok {
		return "0"
	}
	if _, pn := f.tr.coop(f.typeOf(c.Args[0])); pn != 0 && pn < n {
		f.errorf(c.Pos(), "a tile of %d threads cannot be cut from a tile of %d; partition the block, or a larger tile", n, pn)
		return "0"
	}
	return "cg::tiled_partition<" + strconv.Itoa(n) + ">(" + p + ")"
}

func emitTiledPartition(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	f.need("cg")
	p, ok := f.groupArg(c.Args[0], "cg::tiled_partition", coopBlock, coopTile, coopThreadGroup)
	if !ok {
		return "0"
	}
	if _, pn := f.tr.coop(f.typeOf(c.Args[0])); pn != 0 {
		if v := f.tr.info.Types[c.Args[1]].Value; v != nil {
			if n, ok := constantInt64(v); ok && n > int64(pn) {
				f.errorf(c.Pos(), "a tile of %d threads cannot be cut from a tile of %d; partition the block, or a larger tile", n, pn)
				return "0"
			}
		}
	}
	v := f.tr.info.Types[c.Args[1]].Value
	n, exact := int64(0), false
	if v != nil {
		n, exact = constantInt64(v)
	}
	if !exact || n < 1 || n > 32 || n&(n-1) != 0 {
		f.errorf(c.Args[1].Pos(), "a dynamic tile is translated for a constant size that is a power of two up to 32; use sim.TiledPartitionOf[sim.SizeN] for a static tile")
		return "0"
	}
	return "cg::tiled_partition(" + p + ", " + strconv.FormatInt(n, 10) + "U)"
}

func emitPartition(name string) emitter {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need("cg")
		p, ok := f.groupArg(c.Args[0], "cg::"+name, coopTile, coopCoalesced)
		if !ok {
			return "0"
		}
		var a string
		if name == "binary_partition" {
			a = strip(f.valueAs(c.Args[1], types.Typ[types.Bool]))
		} else {
			a = strip(f.valueAs(c.Args[1], types.Typ[types.Int32]))
		}
		return "cg::" + name + "(" + p + ", " + a + ")"
	}
}

// emitGridSync is grid.sync(), which is undefined outside a cooperative
// launch: it marks the function, and through it every kernel calling it,
// as one (twin.Twin.GridSync).
func emitGridSync(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	f.gridSync = true
	return method("sync", "")(f, c, recv, stmt)
}

func fixedCG(s string) emitter {
	return func(f *fn, _ *ast.CallExpr, _ ast.Expr, _ bool) string {
		f.need("cg")
		return s
	}
}

// ---- cuda::atomic_ref ----

var memoryOrders = map[int64]string{0: "relaxed", 1: "acquire", 2: "release", 3: "acq_rel", 4: "seq_cst"} // sim.MemoryOrder's values
var threadScopes = map[int64]string{0: "system", 1: "device", 2: "block"}                                 // sim.ThreadScope's values

// atomicRef is the C type and constructor argument of
// sim.NewAtomicRef(b, i, scope).
func (f *fn) atomicRef(c *ast.CallExpr) (typ, init string, ok bool) {
	f.need("atomic")
	e, _ := f.tr.isBuffer(f.typeOf(c.Args[0]))
	if e == nil || !(isInteger(e) && !small(e) || isFloat(e)) {
		f.errorf(c.Pos(), "cuda::atomic_ref is translated for 32- and 64-bit integers and floats")
		return "", "", false
	}
	sc, isConst := f.simConst(c.Args[2])
	if !isConst || threadScopes[sc] == "" {
		f.errorf(c.Args[2].Pos(), "the scope of an AtomicRef is part of its CUDA type: pass a constant (sim.ThreadScopeBlock, ...)")
		return "", "", false
	}
	typ = "cuda::atomic_ref<" + f.tr.ctype(e) + ", cuda::thread_scope_" + threadScopes[sc] + ">"
	return typ, f.expr(c.Args[0]) + "[" + f.index(c.Args[1]) + "]", true
}

func emitNewAtomicRef(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	typ, init, ok := f.atomicRef(c)
	if !ok {
		return "0"
	}
	return typ + "(" + init + ")"
}

// memOrder is a constant memory-order argument as cuda::memory_order_X;
// forbid lists the orders C++ makes undefined for the operation.
func (f *fn) memOrder(e ast.Expr, op string, forbid ...string) (string, bool) {
	o, ok := f.simConst(e)
	name := memoryOrders[o]
	if !ok || name == "" {
		f.errorf(e.Pos(), "%s takes a constant memory order in CUDA; pass sim.MemoryOrderRelaxed, ...Acquire, ...Release, ...AcqRel or ...SeqCst", op)
		return "", false
	}
	for _, bad := range forbid {
		if name == bad {
			f.errorf(e.Pos(), "memory_order_%s is undefined behaviour for %s in C++; use one of the orders the operation allows", name, op)
			return "", false
		}
	}
	return "cuda::memory_order_" + name, true
}

// refElem is the element type of an AtomicRef receiver.
func (f *fn) refElem(recv ast.Expr) types.Type {
	n, _ := types.Unalias(f.resolve(f.typeOf(recv))).(*types.Named)
	if n == nil || n.TypeArgs().Len() != 1 {
		return types.Typ[types.Int32]
	}
	return n.TypeArgs().At(0)
}

// refMethod emits r.name(v..., order): args are the value arguments after
// the thread, then the order.
func refMethod(name string, nvals int, intOnly bool, forbid ...string) emitter {
	return func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
		e := f.refElem(recv)
		if intOnly && !isInteger(e) {
			f.errorf(c.Pos(), "cuda::atomic_ref<%s>::%s is not translated for floats; use an integer element type", f.tr.ctype(e), name)
			return "0"
		}
		if name == "store" && !stmt {
			f.errorf(c.Pos(), "Store has no value")
			return "0"
		}
		var args []string
		for _, a := range c.Args[1 : 1+nvals] {
			args = append(args, strip(f.valueAs(a, e)))
		}
		o, ok := f.memOrder(c.Args[1+nvals], name, forbid...)
		if !ok {
			return "0"
		}
		args = append(args, o)
		f.need("atomic")
		return f.expr(recv) + "." + name + "(" + strings.Join(args, ", ") + ")"
	}
}

// emitCompareExchange is old, ok := r.CompareExchangeStrong(t, expected,
// desired, order): CUDA writes the old value into expected, which the
// prelude's gosim_cas turns into the first result.
func emitCompareExchange(weak bool) emitter {
	return func(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
		e := f.refElem(recv)
		o, ok := f.memOrder(c.Args[3], "compare_exchange")
		if !ok {
			return "0"
		}
		f.need("atomiccas")
		h := "gosim_cas_strong"
		if weak {
			h = "gosim_cas_weak"
		}
		ct := f.tr.ctype(e)
		f.lastRes = "gosim_cas_res<" + ct + ">"
		return h + "(" + f.expr(recv) + ", (" + ct + ")" + f.valueAs(c.Args[1], e) + ", (" + ct + ")" + f.valueAs(c.Args[2], e) + ", " + o + ")"
	}
}

func init() {
	u32, b := types.Uint32, types.Bool
	_ = u32
	dim3 := func(g, c string) emitter {
		return refuseWith(g + " returns a Dim3, which kernels do not hold; use t." + c + ".X, .Y and .Z")
	}
	for _, g := range []string{"ThreadBlock", "Tile", "ThreadGroup", "CoalescedGroup", "GridGroup"} {
		simCalls[g+".Sync"] = simCall{"g.sync()", classEffect, method("sync", "")}
		simCalls[g+".ThreadRank"] = simCall{"g.thread_rank()", classNone, method("thread_rank", "long long")}
		simCalls[g+".NumThreads"] = simCall{"g.num_threads()", classNone, method("num_threads", "long long")}
		simCalls[g+".Size"] = simCall{"g.size()", classNone, method("size", "long long")}
	}
	for _, g := range []string{"Tile", "CoalescedGroup"} {
		simCalls[g+".MetaGroupRank"] = simCall{"g.meta_group_rank()", classNone, method("meta_group_rank", "long long")}
		simCalls[g+".MetaGroupSize"] = simCall{"g.meta_group_size()", classNone, method("meta_group_size", "long long")}
		simCalls[g+".Any"] = simCall{"g.any(pred) != 0", classLoad, method("any", "bool", b)}
		simCalls[g+".All"] = simCall{"g.all(pred) != 0", classLoad, method("all", "bool", b)}
		simCalls[g+".Ballot"] = simCall{"g.ballot(pred)", classLoad, method("ballot", "", b)}
	}
	// cg::thread_group declares num_threads() but CUDA 13's headers define
	// it only for its subclasses: nvcc's ptxas fails on the unresolved
	// function (H100 run). size() is defined and gives the same count.
	simCalls["ThreadGroup.NumThreads"] = simCall{"g.size()", classNone, method("size", "long long")}
	noMeta := refuseWith("cg::thread_group has no meta_group_rank or meta_group_size; use a static tile (sim.TiledPartitionOf[sim.SizeN]) or compute it from the thread index")
	simCalls["ThreadGroup.MetaGroupRank"] = simCall{"(none)", classNone, noMeta}
	simCalls["ThreadGroup.MetaGroupSize"] = simCall{"(none)", classNone, noMeta}
	simCalls["CoalescedGroup.Mask"] = simCall{"(none)", classNone, refuseWith("cg::coalesced_group does not expose its lane mask; use __activemask() (t.ActiveMask) or the group's Ballot")}
	simCalls["ThreadBlock.GroupIndex"] = simCall{"blockIdx", classNone, dim3("GroupIndex", "BlockIdx")}
	simCalls["ThreadBlock.ThreadIndex"] = simCall{"threadIdx", classNone, dim3("ThreadIndex", "ThreadIdx")}
	simCalls["ThreadBlock.DimThreads"] = simCall{"blockDim", classNone, dim3("DimThreads", "BlockDim")}
	simCalls["GridGroup.BlockIndex"] = simCall{"blockIdx", classNone, dim3("BlockIndex", "BlockIdx")}
	simCalls["GridGroup.DimBlocks"] = simCall{"gridDim", classNone, dim3("DimBlocks", "GridDim")}
	simCalls["GridGroup.BlockRank"] = simCall{"grid.block_rank()", classNone, method("block_rank", "long long")}
	simCalls["GridGroup.NumBlocks"] = simCall{"grid.num_blocks()", classNone, method("num_blocks", "long long")}
	simCalls["GridGroup.IsValid"] = simCall{"grid.is_valid()", classNone, method("is_valid", "")}
	simCalls["GridGroup.Sync"] = simCall{"grid.sync()", classEffect, emitGridSync}

	simCalls["ThisThreadBlock"] = simCall{"cg::this_thread_block()", classNone, fixedCG("cg::this_thread_block()")}
	simCalls["ThisGrid"] = simCall{"cg::this_grid()", classNone, fixedCG("cg::this_grid()")}
	simCalls["CoalescedThreads"] = simCall{"cg::coalesced_threads()", classLoad, fixedCG("cg::coalesced_threads()")}
	simCalls["TiledPartitionOf"] = simCall{"cg::tiled_partition<N>(parent)", classNone, emitTiledPartitionOf}
	simCalls["TiledPartition"] = simCall{"cg::tiled_partition(parent, n)", classNone, emitTiledPartition}
	simCalls["LabeledPartition"] = simCall{"cg::labeled_partition(parent, label)", classLoad, emitPartition("labeled_partition")}
	simCalls["BinaryPartition"] = simCall{"cg::binary_partition(parent, pred)", classLoad, emitPartition("binary_partition")}

	simCalls["TileShfl"] = simCall{"tile.shfl(v, src)", classLoad, groupShflEmit("shfl", coopTile, false)}
	simCalls["TileShflUp"] = simCall{"tile.shfl_up(v, delta)", classLoad, groupShflEmit("shfl_up", coopTile, true)}
	simCalls["TileShflDown"] = simCall{"tile.shfl_down(v, delta)", classLoad, groupShflEmit("shfl_down", coopTile, true)}
	simCalls["TileShflXor"] = simCall{"tile.shfl_xor(v, mask)", classLoad, groupShflEmit("shfl_xor", coopTile, true)}
	simCalls["TileMatchAny"] = simCall{"tile.match_any(v)", classLoad, groupMatchAnyEmit(coopTile)}
	simCalls["TileMatchAll"] = simCall{"tile.match_all(v, pred)", classLoad, groupMatchAllEmit(coopTile)}
	simCalls["CoalescedShfl"] = simCall{"group.shfl(v, rank)", classLoad, groupShflEmit("shfl", coopCoalesced, false)}
	simCalls["CoalescedShflUp"] = simCall{"group.shfl_up(v, delta)", classLoad, groupShflEmit("shfl_up", coopCoalesced, true)}
	simCalls["CoalescedShflDown"] = simCall{"group.shfl_down(v, delta)", classLoad, groupShflEmit("shfl_down", coopCoalesced, true)}
	simCalls["CoalescedMatchAny"] = simCall{"group.match_any(v)", classLoad, groupMatchAnyEmit(coopCoalesced)}
	simCalls["CoalescedMatchAll"] = simCall{"group.match_all(v, pred)", classLoad, groupMatchAllEmit(coopCoalesced)}
	simCalls["Reduce"] = simCall{"cg::reduce(g, v, cg::op<T>())", classLoad, collectiveEmit("reduce", "cgreduce")}
	simCalls["InclusiveScan"] = simCall{"cg::inclusive_scan(g, v, cg::op<T>())", classLoad, collectiveEmit("inclusive_scan", "cgscan")}
	simCalls["ExclusiveScan"] = simCall{"cg::exclusive_scan(g, v, cg::op<T>())", classLoad, collectiveEmit("exclusive_scan", "cgscan")}

	simCalls["NewAtomicRef"] = simCall{"cuda::atomic_ref<T, cuda::thread_scope_X>(b[i])", classNone, emitNewAtomicRef}
	simCalls["AtomicRef.Load"] = simCall{"r.load(order)", classEffect, refMethod("load", 0, false, "release", "acq_rel")}
	simCalls["AtomicRef.Store"] = simCall{"r.store(v, order)", classEffect, refMethod("store", 1, false, "acquire", "acq_rel")}
	simCalls["AtomicRef.Exchange"] = simCall{"r.exchange(v, order)", classEffect, refMethod("exchange", 1, false)}
	simCalls["AtomicRef.FetchAdd"] = simCall{"r.fetch_add(v, order)", classEffect, refMethod("fetch_add", 1, false)}
	simCalls["AtomicRef.FetchSub"] = simCall{"r.fetch_sub(v, order)", classEffect, refMethod("fetch_sub", 1, false)}
	simCalls["AtomicRef.FetchMin"] = simCall{"r.fetch_min(v, order)", classEffect, refMethod("fetch_min", 1, true)}
	simCalls["AtomicRef.FetchMax"] = simCall{"r.fetch_max(v, order)", classEffect, refMethod("fetch_max", 1, true)}
	simCalls["AtomicRef.FetchAnd"] = simCall{"r.fetch_and(v, order)", classEffect, refMethod("fetch_and", 1, true)}
	simCalls["AtomicRef.FetchOr"] = simCall{"r.fetch_or(v, order)", classEffect, refMethod("fetch_or", 1, true)}
	simCalls["AtomicRef.FetchXor"] = simCall{"r.fetch_xor(v, order)", classEffect, refMethod("fetch_xor", 1, true)}
	simCalls["AtomicRef.CompareExchangeStrong"] = simCall{"r.compare_exchange_strong(expected, desired, order)", classEffect, emitCompareExchange(false)}
	simCalls["AtomicRef.CompareExchangeWeak"] = simCall{"r.compare_exchange_weak(expected, desired, order)", classEffect, emitCompareExchange(true)}

	// The headers come first: #include lines ahead of every snippet. The
	// shim (GOSIM_SHIM_H) models them for clang without the toolkit.
	prelude = append([]struct{ name, deps, text string }{
		{"cg", "", "#ifndef GOSIM_SHIM_H\n#include <cooperative_groups.h>\n#endif\nnamespace cg = cooperative_groups;\n"},
		{"cgreduce", "cg", "#ifndef GOSIM_SHIM_H\n#include <cooperative_groups/reduce.h>\n#endif\n"},
		{"cgscan", "cg", "#ifndef GOSIM_SHIM_H\n#include <cooperative_groups/scan.h>\n#endif\n"},
		{"atomic", "", "#ifndef GOSIM_SHIM_H\n#include <cuda/atomic>\n#endif\n"},
	}, prelude...)
	prelude = append(prelude, []struct{ name, deps, text string }{
		{"cgmatchall", "cg", `// match_all's two results: CUDA returns the predicate through a reference.
struct gosim_cg_match_all_res {
	unsigned int r0;
	bool r1;
};
template <typename G, typename T> __device__ __forceinline__ gosim_cg_match_all_res gosim_cg_match_all(const G &g, T v)
{
	int pred;
	unsigned int m = g.match_all(v, pred);
	return gosim_cg_match_all_res{m, pred != 0};
}
`},
		{"atomiccas", "atomic", `// compare_exchange's two results: the old value (CUDA writes it into
// expected) and whether the exchange happened.
template <typename T> struct gosim_cas_res {
	T r0;
	bool r1;
};
template <typename R, typename T> __device__ __forceinline__ gosim_cas_res<T> gosim_cas_strong(const R &r, T expected, T desired, cuda::memory_order o)
{
	bool ok = r.compare_exchange_strong(expected, desired, o);
	return gosim_cas_res<T>{expected, ok};
}
template <typename R, typename T> __device__ __forceinline__ gosim_cas_res<T> gosim_cas_weak(const R &r, T expected, T desired, cuda::memory_order o)
{
	bool ok = r.compare_exchange_weak(expected, desired, o);
	return gosim_cas_res<T>{expected, ok};
}
`},
	}...)
	Shim = append(Shim[:len(Shim):len(Shim)], shimCoop...)
}

// shimCoop models cooperative_groups.h, its reduce.h and scan.h, and
// cuda/atomic's atomic_ref for clang without the toolkit; it is appended
// to Shim.
//
//go:embed shim_coop.h
var shimCoop []byte

// constantInt64 is v as an int64, if it is an integer that fits.
func constantInt64(v constant.Value) (int64, bool) {
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

// isCoopTuple reports whether c is one of the two-result calls of this
// file, which return through a prelude result struct.
func (f *fn) isCoopTuple(c *ast.CallExpr) bool {
	for _, n := range []string{"TileMatchAll", "CoalescedMatchAll", "CompareExchangeStrong", "CompareExchangeWeak"} {
		if f.isSimFunc(c, n) {
			return true
		}
	}
	return false
}

// devicePrelude are this file's snippets, which need cooperative_groups.h
// or cuda/atomic (or the shim): the host harness of TestPreludeSemantics
// leaves them out. The CUDA they call is checked by TestClangCompiles.
var devicePrelude = map[string]bool{"cg": true, "cgreduce": true, "cgscan": true, "atomic": true, "cgmatchall": true, "atomiccas": true}

// coopAssign refuses an assignment to an existing AtomicRef variable
// (cuda::atomic_ref cannot be assigned, and its type carries the scope)
// and reports whether it did.
func (f *fn) coopAssign(lhs ast.Expr) bool {
	if k, _ := f.tr.coop(f.typeOf(lhs)); k == coopAtomicRef {
		f.errorf(lhs.Pos(), "an AtomicRef cannot be assigned in CUDA (cuda::atomic_ref has no assignment); declare a new variable with :=")
		return true
	}
	return false
}
