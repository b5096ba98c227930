package fuzz

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// maxTraceEvents bounds the traces the differential test compares.
const maxTraceEvents = 20000

const limitTraceLength = "trace too long for the reference (> maxTraceEvents events): not compared"

// schedulesFor are the schedules the differential test runs a program
// under: natural order and seeds 1..n of RandomOrder.
func schedulesFor(n int) []sim.Options {
	out := []sim.Options{{}}
	for s := 1; s <= n; s++ {
		out = append(out, sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(uint64(s)))
	}
	return out
}

// tally sums comparisons over many runs.
type tally struct {
	programs, runs, agree int
	known                 map[string]int
	missedPairs           int
	kinds                 map[sim.Kind]int
}

func newTally() *tally { return &tally{known: map[string]int{}, kinds: map[sim.Kind]int{}} }

// differential runs p under each schedule, compares sim with the
// reference, and fails t on any disagreement no known limit explains.
func differential(t testing.TB, p *Program, scheds []sim.Options, tl *tally) {
	tl.programs++
	for _, o := range scheds {
		run := runOnSim(p, o)
		if len(run.trace) > maxTraceEvents {
			// The reference tests each access against every earlier one
			// of its cell: quadratic, minutes on a livelocked grid of
			// 80 threads polling in loops. Counted, not compared.
			tl.runs++
			tl.known[limitTraceLength]++
			continue
		}
		random := o.Schedule() == sim.RandomOrder
		v := analyze(p, run.trace, random, run.inflight)
		c := compareRun(run, v, func() *verdict { return alternative(run, v, random) })
		tl.runs++
		for k, n := range c.known {
			tl.known[k] += n
		}
		tl.missedPairs += c.missedPairs
		for k := range v.kinds {
			tl.kinds[k]++
		}
		if len(c.diffs) == 0 && len(c.known) == 0 {
			tl.agree++
		}
		if len(c.diffs) > 0 {
			t.Errorf("sim and the reference disagree:\n%s", describe(run, v, c))
			return
		}
	}
}

func (tl *tally) log(t testing.TB) {
	t.Logf("%d programs, %d runs: %d agree exactly", tl.programs, tl.runs, tl.agree)
	var ks []string
	for k := range tl.kinds {
		ks = append(ks, k.String())
	}
	sort.Strings(ks)
	t.Logf("runs with each kind (reference): %s", strings.Join(ks, ", "))
	for k, n := range tl.kinds {
		t.Logf("  %-22s %d", k, n)
	}
	t.Logf("racing pairs sim does not name on cells it reports (FastTrack keeps one write and two reads): %d", tl.missedPairs)
	for k, n := range tl.known {
		t.Logf("known limit %q: %d disagreements", k, n)
	}
}

// randomProgram makes a program of n instructions from r, in the
// encoding's terms but biased towards programs that synchronise: full
// masks mostly, barriers inside branches, waits for values that others
// write, few cells. tpb, if not nil, lists the tpbTable indices to draw
// the block size from.
func randomProgram(r *rand.Rand, n int, tpb []int) *Program {
	b := []byte{byte(r.UintN(256)), byte(r.UintN(256))}
	if tpb != nil {
		b[0] = b[0]&1 | byte(tpb[r.IntN(len(tpb))])<<1
	}
	weights := [nOps]int{opLD: 8, opST: 8, opADD: 3, opEXCH: 2, opCAS: 2, opLDV: 2, opSTV: 2, opRLD: 3, opRST: 3,
		opRADD: 2, opREXCH: 1, opRCAS: 2, opFENCE: 4, opBAR: 4, opSYNCWARP: 2, opSHFL: 1, opVOTE: 1, opWAIT: 1,
		opIF: 4, opLOOP: 2}
	total := 0
	for _, w := range weights {
		total += w
	}
	cells := 1 + r.IntN(3) // how many cells the program uses
	for range n {
		k := r.IntN(total)
		op := opcode(0)
		for ; k >= weights[op]; op++ {
			k -= weights[op]
		}
		a, bb, c := byte(r.UintN(256)), byte(r.UintN(256)), byte(r.UintN(256))
		cell := byte(r.IntN(cells))
		if r.IntN(3) == 0 {
			cell = 4 + byte(r.IntN(2)) // shared
		}
		switch op {
		case opSYNCWARP:
			bb = mask(r)
		case opSHFL, opVOTE:
			c = mask(r)
		case opIF:
			bb &= 3
			if r.IntN(2) == 0 {
				a = a&7 | byte(r.IntN(4))<<3
			}
		case opLOOP:
			bb &= 3
		case opFENCE:
		default:
			a = a&^7 | cell
		}
		b = append(b, byte(op), a, bb, c)
	}
	return Decode(b)
}

