package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// simPath is the import path of the simulator package kernels are written
// against.
const simPath = "github.com/gpusim/gpusim/sim"

// isThreadPtr reports whether t is *sim.Thread.
func isThreadPtr(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Name() == "Thread" && obj.Pkg() != nil && obj.Pkg().Path() == simPath
}

// threadParam reports whether sig has a *sim.Thread parameter: the function
// runs on a simulated thread (a kernel body, or a device helper that needs
// the thread to call sim).
func threadParam(sig *types.Signature) bool {
	if sig == nil {
		return false
	}
	for v := range sig.Params().Variables() {
		if isThreadPtr(v.Type()) {
			return true
		}
	}
	return false
}

// isKernelSig reports whether sig is sim.Kernel's signature, func(*sim.Thread).
func isKernelSig(sig *types.Signature) bool {
	return sig != nil && sig.Params().Len() == 1 && sig.Results().Len() == 0 &&
		isThreadPtr(sig.Params().At(0).Type())
}

// deviceFn is one function whose body runs on every simulated thread, and
// the region of source its own variables are declared in: a variable
// declared outside [lo, hi) is host state shared by all threads.
type deviceFn struct {
	kind   string // what the message calls it: "kernel", "device function f", ...
	lo, hi token.Pos
	body   *ast.BlockStmt
}

// checkCaptures reports every write, from code that runs on simulated
// threads, to memory rooted in a variable declared outside that code. It
// returns the positions it reported.
func checkCaptures(pass *analysis.Pass) map[token.Pos]bool {
	info := pass.TypesInfo

	// Same-package function declarations, for following calls from device
	// code into helpers.
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		if isRuntimeFile(pass, f) {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if obj, ok := info.Defs[fd.Name].(*types.Func); ok {
					decls[obj] = fd
				}
			}
		}
	}

	var roots []deviceFn
	isDeclDevice := map[*ast.FuncDecl]bool{}
	for _, f := range pass.Files {
		runtimeFile := isRuntimeFile(pass, f)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body == nil || runtimeFile {
					return !runtimeFile
				}
				obj, _ := info.Defs[n.Name].(*types.Func)
				if obj != nil && threadParam(obj.Signature()) {
					isDeclDevice[n] = true
					roots = append(roots, deviceFn{
						kind: "device function " + n.Name.Name,
						lo:   n.Pos(), hi: n.End(), body: n.Body,
					})
					return false
				}
			case *ast.FuncLit:
				sig, _ := info.TypeOf(n).(*types.Signature)
				if isKernelSig(sig) {
					roots = append(roots, deviceFn{kind: "kernel", lo: n.Pos(), hi: n.End(), body: n.Body})
					return false
				}
				if threadParam(sig) {
					roots = append(roots, deviceFn{kind: "device function literal", lo: n.Pos(), hi: n.End(), body: n.Body})
					return false
				}
			}
			return true
		})
	}

	// Helpers called (transitively) from device code run on every thread
	// too; their own variables are theirs, package-level ones are shared.
	reached := map[*ast.FuncDecl]bool{}
	var queue []deviceFn
	follow := func(body ast.Node) {
		ast.Inspect(body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := calledFunc(info, call)
			if fn == nil {
				return true
			}
			fd := decls[fn.Origin()]
			if fd == nil || reached[fd] || isDeclDevice[fd] {
				return true
			}
			reached[fd] = true
			queue = append(queue, deviceFn{
				kind: "helper " + fd.Name.Name + " (called from device code)",
				lo:   fd.Pos(), hi: fd.End(), body: fd.Body,
			})
			return true
		})
	}
	for _, r := range roots {
		follow(r.body)
	}
	for i := 0; i < len(queue); i++ {
		follow(queue[i].body)
	}

	seen := map[string]bool{}
	reported := map[token.Pos]bool{}
	for _, d := range append(roots, queue...) {
		c := &checker{pass: pass, fn: d, alias: map[*types.Var]*types.Var{}, seen: seen,
			skip: map[ast.Node]bool{}, reported: reported}
		c.findAliases()
		c.check()
	}
	return reported
}

