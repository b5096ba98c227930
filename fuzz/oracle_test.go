package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// The exhaustive oracle: for programs of at most 3 threads and 4
// instructions (IF and LOOP count as instructions), the machine runs every
// schedule of the model (up to oracleLimit runs; the test says how many
// programs hit it), and the reference judges each run. That says which
// findings some schedule can produce and which final states some schedule
// reaches; sim's natural order and seeded RandomOrder runs are measured
// against it.

const (
	oracleLimit = 20000 // schedules per program and model
	oracleSeeds = 200   // RandomOrder seeds tried per program
)

// oracleResult is what the enumeration of one model found.
type oracleResult struct {
	kinds    map[sim.Kind]bool
	states   map[string]bool
	runs     int
	complete bool
	errs     []string
}

func runOracle(p *Program, md model) *oracleResult {
	o := &oracleResult{kinds: map[sim.Kind]bool{}, states: map[string]bool{}}
	o.complete = enumerate(p, md, oracleLimit, func(m *machine) {
		o.runs++
		for k := range m.r.v.kinds {
			o.kinds[k] = true
		}
		if len(m.r.v.errs) > 0 && len(o.errs) < 3 {
			o.errs = append(o.errs, fmt.Sprintf("%v\n%s", m.r.v.errs, traceString(m.trace)))
		}
		o.states[m.state()] = true
	})
	return o
}

func traceString(tr []event) string {
	var b strings.Builder
	for i := range tr {
		fmt.Fprintf(&b, "  %3d %v\n", i, &tr[i])
	}
	return b.String()
}

func smallProgram(r *rand.Rand) *Program {
	for {
		p := randomProgram(r, 1+r.IntN(4), []int{0, 1, 2})
		if p.Threads() <= 3 {
			return p
		}
	}
}

func simState(run *simRun) string {
	return finalState(run.final, run.regs, run.exited)
}

// kindRow is one line of the oracle table.
type kindRow struct {
	possible, natural int
	seeds             []int // seeds needed, per program where some seed found it
	never             int   // possible under the sim model, no seed found it
	gridOnly          int   // possible on the grid model only
}

// TestOracle enumerates the schedules of small programs and reports, per
// finding kind, how often it is possible, how often natural order finds
// it, and how many RandomOrder seeds it takes; and how many of the final
// states the oracle finds reachable the seeds reach.
func TestOracle(t *testing.T) {
	n, seeds := 150, oracleSeeds
	if testing.Short() {
		n, seeds = 25, 40
	}
	r := rand.New(rand.NewPCG(16, 3))
	rows := map[sim.Kind]*kindRow{}
	row := func(k sim.Kind) *kindRow {
		if rows[k] == nil {
			rows[k] = &kindRow{}
		}
		return rows[k]
	}
	var reachable, reached, simOnly, incomplete, gridStates, gridReached int
	var cover []float64
	for range n {
		p := smallProgram(r)
		os, og := runOracle(p, modelSim), runOracle(p, modelGrid)
		for _, o := range []*oracleResult{os, og} {
			if len(o.errs) > 0 {
				t.Fatalf("the machine's run contradicts the reference:\n%s\n%s", p, o.errs[0])
			}
			if !o.complete {
				incomplete++
			}
		}
		nat := runOnSim(p, sim.Options{})
		natV := viewOf(nat.report)
		first := map[sim.Kind]int{}
		states := map[string]bool{simState(nat): true}
		for s := 1; s <= seeds; s++ {
			run := runOnSim(p, sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(uint64(s)))
			for k := range viewOf(run.report).kinds {
				if _, ok := first[k]; !ok {
					first[k] = s
				}
				if !os.kinds[k] && os.complete && k != sim.Deadlock {
					t.Errorf("sim reports %v under seed %d, which no schedule of the oracle's sim model produces:\n%s\n%v", k, s, p, run.report)
				}
			}
			states[simState(run)] = true
		}
		for k := range og.kinds {
			if !os.kinds[k] {
				row(k).gridOnly++
				continue
			}
			kr := row(k)
			kr.possible++
			if natV.kinds[k] {
				kr.natural++
			}
			if s, ok := first[k]; ok {
				kr.seeds = append(kr.seeds, s)
			} else {
				kr.never++
			}
		}
		got := 0
		for st := range os.states {
			if states[st] {
				got++
			}
		}
		for st := range states {
			if !os.states[st] && os.complete {
				simOnly++
				t.Logf("sim reached a final state the oracle's sim model does not: %s\n%s", st, p)
			}
		}
		for st := range og.states {
			gridStates++
			if states[st] {
				gridReached++
			}
		}
		reachable += len(os.states)
		reached += got
		cover = append(cover, float64(got)/float64(len(os.states)))
	}
	t.Logf("%d programs (<= 3 threads, <= 4 instructions), %d seeds each; %d enumerations hit the %d-schedule limit", n, seeds, incomplete, oracleLimit)
	t.Logf("%-20s %8s %8s %8s %8s %8s %8s %8s %8s", "kind", "possible", "natural", "seed 1", "<=5", "<=20", "<=seeds", "never", "gridonly")
	var ks []sim.Kind
	for k := range rows {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for _, k := range ks {
		kr := rows[k]
		c := func(max int) int {
			n := 0
			for _, s := range kr.seeds {
				if s <= max {
					n++
				}
			}
			return n
		}
		t.Logf("%-20s %8d %8d %8d %8d %8d %8d %8d %8d", k, kr.possible, kr.natural, c(1), c(5), c(20), c(seeds), kr.never, kr.gridOnly)
		if len(kr.seeds) > 0 {
			sort.Ints(kr.seeds)
			t.Logf("%-20s seeds needed: median %d, max %d", "", kr.seeds[len(kr.seeds)/2], kr.seeds[len(kr.seeds)-1])
		}
	}
	sort.Float64s(cover)
	full := 0
	for _, c := range cover {
		if c == 1 {
			full++
		}
	}
	t.Logf("final states: the seeds reach %d of the %d the oracle's sim model finds reachable (%.1f%%); all of them in %d of %d programs; worst program %.0f%%",
		reached, reachable, 100*float64(reached)/float64(max(reachable, 1)), full, n, 100*cover[0])
	t.Logf("against the grid model (every thread of the grid may run whenever it is not blocked): %d of %d states (%.1f%%)",
		gridReached, gridStates, 100*float64(gridReached)/float64(max(gridStates, 1)))
	if simOnly > 0 {
		t.Errorf("%d final states sim reached are unreachable in the oracle's sim model", simOnly)
	}
}
