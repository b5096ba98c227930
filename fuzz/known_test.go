package fuzz

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// Sim bugs this package found. Each has a regression input under
// testdata/fuzz/FuzzDifferential/ (go test runs it as part of
// FuzzDifferential's seed corpus) and a test named after it. While a bug
// is open its test pins it (it passes while sim has the bug, and fails
// once sim is fixed, so that its entry in diff.go's list of known
// discrepancies goes with the fix); once fixed the test asserts the fix.

// readRegression reads a regression input in go test's corpus format.
func readRegression(t *testing.T, name string) *Program {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzDifferential", name))
	if err != nil {
		t.Fatal(err)
	}
	args, err := parseCorpus(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return Decode(args[0].([]byte))
}

// TestOwnStrongReadKeepsPlainRead: block 0's thread reads g0 plainly,
// then with a volatile load; block 1's thread then does atomicAdd(g0).
// Nothing orders the plain read before the atomic: a race ("a plain access
// unordered with an atomic on the same element races"). sim/memorder.go's
// strongCheck used to let the volatile load take the read slot holding the
// same thread's plain read, and the atomic then met only a strong read and
// reported nothing: the differential test's first finding (8599e74),
// fixed in 7d39272.
func TestOwnStrongReadKeepsPlainRead(t *testing.T) {
	p := readRegression(t, "own-strong-read")
	for _, o := range schedulesFor(3) {
		run := runOnSim(p, o)
		v := analyze(p, run.trace, o.Schedule() == sim.RandomOrder, run.inflight)
		c := compareRun(run, v, nil)
		if !v.races[raceKey{"g0", 1, 3}] || !run.report.Has(sim.DataRace) || len(c.diffs) > 0 || len(c.known) > 0 {
			t.Fatalf("want the race of slot 1 with slot 3 from both, with no disagreement:\n%s", describe(run, v, c))
		}
	}
}