// isRuntimeFile reports whether f is the simulator's own non-test code,
// which takes *Thread everywhere: it is the runtime, not device code.
func isRuntimeFile(pass *analysis.Pass, f *ast.File) bool {
	return pass.Pkg.Path() == simPath &&
		!strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go")
}

// synchronised reports whether obj belongs to package sync or sync/atomic,
// whose operations synchronise the threads that use them: host memory
// accessed only through them is not raced on (the translate check refuses
// them in kernels, as they cannot run on a GPU).
func synchronised(obj types.Object) bool {
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	p := obj.Pkg().Path()
	return p == "sync" || p == "sync/atomic"
}

// calledFunc is the function or concrete method a call statically calls,
// or nil.
func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal || types.IsInterface(sel.Recv()) {
				return nil
			}
		}
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

type checker struct {
	pass *analysis.Pass
	fn   deviceFn
	// alias maps a variable of the device function that holds a reference
	// into host memory (a pointer, slice, map... copied from a captured
	// variable) to the captured variable it came from.
	alias map[*types.Var]*types.Var
	seen  map[string]bool   // file:line:variable already reported
	skip  map[ast.Node]bool // address-taking handed to sync/atomic

	reported map[token.Pos]bool
}

// inside reports whether v is declared in the device function.
func (c *checker) inside(v *types.Var) bool {
	return c.fn.lo <= v.Pos() && v.Pos() < c.fn.hi
}

// captured reports whether v is a variable declared outside the device
// function (package-level, or a parameter or local of an enclosing
// function).
func (c *checker) captured(v *types.Var) bool {
	return v != nil && !v.IsField() && v.Name() != "_" && !c.inside(v)
}

// varOf is the variable an identifier denotes, or nil.
func (c *checker) varOf(id *ast.Ident) *types.Var {
	obj := c.pass.TypesInfo.ObjectOf(id)
	v, _ := obj.(*types.Var)
	return v
}

// root is the variable an expression's value is taken from, following
// selectors, indexing, slicing, dereferences, address-taking, type
// assertions and conversions; nil for anything else (calls, literals).
func (c *checker) root(e ast.Expr) *types.Var {
	info := c.pass.TypesInfo
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return c.varOf(x)
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil { // package-qualified
				return c.varOf(x.Sel)
			}
			if sel.Kind() != types.FieldVal {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.TypeAssertExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				e = x.Args[0] // conversion
				continue
			}
			return nil
		default:
			return nil
		}
	}
}

// hostRef returns the captured variable whose memory the value of e refers
// into, directly or through an alias, or nil.
func (c *checker) hostRef(e ast.Expr) *types.Var {
	v := c.root(e)
	if v == nil {
		return nil
	}
	if c.captured(v) {
		return v
	}
	return c.alias[v]
}

// carriesRef reports whether a value of type t can refer to other memory.
func carriesRef(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Interface, *types.Signature:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Array:
		return carriesRef(u.Elem(), seen)
	case *types.Struct:
		for f := range u.Fields() {
			if carriesRef(f.Type(), seen) {
				return true
			}
		}
	}
	return false
}

