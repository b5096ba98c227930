package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

func (f *fn) stmts(list []ast.Stmt) {
	for _, s := range list {
		f.stmt(s)
	}
}

// body writes statements one level in, as the body of a C block whose braces
// the caller writes.
func (f *fn) body(list []ast.Stmt) {
	f.depth++
	f.stmts(list)
	f.depth--
}

func (f *fn) stmt(s ast.Stmt) {
	f.tr.cur = s.Pos()
	if testHook != nil {
		testHook(s)
	}
	switch s := s.(type) {
	case *ast.EmptyStmt:
	case *ast.BlockStmt:
		f.linef(s.Pos(), "{")
		f.body(s.List)
		f.linef(token.NoPos, "}")
	case *ast.ExprStmt:
		f.exprStmt(s)
	case *ast.AssignStmt:
		f.assign(s)
	case *ast.DeclStmt:
		f.declStmt(s)
	case *ast.IncDecStmt:
		f.order(s.X)
		f.linef(s.Pos(), "%s;", f.incDec(s))
	case *ast.IfStmt:
		f.ifStmt(s)
	case *ast.ForStmt:
		f.forStmt(s, nil)
	case *ast.RangeStmt:
		f.rangeStmt(s, nil)
	case *ast.SwitchStmt:
		f.switchStmt(s, nil)
	case *ast.LabeledStmt:
		f.labeled(s)
	case *ast.BranchStmt:
		f.branch(s)
	case *ast.ReturnStmt:
		f.ret(s)
	case *ast.GoStmt:
		f.errorf(s.Pos(), "goroutines cannot run on the GPU; every thread of the grid already runs the kernel body")
	case *ast.DeferStmt:
		f.errorf(s.Pos(), "defer is not translated (a GPU thread has no deferred calls); call the function at each return")
	case *ast.SelectStmt:
		f.errorf(s.Pos(), "select cannot run on the GPU (there are no channels); communicate through buffers, atomics and barriers")
	case *ast.SendStmt:
		f.errorf(s.Pos(), "channels cannot run on the GPU; communicate through buffers, atomics and barriers")
	case *ast.TypeSwitchStmt:
		f.errorf(s.Pos(), "type switches cannot run on the GPU (no interfaces); use a type parameter or separate functions")
	default:
		f.errorf(s.Pos(), "this statement is not translated; rewrite it with if, for, switch and assignments")
	}
}

func (f *fn) exprStmt(s *ast.ExprStmt) {
	call, ok := ast.Unparen(s.X).(*ast.CallExpr)
	if !ok {
		if u, ok := ast.Unparen(s.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			f.errorf(s.Pos(), "channels cannot run on the GPU; communicate through buffers, atomics and barriers")
			return
		}
		f.errorf(s.Pos(), "this expression statement is not translated; assign its value or drop it")
		return
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := f.tr.info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
			f.panicStmt(call)
			return
		}
	}
	f.order(call)
	c := f.call(call, true)
	if c != "" {
		f.linef(s.Pos(), "%s;", strip(c))
	}
}

// panicStmt: a Go panic stops the kernel with an error; so does __trap.
func (f *fn) panicStmt(call *ast.CallExpr) {
	for _, a := range call.Args {
		tv := f.tr.info.Types[a]
		if tv.Value != nil {
			continue // the message is for humans; a trap carries none
		}
		t := f.typeOf(a)
		if t == nil || f.tr.typeError(t) != "" {
			f.errorf(a.Pos(), "panic's argument must be a constant or a value of a kernel type (the GPU cannot format it); write panic(\"message\")")
			return
		}
		f.order(a)
		f.linef(a.Pos(), "(void)(%s);", strip(f.expr(a)))
	}
	f.linef(call.Pos(), "__trap();")
}

func (f *fn) declStmt(s *ast.DeclStmt) {
	g, ok := s.Decl.(*ast.GenDecl)
	if !ok {
		return
	}
	if g.Tok != token.VAR {
		return // constants fold where used; local types are their underlying types
	}
	for _, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		switch {
		case len(vs.Values) == 0:
			for _, id := range vs.Names {
				o := f.tr.info.Defs[id]
				if o == nil {
					continue
				}
				t := f.resolve(o.Type())
				if f.coopZeroDecl(id.Pos(), t) {
					f.bad[o] = true
					continue
				}
				if !f.checkVarType(id.Pos(), t) {
					f.bad[o] = true
					continue
				}
				if id.Name == "_" {
					continue
				}
				f.linef(id.Pos(), "%s = %s;", f.tr.decl(t, f.names.name(o)), f.tr.zero(t))
			}
		case len(vs.Values) == len(vs.Names):
			for i, id := range vs.Names {
				f.order(vs.Values[i])
				f.assign1(id.Pos(), id, vs.Values[i], true)
			}
		default:
			lhs := make([]ast.Expr, len(vs.Names))
			for i, id := range vs.Names {
				lhs[i] = id
			}
			f.tuple(vs.Pos(), lhs, vs.Values[0], true)
		}
	}
}

// checkVarType refuses a variable of a type kernels cannot hold.
func (f *fn) checkVarType(pos token.Pos, t types.Type) bool {
	if msg := f.tr.typeError(t); msg != "" {
		f.errorf(pos, "%s", msg)
		return false
	}
	if f.tr.isThread(t) {
		f.errorf(pos, "the thread cannot be stored in a variable; use the kernel body's parameter directly")
		return false
	}
	if usesArray(t) {
		f.need("array")
	}
	return true
}

