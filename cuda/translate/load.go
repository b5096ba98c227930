package translate

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/packages"
)

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
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("translate: loading %s: %w", strings.Join(patterns, " "), err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
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
	}
	return res, nil
}
