package sim

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// A test's name decides what its launches must report, as in Go's
// runtime/race tests: TestRaceXxx must report a data race and TestNoRaceXxx
// must not (it may report other findings: its own assertions check those),
// and a name that starts with another kind of finding must report that kind.
// The first rule whose prefix the test's name carries applies; a name that
// carries none (TestOutputFormat, TestEpochsDoNotLeak) leaves the checking to
// the test.
var nameRules = []struct {
	prefix string
	want   Kind
	never  bool // the launches must not report want
}{
	{"TestNoRace", DataRace, true},
	{"TestRace", DataRace, false},
	{"TestUninit", UninitializedRead, false},
	{"TestBarrierDivergence", BarrierDivergence, false},
	{"TestWarpDivergence", WarpDivergence, false},
	{"TestDeadlock", Deadlock, false},
	{"TestOutOfBounds", OutOfBounds, false},
	{"TestPanic", KernelPanic, false},
	{"TestInvalidShared", InvalidShared, false},
	{"TestInvalidShuffle", InvalidShuffle, false},
}

// ruleFor returns the index of the rule for the top-level test name, or -1.
func ruleFor(name string) int {
	name, _, _ = strings.Cut(name, "/")
	for i, r := range nameRules {
		if strings.HasPrefix(name, r.prefix) {
			return i
		}
	}
	return -1
}

var expected struct {
	sync.Mutex
	found    map[testing.TB]bool // tests with a "must report" rule: whether one did
	launched map[string]bool     // top-level tests whose launches were checked
}

// ExpectByName checks a launch's result against the test's name: err is what
// Device.Launch returned. A TestNoRace launch that reports a race fails the
// test at once; a test whose name asks for a finding fails at its end if none
// of its launches reported one. An error other than a *Report (a refused
// launch) is no launch and is not counted. Every launch in sim's tests goes
// through here (exec, launch and launchOn in package sim_test).
func ExpectByName(t testing.TB, err error) {
	t.Helper()
	var r *Report
	if err != nil && !errors.As(err, &r) {
		return
	}
	i := ruleFor(t.Name())
	if i < 0 {
		return
	}
	rule := nameRules[i]
	top, _, _ := strings.Cut(t.Name(), "/")
	expected.Lock()
	defer expected.Unlock()
	if expected.launched == nil {
		expected.launched = map[string]bool{}
		expected.found = map[testing.TB]bool{}
	}
	expected.launched[top] = true
	if rule.never {
		if r.Has(rule.want) {
			t.Errorf("%s: the name promises no %v, but the launch reported:\n%v", rule.prefix, rule.want, r)
		}
		return
	}
	found, seen := expected.found[t]
	expected.found[t] = found || r.Has(rule.want)
	if !seen {
		t.Cleanup(func() {
			expected.Lock()
			found := expected.found[t]
			delete(expected.found, t)
			expected.Unlock()
			if !found && !t.Failed() {
				t.Errorf("%s: the name promises a %v, but no launch reported one", rule.prefix, rule.want)
			}
		})
	}
}

// TestMain checks, after a run of every test, that each test whose name
// carries a rule launched through ExpectByName at least once: otherwise its
// name would promise what nothing checked.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && ranEverything() {
		if missing := uncheckedNames(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "tests whose names promise a result but never launched through ExpectByName:\n\t%s\n",
				strings.Join(missing, "\n\t"))
			code = 1
		}
	}
	os.Exit(code)
}

// ranEverything reports whether the run was unfiltered, so that every test
// in the files ran.
func ranEverything() bool {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}

// uncheckedNames lists the tests in this directory's test files whose names
// carry a rule and that never reached ExpectByName.
func uncheckedNames() []string {
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	var missing []string
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return []string{err.Error()}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || ruleFor(fn.Name.Name) < 0 {
				continue
			}
			if !expected.launched[fn.Name.Name] {
				missing = append(missing, file+": "+fn.Name.Name)
			}
		}
	}
	sort.Strings(missing)
	return missing
}