func (f *fn) assign(s *ast.AssignStmt) {
	switch s.Tok {
	case token.DEFINE, token.ASSIGN:
		define := s.Tok == token.DEFINE
		switch {
		case len(s.Lhs) == 1 && len(s.Rhs) == 1:
			f.order(nodes(append(f.lhsOperands(s.Lhs), s.Rhs[0]))...)
			f.assign1(s.Pos(), s.Lhs[0], s.Rhs[0], define)
		case len(s.Lhs) == len(s.Rhs):
			f.parallel(s, define)
		default:
			f.tuple(s.Pos(), s.Lhs, s.Rhs[0], define)
		}
	default:
		f.order(nodes(append(f.lhsOperands(s.Lhs), s.Rhs[0]))...)
		f.linef(s.Pos(), "%s;", f.opAssign(s))
	}
}

// lhsOperands are the index operands of assignment targets, which Go
// evaluates with the right-hand side, left to right.
func (f *fn) lhsOperands(lhs []ast.Expr) []ast.Expr {
	var out []ast.Expr
	for _, l := range lhs {
		out = append(out, lhsIndexes(l)...)
	}
	return out
}

// lhsIndexes are the index expressions of one assignment target: i and j
// of a[i][j] and of a[i][j].X.
func lhsIndexes(l ast.Expr) []ast.Expr {
	var out []ast.Expr
	for {
		switch x := l.(type) {
		case *ast.ParenExpr:
			l = x.X
			continue
		case *ast.IndexExpr:
			out = append(out, x.Index)
			l = x.X
			continue
		case *ast.SelectorExpr:
			l = x.X
			continue
		}
		return out
	}
}

// lhsRoot is the variable an assignment target writes (a of a[i].X), or
// nil.
func (f *fn) lhsRoot(l ast.Expr) types.Object {
	for {
		switch x := l.(type) {
		case *ast.ParenExpr:
			l = x.X
			continue
		case *ast.IndexExpr:
			l = x.X
			continue
		case *ast.SelectorExpr:
			l = x.X
			continue
		case *ast.Ident:
			if x.Name == "_" {
				return nil
			}
			return f.obj(x)
		}
		return nil
	}
}

// freezeLHS keeps Go's two phases of an assignment of several targets:
// the index operands on the left are evaluated, with the right-hand side,
// before any target is assigned. Where the C would see another value,
// because an index reads a variable that a target before it assigns (i, a[i]
// = 1, 2 stores to a[old i]) or calls a function (which Go calls before the
// right-hand side's), the index goes into a temporary first, which the
// target's lvalue then reads. It writes the temporaries at pos.
func (f *fn) freezeLHS(pos token.Pos, lhs []ast.Expr) {
	var assigned []types.Object
	for _, l := range lhs {
		if l == nil {
			continue
		}
		for _, ix := range lhsIndexes(l) {
			if f.tr.info.Types[ix].Value != nil || !(hasCall(ix) || f.mentionsAny(ix, assigned)) {
				continue
			}
			t := f.typeOf(ix)
			if b := basic(t); b == nil || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUntyped != 0 {
				t = types.Typ[types.Int]
			}
			tmp := f.names.fresh("gosim_ix")
			f.linef(pos, "%s = %s;", f.tr.decl(t, tmp), strip(f.expr(ix)))
			if f.frozen == nil {
				f.frozen = map[ast.Expr]string{}
			}
			f.frozen[ix] = tmp
		}
		if o := f.lhsRoot(l); o != nil {
			assigned = append(assigned, o)
		}
	}
}

