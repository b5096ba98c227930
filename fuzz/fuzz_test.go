package fuzz

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// seedPrograms adds a few hand-written programs (in the encoding) and
// random ones to a target's seed corpus.
func seedPrograms(f *testing.F) {
	for _, b := range handPrograms {
		f.Add(b)
	}
	r := rand.New(rand.NewPCG(16, 7))
	for i := range 8 {
		f.Add(randomProgram(r, 2+i, nil).Raw)
	}
}

// handPrograms are patterns the detectors are about (see lang.go for the
// encoding: [op a b c] after the shape and init bytes).
var handPrograms = [][]byte{
	// <<<1,2>>>: everyone stores g0; a race.
	{0x02, 0x00, byte(opST), 0x00, 0x04, 0},
	// <<<1,2>>>: store s0, barrier, load s0: no race.
	{0x02, 0x00, byte(opST), 0x04, 0x0c, 0, byte(opBAR), 0, 0, 0, byte(opLD), 0x04, 0, 0},
	// <<<1,4>>>: if (tid<2) barrier; store g1: barrier divergence (passed by).
	{0x06, 0x00, byte(opIF), 0x10, 0x00, 0, byte(opBAR), 0, 0, 0, byte(opST), 0x01, 0x0c, 0},
	// <<<2,1>>>: message passing: block 1 stores g1, fences, sets g0; block 0 waits for g0 == 1, fences, loads g1.
	{0x01, 0x00, byte(opIF), 0x06, 0x02, 0x05,
		byte(opWAIT), 0x00, 0x01, 0, byte(opFENCE), 0x01, 0, 0, byte(opLD), 0x09, 0, 0,
		byte(opST), 0x01, 0x05, 0, byte(opFENCE), 0x01, 0, 0, byte(opEXCH), 0x00, 0x04, 0},
	// <<<1,3>>>: __syncwarp with a mask that leaves lanes out: warp divergence or deadlock.
	{0x04, 0x00, byte(opSYNCWARP), 0, 0x03, 0, byte(opLD), 0x01, 0, 0},
	// <<<1,40>>>: two warps, shuffle and vote, then a store per lane.
	{0x0e, 0x00, byte(opSHFL), 0x11, 0x01, 0xff, byte(opVOTE), 0x06, 0, 0xff, byte(opST), 0x04, 0x0e, 0},
}

// FuzzDifferential decodes a program, runs it on sim under natural order
// and two seeds of RandomOrder, and compares sim's findings, memory and
// registers with the reference's verdict on the trace (see differential
// and compareRun): any disagreement that no known limit or known
// discrepancy explains fails.
func FuzzDifferential(f *testing.F) {
	seedPrograms(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tl := newTally()
		differential(t, Decode(data), schedulesFor(2), tl)
		for k, n := range tl.known {
			t.Logf("known: %s (%d)", k, n)
		}
	})
}

// smallFrom decodes data as a program the oracle can enumerate: at most
// 3 threads and 4 instructions.
func smallFrom(data []byte) *Program {
	b := slices.Clone(data)
	if len(b) > 0 {
		shape := b[0]
		if (shape>>1)&7 > 2 {
			shape = shape&^0x0e | ((shape>>1)&7%3)<<1
		}
		if shape&1 != 0 {
			shape &^= 0x0e // two blocks of one thread
		}
		b[0] = shape
	}
	p := Decode(b[:min(len(b), 2+4*4)])
	return p
}

// FuzzOracle enumerates every schedule of a small program under the
// oracle's sim model and checks sim against it: every machine run agrees
// with the reference, sim's natural order and two seeds end in final
// states the oracle finds reachable, and report only kinds of finding
// some schedule produces.
func FuzzOracle(f *testing.F) {
	seedPrograms(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := smallFrom(data)
		o := runOracle(p, modelSim)
		if len(o.errs) > 0 {
			t.Fatalf("the machine's run contradicts the reference:\n%s\n%s", p, o.errs[0])
		}
		if !o.complete {
			return
		}
		for _, opts := range schedulesFor(2) {
			run := runOnSim(p, opts)
			if st := simState(run); !o.states[st] {
				t.Fatalf("sim (%v seed %d) ends in %s, which no schedule of the oracle reaches:\n%s", opts.Schedule(), opts.Seed(), st, p)
			}
			for k := range viewOf(run.report).kinds {
				if !o.kinds[k] {
					t.Fatalf("sim (%v seed %d) reports %v, which no schedule of the oracle produces:\n%s\n%v", opts.Schedule(), opts.Seed(), k, p, run.report)
				}
			}
		}
	})
}

