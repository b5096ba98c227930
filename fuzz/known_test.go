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

// TestAbortedThreadNotReportedAsPassingBarrier: <<<1, 2>>>, a loop of
// __syncthreads; store; shfl_xor with mask 0x31. Lane 1 is not in the
// mask: a fatal warp divergence, which unwinds lane 1 while lane 0 waits at
// the barrier of the next iteration. sim used to count the unwinding as
// lane 1 exiting, release the barrier and report lane 1 as having run on
// past it, a BarrierDivergence no schedule produces (the oracle's
// enumeration has none); an aborting launch now judges no exits.
func TestAbortedThreadNotReportedAsPassingBarrier(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzOracle", "abort-reported-as-passing-barrier"))
	if err != nil {
		t.Fatal(err)
	}
	args, err := parseCorpus(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	p := smallFrom(args[0].([]byte))
	o := runOracle(p, modelSim)
	if o.kinds[sim.BarrierDivergence] || !o.complete {
		t.Fatalf("the oracle finds barrier divergence possible now (complete %v):\n%s", o.complete, p)
	}
	run := runOnSim(p, sim.Options{})
	if run.report.Has(sim.BarrierDivergence) {
		t.Fatalf("sim reports the thread a fatal finding unwound as passing the barrier by:\n%v", run.report)
	}
	if !run.report.Has(sim.WarpDivergence) {
		t.Fatalf("sim no longer reports the warp divergence itself:\n%v", run.report)
	}
	v := analyze(p, run.trace, false, run.inflight)
	if c := compareRun(run, v, nil); len(c.diffs) > 0 {
		t.Fatalf("sim and the reference disagree: %v", c.diffs)
	}
}

// TestPlainAndStrongReadFillBothSlots: <<<2, 1>>>; block 0's thread reads
// g0 plainly, then with a volatile load; both threads then volatile-load
// g0 and store it with atomic_ref (relaxed). Block 1's strong store races
// with block 0's plain read. From 7d39272 sim kept a thread's strong
// read beside its own plain read, so block 0's two reads filled both slots
// and block 1's volatile load pushed the plain read out: the race was not
// reported, counted by the differential test as limitEvicted (the
// documented two read slots). Now a thread's read stands in for its later
// strong reads made with no synchronisation between (they conflict with
// no write it does not), which are not recorded, and sim reports the race.
// (A strong read after a barrier or fence is still kept beside, and
// explainMissed still counts that case.)
func TestPlainAndStrongReadFillBothSlots(t *testing.T) {
	p := readRegression(t, "plain-and-strong-read-fill-both-slots")
	run := runOnSim(p, sim.Options{})
	v := analyze(p, run.trace, false, run.inflight)
	if !v.races[raceKey{"g0", 1, 3}] {
		t.Fatalf("the reference does not find the race:\n%s", describe(run, v, &comparison{}))
	}
	if c := compareRun(run, v, nil); !run.report.Has(sim.DataRace) || len(c.diffs) > 0 || len(c.known) > 0 {
		t.Fatalf("want the race from sim too, with no disagreement: %v %v\n%v", c.known, c.diffs, run.report)
	}
}

// TestThirdPlainReadKept: <<<2, 2>>>; in block 0 each thread reads g0
// plainly, then with a volatile load; in block 1 each thread stores g0 with
// atomic_ref (relaxed). Block 1's strong stores race with block 0's plain
// reads. sim used to drop thread 1's plain read when both read slots held
// other threads' unordered reads (slowAccess's read switch had an empty
// `default:`), then met only strong reads and reported nothing. The
// fuzzer's input (four threads a block) is kept as
// testdata/fuzz/FuzzDifferential/third-plain-read-dropped.
func TestThirdPlainReadKept(t *testing.T) {
	p := Decode([]byte{0x03, 0, byte(opIF), 0x06, 0x01, 0x01, byte(opLD), 0x10, 0, 0, byte(opLDV), 0, 0, 0, byte(opRST), 0, 0, 0})
	run := runOnSim(p, sim.Options{})
	v := analyze(p, run.trace, false, run.inflight)
	if !v.races[raceKey{"g0", 1, 3}] {
		t.Fatalf("the reference does not find the race:\n%s", describe(run, v, &comparison{}))
	}
	if !run.report.Has(sim.DataRace) {
		t.Fatalf("sim misses the race of a strong store with a third concurrent plain read:\n%s", describe(run, v, &comparison{}))
	}
	if c := compareRun(run, v, nil); len(c.diffs) > 0 {
		t.Fatalf("sim and the reference disagree: %v", c.diffs)
	}
}

// TestSharedReleaseStaysInItsBlock: <<<2, 1>>>; block 0's thread loads
// g0, then does fetch_add(acq_rel) on shared s0; block 1's thread does the
// same fetch_add on its own s0, then stores g0 with atomic_ref (relaxed).
// Nothing orders block 0's plain load before block 1's store: a race. sim
// used to key release histories by memory alone, and block 1, reusing
// block 0's shared array, acquired block 0's release through "its" s0 and
// reported nothing; shared elements' histories are now per block.
func TestSharedReleaseStaysInItsBlock(t *testing.T) {
	// if (block==0) { r2 = g0 }; r0 = ref<device>(s0).fetch_add(1, acq_rel); ref<system>(g0).store(r0, relaxed)
	p := Decode([]byte{0x01, 0, byte(opIF), 0x06, 0x00, 0x00, byte(opLD), 0x10, 0, 0,
		byte(opRADD), 0x24, 0, 0x03, byte(opRST), 0x00, 0x00, 0})
	run := runOnSim(p, sim.Options{})
	v := analyze(p, run.trace, false, run.inflight)
	if !v.races[raceKey{"g0", 1, 3}] {
		t.Fatalf("the reference does not find the race:\n%s", describe(run, v, &comparison{}))
	}
	if !run.report.Has(sim.DataRace) {
		t.Fatalf("sim misses the race: a block acquired another block's release through a reused shared array\n%s", describe(run, v, &comparison{}))
	}
	if c := compareRun(run, v, nil); len(c.diffs) > 0 {
		t.Fatalf("sim and the reference disagree: %v", c.diffs)
	}
}

// TestLeftLoopDecidedByInnermostDifferingLine: <<<2, 4>>>, if (tid%3==0) {
// __syncthreads() } __syncthreads(). Threads 0 and 3 wait at the first
// barrier while 1 and 2 wait at the second (barrier divergence, both
// report it); 1 and 2 then exit while 0 and 3 wait at the second. sim's
// left-loop check used to compare the block's last barrier with the awaited
// one in every function of the call chain and call a function in which both
// stand at one line a loop: here the interpreter's line calling execSlot,
// reported as "it left its loop after the barrier at line 153" (interp.go),
// a loop the program does not have; the same with no divergence at all
// (__syncthreads(); if (tid%3==0) { __syncthreads() }: threads return
// before the second barrier). Now the innermost function in which the two
// barriers stand at different lines orders them. Where the block's last
// barrier is the awaited one (if (tid%3==1) { __syncthreads() }
// __syncthreads(): thread 0 arrives first, at the second), both report the
// threads that exit straight after it while a lane of their warp waits.
func TestLeftLoopDecidedByInnermostDifferingLine(t *testing.T) {
	for _, c := range []struct {
		name string
		want []barKey
	}{
		{"left-loop-caller-line-tie", []barKey{{"diverge", 2, 1}}},
		{"return-between-barriers-not-left-loop", nil},
		{"left-loop-after-divergent-phase", []barKey{{"diverge", 1, 2}, {"passed", 2, 2}}},
	} {
		p := readRegression(t, c.name)
		for _, o := range schedulesFor(3) {
			run := runOnSim(p, o)
			v := analyze(p, run.trace, o.Schedule() == sim.RandomOrder, run.inflight)
			cmp := compareRun(run, v, nil)
			got := viewOf(run.report).barriers
			ok := len(got) == len(c.want) && len(cmp.diffs) == 0 && len(cmp.known) == 0
			for _, k := range c.want {
				ok = ok && got[k]
			}
			if !ok {
				t.Fatalf("%s: want barrier findings %v from both, with no disagreement:\n%s", c.name, c.want, describe(run, v, cmp))
			}
		}
	}
}

// TestFiniteNoChangeLoopsPastSimsIdlePolls: <<<1, 2>>>, seven nested loops
// of three trips around an exchange of g0's value (0) with 0: 2187
// exchanges that change nothing per thread, 4374 in all. sim parks a
// thread at each and takes 4096 such polls in all without progress for a
// livelock (its documented idlePolls), so it reports one while the
// reference sees threads that could go on: counted as
// limitIdleLivelock. One thread alone, with 2187, is clean in both
// (finite-no-change-exchanges-alone is the fuzzer's input of 68).
func TestFiniteNoChangeLoopsPastSimsIdlePolls(t *testing.T) {
	prog := func(shape byte) *Program {
		b := []byte{shape, 0}
		for depth := 6; depth >= 0; depth-- {
			b = append(b, byte(opLOOP), 2, byte(depth), 0)
		}
		return Decode(append(b, byte(opREXCH), 0x20, 0x0f, 0))
	}
	p := prog(0x02)
	run := runOnSim(p, sim.Options{})
	v := analyze(p, run.trace, false, run.inflight)
	c := compareRun(run, v, nil)
	if run.long || !run.report.Has(sim.Deadlock) || v.idlePolls < idleLivelockPolls {
		t.Fatalf("want sim's livelock verdict after %d polls without progress (long %v, polls %d):\n%s", idleLivelockPolls, run.long, v.idlePolls, describe(run, v, c))
	}
	if len(c.diffs) > 0 || c.known[limitIdleLivelock] == 0 {
		t.Fatalf("not counted as %q: %v %v", limitIdleLivelock, c.known, c.diffs)
	}
	p = prog(0x00)
	run = runOnSim(p, sim.Options{})
	v = analyze(p, run.trace, false, run.inflight)
	if c := compareRun(run, v, nil); run.report != nil || len(c.diffs) > 0 || len(c.known) > 0 {
		t.Fatalf("one thread alone: want a clean run, as the reference's:\n%s", describe(run, v, c))
	}
}

// TestKeptStrongWritesFillBothSlots: <<<2, 4>>>; every thread stores g1
// twice through a device-scope atomic_ref (acq_rel), then loads it through
// a block-scope one. Block 0's block-scope loads race with block 1's
// device-scope stores (not morally strong, nothing orders them), and the
// reference finds it. sim keeps the last write and two read slots: each
// store of a thread after another thread's store it does not come after
// keeps that store in a read slot (a plain access must still come after
// it), pushing a read out, and a strong read displaces neither kept writes
// nor plain reads, so from the second kept write on block 0's loads are
// not recorded (RATIONALE: "strong stores of other threads beyond the last
// and the two kept in the read slots", and the reads they push out). The
// differential fuzzer's inputs (this one, and
// kept-strong-writes-push-out-reads, with a WAIT) are counted as
// limitEvicted; this test holds that classification under every schedule
// the fuzz target runs.
func TestKeptStrongWritesFillBothSlots(t *testing.T) {
	for _, name := range []string{"kept-strong-writes-fill-both-slots", "kept-strong-writes-push-out-reads"} {
		if countEvicted(t, name, 2) == 0 {
			t.Logf("%s: sim reports the race under every schedule now (its read slots changed)", name)
		}
	}
}

// TestNoChangeAtomicsInFlightEitherOrder: <<<2, 1>>>, RandomOrder seed 2:
// block 1's CAS of g1 (which leaves it) yields before it acts, block 0's
// block-scope exchange of g1 (which leaves it too) acts and parks, then the
// CAS acts and returns, recorded first. The trace cannot say which of the
// two acted first; sim's race of the exchange (block scope, another block)
// with the CAS needs the exchange first. The reference used to place the
// pair only in record order, and failed; the comparison now tries the
// later recorded first where two threads' no-change atomics of a cell
// were in flight at once, counted as limitAmbiguous.
func TestNoChangeAtomicsInFlightEitherOrder(t *testing.T) {
	p := readRegression(t, "no-change-atomics-in-flight-either-order")
	o := sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(2)
	run := runOnSim(p, o)
	v := analyze(p, run.trace, true, run.inflight)
	c := compareRun(run, v, func() *verdict { return alternative(run, v, true) })
	if !run.report.Has(sim.DataRace) || len(c.diffs) > 0 || c.known[limitAmbiguous] == 0 {
		t.Fatalf("want sim's race counted as %q: %v %v\n%s", limitAmbiguous, c.known, c.diffs, describe(run, v, c))
	}
}

// TestOwnStrongReadAfterFenceDisplacesOwnVolatileRead: <<<1, 2>>>,
// RandomOrder seed 1; each thread polls shared s1 with volatile loads,
// makes a device-scope release store of g0 (a fence to sim), stores s1
// with a volatile store and loads it through a device-scope atomic_ref.
// Thread 0's volatile poll and thread 1's later volatile store are two
// lanes' volatile accesses with no __syncwarp between (warpVolatile), and
// the reference reports them. sim's read slots then hold thread 0's poll
// and thread 1's; thread 0's atomic_ref load comes after its fence, so it
// conflicts with writes its poll does not (those ordered after the fence)
// and does not stand in for it: with no slot free it replaces the thread's
// own earlier read (memorder.go, strongCheck: "the lesser loss"), and the
// poll's race with thread 1's store goes unreported. The differential test
// counts that as limitEvicted; this test holds the classification under
// every schedule the fuzz target runs.
func TestOwnStrongReadAfterFenceDisplacesOwnVolatileRead(t *testing.T) {
	const name = "own-strong-read-after-fence-displaces-own-volatile-read"
	if countEvicted(t, name, 2) == 0 {
		t.Errorf("%s: sim reports the race under every schedule: its read slots changed; update this test and explainMissed", name)
	}
}

// TestOwnStoreLastReadGivesWayToOtherRead: <<<1, 2>>>, RandomOrder seed 2;
// each thread release-stores shared s1 through a device-scope atomic_ref,
// polls it with volatile loads, then stores it with a volatile store.
// Thread 1's poll and thread 0's later volatile store are two lanes'
// volatile accesses with no __syncwarp between (warpVolatile), and the
// reference reports them. In sim, thread 1's store kept thread 0's store
// in a read slot, the other slot holding thread 0's poll; thread 1, which
// wrote the cell last, then gives way to that poll and its own poll is not
// recorded (memorder.go, strongCheck), so the race goes unreported. The
// differential test counts it as limitEvicted (explainMissed,
// ownWriteDropsRead); this test holds the classification under every
// schedule the fuzz target runs.
func TestOwnStoreLastReadGivesWayToOtherRead(t *testing.T) {
	const name = "own-store-last-read-gives-way-to-other-read"
	if countEvicted(t, name, 2) == 0 {
		t.Errorf("%s: sim reports the race under every schedule: its read slots changed; update this test and explainMissed", name)
	}
}

// TestKeptStoreLeavesOneSlotPollReplaced: <<<1, 2>>>, RandomOrder seed 2;
// each thread release-stores shared s1 through a device-scope atomic_ref,
// polls it with volatile loads, then stores it with a volatile store.
// Thread 1's poll and thread 0's later volatile store are two lanes'
// volatile accesses with no __syncwarp between (warpVolatile), and the
// reference reports them. In sim, thread 1's store kept thread 0's store
// in a read slot, and thread 1's poll took the other; thread 0's poll,
// thread 0 not having written the cell last, then replaced it
// (memorder.go, strongCheck), so the race goes unreported. The
// differential test counts it as limitEvicted (explainMissed,
// keptWriteLeavesOneSlot); this test holds the classification under every
// schedule the fuzz target runs.
func TestKeptStoreLeavesOneSlotPollReplaced(t *testing.T) {
	const name = "kept-store-leaves-one-slot-poll-replaced"
	if countEvicted(t, name, 2) == 0 {
		t.Errorf("%s: sim reports the race under every schedule: its read slots changed; update this test and explainMissed", name)
	}
}

// countEvicted runs regression input name under schedulesFor(seeds), fails
// t if sim and the reference disagree anywhere else, or if a race sim
// misses is not counted as limitEvicted, and returns the number of
// schedules under which sim missed it.
func countEvicted(t *testing.T, name string, seeds int) int {
	t.Helper()
	p := readRegression(t, name)
	counted := 0
	for _, o := range schedulesFor(seeds) {
		run := runOnSim(p, o)
		v := analyze(p, run.trace, o.Schedule() == sim.RandomOrder, run.inflight)
		c := compareRun(run, v, nil)
		if len(c.diffs) > 0 {
			t.Fatalf("%s (%v seed %d): %v", name, o.Schedule(), o.Seed(), c.diffs)
		}
		if v.kinds[sim.DataRace] && !run.report.Has(sim.DataRace) {
			if c.known[limitEvicted] == 0 {
				t.Fatalf("%s (%v seed %d): not counted as %q: %v", name, o.Schedule(), o.Seed(), limitEvicted, c.known)
			}
			counted++
		}
	}
	return counted
}
