package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// callClass is what a call means for Go's left-to-right evaluation order.
type callClass int

const (
	classNone   callClass = iota // conversions, builtins, math: order is invisible
	classLoad                    // reads memory, or other lanes' registers (a warp collective, which orders no memory on hardware)
	classHelper                  // a package function: tr.effects says whether it writes
	classEffect                  // writes memory or synchronises threads
)

// calleeFunc is the function or method a call calls, if it is one by name.
func (tr *translator) calleeFunc(c *ast.CallExpr) *types.Func {
	fun := ast.Unparen(c.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		g, _ := tr.info.Uses[x].(*types.Func)
		return g
	case *ast.SelectorExpr:
		if s, ok := tr.info.Selections[x]; ok {
			g, _ := s.Obj().(*types.Func)
			return g
		}
		g, _ := tr.info.Uses[x.Sel].(*types.Func)
		return g
	}
	return nil
}

// simKey names a sim function or method in simCalls: "AtomicAdd",
// "Thread.SyncThreads", "Buffer.Load".
func simKey(g *types.Func) string {
	sig := g.Type().(*types.Signature)
	if r := sig.Recv(); r != nil {
		t := r.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + g.Name()
		}
	}
	return g.Name()
}

func (tr *translator) callClass(c *ast.CallExpr) callClass {
	if tv := tr.info.Types[c.Fun]; tv.IsType() {
		return classNone
	}
	g := tr.calleeFunc(c)
	if g == nil || g.Pkg() == nil {
		return classNone
	}
	switch {
	case tr.isSim(g):
		if s, ok := simCalls[simKey(g)]; ok {
			return s.class
		}
		return classNone
	case g.Pkg() == tr.pkg:
		if tr.isHelperCall(c) {
			return classHelper
		}
	}
	return classNone
}

// isHelperCall reports whether c calls a package-level function of the
// package being translated.
func (tr *translator) isHelperCall(c *ast.CallExpr) bool {
	g := tr.calleeFunc(c)
	return g != nil && g.Pkg() == tr.pkg && g.Type().(*types.Signature).Recv() == nil && tr.decls[g.Origin()] != nil
}

// ordInfo says whether an expression contains calls whose order matters
// (ord) and whether one of them has effects (eff).
type ordInfo struct {
	ord, eff bool
	pos      token.Pos
}

// order refuses a statement part whose operands, which Go evaluates left to
// right, hold two calls that C may evaluate in either order when one of them
// has effects: the C would be free to mean something else.
func (f *fn) order(nodes ...ast.Node) {
	var kids []ordInfo
	for _, n := range nodes {
		if n != nil {
			kids = append(kids, f.orderOf(n))
		}
	}
	f.siblings(kids)
}

func (f *fn) siblings(kids []ordInfo) ordInfo {
	var r ordInfo
	n := 0
	for _, k := range kids {
		if k.ord {
			n++
			if n == 2 {
				r.pos = k.pos
			}
		}
		r.ord = r.ord || k.ord
		r.eff = r.eff || k.eff
	}
	if n >= 2 && r.eff {
		f.errorf(r.pos, "Go evaluates the calls of this statement left to right, C in an unspecified order, and one of them writes memory or synchronises; assign the calls' results to variables in separate statements first")
	}
	if r.pos == token.NoPos {
		for _, k := range kids {
			if k.ord {
				r.pos = k.pos
				break
			}
		}
	}
	return r
}