// mentionsAny reports whether e reads one of the variables objs.
func (f *fn) mentionsAny(e ast.Expr, objs []types.Object) bool {
	if len(objs) == 0 {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			o := f.obj(id)
			for _, a := range objs {
				if o != nil && o == a {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// isNew reports whether lhs is an identifier that := declares here.
func (f *fn) isNew(lhs ast.Expr, define bool) (types.Object, bool) {
	id, ok := lhs.(*ast.Ident)
	if !ok || !define {
		return nil, false
	}
	o := f.tr.info.Defs[id]
	return o, o != nil
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// assign1 is lhs = rhs, or lhs := rhs when define and lhs is new.
func (f *fn) assign1(pos token.Pos, lhs, rhs ast.Expr, define bool) {
	if isBlank(lhs) {
		if f.tr.info.Types[rhs].Value != nil {
			return
		}
		if f.tr.isThread(f.typeOf(rhs)) {
			return
		}
		f.linef(pos, "(void)(%s);", strip(f.expr(rhs)))
		return
	}
	if o, ok := f.isNew(lhs, define); ok {
		f.declare(pos, o, rhs)
		return
	}
	if f.coopAssign(lhs) {
		return
	}
	lv := f.lvalue(lhs)
	f.linef(pos, "%s = %s;", lv, strip(f.valueAs(rhs, f.typeOf(lhs))))
}

// declare writes the declaration of the new variable o initialised by rhs.
func (f *fn) declare(pos token.Pos, o types.Object, rhs ast.Expr) {
	t := f.resolve(o.Type())
	if call, ok := ast.Unparen(rhs).(*ast.CallExpr); ok {
		if g := f.tr.calleeFunc(call); g != nil && f.tr.isSim(g) {
			switch g.Name() {
			case "Shared", "SharedVar", "Shared2D":
				f.sharedDecl(pos, o, call)
				return
			case "DynamicShared":
				e, _ := f.tr.isBuffer(t)
				f.need("dynsmem")
				c := f.tr.ctype(e)
				f.linef(pos, "%s *%s = (%s *)gosim_dynamic_smem;", c, f.names.name(o), c)
				return
			}
		}
	}
	if _, ok := ast.Unparen(rhs).(*ast.FuncLit); ok {
		f.errorf(rhs.Pos(), "closures inside a kernel cannot run on the GPU; write a package-level function and call it")
		f.bad[o] = true
		return
	}
	if f.coopDeclare(pos, o, t, rhs) {
		return
	}
	before := f.nerr
	val := strip(f.valueAs(rhs, t))
	if f.nerr > before {
		f.bad[o] = true // the value is refused: its type gets no second diagnostic
		return
	}
	if !f.checkVarType(pos, t) {
		f.bad[o] = true
		return
	}
	f.linef(pos, "%s = %s;", f.tr.decl(t, f.names.name(o)), val)
}

// sharedDecl: x := sim.Shared[T](t, "name", n) is __shared__ T x[n];
func (f *fn) sharedDecl(pos token.Pos, o types.Object, call *ast.CallExpr) {
	g := f.tr.calleeFunc(call)
	var dims []string
	for _, a := range call.Args[2:] {
		v := f.tr.info.Types[a].Value
		if v == nil {
			f.errorf(a.Pos(), "a static shared array needs a constant length in CUDA; use a constant, or sim.DynamicShared with the size given at launch")
			return
		}
		dims = append(dims, v.ExactString())
	}
	if g.Name() == "SharedVar" {
		dims = []string{"1"}
	}
	if (g.Name() == "Shared") != (len(call.Args) == 3) {
		f.errorf(pos, "sim.Shared takes the thread, a name and a length")
		return
	}
	n := f.tr.info.Types[call.Args[len(call.Args)-1]].Value
	if n == nil && g.Name() != "SharedVar" {
		f.errorf(call.Args[2].Pos(), "a static shared array needs a constant length in CUDA; use a constant, or sim.DynamicShared with the size given at launch")
		return
	}
	if !f.inBody {
		f.errorf(pos, "sim.Shared before the kernel body runs once, on the host, in the simulator; declare it in the body")
		return
	}
	e, _ := f.tr.isBuffer(f.resolve(o.Type()))
	f.shared[o] = true
	f.declShared = true
	if len(dims) == 2 {
		// A 2-D array, row-major as in the simulator, named through a
		// pointer to its first element that the kernel indexes r*cols+c.
		name := f.names.name(o)
		f.linef(pos, "__shared__ %s gosim_2d_%s[%s][%s];", f.tr.ctype(e), name, dims[0], dims[1])
		f.linef(pos, "%s *%s = &gosim_2d_%s[0][0];", f.tr.ctype(e), name, name)
		return
	}
	f.linef(pos, "__shared__ %s %s[%s];", f.tr.ctype(e), f.names.name(o), dims[0])
}

// parallel is a, b = x, y: every right-hand side is evaluated before any
// variable changes.
func (f *fn) parallel(s *ast.AssignStmt, define bool) {
	allNew := define
	for _, l := range s.Lhs {
		if _, ok := f.isNew(l, define); !ok && !isBlank(l) {
			allNew = false
		}
	}
	for _, r := range s.Rhs {
		f.order(r)
	}
	for _, o := range f.lhsOperands(s.Lhs) {
		f.order(o)
	}
	if allNew {
		for i, l := range s.Lhs {
			f.assign1(s.Pos(), l, s.Rhs[i], true)
		}
		return
	}
	// Declare the new variables first, then assign all through temporaries.
	for _, l := range s.Lhs {
		if o, ok := f.isNew(l, define); ok {
			t := f.resolve(o.Type())
			if f.checkVarType(l.Pos(), t) {
				f.linef(s.Pos(), "%s = %s;", f.tr.decl(t, f.names.name(o)), f.tr.zero(t))
			} else {
				f.bad[o] = true
			}
		}
	}
	f.linef(s.Pos(), "{")
	f.depth++
	f.freezeLHS(s.Pos(), s.Lhs)
	tmps := make([]string, len(s.Rhs))
	for i, r := range s.Rhs {
		if isBlank(s.Lhs[i]) {
			if f.tr.info.Types[r].Value == nil {
				f.linef(s.Pos(), "(void)(%s);", strip(f.expr(r)))
			}
			continue
		}
		t := f.typeOf(s.Lhs[i])
		tmps[i] = f.names.fresh("gosim_t")
		if f.checkVarType(r.Pos(), t) {
			f.linef(s.Pos(), "%s = %s;", f.tr.decl(t, tmps[i]), strip(f.valueAs(r, t)))
		}
	}
	for i, l := range s.Lhs {
		if tmps[i] == "" {
			continue
		}
		if o, ok := f.isNew(l, define); ok {
			f.linef(s.Pos(), "%s = %s;", f.names.name(o), tmps[i])
		} else {
			f.linef(s.Pos(), "%s = %s;", f.lvalue(l), tmps[i])
		}
	}
	f.depth--
	f.linef(s.Pos(), "}")
}

// calleeObj is the object a call's function names (x.f or f), or nil.
func calleeObj(info *types.Info, call *ast.CallExpr) types.Object {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return info.Uses[fun]
	case *ast.SelectorExpr:
		return info.Uses[fun.Sel]
	}
	return nil
}

// tuple is a, b := f(x) for a helper with several results.
func (f *fn) tuple(pos token.Pos, lhs []ast.Expr, rhs ast.Expr, define bool) {
	call, ok := ast.Unparen(rhs).(*ast.CallExpr)
	if !ok || !(f.tr.isHelperCall(call) || f.isSimFunc(call, "MatchAllSync") || f.isCoopTuple(call)) {
		if ok {
			if fn, isFn := calleeObj(f.tr.info, call).(*types.Func); isFn && fn.Pkg() != nil && !f.tr.isSim(fn) {
				f.errorf(pos, "%s.%s gives several values and has no CUDA form in a kernel: only helpers of the kernel's own package (and sim.MatchAllSync) may; write the computation out", fn.Pkg().Name(), fn.Name())
				return
			}
		}
		f.errorf(pos, "only a call of a helper function of the kernel's package can give several values in a kernel (no maps, type assertions or channels); assign the values one by one")
		return
	}
	f.order(rhs)
	for _, l := range lhs {
		if isBlank(l) {
			continue
		}
		if o, ok := f.isNew(l, define); ok {
			t := f.resolve(o.Type())
			if f.checkVarType(l.Pos(), t) {
				f.linef(pos, "%s = %s;", f.tr.decl(t, f.names.name(o)), f.tr.zero(t))
			} else {
				f.bad[o] = true
			}
		}
	}
	f.linef(pos, "{")
	f.depth++
	f.freezeLHS(pos, lhs)
	c := f.call(call, false)
	res := f.lastRes
	tmp := f.names.fresh("gosim_r")
	f.linef(pos, "%s %s = %s;", res, tmp, strip(c))
	for i, l := range lhs {
		if isBlank(l) {
			continue
		}
		if o, ok := f.isNew(l, define); ok {
			f.linef(pos, "%s = %s.r%d;", f.names.name(o), tmp, i)
		} else {
			f.linef(pos, "%s = %s.r%d;", f.lvalue(l), tmp, i)
		}
	}
	f.depth--
	f.linef(pos, "}")
}

// lvalue translates an assignment target, refusing writes a GPU thread
// cannot make the way the simulator does.
func (f *fn) lvalue(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return f.lvalue(x.X)
	case *ast.Ident:
		o := f.obj(x)
		v, ok := o.(*types.Var)
		if !ok {
			f.errorf(x.Pos(), "%s cannot be assigned in a kernel", x.Name)
			return x.Name
		}
		if v.Parent() == f.tr.pkg.Scope() {
			f.errorf(x.Pos(), "kernels cannot write package-level variables (host state every thread would race on); pass a buffer and store to it")
			return x.Name
		}
		if why, ok := f.readonly[o]; ok {
			f.errorf(x.Pos(), "%s cannot be written in the kernel body: %s; copy it first (%s := %s) and write the copy", x.Name, why, x.Name, x.Name)
			return x.Name
		}
		if f.shared[o] {
			f.errorf(x.Pos(), "a shared array variable cannot be reassigned (it names the __shared__ array); use another variable")
			return x.Name
		}
		if f.threads[o] {
			f.errorf(x.Pos(), "the thread cannot be reassigned")
			return x.Name
		}
		return f.names.name(o)
	case *ast.IndexExpr:
		if _, ok := f.typeOf(x.X).Underlying().(*types.Array); ok {
			f.need("array")
			return f.lvalue(x.X) + "[" + f.index(x.Index) + "]"
		}
	case *ast.SelectorExpr:
		if s, ok := f.tr.info.Selections[x]; ok && s.Kind() == types.FieldVal && f.tr.isVec(f.typeOf(x.X)) {
			return f.lvalue(x.X) + "." + strings.ToLower(x.Sel.Name) // a field of a local vector
		}
	}
	if f.mentionsBad(e) {
		f.failed = true // refused where it was declared
		return "gosim_invalid"
	}
	f.errorf(e.Pos(), "this assignment target is not translated; assign to a local variable or a local array element, or Store to a buffer")
	return "gosim_invalid"
}

// opAssign is x op= y.
func (f *fn) opAssign(s *ast.AssignStmt) string {
	op := map[token.Token]token.Token{
		token.ADD_ASSIGN: token.ADD, token.SUB_ASSIGN: token.SUB, token.MUL_ASSIGN: token.MUL,
		token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.AND_ASSIGN: token.AND,
		token.OR_ASSIGN: token.OR, token.XOR_ASSIGN: token.XOR, token.SHL_ASSIGN: token.SHL,
		token.SHR_ASSIGN: token.SHR, token.AND_NOT_ASSIGN: token.AND_NOT,
	}[s.Tok]
	lhs, rhs := s.Lhs[0], s.Rhs[0]
	t := f.typeOf(lhs)
	lv := f.lvalue(lhs)
	ref := lv
	pre := ""
	if hasCall(lhs) {
		// The target's index is evaluated once, as in Go.
		ref = f.names.fresh("gosim_ref")
		pre = "{ " + f.tr.ctype(t) + " &" + ref + " = " + lv + "; "
	}
	ys := f.valueAs(rhs, f.typeOf(rhs))
	if c, ok := f.constCount(rhs); ok && (op == token.SHL || op == token.SHR) {
		ys = strconv.FormatUint(c, 10)
	} else if op != token.SHL && op != token.SHR {
		ys = f.valueAs(rhs, t)
	}
	val := f.binop(op, t, f.typeOf(rhs), lhs, rhs, ref, ys, s.Pos())
	if pre != "" {
		return pre + ref + " = " + strip(val) + "; }"
	}
	plain := "(" + ref + " " + op.String() + " " + ys + ")"
	if op == token.AND_NOT {
		plain = "(" + ref + " & ~" + ys + ")"
	}
	if val == plain {
		if op == token.AND_NOT {
			return ref + " &= ~" + ys
		}
		return ref + " " + op.String() + "= " + strip(ys)
	}
	return ref + " = " + strip(val)
}

// incDec is x++ or x--: signed 32- and 64-bit counters wrap through
// gosim_inc and gosim_dec, as Go's do.
func (f *fn) incDec(s *ast.IncDecStmt) string {
	t := f.typeOf(s.X)
	lv := f.lvalue(s.X)
	if isInteger(t) && !isUnsigned(t) && !small(t) {
		f.need("intops")
		if s.Tok == token.INC {
			return "gosim_inc(" + lv + ")"
		}
		return "gosim_dec(" + lv + ")"
	}
	return lv + s.Tok.String()
}

// callsFunction reports whether e calls a function: a call that is neither
// a conversion nor constant, which makes len(e) of an array not a constant
// (Go spec, Length and capacity).
func callsFunction(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && !info.Types[c.Fun].IsType() && info.Types[c].Value == nil {
			found = true
		}
		return !found
	})
	return found
}

func hasCall(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if _, ok := n.(*ast.CallExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

func (f *fn) ifStmt(s *ast.IfStmt) {
	if s.Init != nil {
		f.linef(s.Pos(), "{")
		f.depth++
		f.stmt(s.Init)
	}
	f.order(s.Cond)
	f.linef(s.Pos(), "if (%s) {", strip(f.expr(s.Cond)))
	f.body(s.Body.List)
	for els := s.Else; els != nil; {
		if ei, ok := els.(*ast.IfStmt); ok && ei.Init == nil {
			f.order(ei.Cond)
			f.linef(ei.Pos(), "} else if (%s) {", strip(f.expr(ei.Cond)))
			f.body(ei.Body.List)
			els = ei.Else
			continue
		}
		f.linef(token.NoPos, "} else {")
		if b, ok := els.(*ast.BlockStmt); ok {
			f.body(b.List)
		} else {
			f.depth++
			f.stmt(els)
			f.depth--
		}
		break
	}
	f.linef(token.NoPos, "}")
	if s.Init != nil {
		f.depth--
		f.linef(token.NoPos, "}")
	}
}

// capture runs emit with the output going to a fresh buffer and returns it.
func (f *fn) capture(emit func()) string {
	saved := f.out
	f.out = strings.Builder{}
	emit()
	s := f.out.String()
	f.out = saved
	return s
}

// indent adds one tab to every line of C text but #line directives.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			b.WriteByte('\t')
		}
		b.WriteString(l)
	}
	return b.String()
}

