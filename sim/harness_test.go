package sim_test

// The harness every test file of package sim_test shares. Its rules, as in
// Go's runtime/race tests:
//
//   - A test's name decides what its launches must report (sim.ExpectByName
//     holds the rules): TestRaceXxx must report a data race, TestNoRaceXxx
//     must not, and TestUninitXxx, TestBarrierDivergenceXxx,
//     TestWarpDivergenceXxx, TestDeadlockXxx, TestOutOfBoundsXxx,
//     TestPanicXxx and TestInvalidShuffleXxx must report their kind. Every
//     launch goes through exec (launch, launchOn and launchWithin call it or
//     do the same), and the package's TestMain fails a run in which a test
//     so named never launched through them.
//   - Source lines are found through "//@name" markers at the end of the line
//     that makes the sim call, in any test file of the package (at), so the
//     assertions survive edits; a marker name is unique in the package.
//   - Each file holds the tests of one concept; a new test goes in the file
//     of what it tests.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// markers maps each "//@name" marker in the package's test files to its
// site, "sim/file_test.go:N".
var markers struct {
	once  sync.Once
	sites map[string]string
	err   error
}

// at returns the site ("sim/file_test.go:N") of the line marked //@name in
// any test file of the package.
func at(t *testing.T, name string) string {
	t.Helper()
	markers.once.Do(func() { markers.sites, markers.err = readMarkers() })
	if markers.err != nil {
		t.Fatal(markers.err)
	}
	s, ok := markers.sites[name]
	if !ok {
		t.Fatalf("no marker //@%s", name)
	}
	return s
}

var markerName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

func readMarkers() (map[string]string, error) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		return nil, err
	}
	sites := map[string]string{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		for i, l := range strings.Split(string(b), "\n") {
			k := strings.LastIndex(l, "//@")
			if k < 0 {
				continue
			}
			name := strings.TrimSpace(l[k+3:])
			if !markerName.MatchString(name) {
				continue // prose about markers, not a marker
			}
			site := fmt.Sprintf("sim/%s:%d", file, i+1)
			if prev, dup := sites[name]; dup {
				return nil, fmt.Errorf("marker //@%s appears twice: %s and %s", name, prev, site)
			}
			sites[name] = site
		}
	}
	return sites, nil
}

func lineNo(t *testing.T, name string) int {
	t.Helper()
	s := at(t, name)
	var n int
	fmt.Sscanf(s[strings.LastIndexByte(s, ':')+1:], "%d", &n)
	return n
}

func exec(t *testing.T, dev *sim.Device, cfg sim.Config, k sim.Kernel) *sim.Report {
	t.Helper()
	err := dev.Launch(cfg, k)
	sim.ExpectByName(t, err)
	if err == nil {
		return nil
	}
	r, ok := err.(*sim.Report)
	if !ok {
		t.Fatalf("launch refused: %v", err)
	}
	return r
}

func lin(grid, block int, o ...sim.Options) sim.Config {
	c := sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(block)}
	if len(o) > 0 {
		c.Options = o[0]
	}
	return c
}

func random(seed uint64) sim.Options {
	return sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed)
}

func host[T sim.Elem](t *testing.T, dev *sim.Device, name string, v []T) *sim.Buffer[T] {
	t.Helper()
	b, err := sim.FromHost(dev, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zeroed[T sim.Storable](t *testing.T, dev *sim.Device, name string, n int) *sim.Buffer[T] {
	t.Helper()
	b, err := sim.Alloc[T](dev, name, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Memset(0); err != nil {
		t.Fatal(err)
	}
	return b
}

func wantClean(t *testing.T, r *sim.Report) {
	t.Helper()
	if r != nil {
		t.Fatalf("want no findings, got:\n%v", r)
	}
}

// onlyKinds fails if the report holds a finding of a kind not listed.
func onlyKinds(t *testing.T, r *sim.Report, kinds ...sim.Kind) {
	t.Helper()
	if r == nil {
		return
	}
	for _, f := range r.Findings {
		ok := false
		for _, k := range kinds {
			ok = ok || f.Kind == k
		}
		if !ok {
			t.Errorf("unexpected %v finding:\n%v", f.Kind, f)
		}
	}
}

// wantRace asserts a data race on the named memory between the accesses at
// lines a and b (in either role).
func wantRace(t *testing.T, r *sim.Report, space sim.Space, mem, a, b string) sim.Finding {
	t.Helper()
	for _, f := range r.Of(sim.DataRace) {
		if f.Memory == mem && f.Space == space &&
			(f.Current.Site == a && f.Previous.Site == b || f.Current.Site == b && f.Previous.Site == a) {
			if f.Previous.Host || f.Count < 1 {
				t.Errorf("odd finding %+v", f)
			}
			return f
		}
	}
	t.Fatalf("want a data race on %v %q between %s and %s; report:\n%v", space, mem, a, b, r)
	return sim.Finding{}
}

func wantKind(t *testing.T, r *sim.Report, k sim.Kind) sim.Finding {
	t.Helper()
	fs := r.Of(k)
	if len(fs) == 0 {
		t.Fatalf("want a %v finding; report:\n%v", k, r)
	}
	return fs[0]
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func iota32(n int, f func(i int) float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func d3(x, y, z int) sim.Dim3 { return sim.Dim3{X: x, Y: y, Z: z} }

// launch runs k over grid x block on a fresh H100 with the given options and
// returns the launch's report (nil when clean).
func launch(t *testing.T, grid, block int, opts sim.Options, k sim.Kernel) *sim.Report {
	t.Helper()
	return launchOn(t, sim.NewDevice(sim.H100), grid, block, opts, k)
}

func launchOn(t *testing.T, dev *sim.Device, grid, block int, opts sim.Options, k sim.Kernel) *sim.Report {
	t.Helper()
	return exec(t, dev, sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(block), Options: opts}, k)
}

func mustF64(t *testing.T, dev *sim.Device, name string, n int) *sim.Buffer[float64] {
	t.Helper()
	return zeroed[float64](t, dev, name, n)
}
