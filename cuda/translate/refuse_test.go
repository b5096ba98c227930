package translate

import (
	"go/ast"
	"go/token"
	"math/bits"
	"math/rand/v2"
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

// TestBitsRewrites: the refusal of a math/bits function without a CUDA
// form names a rewrite, and each rewrite computes what the function does
// (every 8- and 16-bit input, and sampled rotations and byte orders).
func TestBitsRewrites(t *testing.T) {
	for _, c := range []struct {
		fn, says string
		want     func(x uint64, k int) uint64
		got      func(x uint64, k int) uint64
		inputs   uint64 // every x below this, else samples
	}{
		{"LeadingZeros8", "bits.LeadingZeros32(uint32(x)) - 24",
			func(x uint64, _ int) uint64 { return uint64(bits.LeadingZeros8(uint8(x))) },
			func(x uint64, _ int) uint64 { return uint64(bits.LeadingZeros32(uint32(uint8(x))) - 24) }, 1 << 8},
		{"LeadingZeros16", "bits.LeadingZeros32(uint32(x)) - 16",
			func(x uint64, _ int) uint64 { return uint64(bits.LeadingZeros16(uint16(x))) },
			func(x uint64, _ int) uint64 { return uint64(bits.LeadingZeros32(uint32(uint16(x))) - 16) }, 1 << 16},
		{"TrailingZeros8", "min(bits.TrailingZeros32(uint32(x)), 8)",
			func(x uint64, _ int) uint64 { return uint64(bits.TrailingZeros8(uint8(x))) },
			func(x uint64, _ int) uint64 { return uint64(min(bits.TrailingZeros32(uint32(uint8(x))), 8)) }, 1 << 8},
		{"TrailingZeros16", "min(bits.TrailingZeros32(uint32(x)), 16)",
			func(x uint64, _ int) uint64 { return uint64(bits.TrailingZeros16(uint16(x))) },
			func(x uint64, _ int) uint64 { return uint64(min(bits.TrailingZeros32(uint32(uint16(x))), 16)) }, 1 << 16},
		{"Reverse8", "uint8(bits.Reverse32(uint32(x)) >> 24)",
			func(x uint64, _ int) uint64 { return uint64(bits.Reverse8(uint8(x))) },
			func(x uint64, _ int) uint64 { return uint64(uint8(bits.Reverse32(uint32(uint8(x))) >> 24)) }, 1 << 8},
		{"Reverse16", "uint16(bits.Reverse32(uint32(x)) >> 16)",
			func(x uint64, _ int) uint64 { return uint64(bits.Reverse16(uint16(x))) },
			func(x uint64, _ int) uint64 { return uint64(uint16(bits.Reverse32(uint32(uint16(x))) >> 16)) }, 1 << 16},
		{"OnesCount8", "bits.OnesCount32(uint32(x))",
			func(x uint64, _ int) uint64 { return uint64(bits.OnesCount8(uint8(x))) },
			func(x uint64, _ int) uint64 { return uint64(bits.OnesCount32(uint32(uint8(x)))) }, 1 << 8},
		{"Len16", "bits.Len32(uint32(x))",
			func(x uint64, _ int) uint64 { return uint64(bits.Len16(uint16(x))) },
			func(x uint64, _ int) uint64 { return uint64(bits.Len32(uint32(uint16(x)))) }, 1 << 16},
		{"RotateLeft8", "x<<s | x>>(8-s) with s := uint(k) & 7",
			func(x uint64, k int) uint64 { return uint64(bits.RotateLeft8(uint8(x), k)) },
			func(x uint64, k int) uint64 { y, s := uint8(x), uint(k)&7; return uint64(y<<s | y>>(8-s)) }, 0},
		{"RotateLeft32", "x<<s | x>>(32-s) with s := uint(k) & 31",
			func(x uint64, k int) uint64 { return uint64(bits.RotateLeft32(uint32(x), k)) },
			func(x uint64, k int) uint64 { y, s := uint32(x), uint(k)&31; return uint64(y<<s | y>>(32-s)) }, 0},
		{"RotateLeft", "x<<s | x>>(64-s) with s := uint(k) & 63",
			func(x uint64, k int) uint64 { return uint64(bits.RotateLeft(uint(x), k)) },
			func(x uint64, k int) uint64 { y, s := uint(x), uint(k)&63; return uint64(y<<s | y>>(64-s)) }, 0},
		{"ReverseBytes32", "x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24",
			func(x uint64, _ int) uint64 { return uint64(bits.ReverseBytes32(uint32(x))) },
			func(x uint64, _ int) uint64 {
				y := uint32(x)
				return uint64(y>>24 | y>>8&0xff00 | y<<8&0xff0000 | y<<24)
			}, 0},
		{"ReverseBytes16", "x>>8 | x<<8",
			func(x uint64, _ int) uint64 { return uint64(bits.ReverseBytes16(uint16(x))) },
			func(x uint64, _ int) uint64 { y := uint16(x); return uint64(y>>8 | y<<8) }, 1 << 16},
	} {
		if msg := bitsRewrite(c.fn); !strings.Contains(msg, c.says) {
			t.Errorf("bits.%s: the refusal says %q, want it to name %q", c.fn, msg, c.says)
		}
		r := rand.New(rand.NewPCG(7, 8))
		n := c.inputs
		if n == 0 {
			n = 4096
		}
		for i := range n {
			x, k := i, int(i%200)-100
			if c.inputs == 0 {
				x = r.Uint64()
			}
			if w, g := c.want(x, k), c.got(x, k); w != g {
				t.Errorf("bits.%s(%#x, %d) = %#x, the rewrite %s gives %#x", c.fn, x, k, w, c.says, g)
				break
			}
		}
	}
}