// loopBody writes a loop's body and its continue label; the caller has
// written the loop header and writes the closing brace.
func (f *fn) loopBody(tg *target, list []ast.Stmt, post func()) {
	f.targets = append(f.targets, tg)
	text := f.capture(func() { f.body(list) })
	f.targets = f.targets[:len(f.targets)-1]
	if tg.usedCont {
		// The body goes in a block of its own so that the jump to the label
		// passes no declaration in the label's scope.
		f.depth++
		f.linef(token.NoPos, "{")
		f.out.WriteString(indent(text))
		f.linef(token.NoPos, "}")
		f.linef(token.NoPos, "%s: ;", tg.cont)
		f.depth--
	} else {
		f.out.WriteString(text)
	}
	if post != nil {
		f.depth++
		post()
		f.depth--
	}
}

func (f *fn) newTarget(label *types.Label, loop bool) *target {
	tg := &target{label: label, loop: loop}
	if label != nil {
		f.labels[label] = tg
	}
	return tg
}

func (f *fn) forStmt(s *ast.ForStmt, label *types.Label) {
	tg := f.newTarget(label, true)
	init := ""
	wrap := false
	if s.Init != nil {
		if a, ok := s.Init.(*ast.AssignStmt); ok && a.Tok == token.DEFINE && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
			if o, ok := f.isNew(a.Lhs[0], true); ok && basic(f.resolve(o.Type())) != nil {
				f.order(a.Rhs[0])
				t := f.resolve(o.Type())
				if f.checkVarType(a.Pos(), t) {
					init = f.tr.decl(t, f.names.name(o)) + " = " + strip(f.valueAs(a.Rhs[0], t))
				}
			}
		}
		if init == "" {
			wrap = true
			f.linef(s.Pos(), "{")
			f.depth++
			f.stmt(s.Init)
		}
	}
	cond := ""
	if s.Cond != nil {
		f.order(s.Cond)
		cond = strip(f.expr(s.Cond))
	}
	lv, r, plain := f.countedLoop(s)
	post, postOK := "", true
	if s.Post != nil {
		f.order(s.Post)
		if plain != "" {
			post = plain
		} else {
			post, postOK = f.postExpr(s.Post)
		}
	}
	if lv != nil {
		f.loopVar[lv] = r
	}
	tg.cContinue = postOK
	if postOK {
		f.linef(s.Pos(), "for (%s; %s; %s) {", init, cond, post)
		f.loopBody(tg, s.Body.List, nil)
	} else {
		f.linef(s.Pos(), "for (%s; %s; ) {", init, cond)
		f.loopBody(tg, s.Body.List, func() { f.stmt(s.Post) })
	}
	if lv != nil {
		delete(f.loopVar, lv)
	}
	f.linef(token.NoPos, "}")
	if wrap {
		f.depth--
		f.linef(token.NoPos, "}")
	}
	f.breakLabel(tg)
}