// findAliases finds, to a fixed point, the device function's own variables
// that are given a reference into host memory.
func (c *checker) findAliases() {
	info := c.pass.TypesInfo
	for changed := true; changed; {
		changed = false
		note := func(lhs, rhs ast.Expr) {
			if lhs == nil || rhs == nil {
				return
			}
			v := c.root(lhs)
			if v == nil || !c.inside(v) || c.alias[v] != nil {
				return
			}
			t := info.TypeOf(rhs)
			if t == nil || !carriesRef(t, map[types.Type]bool{}) {
				return
			}
			if h := c.hostRef(rhs); h != nil {
				c.alias[v] = h
				changed = true
			}
		}
		ast.Inspect(c.fn.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				switch {
				case len(n.Lhs) == len(n.Rhs):
					for i := range n.Lhs {
						note(n.Lhs[i], n.Rhs[i])
					}
				case len(n.Rhs) == 1 && len(n.Lhs) == 2: // v, ok := m[k] / x.(T)
					note(n.Lhs[0], n.Rhs[0])
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						note(name, n.Values[i])
					}
				}
			case *ast.RangeStmt:
				if t := info.TypeOf(n.X); t != nil && c.hostRef(n.X) != nil {
					// The range values are elements (or keys) of host
					// memory; they alias it when they carry references.
					for _, e := range []ast.Expr{n.Key, n.Value} {
						if e == nil {
							continue
						}
						if v := c.root(e); v != nil && c.inside(v) && c.alias[v] == nil &&
							carriesRef(v.Type(), map[types.Type]bool{}) {
							c.alias[v] = c.hostRef(n.X)
							changed = true
						}
					}
				}
			}
			return true
		})
	}
}

// target is host memory an lvalue denotes: the captured variable it is
// rooted in, and whether it is reached through a reference held in a
// variable of the device function (via).
type target struct {
	host *types.Var
	via  *types.Var // the alias written through, or nil
}

// lvalue returns the host memory the addressable expression e denotes, if
// any. Writing a device function's own variable is never a host write;
// writing through a reference it holds into host memory is.
func (c *checker) lvalue(e ast.Expr) (target, bool) {
	info := c.pass.TypesInfo
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.lvalue(x.X)
	case *ast.Ident:
		if v := c.varOf(x); c.captured(v) {
			return target{host: v}, true
		}
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel == nil {
			if v := c.varOf(x.Sel); c.captured(v) {
				return target{host: v}, true
			}
			return target{}, false
		}
		if sel.Kind() != types.FieldVal {
			return target{}, false
		}
		if sel.Indirect() {
			return c.through(x.X)
		}
		return c.lvalue(x.X)
	case *ast.IndexExpr:
		t := info.TypeOf(x.X)
		if t == nil {
			return target{}, false
		}
		if _, ok := t.Underlying().(*types.Array); ok {
			return c.lvalue(x.X)
		}
		return c.through(x.X)
	case *ast.StarExpr:
		return c.through(x.X)
	}
	return target{}, false
}

// through returns the host memory that the reference value e points into.
func (c *checker) through(e ast.Expr) (target, bool) {
	v := c.root(e)
	if v == nil {
		return target{}, false
	}
	if c.captured(v) {
		return target{host: v}, true
	}
	if h := c.alias[v]; h != nil {
		return target{host: h, via: v}, true
	}
	return target{}, false
}

