package translate

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRefusals translates testdata/bad, where every kernel holds a construct
// the translator must refuse. A line with a `// want "re" ...` comment must
// get diagnostics matching each regexp, and no other line any; and no
// kernel of the package may come out translated.
func TestRefusals(t *testing.T) {
	res, err := Load(".", "./testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kernels) > 0 {
		t.Errorf("refused kernels came out translated: %v", entries(res))
	}
	pkg := loadPkg(t, "./testdata/bad")
	type key struct {
		file string
		line int
	}
	wants := map[key][]*regexp.Regexp{}
	for _, f := range pkg.Syntax {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text := strings.TrimPrefix(c.Text, "//")
				text = strings.TrimSpace(text)
				if !strings.HasPrefix(text, "want ") {
					continue
				}
				pos := pkg.Fset.Position(c.Pos())
				for _, q := range splitQuoted(t, strings.TrimPrefix(text, "want ")) {
					wants[key{pos.Filename, pos.Line}] = append(wants[key{pos.Filename, pos.Line}], regexp.MustCompile(q))
				}
			}
		}
	}
	got := map[key][]string{}
	for _, d := range res.Diagnostics {
		k := key{d.Pos.Filename, d.Pos.Line}
		got[k] = append(got[k], d.Message)
		matched := false
		for _, re := range wants[k] {
			if re.MatchString(d.Message) {
				matched = true
			}
		}
		if !matched {
			t.Errorf("unexpected diagnostic %s", d)
		}
		if !strings.Contains(d.Message, ";") && !strings.Contains(d.Message, ":") {
			t.Errorf("%s: a refusal says why, then what to write instead", d)
		}
	}
	for k, res := range wants {
		for _, re := range res {
			found := false
			for _, m := range got[k] {
				if re.MatchString(m) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s:%d: no diagnostic matching %q (got %q)", k.file, k.line, re, got[k])
			}
		}
	}
	// Every kernel of the package has a refusal somewhere, and Refused
	// names each.
	refused := map[string]bool{}
	for _, n := range res.Refused {
		refused[n] = true
	}
	nkernels := 0
	for _, f := range pkg.Syntax {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Type.Results != nil && len(fd.Type.Results.List) == 1 {
				if sel, ok := fd.Type.Results.List[0].Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Kernel" {
					if !refusedIn(res.Diagnostics, pkg.Fset, fd) {
						t.Errorf("kernel %s has no refusal: it tests nothing", fd.Name.Name)
					}
					if fd.Type.TypeParams == nil && !refused[pkg.Name+"."+fd.Name.Name] {
						t.Errorf("kernel %s is not in Result.Refused", fd.Name.Name)
					}
					nkernels++
				}
			}
		}
	}
	if len(res.Refused) < nkernels {
		t.Errorf("Result.Refused names %d kernels, the package has %d: %v", len(res.Refused), nkernels, res.Refused)
	}
}

// refusedIn reports whether a diagnostic falls in fd, or in a helper it calls.
func refusedIn(ds []Diagnostic, fset *token.FileSet, fd *ast.FuncDecl) bool {
	start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
	for _, d := range ds {
		if d.Pos.Filename == start.Filename && d.Pos.Line >= start.Line && d.Pos.Line <= end.Line {
			return true
		}
	}
	// A kernel refused through its helper: the helper's diagnostic names it
	// or lies in a function it calls.
	calls := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && strings.HasSuffix(strings.ToLower(id.Name), "helper") {
				calls = true
			}
		}
		return true
	})
	return calls
}

func splitQuoted(t *testing.T, s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			t.Fatalf("bad want comment %q: %v", s, err)
		}
		u, _ := strconv.Unquote(q)
		out = append(out, u)
		s = s[len(q):]
	}
	return out
}