// FuzzDeterminism runs a program twice with one seed: the traces, final
// memory, registers and reports must be identical.
func FuzzDeterminism(f *testing.F) {
	for _, b := range handPrograms {
		f.Add(b, uint64(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		p := Decode(data)
		opts := sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed)
		a, b := runOnSim(p, opts), runOnSim(p, opts)
		if !slices.Equal(a.trace, b.trace) {
			t.Fatalf("seed %d: two runs of\n%s differ in their traces", seed, p)
		}
		if a.final != b.final || !slices.Equal(a.regs, b.regs) || reportText(a) != reportText(b) {
			t.Fatalf("seed %d: two runs of\n%s differ:\n%v %v\n%s\n%v %v\n%s", seed, p, a.final, a.regs, reportText(a), b.final, b.regs, reportText(b))
		}
	})
}

func reportText(r *simRun) string {
	if r.report == nil {
		return fmt.Sprint(r.err)
	}
	return r.report.Error()
}

// FuzzSharedDecl declares static and dynamic shared memory of any size:
// the launch must be refused or end in a Report, never panic.
func FuzzSharedDecl(f *testing.F) {
	f.Add(int64(1), int64(0), true)
	f.Add(int64(1)<<40, int64(1)<<20, false)
	f.Add(int64(-5), int64(-1), true)
	f.Add(int64(12288), int64(49152), true)
	f.Fuzz(func(t *testing.T, n, dyn int64, optIn bool) {
		dev := sim.NewDevice(sim.H100)
		cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(8), SharedBytes: int(dyn), Options: sim.Options{}.WithSharedOptIn(optIn)}
		err := dev.Launch(cfg, func(th *sim.Thread) {
			s := sim.Shared[int32](th, "s", int(n))
			d := sim.DynamicShared[int32](th, "dyn")
			if s.Len() > 0 {
				s.Store(th, th.LinearThreadIdx()%s.Len(), 1)
			}
			if d.Len() > 0 {
				d.Store(th, th.LinearThreadIdx()%d.Len(), 2)
			}
		})
		var le *sim.LaunchError
		var rep *sim.Report
		if err != nil && !errors.As(err, &le) && !errors.As(err, &rep) {
			t.Fatalf("unexpected error %T: %v", err, err)
		}
	})
}

// FuzzPanicAtBarrier makes the threads of a mask panic while the others
// wait at a barrier, a warp collective or a spin: the launch must end in
// a Report with a KernelPanic, never hang.
func FuzzPanicAtBarrier(f *testing.F) {
	f.Add(uint64(1), uint8(40), uint8(0))
	f.Add(uint64(1)<<33, uint8(64), uint8(1))
	f.Add(^uint64(0)>>1, uint8(7), uint8(2))
	f.Fuzz(func(t *testing.T, panics uint64, tpb, wait uint8) {
		n := 1 + int(tpb)%64
		if panics&(1<<63-1)&(1<<n-1) == 0 {
			panics |= 1 << (n / 2)
		}
		dev := sim.NewDevice(sim.H100)
		flag, _ := sim.FromHost(dev, "flag", []int32{0})
		err := dev.Launch(sim.Config{Grid: sim.Dim(2), Block: sim.Dim(n)}, func(th *sim.Thread) {
			if panics&(1<<th.LinearThreadIdx()) != 0 {
				panic(fmt.Sprintf("thread %d", th.LinearThreadIdx()))
			}
			switch wait % 3 {
			case 0:
				th.SyncThreads()
			case 1:
				th.SyncWarp(sim.FullMask)
			default:
				for flag.LoadVolatile(th, 0) == 0 {
				}
			}
		})
		var rep *sim.Report
		if !errors.As(err, &rep) || !rep.Has(sim.KernelPanic) {
			t.Fatalf("want a Report with a kernel panic, got %v", err)
		}
	})
}

// parityKernels are the registry kernels whose simulator-vs-reference
// property FuzzKernelParity drives: correct kernels of several patterns.
var parityKernels = []string{"vec_add", "reduce_sum", "reduce_warp_sync", "warp_shuffle_reduce", "scan_hillis_steele",
	"histogram_shared256", "dot_mutex", "matmul_tiled16", "radix_sort_int32", "bitonic_sort_shared", "stencil_1d", "add_one_mutex"}