func (f *fn) orderOf(n ast.Node) ordInfo {
	switch x := n.(type) {
	case *ast.CallExpr:
		var kids []ordInfo
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			if _, ok := f.tr.info.Selections[sel]; ok {
				kids = append(kids, f.orderOf(sel.X))
			}
		}
		for _, a := range x.Args {
			kids = append(kids, f.orderOf(a))
		}
		r := f.siblings(kids)
		cls := f.tr.callClass(x)
		if cls != classNone {
			r.ord = true
			r.pos = x.Pos()
		}
		if cls == classEffect {
			r.eff = true
		}
		if cls == classHelper {
			if g := f.tr.calleeFunc(x); g != nil && f.tr.effects[g.Origin()] {
				r.eff = true
			}
		}
		return r
	case *ast.BinaryExpr:
		a, b := f.orderOf(x.X), f.orderOf(x.Y)
		if x.Op == token.LAND || x.Op == token.LOR {
			// C sequences && and || as Go does.
			pos := a.pos
			if !a.ord {
				pos = b.pos
			}
			return ordInfo{ord: a.ord || b.ord, eff: a.eff || b.eff, pos: pos}
		}
		return f.siblings([]ordInfo{a, b})
	case *ast.ParenExpr:
		return f.orderOf(x.X)
	case *ast.UnaryExpr:
		return f.orderOf(x.X)
	case *ast.IndexExpr:
		return f.siblings([]ordInfo{f.orderOf(x.X), f.orderOf(x.Index)})
	case *ast.SelectorExpr:
		return f.orderOf(x.X)
	case *ast.CompositeLit:
		var kids []ordInfo
		for _, e := range x.Elts {
			kids = append(kids, f.orderOf(e))
		}
		return f.siblings(kids)
	case *ast.KeyValueExpr:
		return f.orderOf(x.Value)
	case *ast.IncDecStmt:
		return f.orderOf(x.X)
	case *ast.AssignStmt:
		var kids []ordInfo
		for _, o := range f.lhsOperands(x.Lhs) {
			kids = append(kids, f.orderOf(o))
		}
		for _, r := range x.Rhs {
			kids = append(kids, f.orderOf(r))
		}
		return f.siblings(kids)
	case *ast.ExprStmt:
		return f.orderOf(x.X)
	}
	return ordInfo{}
}

// call translates a call. stmt is set when the call is a statement of its
// own (Store, which has no value, is only that).
func (f *fn) call(c *ast.CallExpr, stmt bool) string {
	if f.mentionsBad(c.Fun) {
		return "0" // refused where it was declared
	}
	info := f.tr.info
	fun := ast.Unparen(c.Fun)
	if tv, ok := info.Types[fun]; ok && tv.IsType() {
		return f.conversion(c)
	}
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			return f.builtin(c, b.Name())
		}
	}
	if _, ok := fun.(*ast.FuncLit); ok {
		f.errorf(c.Pos(), "closures inside a kernel cannot run on the GPU; write a package-level function and call it")
		return "0"
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s, ok := info.Selections[sel]; ok {
			g, _ := s.Obj().(*types.Func)
			recv := f.resolve(s.Recv())
			if s.Kind() != types.MethodVal || g == nil {
				f.errorf(c.Pos(), "calls of function-valued fields are not translated; call a package-level function")
				return "0"
			}
			if _, isConst := f.tr.isConstant(recv); isConst || f.tr.isThread(recv) || f.isBufferType(recv) || f.tr.isCoop(recv) {
				return f.simCall(c, g, sel.X, stmt)
			}
			f.errorf(c.Pos(), "methods are not translated; write %s as a package-level function that takes the %s as a parameter", g.Name(), types.TypeString(recv, f.tr.qualifier))
			return "0"
		}
	}
	g := f.tr.calleeFunc(c)
	if g == nil || g.Pkg() == nil {
		f.errorf(c.Pos(), "function values cannot be called on the GPU; call a package-level function directly")
		return "0"
	}
	switch {
	case f.tr.isSim(g):
		return f.simCall(c, g, nil, stmt)
	case g.Pkg().Path() == "math":
		return f.mathCall(c, g)
	case g.Pkg().Path() == "math/bits":
		return f.bitsCall(c, g)
	case g.Pkg() == f.tr.pkg && f.tr.isHelperCall(c):
		return f.helperCall(c, g)
	case g.Pkg() == f.tr.pkg:
		f.errorf(c.Pos(), "%s has no body to translate; write it in Go in this package", g.Name())
		return "0"
	}
	if g.Pkg().Path() == "fmt" {
		f.errorf(c.Pos(), "fmt cannot run on the GPU (no strings, no output); store the values to a buffer and print them on the host")
		return "0"
	}
	f.errorf(c.Pos(), "calls into package %s cannot run on the GPU (only sim, math and math/bits are translated); compute the value in the kernel, or on the host and pass it in", g.Pkg().Path())
	return "0"
}

func (f *fn) isBufferType(t types.Type) bool {
	_, ok := f.tr.isBuffer(t)
	return ok
}

func (f *fn) conversion(c *ast.CallExpr) string {
	t := f.typeOf(c)
	if len(c.Args) != 1 {
		f.errorf(c.Pos(), "a conversion takes one value")
		return "0"
	}
	arg := c.Args[0]
	if msg := f.tr.typeError(t); msg != "" {
		f.errorf(c.Pos(), "%s", msg)
		return "0"
	}
	if basic(t) == nil {
		if usesArray(t) {
			return f.valueAs(arg, t) // between array types with one element type
		}
		f.errorf(c.Pos(), "this conversion is not translated; convert between number types only")
		return "0"
	}
	if f.tr.info.Types[arg].Value != nil {
		return f.valueAs(arg, t)
	}
	at := f.typeOf(arg)
	xs := f.expr(arg)
	if basic(at) != nil && f.tr.ctype(at) == f.tr.ctype(t) {
		return xs
	}
	return "((" + f.tr.ctype(t) + ")" + xs + ")"
}