// mask is mostly the full mask, sometimes a few low lanes.
func mask(r *rand.Rand) byte {
	if r.IntN(4) > 0 {
		return 0xff
	}
	return byte(r.UintN(256))
}

// TestDifferential compares sim with the reference on random programs,
// under natural order and five random seeds each.
func TestDifferential(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(16, 1))
	tl := newTally()
	for i := range n {
		p := randomProgram(r, 1+i%12, nil)
		differential(t, p, schedulesFor(5), tl)
		if t.Failed() {
			break
		}
	}
	tl.log(t)
}

// alternative re-judges an ambiguous trace with its no-change atomics
// placed elsewhere: all at their latest points, then each at each of its
// other possible points (up to 300 tries). It returns the first verdict
// that agrees with sim, or the latest placement's.
func alternative(run *simRun, v *verdict, random bool) *verdict {
	try := func(at map[int]int, latest bool) *verdict {
		return analyzeAt(run.p, run.trace, random, run.inflight, latest, at)
	}
	last := try(nil, true)
	if len(strictDiffs(run, last)) == 0 {
		return last
	}
	n := 0
	for _, ch := range v.choices {
		for _, k := range ch.at {
			if n++; n > 300 {
				return last
			}
			if a := try(map[int]int{ch.j: k}, false); len(strictDiffs(run, a)) == 0 {
				return a
			}
		}
	}
	// Two threads' no-change atomics of one cell in flight at once (the
	// later recorded begun before the earlier returned) acted in either
	// order: both at the first point both may have acted at, the later
	// recorded first.
	for x, a := range v.flights {
		for _, b := range v.flights[x+1:] {
			if a.inst != b.inst || a.g == b.g || b.pre > a.j {
				continue
			}
			k := max(a.pre, b.pre)
			if !slices.Contains(a.cands, k) || !slices.Contains(b.cands, k) {
				continue
			}
			if n++; n > 300 {
				return last
			}
			if c := try(map[int]int{a.j: k, b.j: -k - 1}, false); len(strictDiffs(run, c)) == 0 {
				return c
			}
		}
	}
	// Several in flight at once may each have acted elsewhere: where the
	// placements are few (each at each of its points, before or after
	// the others placed there), every one of them: of all the atomics,
	// else of those of each cell, the others placed earliest.
	if c := enumeratePlacements(run, v.flights, try); c != nil {
		return c
	}
	byCell := map[int][]flight{}
	var cells []int
	for _, f := range v.flights {
		if byCell[f.inst] == nil {
			cells = append(cells, f.inst)
		}
		byCell[f.inst] = append(byCell[f.inst], f)
	}
	for _, inst := range cells {
		if len(byCell[inst]) == len(v.flights) {
			break // tried above
		}
		if c := enumeratePlacements(run, byCell[inst], try); c != nil {
			return c
		}
	}
	return last
}

// enumeratePlacements tries every placement of the no-change atomics fs,
// if there are at most maxPlacements, and returns the first verdict that
// agrees with sim, or nil.
func enumeratePlacements(run *simRun, fs []flight, try func(map[int]int, bool) *verdict) *verdict {
	var opts [][]int
	var js []int
	total := 1
	for _, f := range fs {
		var o []int
		for _, k := range f.cands {
			o = append(o, k, -k-1)
		}
		if len(o) == 0 {
			continue
		}
		if total *= len(o); total > max(maxPlacements, placementSteps/max(len(run.trace), 1)) {
			return nil
		}
		opts, js = append(opts, o), append(js, f.j)
	}
	idx := make([]int, len(opts))
	for range total {
		at := map[int]int{}
		for x, j := range js {
			at[j] = opts[x][idx[x]]
		}
		if c := try(at, false); len(strictDiffs(run, c)) == 0 {
			return c
		}
		for x := range idx {
			if idx[x]++; idx[x] < len(opts[x]) {
				break
			}
			idx[x] = 0
		}
	}
	return nil
}

// maxPlacements and placementSteps bound the placements of no-change
// atomics in flight that alternative enumerates: 4096, or as many as make
// placementSteps trace events re-judged in all (a short trace with a dozen
// atomics in flight has some 100,000).
const (
	maxPlacements  = 4096
	placementSteps = 1 << 22
)
