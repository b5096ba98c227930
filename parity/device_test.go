//go:build cuda

package parity

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// dev is the GPU every device test shares; tests using it run one at a
// time.
var (
	dev      *cuda.Device
	rep      = NewReport()
	reportMu sync.Mutex
)

func TestMain(m *testing.M) {
	flag.Parse()
	if k := os.Getenv("GPUSIM_TWINRUN"); k != "" {
		os.Exit(twinRun(k))
	}
	d, err := cuda.Open(cuda.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "parity:", err)
		os.Exit(2)
	}
	dev = d
	// Check's GPU is this one: the driver keeps one context per process.
	gpuOnce.Do(func() { gpuDev = d })
	info := d.Info()
	rep.Device, rep.Driver, rep.NVCC, rep.Arch = info.Name, info.DriverVersion, info.NVCC, info.Arch
	rep.Flags = strings.Join(cuda.ParityFlags, " ")
	code := m.Run()
	writeReport()
	if err := d.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "parity: close:", err)
	}
	os.Exit(code)
}

// writeReport writes the report to $GPUSIM_PARITY_REPORT, if set. Tests
// call it as they finish too, so that a run cut short leaves a report.
func writeReport() {
	p := os.Getenv("GPUSIM_PARITY_REPORT")
	if p == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.Create(p)
	if err == nil {
		rep.Write(f)
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parity: report:", err)
	}
}

// seedSkipped reports whether GPUSIM_PARITY_SEED_SKIP (comma-separated
// kernel names) leaves out k's seed-size case: the simulator takes minutes
// on some of them (matmul_tiled32 at 1024², barrier-heavy reductions at 1M).
func seedSkipped(k string) bool {
	return slices.Contains(strings.Split(os.Getenv("GPUSIM_PARITY_SEED_SKIP"), ","), k)
}

// seedNLimit caps the fixed seed-size case (GPUSIM_PARITY_SEEDN_MAX; 0 or
// unset: no cap), for quick runs.
func seedNLimit() int {
	n, _ := strconv.Atoi(os.Getenv("GPUSIM_PARITY_SEEDN_MAX"))
	return n
}

// both runs k's driver on a fresh simulator (detection off: values only,
// blocks spread over every core; only float atomics' order across blocks
// can then vary, and their rule allows for it) and on the GPU, and compares
// the results under k's rule.
func both(k *kernels.Kernel, c kernels.Case) (ulp uint64, diff string, err error) {
	sb := kernels.NewSimBackend(sim.H100, sim.Options{}.WithDetection(false).WithWorkers(0))
	want, serr := k.Run(sb, c)
	got, derr := k.Run(dev, c)
	switch {
	case serr != nil && derr != nil:
		return 0, "", nil // both refuse the case alike
	case serr != nil:
		return 0, "", fmt.Errorf("sim failed where the GPU ran: %v", serr)
	case derr != nil:
		return 0, "", fmt.Errorf("GPU failed where sim ran: %v", derr)
	}
	return kernels.MaxULP(want, got), Diff(k.Rule, want, got), nil
}

// TestDeviceParity is the property every correct kernel holds on a real GPU:
// for generated inputs and launch shapes, and for the kernel's seed size,
// the host driver gives the same result on the simulator and on the device,
// under the kernel's rule. rapid shrinks a failure and persists it under
// testdata/rapid; the failure prints go-cmp's diff (-sim +gpu).
func TestDeviceParity(t *testing.T) {
	defer writeReport()
	for _, k := range kernels.All() {
		if k.Faulty {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			st := rep.Stats(k.Name, k.Rule.String())
			start := time.Now()
			defer func() { st.Elapsed += time.Since(start) }()
			if n := k.SeedN; n > 0 && !seedSkipped(k.Name) && (seedNLimit() == 0 || n <= seedNLimit()) {
				c := k.Generate(rand.New(rand.NewPCG(1, 0x9a7)), n, 0)
				ulp, d, err := both(k, c)
				if err == nil && d != "" {
					err = fmt.Errorf("seed case n=%d: sim and GPU differ (-sim +gpu):\n%s", n, d)
				}
				if err != nil {
					st.Failure = err.Error()
					t.Fatal(err)
				}
				st.SeedN = n
				st.Add(n, c.Block, ulp)
			}
			rapid.Check(t, func(rt *rapid.T) {
				s := DrawShape(rt, k)
				c := s.Case(k)
				ulp, d, err := both(k, c)
				if err == nil && d != "" {
					err = fmt.Errorf("sim and GPU differ (-sim +gpu):\n%s", d)
				}
				if err != nil {
					if st.Failure == "" {
						st.Failure = fmt.Sprintf("n=%d block=%d: %v", s.N, s.Block, err)
					}
					rt.Fatalf("n=%d block=%d seed=%d: %v", s.N, s.Block, s.Seed, err)
				}
				st.Add(s.N, s.Block, ulp)
			})
		})
	}
}

// TestRacyValues records what the GPU actually returns for the racy
// read-modify-write kernels of seed 003 over repeated runs, beside the
// race-free answer.
func TestRacyValues(t *testing.T) {
	const runs = 50
	for _, name := range []string{"add_one", "add_one_mutex_nofence"} {
		k, ok := kernels.Lookup(name)
		if !ok {
			continue
		}
		vals := map[string]int{}
		for i := range runs {
			c := k.Generate(rand.New(rand.NewPCG(uint64(i), 1)), k.SeedN, 0)
			res, err := k.Run(dev, c)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// The inputs differ run to run; what is comparable is how many
			// of the SeedN increments landed.
			got, want := res[0].([]float64)[0], k.Reference(c)[0].([]float64)[0]
			vals[fmt.Sprintf("%d of %d increments", k.SeedN-int(math.Round(want-got)), k.SeedN)]++
		}
		rep.mu.Lock()
		rep.Values[name], rep.ValueRuns[name] = vals, runs
		rep.mu.Unlock()
		t.Logf("%s over %d runs: %v", name, runs, vals)
	}
	writeReport()
}
