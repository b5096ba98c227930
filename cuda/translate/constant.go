package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gpusim/gpusim/cuda/twin"
)

// constDecl is one package-level sim.Constant variable: the __constant__
// array it declares at file scope of every translation unit whose kernel
// (or a helper it calls) reads it.
type constDecl struct {
	v    *types.Var
	sym  string     // the CUDA symbol: NewConstant's name argument
	elem types.Type // T of *sim.Constant[T]
	n    int64
	pos  token.Pos
	err  string // why it cannot be translated; reported where a kernel uses it
}

// isConstant reports whether t is *sim.Constant[E] and returns E.
func (tr *translator) isConstant(t types.Type) (types.Type, bool) {
	p, ok := t.(*types.Pointer)
	if !ok {
		return nil, false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || !tr.isSim(n.Obj()) || n.Obj().Name() != "Constant" || n.TypeArgs().Len() != 1 {
		return nil, false
	}
	return n.TypeArgs().At(0), true
}

var cIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// collectConstants finds the package's sim.Constant variables and checks
// each declaration: var name = sim.NewConstant[T]("sym", n), with a
// constant name that C can spell as it is and a constant length, never
// assigned again. A faulty one is reported only where a kernel uses it.
func (tr *translator) collectConstants(files []*ast.File) {
	tr.consts = map[*types.Var]*constDecl{}
	bySym := map[string]*constDecl{}
	for _, file := range files {
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					v, ok := tr.info.Defs[id].(*types.Var)
					if !ok {
						continue
					}
					elem, ok := tr.isConstant(v.Type())
					if !ok {
						continue
					}
					cd := &constDecl{v: v, elem: elem, pos: id.Pos()}
					tr.consts[v] = cd
					var init ast.Expr
					if len(vs.Values) == len(vs.Names) {
						init = vs.Values[i]
					}
					tr.checkConstDecl(cd, init)
					if cd.err == "" {
						if o := bySym[cd.sym]; o != nil {
							cd.err = fmt.Sprintf("constant %q is also declared by %s at %s: CUDA has one symbol of a name per translation unit; give each constant its own name", cd.sym, o.v.Name(), tr.fset.Position(o.pos))
						} else {
							bySym[cd.sym] = cd
						}
					}
				}
			}
		}
	}
	// A constant variable assigned after its declaration would make the
	// kernel read another constant than the symbol the CUDA declares.
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			a, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, l := range a.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				v, _ := tr.info.Uses[id].(*types.Var)
				if cd := tr.consts[v]; cd != nil && cd.err == "" {
					cd.err = fmt.Sprintf("constant variable %s is assigned at %s, so the kernel could read another constant than the one CUDA declares; declare it once with sim.NewConstant and never assign it", v.Name(), tr.fset.Position(a.Pos()))
				}
			}
			return true
		})
	}
}

// checkConstDecl reads the symbol and length off init, the declaration's
// value, or says in cd.err why it cannot.
func (tr *translator) checkConstDecl(cd *constDecl, init ast.Expr) {
	const how = "declare it as var x = sim.NewConstant[T](\"x\", n) with a constant name and length"
	if cd.v.Name() == "_" {
		cd.err = "a constant named _ cannot be used; " + how
		return
	}
	call, ok := ast.Unparen(init).(*ast.CallExpr)
	g := (*types.Func)(nil)
	if ok {
		g = tr.calleeFunc(call)
	}
	if g == nil || !tr.isSim(g) || g.Name() != "NewConstant" || len(call.Args) != 2 {
		cd.err = fmt.Sprintf("constant variable %s is not initialised by a call of sim.NewConstant, so its size is not known where CUDA declares the array; %s", cd.v.Name(), how)
		return
	}
	name := tr.info.Types[call.Args[0]].Value
	if name == nil || name.Kind() != constant.String {
		cd.err = fmt.Sprintf("the name of constant %s is not a constant string, and it is the array's symbol in CUDA; %s", cd.v.Name(), how)
		return
	}
	cd.sym = constant.StringVal(name)
	n := tr.info.Types[call.Args[1]].Value
	if n == nil {
		cd.err = fmt.Sprintf("the length of constant %s is not a constant, and a __constant__ array has a fixed size; %s", cd.v.Name(), how)
		return
	}
	cd.n, _ = constant.Int64Val(constant.ToInt(n))
	switch {
	case cd.n <= 0:
		cd.err = fmt.Sprintf("constant %s has %d elements, and C has no empty arrays; give it at least one", cd.v.Name(), cd.n)
	case !cIdentRE.MatchString(cd.sym):
		cd.err = fmt.Sprintf("constant %s is named %q, which is not a C identifier, and the name is its symbol in CUDA; name it as a Go identifier", cd.v.Name(), cd.sym)
	case badSymbol(cd.sym):
		cd.err = fmt.Sprintf("constant %s is named %q, a name C, CUDA or the generated code already uses at file scope; choose another name", cd.v.Name(), cd.sym)
	case tr.typeError(cd.elem) != "":
		cd.err = fmt.Sprintf("constant %s: %s", cd.v.Name(), tr.typeError(cd.elem))
	}
}

