package kernels_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

func TestValidateRegistry(t *testing.T) {
	if err := kernels.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(kernels.All()) == 0 {
		t.Fatal("empty registry")
	}
	for _, k := range kernels.All() {
		if k.Faulty {
			if _, ok := kernels.Lookup(k.FixedBy); !ok {
				t.Errorf("%s: FixedBy %q is not in the registry", k.Name, k.FixedBy)
			}
		}
	}
}

// maxSize bounds generated problem sizes: kernels whose seed size is a
// matrix side (a few thousand) get sides, the others element counts.
func maxSize(k *kernels.Kernel) int {
	if k.SeedN > 0 && k.SeedN <= 4096 {
		return 40
	}
	return 3000
}

// drawBlock picks a legal block size for k.
func drawBlock(t *rapid.T, k *kernels.Kernel) int {
	if len(k.Blocks) > 0 {
		return rapid.SampledFrom(k.Blocks).Draw(t, "block")
	}
	return 32 * rapid.IntRange(1, 32).Draw(t, "warps")
}

// runSim runs k's driver on a fresh simulator with detection on.
func runSim(k *kernels.Kernel, c kernels.Case, opts sim.Options) (kernels.Result, *kernels.SimBackend, error) {
	b := kernels.NewSimBackend(sim.H100, opts)
	res, err := k.Run(b, c)
	return res, b, err
}

// naturalThenRandom is the launch options of a test's run with seed: the
// natural order for seed 1 (and below), a random order seeded with seed
// after.
func naturalThenRandom(seed uint64) sim.Options {
	if seed <= 1 {
		return sim.Options{}
	}
	return sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed)
}

// TestRegistryMatchesReference is the property every correct kernel must
// hold: on generated inputs and launch shapes, the simulator's result equals
// the CPU reference under the kernel's rule, and the detectors stay silent.
func TestRegistryMatchesReference(t *testing.T) {
	for _, k := range kernels.All() {
		if k.Faulty {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(rt *rapid.T) {
				n := rapid.IntRange(1, maxSize(k)).Draw(rt, "n")
				block := drawBlock(rt, k)
				seed := rapid.Uint64().Draw(rt, "seed")
				c := k.Generate(rand.New(rand.NewPCG(seed, 1)), n, block)
				got, _, err := runSim(k, c, sim.Options{})
				if err != nil {
					rt.Fatalf("n=%d block=%d: %v", n, block, err)
				}
				if err := k.Rule.Check(got, k.Reference(c)); err != nil {
					rt.Fatalf("n=%d block=%d: %v", n, block, err)
				}
			})
		})
	}
}

// TestInputLensMatchGenerate holds each InputLens to the generator: for
// the cases Generate makes, it gives the lengths of their inputs; and it
// refuses Params of another count.
func TestInputLensMatchGenerate(t *testing.T) {
	checked := 0
	for _, k := range kernels.All() {
		if k.InputLens == nil {
			continue
		}
		checked++
		t.Run(k.Name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				n := rapid.IntRange(1, 300).Draw(rt, "n")
				seed := rapid.Uint64().Draw(rt, "seed")
				c := k.Generate(rand.New(rand.NewPCG(seed, 1)), n, 0)
				lens, err := k.InputLens(c)
				if err != nil {
					rt.Fatalf("n=%d Params %v: %v", n, c.Params, err)
				}
				for i, in := range c.Inputs {
					if got := reflect.ValueOf(in).Len(); i >= len(lens) || got != lens[i] {
						rt.Fatalf("n=%d Params %v: input %d has %d elements, InputLens says %v", n, c.Params, i, got, lens)
					}
				}
				if _, err := k.InputLens(kernels.Case{N: c.N, Params: append(c.Params, 1)}); err == nil {
					rt.Fatalf("InputLens takes Params %v, one more than the kernel's", append(c.Params, 1))
				}
			})
		})
	}
	if checked == 0 {
		t.Fatal("no kernel has InputLens")
	}
}

