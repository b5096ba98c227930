package translate

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocMathTable checks that the package doc's table of math functions is
// the translator's: every mapped function listed once, with its C function
// and its accuracy, and nothing else.
func TestDocMathTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^//\t([A-Z][A-Za-z0-9]*)\s+(\S+)\s+(exact|within \d+ ulp)`)
	listed := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, c, acc := m[1], m[2], m[3]
		if listed[name] {
			t.Errorf("doc lists math.%s twice", name)
		}
		listed[name] = true
		f, ok := mathFuncs[name]
		if !ok {
			t.Errorf("doc lists math.%s, which the translator does not map", name)
			continue
		}
		if f.c != c {
			t.Errorf("doc maps math.%s to %s, the translator to %s", name, c, f.c)
		}
		if !strings.Contains(f.ulp, acc) {
			t.Errorf("doc says math.%s is %q, the table %q", name, acc, f.ulp)
		}
	}
	for name := range mathFuncs {
		if !listed[name] {
			t.Errorf("math.%s is mapped but missing from the doc's table", name)
		}
	}
}