// badSymbol reports whether sym cannot name a file-scope array: a C, C++
// or CUDA name, one of the generated code's, or a type or namespace of the
// headers it includes.
func badSymbol(sym string) bool {
	if cIdent(sym) != sym {
		return true
	}
	switch sym {
	case "cg", "cuda", "cooperative_groups", "std":
		return true
	}
	for _, c := range vecC {
		if sym == c || sym == "make_"+c {
			return true
		}
	}
	return false
}

// constRef returns the constant a method call's receiver names: the
// package-level variable itself, whose declaration translated.
func (f *fn) constRef(recv ast.Expr) *constDecl {
	switch x := ast.Unparen(recv).(type) {
	case *ast.Ident:
		v, _ := f.obj(x).(*types.Var)
		if cd := f.tr.consts[v]; cd != nil {
			if cd.err != "" {
				f.errorf(x.Pos(), "%s", cd.err)
				return nil
			}
			if _, ok := f.consts[cd]; !ok {
				f.consts[cd] = x.Pos()
			}
			return cd
		}
		if v != nil && v.Parent() != f.tr.pkg.Scope() {
			// A parameter, result or local of constant type: refused
			// where it was declared.
			f.failed = true
			return nil
		}
	case *ast.SelectorExpr:
		if _, ok := f.tr.info.Uses[x.Sel].(*types.Var); ok {
			f.errorf(x.Pos(), "a constant of another package is not translated (its declaration is not in this package's source); declare the constant in the kernel's package")
			return nil
		}
	}
	f.errorf(recv.Pos(), "a constant is used through its package-level variable, which names the __constant__ array in CUDA; call the method on that variable")
	return nil
}

// emitConstLoad is c.Load(t, i): name[i].
func emitConstLoad(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
	cd := f.constRef(recv)
	if cd == nil {
		return "0"
	}
	return cd.sym + "[" + f.index(c.Args[1]) + "]"
}

// emitConstLen is c.Len(): the declared length.
func emitConstLen(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
	cd := f.constRef(recv)
	if cd == nil {
		return "0"
	}
	return f.constant(c.Pos(), constant.MakeInt64(cd.n), types.Typ[types.Int])
}

// emitConstStore refuses c.Store(t, i, v): nvcc refuses a kernel's write
// to a __constant__ array, and the simulator reports it.
func emitConstStore(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	f.errorf(c.Pos(), "constant memory is read-only in kernels (nvcc refuses the write; the simulator reports a ConstantWrite); write it from the host before the launch (Constant.CopyFromHost, kernels.CopyToSymbol)")
	return "0"
}

// constDecls is the file-scope declarations of the constants a kernel and
// its helpers read, sorted by symbol, and their twin records.
func (tr *translator) constDecls(used map[*constDecl]bool) (string, []twin.Constant) {
	var cds []*constDecl
	for cd := range used {
		cds = append(cds, cd)
	}
	sort.Slice(cds, func(i, j int) bool { return cds[i].sym < cds[j].sym })
	var b strings.Builder
	var recs []twin.Constant
	for _, cd := range cds {
		pos := tr.fset.Position(cd.pos)
		fmt.Fprintf(&b, "#line %d %q\n", pos.Line, shortFile(pos.Filename))
		fmt.Fprintf(&b, "__constant__ %s %s[%d];\n", tr.ctype(cd.elem), cd.sym, cd.n)
		recs = append(recs, twin.Constant{
			Name:   cd.sym,
			GoName: tr.pkg.Name() + "." + cd.v.Name(),
			Elem:   types.TypeString(cd.elem, tr.qualifier),
			CType:  tr.ctype(cd.elem),
			Len:    int(cd.n),
		})
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String(), recs
}

// reserveConsts keeps the symbols of the constants fd's body names from
// being handed out to its locals and parameters, which would hide them.
func (f *fn) reserveConsts(fd *ast.FuncDecl) {
	if len(f.tr.consts) == 0 || fd.Body == nil {
		return
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := f.tr.info.Uses[id].(*types.Var); ok {
				if cd := f.tr.consts[v]; cd != nil && cd.err == "" {
					f.names.reserve(cd.sym)
				}
			}
		}
		return true
	})
}

// constClash refuses a constant whose CUDA symbol is also the name of a
// function in the kernel's translation unit (its entry point or a helper it
// calls): both are file-scope names in CUDA. A function of the package the
// kernel does not call is no clash, as it is not in the unit. It reports at
// each reading of the constant (in the kernel or a helper) and says whether
// it did.
func (tr *translator) constClash(k *fn, entry string, order []*helper) bool {
	funcs := map[string]string{entry: "the kernel's entry point"}
	for _, h := range order {
		funcs[h.name] = "a function the kernel calls"
	}
	clash := false
	report := func(reads map[*constDecl]token.Pos) {
		var at []token.Pos
		for cd, pos := range reads {
			if _, ok := funcs[cd.sym]; ok {
				at = append(at, pos)
			}
		}
		slices.Sort(at)
		for _, pos := range at {
			for cd, p := range reads {
				if p == pos {
					tr.errorf(pos, "constant %s is named %q, as is %s, and both are file-scope names in CUDA; rename one", cd.v.Name(), cd.sym, funcs[cd.sym])
				}
			}
			clash = true
		}
	}
	report(k.consts)
	for _, h := range order {
		report(h.consts)
	}
	return clash
}
