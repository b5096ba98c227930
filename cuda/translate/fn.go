package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// fn is the state of translating one C function: the kernel's entry point
// or one helper instance.
type fn struct {
	tr     *translator
	decl   *ast.FuncDecl
	helper *helper // nil for the entry point
	subst  map[*types.TypeParam]types.Type
	names  *names
	out    strings.Builder
	depth  int  // indentation
	inBody bool // past the kernel's prelude statements

	threads  map[types.Object]bool   // the *sim.Thread variables
	readonly map[types.Object]string // why a variable may not be written
	param32  map[types.Object]bool   // int/uint kernel parameters, 32 bits in C
	assigned map[types.Object]bool   // variables written after their declaration
	inits    map[types.Object]ast.Expr
	loopVar  map[types.Object]rng // ranges of loop counters proved by their loop
	shared   map[types.Object]bool
	bad      map[types.Object]bool // refused at their declaration: uses stay quiet

	results     *types.Tuple
	resultNames []string
	resStruct   string

	targets []*target
	labels  map[*types.Label]*target // break and continue targets
	glabels map[*types.Label]string  // C names of Go labels
	lastRes string                   // result struct of the last multi-value call
	frozen  map[ast.Expr]string      // assignment targets' indexes evaluated ahead (freezeLHS)

	needs      map[string]bool
	calls      []*helper
	callSeen   map[*helper]bool
	consts     map[*constDecl]token.Pos // the constants it reads, each at its first read
	gridSync   bool                     // calls grid.sync(): its kernel needs a cooperative launch
	declShared bool
	failed     bool
	nerr       int // refusals so far, repeated ones included
	lastLine   int
	file       string
}

// target is something break, continue or goto can name.
type target struct {
	label     *types.Label // the Go label, if any
	loop      bool
	cContinue bool   // continue may be C's own (the post statement is a C expression)
	brk, cont string // C labels, made on first use
	goLabel   string // the C name of the Go label (goto)
	usedBrk   bool
	usedCont  bool
}

func (tr *translator) newFn(fd *ast.FuncDecl, targs []types.Type) *fn {
	f := &fn{
		tr: tr, decl: fd,
		names:    newNames(tr.global, tr.generic),
		threads:  map[types.Object]bool{},
		readonly: map[types.Object]string{},
		param32:  map[types.Object]bool{},
		assigned: map[types.Object]bool{},
		inits:    map[types.Object]ast.Expr{},
		loopVar:  map[types.Object]rng{},
		shared:   map[types.Object]bool{},
		bad:      map[types.Object]bool{},
		labels:   map[*types.Label]*target{},
		glabels:  map[*types.Label]string{},
		needs:    map[string]bool{},
		callSeen: map[*helper]bool{},
		consts:   map[*constDecl]token.Pos{},
		file:     shortFile(tr.fset.Position(fd.Pos()).Filename),
	}
	f.reserveConsts(fd)
	if obj, ok := tr.info.Defs[fd.Name].(*types.Func); ok && len(targs) > 0 {
		tps := obj.Type().(*types.Signature).TypeParams()
		f.subst = map[*types.TypeParam]types.Type{}
		for i := range tps.Len() {
			if i < len(targs) {
				f.subst[tps.At(i)] = targs[i]
			}
		}
	}
	return f
}

// errorf refuses a construct: the kernel gets no translation.
func (f *fn) errorf(pos token.Pos, format string, args ...any) {
	f.failed = true
	f.nerr++
	f.tr.errorf(pos, format, args...)
}

func (f *fn) need(feature string) { f.needs[feature] = true }

// typeOf is e's type with the instance's type arguments substituted.
func (f *fn) typeOf(e ast.Expr) types.Type {
	return f.resolve(f.tr.info.TypeOf(e))
}

func (f *fn) obj(id *ast.Ident) types.Object {
	if o := f.tr.info.Uses[id]; o != nil {
		return o
	}
	return f.tr.info.Defs[id]
}

// line writes one line of C at the current indentation, preceded by a #line
// directive when the Go line changes, so that nvcc's and compute-sanitizer's
// messages name the Go source.
func (f *fn) linef(pos token.Pos, format string, args ...any) {
	if pos.IsValid() {
		p := f.tr.fset.Position(pos)
		if p.Line != f.lastLine {
			fmt.Fprintf(&f.out, "#line %d %q\n", p.Line, f.file)
			f.lastLine = p.Line
		}
	}
	f.out.WriteString(strings.Repeat("\t", f.depth))
	fmt.Fprintf(&f.out, format, args...)
	f.out.WriteByte('\n')
}

// collectAssigned finds the variables written after their declaration (by =,
// op=, ++, --) and records the initialiser of the others, for the range
// analysis.
func (f *fn) collectAssigned(body ast.Node) {
	info := f.tr.info
	mark := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
				continue
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.Ident:
				if o := info.Uses[x]; o != nil {
					f.assigned[o] = true
				}
			}
			return
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for i, l := range s.Lhs {
					id, ok := l.(*ast.Ident)
					if !ok {
						continue
					}
					if o := info.Defs[id]; o != nil && len(s.Lhs) == len(s.Rhs) {
						f.inits[o] = s.Rhs[i]
					} else if o := info.Uses[id]; o != nil {
						f.assigned[o] = true // redeclared by :=
					}
				}
				return true
			}
			for _, l := range s.Lhs {
				mark(l)
			}
		case *ast.IncDecStmt:
			mark(s.X)
		case *ast.ValueSpec:
			for i, id := range s.Names {
				if o := info.Defs[id]; o != nil && i < len(s.Values) && len(s.Values) == len(s.Names) {
					f.inits[o] = s.Values[i]
				}
			}
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN {
				if s.Key != nil {
					mark(s.Key)
				}
				if s.Value != nil {
					mark(s.Value)
				}
			}
		case *ast.UnaryExpr:
			if s.Op == token.AND {
				mark(s.X)
			}
		}
		return true
	})
}

// callHelper records a call of h from this function.
func (f *fn) callHelper(h *helper) {
	if !f.callSeen[h] {
		f.callSeen[h] = true
		f.calls = append(f.calls, h)
	}
}

// mentionsBad reports whether e uses a variable already refused, so that its
// uses add no second diagnostic.
func (f *fn) mentionsBad(e ast.Node) bool {
	if len(f.bad) == 0 {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && f.bad[f.obj(id)] {
			found = true
		}
		return !found
	})
	return found
}
