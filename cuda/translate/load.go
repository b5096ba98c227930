package translate

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// GeneratedFile is the file `gpusim cuda -go` writes into a package: the
// twins of its kernels, registered at init.
const GeneratedFile = "gpusim_cuda.go"

// Load loads the packages matching patterns, relative to dir, and translates
// each. It resolves build tags, module paths and dependencies' export data
// the way go build does (golang.org/x/tools/go/packages runs go list), so
// the translated code is the code that is compiled. A package that does not
// type-check is an error: its kernels cannot be translated faithfully.
func Load(dir string, patterns ...string) (*Result, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
		Dir: dir,
		// The packages' generated files are read as their package clause
		// only: they hold the twins of the last translation, which may
		// name kernels since renamed or deleted, and declare nothing a
		// kernel uses.
		Overlay: generatedOverlay(dir, patterns),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("translate: loading %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		// go list failed without packages.Load saying so: outside any
		// module it prints "go.mod file not found" and lists nothing.
		return nil, fmt.Errorf("translate: no package matches %s (from %s): run inside the Go module that holds it, the directory of its go.mod or below", strings.Join(patterns, " "), dir)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		// go list reports a type error the compiler found too (relative
		// path, "# pkg" header), and the type checker reports it again:
		// go list's errors are printed only where nothing else says why.
		var checked, listed []string
		for _, e := range p.Errors {
			if e.Kind == packages.ListError {
				listed = append(listed, e.Error())
			} else {
				checked = append(checked, e.Error())
			}
		}
		if len(checked) == 0 {
			checked = listed
		}
		errs = append(errs, checked...)
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("translate: %s", strings.Join(errs, "\n"))
	}
	res := &Result{}
	for _, p := range pkgs {
		r := Translate(p.Fset, p.Syntax, p.Types, p.TypesInfo)
		res.Kernels = append(res.Kernels, r.Kernels...)
		res.Diagnostics = append(res.Diagnostics, r.Diagnostics...)
		res.Refused = append(res.Refused, r.Refused...)
		res.Notes = append(res.Notes, r.Notes...)
	}
	return res, nil
}

// generatedOverlay replaces, for go list and the type checker, the
// generated file of each package directory the local patterns (".",
// "./k", "./...") name with its package clause alone.
func generatedOverlay(dir string, patterns []string) map[string][]byte {
	overlay := map[string][]byte{}
	add := func(d string) {
		f := filepath.Join(d, GeneratedFile)
		src, err := os.ReadFile(f)
		if err != nil {
			return
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.PackageClauseOnly)
		if err != nil {
			return
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return
		}
		overlay[abs] = []byte("package " + file.Name.Name + "\n")
	}
	for _, p := range patterns {
		if !strings.HasPrefix(p, ".") && !filepath.IsAbs(p) {
			continue // an import path: its files are not ours to hide
		}
		root := p
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, p)
		}
		if base, ok := strings.CutSuffix(root, "..."); ok {
			filepath.WalkDir(filepath.Clean(base), func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					add(path)
				}
				return nil
			})
			continue
		}
		add(root)
	}
	return overlay
}