// breakLabel writes the label a goto-break jumps to, if one did.
func (f *fn) breakLabel(tg *target) {
	if tg.usedBrk {
		f.linef(token.NoPos, "%s: ;", tg.brk)
	}
}

// postExpr is a for loop's post statement as a C expression, if it is one.
func (f *fn) postExpr(s ast.Stmt) (string, bool) {
	switch s := s.(type) {
	case *ast.IncDecStmt:
		return f.incDec(s), true
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || s.Tok == token.DEFINE {
			return "", false
		}
		if s.Tok == token.ASSIGN {
			return f.lvalue(s.Lhs[0]) + " = " + strip(f.valueAs(s.Rhs[0], f.typeOf(s.Lhs[0]))), true
		}
		if hasCall(s.Lhs[0]) {
			return "", false
		}
		return f.opAssign(s), true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok && !f.isPanic(c) {
			return strip(f.call(c, true)), true
		}
	}
	return "", false
}

func (f *fn) isPanic(c *ast.CallExpr) bool {
	id, ok := ast.Unparen(c.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := f.tr.info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "panic"
}

func (f *fn) rangeStmt(s *ast.RangeStmt, label *types.Label) {
	if f.mentionsBad(s.X) {
		f.failed = true // refused where it was declared
		return
	}
	tg := f.newTarget(label, true)
	xt := f.typeOf(s.X)
	define := s.Tok == token.DEFINE
	keyObj, _ := f.isNew(s.Key, define)
	valObj, _ := f.isNew(s.Value, define)
	if s.Key != nil && isBlank(s.Key) {
		keyObj = nil
	}
	switch u := xt.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsInteger == 0 {
			break
		}
		if b := basic(xt); b.Info()&types.IsUntyped != 0 {
			xt = types.Typ[types.Int]
		}
		f.order(s.X)
		ct := f.tr.ctype(xt)
		lim := strip(f.valueAs(s.X, xt))
		wrap := f.tr.info.Types[s.X].Value == nil
		if _, isID := ast.Unparen(s.X).(*ast.Ident); isID && !assignsIn(f.tr.info, s, keyObjOr(f, ast.Unparen(s.X))) {
			wrap = false // the limit is a variable the loop (its clause included) does not change
		}
		if wrap {
			f.linef(s.Pos(), "{")
			f.depth++
			n := f.names.fresh("gosim_n")
			f.linef(s.Pos(), "%s %s = %s;", ct, n, lim)
			lim = n
		}
		ctr := ""
		if keyObj != nil && !assignsIn(f.tr.info, s.Body, keyObj) {
			ctr = f.names.name(keyObj)
			if _, hi, ok := f.rangeOf(s.X); ok && hi > 0 {
				f.loopVar[keyObj] = rng{0, hi - 1}
			}
		} else {
			ctr = f.names.fresh("gosim_i")
		}
		f.linef(s.Pos(), "for (%s %s = 0; %s < %s; %s++) {", ct, ctr, ctr, lim, ctr)
		f.depth++
		if s.Key != nil && !isBlank(s.Key) && ctr != f.keyName(s.Key) {
			if keyObj != nil {
				f.linef(s.Pos(), "%s %s = %s;", ct, f.names.name(keyObj), ctr)
			} else {
				f.linef(s.Pos(), "%s = %s;", f.lvalue(s.Key), ctr)
			}
		}
		f.depth--
		f.loopBody(tg, s.Body.List, nil)
		if keyObj != nil {
			delete(f.loopVar, keyObj)
		}
		f.linef(token.NoPos, "}")
		if wrap {
			f.depth--
			f.linef(token.NoPos, "}")
		}
		f.breakLabel(tg)
		return
	case *types.Array:
		f.need("array")
		f.order(s.X)
		arr := ""
		wrap := false
		useValue := s.Value != nil && !isBlank(s.Value)
		if useValue || callsFunction(f.tr.info, s.X) {
			// Go ranges over a copy of the array when it reads the values,
			// and evaluates it once when len(x) is not a constant, as
			// when x calls a function (Go spec, Length and capacity).
			arr = strip(f.expr(s.X))
			id, isID := ast.Unparen(s.X).(*ast.Ident)
			if !isID || assignsIn(f.tr.info, s, f.obj(id)) { // the clause's k, a[k] = too
				wrap = true
				f.linef(s.Pos(), "{")
				f.depth++
				tmp := f.names.fresh("gosim_a")
				f.linef(s.Pos(), "%s = %s;", f.tr.decl(xt, tmp), arr)
				arr = tmp
			}
		}
		ctr := ""
		if keyObj != nil && !assignsIn(f.tr.info, s.Body, keyObj) {
			ctr = f.names.name(keyObj)
			f.loopVar[keyObj] = rng{0, u.Len() - 1}
		} else {
			ctr = f.names.fresh("gosim_i")
		}
		f.linef(s.Pos(), "for (long long %s = 0; %s < %d; %s++) {", ctr, ctr, u.Len(), ctr)
		f.depth++
		if !define && useValue {
			// k, a[k] = range x assigns as k, a[k] = i, x[i] does.
			f.freezeLHS(s.Pos(), []ast.Expr{s.Key, s.Value})
		}
		if s.Key != nil && !isBlank(s.Key) && ctr != f.keyName(s.Key) {
			if keyObj != nil {
				f.linef(s.Pos(), "long long %s = %s;", f.names.name(keyObj), ctr)
			} else {
				f.linef(s.Pos(), "%s = %s;", f.lvalue(s.Key), ctr)
			}
		}
		if useValue {
			if valObj != nil {
				et := f.resolve(valObj.Type())
				f.linef(s.Pos(), "%s = %s[%s];", f.tr.decl(et, f.names.name(valObj)), arr, ctr)
			} else {
				f.linef(s.Pos(), "%s = %s[%s];", f.lvalue(s.Value), arr, ctr)
			}
		}
		f.depth--
		f.loopBody(tg, s.Body.List, nil)
		if keyObj != nil {
			delete(f.loopVar, keyObj)
		}
		f.linef(token.NoPos, "}")
		if wrap {
			f.depth--
			f.linef(token.NoPos, "}")
		}
		f.breakLabel(tg)
		return
	}
	if _, ok := f.tr.isBuffer(xt); ok {
		f.errorf(s.X.Pos(), "a buffer cannot be ranged over in a kernel (its length is host state); loop to a length passed as a kernel parameter")
		return
	}
	if msg := f.tr.typeError(xt); msg != "" {
		f.errorf(s.X.Pos(), "%s", msg)
		return
	}
	f.errorf(s.X.Pos(), "range over %s is not translated; range over an integer or a local array", xt)
}

