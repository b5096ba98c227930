package translate

import (
	"flag"
	"go/ast"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .cu files in testdata/golden")

var (
	okOnce sync.Once
	okRes  *Result
	okErr  error
)

// loadOK translates testdata/ok, the package of one kernel per construct.
func loadOK(t testing.TB) *Result {
	t.Helper()
	okOnce.Do(func() { okRes, okErr = Load(".", "./testdata/ok") })
	if okErr != nil {
		t.Fatal(okErr)
	}
	return okRes
}

// TestGolden pins the CUDA of every testdata/ok kernel: go test
// ./cuda/translate -update rewrites the goldens, to be reviewed as a diff.
func TestGolden(t *testing.T) {
	res := loadOK(t)
	for _, d := range res.Diagnostics {
		t.Errorf("testdata/ok must translate: %s", d)
	}
	dir := filepath.Join("testdata", "golden")
	want := map[string]bool{}
	for _, k := range res.Kernels {
		name := k.Twin.Entry + ".cu"
		want[name] = true
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, []byte(k.Twin.Source), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run go test -update)", k.Twin.Entry, err)
			continue
		}
		if string(golden) != k.Twin.Source {
			t.Errorf("%s: the translation differs from %s (go test -update rewrites it):\n%s", k.Twin.Entry, path, lineDiff(string(golden), k.Twin.Source))
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
	for _, f := range files {
		if !want[filepath.Base(f)] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s has no kernel: delete it (go test -update does)", f)
		}
	}
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

func entries(res *Result) []string {
	var out []string
	for _, k := range res.Kernels {
		out = append(out, k.Twin.Entry)
	}
	sort.Strings(out)
	return out
}

// TestTranslatorBugIsADiagnostic: a panic inside the translator is a bug of
// the translator, never a crash of its caller: it becomes a diagnostic at
// the Go source being translated, the kernel (and every kernel calling a
// helper it happened in) gets no translation, and the others still do.
func TestTranslatorBugIsADiagnostic(t *testing.T) {
	testHook = func(s ast.Stmt) {
		if _, ok := s.(*ast.IncDecStmt); ok {
			panic("planted bug")
		}
	}
	defer func() { testHook = nil }()
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
func bump(x int32) int32 {
	x++
	return x
}
func A(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 0, bump(1)) }
}
func B(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 1, bump(2)) }
}
func C(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0)
		x++
		a.Store(t, 0, x)
	}
}
func D(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 0, 1) }
}
`)
	if got := strings.Join(entries(res), " "); got != "D" {
		t.Errorf("translated %q, want only D", got)
	}
	if got := strings.Join(res.Refused, " "); got != "p.A p.B p.C" {
		t.Errorf("Refused %q, want p.A p.B p.C", got)
	}
	var lines []int
	for _, d := range res.Diagnostics {
		if !strings.Contains(d.Message, "translator bug") || !strings.Contains(d.Message, "planted bug") {
			t.Errorf("diagnostic %s does not report the bug", d)
		}
		if d.Pos.Filename != "p/src.go" {
			t.Errorf("diagnostic %s names no Go source", d)
		}
		lines = append(lines, d.Pos.Line)
	}
	if len(lines) != 2 || lines[0] != 4 || lines[1] != 16 {
		t.Errorf("diagnostics on lines %v, want 4 (bump's x++) and 16 (C's x++): %v", lines, res.Diagnostics)
	}
}