// TestRegistryRandomSchedules runs every correct kernel under seeded random
// schedules: results must not depend on the interleaving, and the detectors
// must stay silent under every one.
func TestRegistryRandomSchedules(t *testing.T) {
	for _, k := range kernels.All() {
		if k.Faulty {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 3; seed++ {
				c := k.Generate(rand.New(rand.NewPCG(seed, 2)), min(maxSize(k), 700), 0)
				got, b, err := runSim(k, c, sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := k.Rule.Check(got, k.Reference(c)); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				// Every source line must come from the two frame-pointer
				// reads (amd64 and arm64; elsewhere every lookup unwinds): a
				// longer walk or the runtime's unwinder costs up to
				// microseconds.
				if n := b.Dev.Counters().SlowSites; n != 0 && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
					t.Errorf("seed %d: %d source lines needed the slow unwinder", seed, n)
				}
			}
		})
	}
}

// TestFaultyVariantsReported checks that every known-buggy variant is
// reported with the kinds it declares, under the natural and random orders.
func TestFaultyVariantsReported(t *testing.T) {
	for _, k := range kernels.All() {
		if !k.Faulty {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				c := k.Generate(rand.New(rand.NewPCG(seed, 3)), min(maxSize(k), 1000), 0)
				_, b, err := runSim(k, c, naturalThenRandom(seed))
				var r *sim.Report
				if !errors.As(err, &r) {
					t.Fatalf("seed %d: want a report of %v, got %v", seed, k.Expect, err)
				}
				var kinds []sim.Kind
				for _, rep := range b.Reports {
					for _, f := range rep.Findings {
						kinds = append(kinds, f.Kind)
					}
				}
				for _, want := range k.Expect {
					if !slices.Contains(kinds, want) {
						t.Errorf("seed %d: %v not reported; report:\n%v", seed, want, r)
					}
				}
			}
		})
	}
}

// TestDeterministic runs each kernel twice with one seed and demands the
// same bits and the same report.
func TestDeterministic(t *testing.T) {
	for _, k := range kernels.All() {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			c := k.Generate(rand.New(rand.NewPCG(9, 9)), min(maxSize(k), 500), 0)
			opts := sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(42)
			r1, _, e1 := runSim(k, c, opts)
			r2, _, e2 := runSim(k, c, opts)
			if fmt.Sprint(e1) != fmt.Sprint(e2) {
				t.Fatalf("reports differ:\n%v\n---\n%v", e1, e2)
			}
			if e1 == nil {
				if err := (kernels.Rule{}).Check(r1, r2); err != nil {
					t.Fatalf("results differ between identical runs: %v", err)
				}
			}
		})
	}
}

// TestParallelDetectionMatchesOneWorker runs every registry kernel, the
// faulty variants included, with detection on one worker and on four: the
// reports and results must be identical (speculative epochs, sim's
// speculate.go). Clean kernels whose blocks keep to their own memory must
// have kept their epochs, so the four workers did run them.
func TestParallelDetectionMatchesOneWorker(t *testing.T) {
	var kept, undone atomic.Int64
	t.Run("kernels", func(t *testing.T) {
		for _, k := range kernels.All() {
			t.Run(k.Name, func(t *testing.T) {
				t.Parallel()
				for seed := uint64(1); seed <= 2; seed++ {
					c := k.Generate(rand.New(rand.NewPCG(seed, 17)), min(maxSize(k), 1500), 0)
					r1, b1, e1 := runSim(k, c, sim.Options{}.WithWorkers(1))
					r4, b4, e4 := runSim(k, c, sim.Options{}.WithWorkers(4))
					if fmt.Sprint(e1) != fmt.Sprint(e4) {
						t.Fatalf("seed %d: reports differ:\none worker: %v\nfour: %v", seed, e1, e4)
					}
					if e1 == nil {
						if err := (kernels.Rule{}).Check(r4, r1); err != nil {
							t.Fatalf("seed %d: results differ: %v", seed, err)
						}
					}
					if n := b1.Dev.Counters(); n.Epochs+n.EpochsUndone != 0 {
						t.Fatalf("one worker ran %d epochs", n.Epochs+n.EpochsUndone)
					}
					n := b4.Dev.Counters()
					kept.Add(n.Epochs)
					undone.Add(n.EpochsUndone)
				}
			})
		}
	})
	t.Logf("four workers: %d epochs kept, %d undone", kept.Load(), undone.Load())
	if !raceBuild && kept.Load() == 0 {
		t.Error("no epoch was kept: detection never ran on several workers")
	}
}
