package kernels

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"runtime"
	"strings"
	"sync"

	"github.com/gpusim/gpusim/cuda/twin"
)

// ParamNames are a kernel function's parameter names, as launch errors and
// findings print them: its generated twin's where one is registered, else
// the Go declaration's, read from the source file the binary was built from
// while that file is there (a test's own kernels, a program run where it
// was built). Go keeps no parameter names at run time, so a parameter that
// neither gives a name (the source gone or built with -trimpath, a
// parameter named _ or not at all) is described by its position and Go
// type: "parameter 3 (int)".
func ParamNames(fn any) []string {
	v, err := kernelFunc(fn)
	if err != nil {
		return nil
	}
	ft := v.Type()
	if tw, err := twin.Of(fn); err == nil && len(tw.Params) == ft.NumIn() {
		names := make([]string, len(tw.Params))
		for i, p := range tw.Params {
			names[i] = p.Name
		}
		return names
	}
	src := sourceParamNames(v.Pointer(), ft.NumIn())
	names := make([]string, ft.NumIn())
	for i := range names {
		if src != nil && src[i] != "" && src[i] != "_" {
			names[i] = src[i]
		} else {
			names[i] = fmt.Sprintf("parameter %d (%v)", i+1, ft.In(i))
		}
	}
	return names
}

// fromSource caches sourceParamNames by code address: a driver launches
// one kernel many times, and parity checks thousands.
var fromSource sync.Map // uintptr -> []string (nil: not found)

// sourceParamNames reads the parameter names of the function at code
// address pc, which takes n parameters, from its declaration in the source
// file the binary was built from; nil where the file cannot be read or the
// declaration not told apart. A package-level function is found by its
// name; a function literal (a kernel function made by another function)
// as the innermost one around its first line that takes n parameters and
// returns one result.
func sourceParamNames(pc uintptr, n int) []string {
	if v, ok := fromSource.Load(pc); ok {
		return v.([]string)
	}
	names := readParamNames(pc, n)
	fromSource.Store(pc, names)
	return names
}

func readParamNames(pc uintptr, n int) []string {
	f := runtime.FuncForPC(pc)
	if f == nil {
		return nil
	}
	file, line := f.FileLine(f.Entry())
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	// pkg.Name, pkg.Name[...] for an instance of a generic function;
	// pkg.Outer.func1 for a function literal, pkg.T.M for a method.
	name := f.Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	_, name, _ = strings.Cut(name, ".")
	name, _, _ = strings.Cut(name, "[")
	var found *ast.FuncType
	if !strings.Contains(name, ".") {
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				found = fd.Type
			}
		}
	} else {
		ast.Inspect(af, func(node ast.Node) bool {
			lit, ok := node.(*ast.FuncLit)
			if !ok {
				return true
			}
			if fset.Position(lit.Pos()).Line > line || fset.Position(lit.End()).Line < line {
				return false
			}
			if lit.Type.Results != nil && lit.Type.Results.NumFields() == 1 && lit.Type.Params.NumFields() == n {
				found = lit.Type // an inner one, visited later, wins
			}
			return true
		})
	}
	if found == nil || found.Params.NumFields() != n {
		return nil
	}
	names := make([]string, 0, n)
	for _, field := range found.Params.List {
		if len(field.Names) == 0 {
			names = append(names, "")
		}
		for _, id := range field.Names {
			names = append(names, id.Name)
		}
	}
	return names
}