// kernelParity is the kernels' property: a generated case run on sim
// agrees with the CPU reference under the kernel's rule, with no findings.
func kernelParity(rt *rapid.T) {
	name := rapid.SampledFrom(parityKernels).Draw(rt, "kernel")
	k, ok := kernels.Lookup(name)
	if !ok {
		rt.Fatalf("no kernel %q in the registry", name)
	}
	block := 0
	if len(k.Blocks) > 0 {
		block = rapid.SampledFrom(k.Blocks).Draw(rt, "block")
	}
	most := 1000 // elements; a matmul's n is its side, and costs n^3
	if strings.HasPrefix(name, "matmul") {
		most = 40
	}
	n := rapid.IntRange(1, most).Draw(rt, "n")
	seed := rapid.Uint64().Draw(rt, "seed")
	schedule := rapid.SampledFrom([]sim.Schedule{sim.NaturalOrder, sim.RandomOrder}).Draw(rt, "schedule")
	c := k.Generate(rand.New(rand.NewPCG(seed, 16)), n, block)
	opts := sim.Options{}.WithSchedule(schedule).WithSeed(seed)
	got, err := k.Run(kernels.NewSimBackend(sim.H100, opts), c)
	if err != nil {
		rt.Fatalf("%s n=%d block=%d: %v", name, c.N, c.Block, err)
	}
	if err := k.Rule.Check(got, k.Reference(c)); err != nil {
		rt.Fatalf("%s n=%d block=%d: %v", name, c.N, c.Block, err)
	}
}

// FuzzKernelParity is the registry's parity property as a fuzz target
// (rapid.MakeFuzz): go test -fuzz drives the kernel, size, block, seed
// and schedule.
func FuzzKernelParity(f *testing.F) {
	for i := range 4 {
		f.Add([]byte{byte(i), byte(3 * i), 0, byte(i)})
	}
	f.Fuzz(rapid.MakeFuzz(kernelParity))
}

// TestKernelParity runs the same property under rapid's own driver.
func TestKernelParity(t *testing.T) {
	rapid.Check(t, kernelParity)
}

// TestReplayInput re-runs a saved input named by GPUSIM_FUZZ_INPUT: a file
// of go test's corpus format under testdata/fuzz/<Target>/ (the target is
// the directory's name) or, elsewhere, raw bytes for FuzzDifferential. It
// prints the program and the comparison in full.
//
//	GPUSIM_FUZZ_INPUT=fuzz/testdata/fuzz/FuzzDifferential/own-strong-read go test ./fuzz -run TestReplayInput -v
func TestReplayInput(t *testing.T) {
	path := os.Getenv("GPUSIM_FUZZ_INPUT")
	if path == "" {
		t.Log("GPUSIM_FUZZ_INPUT is not set: nothing to replay")
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Base(filepath.Dir(path))
	args := []any{raw}
	if strings.HasPrefix(string(raw), "go test fuzz v1\n") {
		if args, err = parseCorpus(string(raw)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	} else {
		target = "FuzzDifferential"
	}
	data, _ := args[0].([]byte)
	switch target {
	case "FuzzDifferential", "FuzzDeterminism":
		p := Decode(data)
		t.Logf("program:\n%s", p)
		for _, o := range schedulesFor(5) {
			run := runOnSim(p, o)
			v := analyze(p, run.trace, o.Schedule() == sim.RandomOrder, run.inflight)
			c := compareRun(run, v, nil)
			t.Logf("%v seed %d: known %v, missed pairs %d\n%s", o.Schedule(), o.Seed(), c.known, c.missedPairs, describe(run, v, c))
		}
		differential(t, p, schedulesFor(5), newTally())
	case "FuzzOracle":
		p := smallFrom(data)
		o := runOracle(p, modelSim)
		t.Logf("program:\n%s\noracle: %d schedules (complete %v), kinds %v, %d final states", p, o.runs, o.complete, kindList(o.kinds), len(o.states))
	case "FuzzKernelParity":
		rapid.MakeFuzz(kernelParity)(t, data)
	default:
		t.Fatalf("%s: no replay for target %q", path, target)
	}
}

// parseCorpus reads the values of a go test fuzz v1 file: []byte, string,
// bool and integer literals.
func parseCorpus(s string) ([]any, error) {
	var out []any
	for _, line := range strings.Split(s, "\n")[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		typ, lit, ok := strings.Cut(line, "(")
		if !ok || !strings.HasSuffix(lit, ")") {
			return nil, fmt.Errorf("cannot read %q", line)
		}
		lit = strings.TrimSuffix(lit, ")")
		switch typ {
		case "[]byte", "string":
			u, err := strconv.Unquote(lit)
			if err != nil {
				return nil, err
			}
			if typ == "string" {
				out = append(out, u)
			} else {
				out = append(out, []byte(u))
			}
		case "bool":
			out = append(out, lit == "true")
		default:
			v, err := strconv.ParseInt(lit, 0, 64)
			if err != nil {
				u, err2 := strconv.ParseUint(lit, 0, 64)
				if err2 != nil {
					return nil, err
				}
				out = append(out, u)
				continue
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no values")
	}
	return out, nil
}
