package kernels_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
)

// The simulator names a launch's buffers after the kernel's parameters
// (kernels.ParamNames), which it reads from the kernel's generated CUDA twin:
// Go keeps no parameter names at run time. Until the twins are generated
// into this package, the tests stand in for them: init registers, for each
// kernel they launch that has no twin, a twin with no CUDA source whose
// parameters are those of the kernel's Go declaration, read here with
// go/parser. A generated twin, registered at the package's init, takes
// precedence.

// kernelDecl is a kernel function's declaration: func Name(params) sim.Kernel.
type kernelDecl struct {
	pkg    string   // package clause: "kernels" or "kernels_test"
	params []string // parameter names, in order
	types  []string // parameter types as written, e.g. "*sim.Buffer[float32]"
	elems  []string // a buffer parameter's element type; "" for a scalar
	pos    token.Position
}

// parseKernelDecls reads every top-level function returning sim.Kernel in
// this directory's Go files, tests included.
func parseKernelDecls() (map[string]kernelDecl, error) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	decls := map[string]kernelDecl{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 ||
				types.ExprString(fd.Type.Results.List[0].Type) != "sim.Kernel" {
				continue
			}
			kd := kernelDecl{pkg: f.Name.Name, pos: fset.Position(fd.Pos())}
			for _, field := range fd.Type.Params.List {
				typ := types.ExprString(field.Type)
				elem := ""
				if star, ok := field.Type.(*ast.StarExpr); ok {
					if ix, ok := star.X.(*ast.IndexExpr); ok && types.ExprString(ix.X) == "sim.Buffer" {
						elem = types.ExprString(ix.Index)
					}
				}
				names := field.Names
				if len(names) == 0 {
					names = []*ast.Ident{{Name: "_"}}
				}
				for _, n := range names {
					kd.params = append(kd.params, n.Name)
					kd.types = append(kd.types, typ)
					kd.elems = append(kd.elems, elem)
				}
			}
			if old, dup := decls[fd.Name.Name]; dup {
				return nil, fmt.Errorf("%v: kernel %s also declared at %v", kd.pos, fd.Name.Name, old.pos)
			}
			decls[fd.Name.Name] = kd
		}
	}
	return decls, nil
}

// declOf finds the declaration of the kernel whose entry point is name:
// the function of that name or, for an instance of a generic kernel, the
// generic function (Name[...] without a twin, Name_T with one).
func declOf(decls map[string]kernelDecl, name string) (kernelDecl, bool) {
	if d, ok := decls[name]; ok {
		return d, true
	}
	if base, _, ok := strings.Cut(name, "["); ok {
		d, ok := decls[base]
		return d, ok
	}
	base, _, _ := strings.Cut(name, "_")
	d, ok := decls[base]
	return d, ok
}

// kernelDecls is parseKernelDecls for a test.
func kernelDecls(t *testing.T) map[string]kernelDecl {
	t.Helper()
	decls, err := parseKernelDecls()
	if err != nil {
		t.Fatal(err)
	}
	return decls
}

func init() {
	decls, err := parseKernelDecls()
	if err != nil {
		panic(err)
	}
	fns := []any{RacyCopy}
	for _, k := range kernels.All() {
		fns = append(fns, k.Funcs...)
	}
	for _, fn := range fns {
		if _, err := twin.Of(fn); err == nil {
			continue
		}
		name := kernels.KernelName(fn)
		d, ok := declOf(decls, name)
		if !ok {
			continue // TestKernelFuncs reports it
		}
		entry := name
		if base, _, generic := strings.Cut(name, "["); generic {
			// Instances of a generic kernel share the name F[...]: tell
			// them apart by their signatures.
			entry = fmt.Sprintf("%s(%v)", base, reflect.TypeOf(fn))
		}
		tw := twin.Twin{Entry: entry, GoName: d.pkg + "." + name, Pos: d.pos.String()}
		for i, p := range d.params {
			tw.Params = append(tw.Params, twin.Param{Name: p, GoType: d.types[i], Elem: d.elems[i]})
		}
		twin.Register(fn, tw)
	}
}
