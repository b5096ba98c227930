package kernels_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// seedPorts are the kernels ported from seeds 000, 002, 003 and 004 in
// histogram.go, atomics.go, scan.go, sync.go, stencil.go and copy.go.
var seedPorts = []string{
	"histogram_shared256", "histogram_text", "histogram_text_shared",
	"histogram_mod16", "histogram_mod16_negative",
	"add_one", "add_one_atomic", "add_one_mutex", "add_one_mutex_nofence",
	"scan_hillis_steele", "scan_hillis_steele_faulty", "scan_exclusive",
	"sync_demo", "barrier_divergent_faulty",
	"stencil_1d", "copy_coalesced", "copy_strided",
}

// equalResults compares results element by element, exactly (every rule of
// these kernels is exact).
func equalResults(t *testing.T, got, want kernels.Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	for i := range got {
		var same bool
		switch g := got[i].(type) {
		case []int32:
			same = slices.Equal(g, want[i].([]int32))
		case []uint64:
			same = slices.Equal(g, want[i].([]uint64))
		case []float32:
			same = slices.Equal(g, want[i].([]float32))
		case []float64:
			same = slices.Equal(g, want[i].([]float64))
		default:
			t.Fatalf("output %d: unexpected type %T", i, g)
		}
		if !same {
			t.Fatalf("output %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

func TestSeedPortsMatchReference(t *testing.T) {
	for _, name := range seedPorts {
		k, ok := kernels.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if err := k.Validate(); err != nil {
			t.Fatal(err)
		}
		if k.Rule != (kernels.Rule{}) {
			t.Errorf("%s: rule %+v, want exact", name, k.Rule)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			blocks := k.Blocks
			if blocks == nil {
				blocks = []int{0, 32, 96, 1024}
			}
			r := rand.New(rand.NewPCG(1, 2))
			for _, n := range []int{1, 2, 5, 33, 257, 1000, 3001} {
				for _, block := range blocks {
					for _, sched := range []sim.Schedule{sim.NaturalOrder, sim.RandomOrder} {
						c := k.Generate(r, n, block)
						b := kernels.NewSimBackend(sim.H100, sim.Options{}.WithSchedule(sched).WithSeed(uint64(n)))
						got, err := k.Run(b, c)
						if k.Faulty {
							var rep *sim.Report
							if !errors.As(err, &rep) {
								t.Fatalf("n=%d block=%d %v: want a report of %v, got %v", n, block, sched, k.Expect, err)
							}
							for _, kind := range k.Expect {
								if !rep.Has(kind) {
									t.Fatalf("n=%d block=%d %v: %v not reported:\n%v", n, block, sched, kind, rep)
								}
							}
							continue
						}
						if err != nil {
							t.Fatalf("n=%d block=%d %v: %v", n, block, sched, err)
						}
						equalResults(t, got, k.Reference(c))
					}
				}
			}
		})
	}
}

// TestMutexLockstepDeadlock pins the documented limit of add_one_mutex: a
// spin lock inside one warp cannot make progress when the warp runs in
// lockstep (pre-Volta scheduling).
func TestMutexLockstepDeadlock(t *testing.T) {
	k, _ := kernels.Lookup("add_one_mutex")
	c := k.Generate(rand.New(rand.NewPCG(1, 1)), 1, 0)
	_, err := k.Run(kernels.NewSimBackend(sim.H100, sim.Options{}.WithWarpModel(sim.Lockstep)), c)
	var rep *sim.Report
	if !errors.As(err, &rep) || !rep.Has(sim.Deadlock) {
		t.Fatalf("want a deadlock, got %v", err)
	}
}

func TestHistogramMod16NegativeIsOutOfBounds(t *testing.T) {
	k, _ := kernels.Lookup("histogram_mod16")
	c := kernels.Case{Block: 32, Inputs: []any{[]int32{5, -3, 16}}}
	_, err := k.Run(kernels.NewSimBackend(sim.H100, sim.Options{}), c)
	var rep *sim.Report
	if !errors.As(err, &rep) || !rep.Has(sim.OutOfBounds) {
		t.Fatalf("want OutOfBounds, got %v", err)
	}
}
