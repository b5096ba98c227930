package translate

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

var (
	depsOnce sync.Once
	deps     map[string]*types.Package
	depsErr  error
)

// testImporter imports sim (and the standard packages kernels use) from the
// export data go list builds, so that tests can type-check kernels given as
// source strings.
func testImporter(t testing.TB) types.Importer {
	t.Helper()
	depsOnce.Do(func() {
		pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, simPkgPath, "math", "math/bits", "fmt", "strings")
		if err != nil {
			depsErr = err
			return
		}
		deps = map[string]*types.Package{}
		for _, p := range pkgs {
			deps[p.PkgPath] = p.Types
		}
	})
	if depsErr != nil {
		t.Fatal(depsErr)
	}
	return importerFunc(func(path string) (*types.Package, error) {
		if p, ok := deps[path]; ok {
			return p, nil
		}
		return importer.Default().Import(path)
	})
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// translateSrc type-checks one file of package p and translates it.
func translateSrc(t testing.TB, src string) *Result {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p/src.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := newInfo()
	conf := types.Config{Importer: testImporter(t)}
	pkg, err := conf.Check("p", fset, []*ast.File{file}, info)
	if err != nil {
		t.Fatal(err)
	}
	return Translate(fset, []*ast.File{file}, pkg, info)
}

func newInfo() *types.Info {
	return &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
		Implicits:  map[ast.Node]types.Object{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
}

// loadPkg loads one package of the module with go/packages.
func loadPkg(t testing.TB, pattern string) *packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}, pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading %s: %v", pattern, pkgs[0].Errors)
	}
	return pkgs[0]
}

// A package whose generated file registers a kernel since renamed loads:
// the translator reads gpusim_cuda.go as its package clause only, so that
// `gpusim cuda -go` after a rename does not fail on its own old output.
func TestLoadIgnoresStaleGeneratedFile(t *testing.T) {
	res, err := Load("testdata/stale", ".")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(res.Kernels) != 1 || res.Kernels[0].Twin.GoName != "stale.Renamed" {
		t.Errorf("kernels %v, want stale.Renamed alone", res.Kernels)
	}
}

// A package that does not type-check is an error that names each type
// error once (go list and the type checker both report it).
func TestLoadTypeErrorOnce(t *testing.T) {
	_, err := Load("testdata/typeerror", ".")
	if err == nil {
		t.Fatal("Load of a package with a type error succeeded")
	}
	if n := strings.Count(err.Error(), "undefinedName"); n != 1 {
		t.Errorf("the type error is named %d times, want once:\n%v", n, err)
	}
}

// A package named from outside any module loads nothing, and go list's
// complaint (no go.mod) does not reach packages.Load's caller: Load says
// that nothing matched and where to run it, where it returned no kernels
// and gpusim cuda said the package had none.
func TestLoadOutsideAModuleIsNamed(t *testing.T) {
	pkg, err := filepath.Abs("testdata/stale")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load(t.TempDir(), pkg)
	if err == nil || !strings.Contains(err.Error(), "no package matches") || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("Load from outside a module = %v, %v; want an error saying nothing matched, and to run inside the module", res, err)
	}
}
