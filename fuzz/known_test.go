package fuzz

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// Known discrepancies: sim bugs this package found. Each has a regression
// input under testdata/fuzz/FuzzDifferential/ (which go test runs as part
// of FuzzDifferential's seed corpus, where the differential test counts it
// under its name) and a test named after it that pins the bug: it passes
// while sim still has it and fails once sim is fixed, so that the entry in
// diff.go's list is removed with the fix.

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

// TestKnownOwnStrongReadHidesPlainRead: block 0's thread reads g0 plainly,
// then with a volatile load; block 1's thread then does atomicAdd(g0).
// Nothing orders the plain read before the atomic: a race (the reference,
// and the rule "a plain access unordered with an atomic on the same
// element races"). sim/memorder.go's strongCheck lets the volatile load
// take the read slot that holds the same thread's plain read (the
// c.r[k].gid == g case), and the atomic then meets only a strong read,
// which does not race with it: sim reports nothing.
func TestKnownOwnStrongReadHidesPlainRead(t *testing.T) {
	p := readRegression(t, "own-strong-read")
	run := runOnSim(p, sim.Options{})
	v := analyze(p, run.trace, false, run.inflight)
	if !v.races[raceKey{"g0", 1, 3}] {
		t.Fatalf("the reference no longer finds the race of slot 1 with slot 3:\n%s", describe(run, v, &comparison{}))
	}
	c := compareRun(run, v, nil)
	if run.report.Has(sim.DataRace) {
		t.Fatalf("sim reports the race now: remove knownOwnStrongRead from diff.go and this test\n%v", run.report)
	}
	if c.known[knownOwnStrongRead] == 0 || len(c.diffs) > 0 {
		t.Fatalf("the differential test does not count it as %q: known %v, diffs %v", knownOwnStrongRead, c.known, c.diffs)
	}
	// The same program with the volatile load removed is reported: the
	// strong read is what hides the race.
	q := Decode([]byte{0x01, 0x00, byte(opIF), 0x06, 0x00, 0x01, byte(opLD), 0x00, 0, 0, byte(opADD), 0x00, 0, 0})
	if r := runOnSim(q, sim.Options{}); !r.report.Has(sim.DataRace) {
		t.Fatalf("without the volatile load sim does not report the race either:\n%s", q)
	}
}