// keyName is the C name of a range clause's key variable, or "" if the key
// is not a variable.
func (f *fn) keyName(e ast.Expr) string {
	if o := keyObjOr(f, e); o != nil {
		return f.names.name(o)
	}
	return ""
}

func keyObjOr(f *fn, e ast.Expr) types.Object {
	if id, ok := e.(*ast.Ident); ok {
		return f.obj(id)
	}
	return nil
}

// assignsIn reports whether body writes o (or an element of it).
func assignsIn(info *types.Info, body ast.Node, o types.Object) bool {
	if o == nil {
		return false
	}
	found := false
	target := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
				continue
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.Ident:
				if info.Uses[x] == o {
					found = true
				}
			}
			return
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				for _, l := range s.Lhs {
					target(l)
				}
			}
		case *ast.IncDecStmt:
			target(s.X)
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN {
				if s.Key != nil {
					target(s.Key)
				}
				if s.Value != nil {
					target(s.Value)
				}
			}
		}
		return !found
	})
	return found
}

// switchStmt lowers a switch to an if chain (or, with fallthrough, to
// gotos between case blocks): Go's break leaves the switch, not the loop
// around it, and Go's cases need not be constants.
func (f *fn) switchStmt(s *ast.SwitchStmt, label *types.Label) {
	tg := f.newTarget(label, false)
	f.linef(s.Pos(), "{")
	f.depth++
	if s.Init != nil {
		f.stmt(s.Init)
	}
	tag := ""
	var tagT types.Type
	if s.Tag != nil {
		f.order(s.Tag)
		tagT = f.typeOf(s.Tag)
		if b := basic(tagT); b != nil && b.Info()&types.IsUntyped != 0 {
			tagT = types.Default(tagT)
		}
		tag = f.valueAs(s.Tag, tagT)
		if _, ok := ast.Unparen(s.Tag).(*ast.Ident); !ok && f.tr.info.Types[s.Tag].Value == nil {
			tmp := f.names.fresh("gosim_tag")
			if f.checkVarType(s.Tag.Pos(), tagT) {
				f.linef(s.Pos(), "%s = %s;", f.tr.decl(tagT, tmp), strip(tag))
			}
			tag = tmp
		}
	}
	cond := func(cc *ast.CaseClause) string {
		var parts []string
		for _, e := range cc.List {
			f.order(e)
			if s.Tag != nil {
				parts = append(parts, f.compare(token.EQL, tagT, strip(tag), f.valueAs(e, tagT)))
			} else {
				parts = append(parts, f.expr(e))
			}
		}
		if len(parts) == 1 {
			return strip(parts[0])
		}
		return strings.Join(parts, " || ")
	}
	clauses := make([]*ast.CaseClause, 0, len(s.Body.List))
	fall := false
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		clauses = append(clauses, cc)
		if n := len(cc.Body); n > 0 {
			if b, ok := cc.Body[n-1].(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
				fall = true
			}
		}
	}
	f.targets = append(f.targets, tg)
	if !fall {
		first := true
		var def *ast.CaseClause
		for _, cc := range clauses {
			if cc.List == nil {
				def = cc
				continue
			}
			if first {
				f.linef(cc.Pos(), "if (%s) {", cond(cc))
			} else {
				f.linef(cc.Pos(), "} else if (%s) {", cond(cc))
			}
			first = false
			f.body(cc.Body)
		}
		if def != nil {
			if first {
				f.linef(def.Pos(), "{")
			} else {
				f.linef(def.Pos(), "} else {")
			}
			f.body(def.Body)
			first = false
		}
		if !first {
			f.linef(token.NoPos, "}")
		}
	} else {
		end := f.names.fresh("gosim_end")
		labels := make([]string, len(clauses))
		def := ""
		for i, cc := range clauses {
			labels[i] = f.names.fresh("gosim_case")
			if cc.List == nil {
				def = labels[i]
				continue
			}
			f.linef(cc.Pos(), "if (%s) goto %s;", cond(cc), labels[i])
		}
		if def != "" {
			f.linef(token.NoPos, "goto %s;", def)
		} else {
			f.linef(token.NoPos, "goto %s;", end)
		}
		for i, cc := range clauses {
			body := cc.Body
			through := false
			if n := len(body); n > 0 {
				if b, ok := body[n-1].(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
					through = true
					body = body[:n-1]
				}
			}
			f.linef(cc.Pos(), "%s: {", labels[i])
			f.body(body)
			if through {
				f.linef(token.NoPos, "}")
			} else {
				f.linef(token.NoPos, "} goto %s;", end)
			}
		}
		f.linef(token.NoPos, "%s: ;", end)
	}
	f.targets = f.targets[:len(f.targets)-1]
	f.breakLabel(tg)
	f.depth--
	f.linef(token.NoPos, "}")
}