// check walks the device function's body and reports each host write.
func (c *checker) check() {
	info := c.pass.TypesInfo
	ast.Inspect(c.fn.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				return true
			}
			verb := action{"assigns to", "assigns"}
			if n.Tok != token.ASSIGN {
				op := "updates (" + n.Tok.String() + ")"
				verb = action{op, op}
			}
			for _, l := range n.Lhs {
				if tg, ok := c.lvalue(l); ok {
					c.report(l, verb, tg, false)
				}
			}
		case *ast.IncDecStmt:
			verb := action{"increments", "increments"}
			if n.Tok == token.DEC {
				verb = action{"decrements", "decrements"}
			}
			if tg, ok := c.lvalue(n.X); ok {
				c.report(n.X, verb, tg, false)
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e == nil {
						continue
					}
					if tg, ok := c.lvalue(e); ok {
						c.report(e, action{"assigns to", "assigns"}, tg, false)
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && !c.skip[n] {
				if tg, ok := c.lvalue(n.X); ok {
					c.report(n, action{"takes the address of", "takes an address"}, tg, true)
				}
			}
		case *ast.SelectorExpr:
			// x.M where M has a pointer receiver and x is addressable takes
			// &x implicitly. The sim API's own types are exempt: their
			// methods are how kernels reach device memory.
			sel := info.Selections[n]
			if sel == nil || sel.Kind() != types.MethodVal {
				return true
			}
			if _, isPtr := sel.Recv().Underlying().(*types.Pointer); isPtr {
				return true
			}
			m := sel.Obj().(*types.Func)
			if _, ptrRecv := m.Signature().Recv().Type().(*types.Pointer); !ptrRecv {
				return true
			}
			if m.Pkg() != nil && m.Pkg().Path() == simPath || synchronised(m) {
				return true
			}
			if tg, ok := c.lvalue(n.X); ok {
				verb := "calls pointer method " + m.Name()
				c.report(n.X, action{verb + " on", verb}, tg, true)
			}
		case *ast.CallExpr:
			if fn := calledFunc(info, n); fn != nil && synchronised(fn) {
				// atomic.AddInt64(&x, 1): the address is only handed to
				// a synchronised operation.
				for _, a := range n.Args {
					if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
						c.skip[u] = true
					}
				}
				return true
			}
			id, ok := ast.Unparen(n.Fun).(*ast.Ident)
			if !ok || len(n.Args) == 0 {
				return true
			}
			b, ok := info.Uses[id].(*types.Builtin)
			if !ok {
				return true
			}
			var verb action
			switch b.Name() {
			case "delete":
				verb = action{"deletes from", "deletes"}
			case "clear":
				verb = action{"clears", "clears"}
			case "copy":
				verb = action{"copies into", "copies"}
			case "append":
				verb = action{"appends to", "appends"}
			default:
				return true
			}
			t := info.TypeOf(n.Args[0])
			if t == nil {
				return true
			}
			if se, ok := ast.Unparen(n.Args[0]).(*ast.SliceExpr); ok && b.Name() == "append" &&
				se.Slice3 && types.ExprString(se.High) == types.ExprString(se.Max) {
				return true // s[i:j:j] has no spare capacity: append copies
			}
			switch t.Underlying().(type) {
			case *types.Slice, *types.Map:
				if tg, ok := c.through(n.Args[0]); ok {
					c.report(n.Args[0], verb, tg, false)
				}
			}
		}
		return true
	})
}

// action is how a message names a write: directly to a variable ("assigns
// to hostOut") and through an alias ("assigns through row, which...").
type action struct{ direct, via string }

// report reports one host write, once per line and variable.
func (c *checker) report(at ast.Node, verb action, tg target, addr bool) {
	pos := c.pass.Fset.Position(at.Pos())
	key := fmt.Sprintf("%s:%d:%p", pos.Filename, pos.Line, tg.host)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.reported[at.Pos()] = true

	what := c.describe(tg.host)
	if tg.via != nil {
		what = fmt.Sprintf("%s through %s, which refers into %s", verb.via, tg.via.Name(), what)
	} else {
		what = verb.direct + " " + what
	}
	why := "every thread of the grid writes that host memory without synchronisation"
	if addr {
		why = "a pointer to host memory lets every thread of the grid write it without synchronisation"
	}
	c.pass.Report(analysis.Diagnostic{
		Pos:      at.Pos(),
		End:      at.End(),
		Category: "capture",
		Message: fmt.Sprintf("%s %s: %s, a race the simulator cannot see. "+
			"Instead, write results to a *sim.Buffer with Store, or combine them with an atomic such as sim.AtomicAdd(t, buf, i, v)",
			c.fn.kind, what, why),
	})
}

// describe names a captured variable for a message.
func (c *checker) describe(v *types.Var) string {
	switch {
	case v.Pkg() != nil && v.Pkg() != c.pass.Pkg:
		return "package-level variable " + v.Pkg().Name() + "." + v.Name()
	case v.Pkg() != nil && v.Parent() == v.Pkg().Scope():
		return "package-level variable " + v.Name()
	}
	noun := "kernel"
	if c.fn.kind != "kernel" {
		noun = "function"
	}
	return v.Name() + ", a variable declared outside the " + noun
}