func (f *fn) builtin(c *ast.CallExpr, name string) string {
	switch name {
	case "len", "cap":
		if len(c.Args) == 1 {
			if _, isArr := f.typeOf(c.Args[0]).Underlying().(*types.Array); isArr {
				f.errorf(c.Pos(), "%s of an array is only translated where Go makes it a constant, and the operand calls a function, which makes Go evaluate it: call the function in a statement before", name)
				break
			}
		}
		f.errorf(c.Pos(), "%s is only translated where it is a constant (of an array); a buffer's length is host state, so pass it as a kernel parameter", name)
	case "min", "max":
		t := f.typeOf(c)
		if b := basic(t); b == nil || b.Info()&types.IsString != 0 {
			f.errorf(c.Pos(), "%s on %s is not translated", name, t)
			return "0"
		}
		h := "gosim_" + name
		if isFloat(t) {
			h = "gosim_f" + name // NaN wins; min(-0, +0) is -0
		}
		f.need("minmax")
		// Left to right, as Go folds min(a, b, c) into min(min(a, b), c).
		acc := strip(f.valueAs(c.Args[0], t))
		for _, a := range c.Args[1:] {
			acc = h + "(" + acc + ", " + strip(f.valueAs(a, t)) + ")"
		}
		return acc
	case "panic":
		return "__trap()"
	case "new", "make", "append":
		f.errorf(c.Pos(), "%s allocates, and a kernel cannot allocate; declare a fixed-size array, or use sim.Shared or a buffer", name)
	case "copy":
		f.errorf(c.Pos(), "copy works on slices, which kernels cannot use; assign arrays, or loop over buffer elements")
	case "delete", "clear":
		f.errorf(c.Pos(), "%s works on maps and slices, which kernels cannot use; assign a zero array instead", name)
	case "close":
		f.errorf(c.Pos(), "channels cannot run on the GPU; communicate through buffers, atomics and barriers")
	case "complex", "real", "imag":
		f.errorf(c.Pos(), "complex numbers are not translated; keep the real and imaginary parts in two float variables")
	case "print", "println":
		f.errorf(c.Pos(), "printing is not translated (device output is unordered and truncated); store the values to a buffer and print them on the host")
	case "recover":
		f.errorf(c.Pos(), "recover is not translated (a panic traps the whole GPU kernel); let the kernel fail, or check the condition before it panics")
	default:
		f.errorf(c.Pos(), "builtin %s is not translated", name)
	}
	return "0"
}

// intArg is a Go int argument passed to a CUDA int parameter (a lane, a
// width): constants as plain literals.
func (f *fn) intArg(e ast.Expr) string {
	if v := f.tr.info.Types[e].Value; v != nil {
		return intConst(v, types.Int32)
	}
	return "(int)" + f.expr(e)
}

func (f *fn) simCall(c *ast.CallExpr, g *types.Func, recv ast.Expr, stmt bool) string {
	key := simKey(g)
	if s, ok := simCalls[key]; ok {
		if c.Ellipsis.IsValid() {
			f.errorf(c.Pos(), "a slice cannot be spread into %s in a kernel; pass the arguments one by one", key)
			return "0"
		}
		return s.emit(f, c, recv, stmt)
	}
	if why, ok := simHostOnly[key]; ok {
		f.errorf(c.Pos(), "%s runs on the host, not in a kernel: %s", key, why)
		return "0"
	}
	f.errorf(c.Pos(), "sim.%s has no CUDA translation; it is host-side API, so call it outside the kernel", key)
	return "0"
}