func (f *fn) labeled(s *ast.LabeledStmt) {
	l, _ := f.tr.info.Defs[s.Label].(*types.Label)
	name := f.labelFor(l, s.Label.Name)
	f.linef(s.Pos(), "%s: ;", name)
	switch st := s.Stmt.(type) {
	case *ast.ForStmt:
		f.forStmt(st, l)
	case *ast.RangeStmt:
		f.rangeStmt(st, l)
	case *ast.SwitchStmt:
		f.switchStmt(st, l)
	default:
		f.stmt(s.Stmt)
	}
}

// labelFor is the C name of the Go label l.
func (f *fn) labelFor(l *types.Label, name string) string {
	if c, ok := f.glabels[l]; ok {
		return c
	}
	c := f.names.fresh(cIdent(name))
	f.glabels[l] = c
	return c
}

func (f *fn) branch(s *ast.BranchStmt) {
	var tg *target
	if s.Label != nil {
		l, _ := f.tr.info.Uses[s.Label].(*types.Label)
		if s.Tok == token.GOTO {
			f.linef(s.Pos(), "goto %s;", f.labelFor(l, s.Label.Name))
			return
		}
		tg = f.labels[l]
	} else {
		for i := len(f.targets) - 1; i >= 0; i-- {
			if s.Tok == token.CONTINUE && !f.targets[i].loop {
				continue
			}
			tg = f.targets[i]
			break
		}
	}
	switch s.Tok {
	case token.FALLTHROUGH:
		return // lowered by switchStmt
	case token.GOTO:
		return
	}
	if tg == nil {
		f.errorf(s.Pos(), "%s has no enclosing statement to leave", s.Tok)
		return
	}
	innermostLoop := false
	for i := len(f.targets) - 1; i >= 0; i-- {
		if f.targets[i].loop {
			innermostLoop = f.targets[i] == tg
			break
		}
	}
	if s.Tok == token.BREAK {
		if tg.loop && innermostLoop {
			f.linef(s.Pos(), "break;")
			return
		}
		if tg.brk == "" {
			tg.brk = f.names.fresh("gosim_break")
		}
		tg.usedBrk = true
		f.linef(s.Pos(), "goto %s;", tg.brk)
		return
	}
	if innermostLoop && tg.cContinue {
		f.linef(s.Pos(), "continue;")
		return
	}
	if tg.cont == "" {
		tg.cont = f.names.fresh("gosim_continue")
	}
	tg.usedCont = true
	f.linef(s.Pos(), "goto %s;", tg.cont)
}

func (f *fn) ret(s *ast.ReturnStmt) {
	if f.helper == nil {
		f.linef(s.Pos(), "return;")
		return
	}
	n := f.results.Len()
	switch {
	case n == 0:
		f.linef(s.Pos(), "return;")
	case len(s.Results) == 0:
		if n == 1 {
			f.linef(s.Pos(), "return %s;", f.resultNames[0])
		} else {
			f.linef(s.Pos(), "return %s{%s};", f.resStruct, strings.Join(f.resultNames, ", "))
		}
	case n == 1:
		f.order(s.Results[0])
		f.linef(s.Pos(), "return %s;", strip(f.valueAs(s.Results[0], f.resolve(f.results.At(0).Type()))))
	case len(s.Results) == n:
		var vals []string
		for i, r := range s.Results {
			f.order(r)
			vals = append(vals, strip(f.valueAs(r, f.resolve(f.results.At(i).Type()))))
		}
		f.linef(s.Pos(), "return %s{%s};", f.resStruct, strings.Join(vals, ", "))
	default:
		call, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr)
		if !ok {
			f.errorf(s.Pos(), "this return is not translated; return the values one by one")
			return
		}
		f.order(call)
		c := f.call(call, false)
		tmp := f.names.fresh("gosim_r")
		var vals []string
		for i := range n {
			vals = append(vals, fmt.Sprintf("%s.r%d", tmp, i))
		}
		f.linef(s.Pos(), "{ %s %s = %s; return %s{%s}; }", f.lastRes, tmp, strip(c), f.resStruct, strings.Join(vals, ", "))
	}
}

func nodes(es []ast.Expr) []ast.Node {
	out := make([]ast.Node, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// isSimFunc reports whether c calls the sim function name.
func (f *fn) isSimFunc(c *ast.CallExpr, name string) bool {
	g := f.tr.calleeFunc(c)
	return g != nil && f.tr.isSim(g) && g.Name() == name
}