func (f *fn) helperCall(c *ast.CallExpr, g *types.Func) string {
	var targs []types.Type
	id := calleeIdent(c)
	if inst, ok := f.tr.info.Instances[id]; ok {
		for i := range inst.TypeArgs.Len() {
			targs = append(targs, f.resolve(inst.TypeArgs.At(i)))
		}
	}
	h := f.tr.helperFor(g, targs)
	f.callHelper(h)
	sig, _ := f.typeOf(c.Fun).(*types.Signature)
	if sig == nil {
		f.errorf(c.Pos(), "this call is not translated")
		return "0"
	}
	if len(c.Args) == 1 && sig.Params().Len() > 1 {
		f.errorf(c.Pos(), "passing a call's several results as arguments is not translated; assign them to variables first")
		return "0"
	}
	var args []string
	for i, a := range c.Args {
		if i >= sig.Params().Len() {
			break
		}
		pt := f.resolve(sig.Params().At(i).Type())
		if f.tr.isThread(pt) {
			if !f.isThreadExpr(a) {
				f.errorf(a.Pos(), "parameter %s of %s takes the thread, which CUDA's built-ins stand for; pass the kernel body's thread itself", sig.Params().At(i).Name(), h.decl.Name.Name)
			}
			continue
		}
		args = append(args, strip(f.valueAs(a, pt)))
	}
	if sig.Results().Len() > 1 {
		f.lastRes = "gosim_res_" + h.name
	}
	return h.name + "(" + strings.Join(args, ", ") + ")"
}

// calleeIdent is the identifier naming a call's function, for Instances.
func calleeIdent(c *ast.CallExpr) *ast.Ident {
	fun := ast.Unparen(c.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

func (f *fn) mathCall(c *ast.CallExpr, g *types.Func) string {
	m, ok := mathFuncs[g.Name()]
	if !ok {
		f.errorf(c.Pos(), "math.%s has no CUDA translation; compute it from the functions the translator maps (see the package doc)", g.Name())
		return "0"
	}
	if m.need != "" {
		f.need(m.need)
	}
	sig := f.typeOf(c.Fun).(*types.Signature)
	var args []string
	for i, a := range c.Args {
		args = append(args, strip(f.valueAs(a, sig.Params().At(i).Type())))
	}
	return m.c + "(" + strings.Join(args, ", ") + ")"
}

func (f *fn) bitsCall(c *ast.CallExpr, g *types.Func) string {
	m, ok := bitsFuncs[g.Name()]
	if !ok {
		f.errorf(c.Pos(), "bits.%s has no CUDA translation; %s", g.Name(), bitsRewrite(g.Name()))
		return "0"
	}
	if m.need != "" {
		f.need(m.need)
	}
	sig := f.typeOf(c.Fun).(*types.Signature)
	arg := f.valueAs(c.Args[0], sig.Params().At(0).Type())
	return strings.ReplaceAll(m.c, "%s", arg)
}

// shflEmit translates ShflSync and its relatives: types CUDA has no
// overload for (8- and 16-bit) go through int and back.
func shflEmit(cname string) func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		t := f.typeOf(c)
		mask := strip(f.valueAs(c.Args[1], types.Typ[types.Uint32]))
		v := strip(f.valueAs(c.Args[2], t))
		args := mask + ", " + v + ", " + f.intArg(c.Args[3])
		if small(t) {
			args = mask + ", (int)" + f.valueAs(c.Args[2], t) + ", " + f.intArg(c.Args[3])
		}
		if len(c.Args) > 4 {
			args += ", " + f.intArg(c.Args[4])
		}
		if small(t) {
			return "((" + f.tr.ctype(t) + ")" + cname + "(" + args + "))"
		}
		return cname + "(" + args + ")"
	}
}

// atomicEmit translates AtomicXxx(t, b, i, args...) to atomicXxx(&b[i], args...).
func atomicEmit(cname string) func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		e, _ := f.tr.isBuffer(f.typeOf(c.Args[1]))
		parts := []string{"&" + f.expr(c.Args[1]) + "[" + f.index(c.Args[2]) + "]"}
		for _, a := range c.Args[3:] {
			parts = append(parts, strip(f.valueAs(a, e)))
		}
		return cname + "(" + strings.Join(parts, ", ") + ")"
	}
}

// fixed returns an emitter of a fixed C text, with %0, %1 ... standing for
// the call's arguments after the thread (method receivers are not
// arguments).
func fixed(format string, argTypes ...types.BasicKind) func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	return func(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
		args := c.Args
		if recv == nil && len(args) > 0 {
			args = args[1:] // the thread
		}
		out := format
		for i, a := range args {
			var s string
			if i < len(argTypes) {
				s = f.valueAs(a, types.Typ[argTypes[i]])
			} else {
				s = f.expr(a)
			}
			out = strings.ReplaceAll(out, "%"+strconv.Itoa(i), strip(s))
		}
		if strings.Contains(out, "gosim_tid") {
			f.need("tid")
		}
		return out
	}
}
