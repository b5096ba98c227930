package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// Bounding the problem size: a case is generated in host memory before
// anything is launched, so a size too large to hold (-n 2000000000 for a
// kernel of three float32 arrays, -n 2^63-1) would exhaust memory or crash
// in the generator. checkSize refuses such a size first, from an estimate
// of the inputs' bytes that costs two small generated cases.

// probeN is the smaller size checkSize generates at; sizes up to twice it
// are not checked. It is no power of two: math/rand/v2 draws IntN(n) for a
// power of two from other bits than for another n, so shapes a generator
// draws (matmul's M and K) would not scale from one probe to the other.
const probeN = 1000

// runCopies is how many times its inputs' bytes a run holds in host
// memory, about: the inputs on the host and in the simulated device's
// memory, and the outputs, on the device, copied back and computed again by
// the reference (vector_add, whose output is half its inputs, peaks at 3.5
// times its inputs without detection; a sort, whose output is as large, at
// 5; a histogram at 2).
const runCopies = 3

// probeSeeds are the generator seeds checkSize tries, besides the run's:
// a generator that draws its shape (matmul's M and K from 1..n) makes
// inputs of different sizes for different seeds, and the largest of a few
// stands for any.
var probeSeeds = []uint64{1, 2, 3}

// checkSize says why a case of size n (block threads per block) of the
// kernel cannot run on spec with the memory this process can use, or
// returns "". It generates cases at probeN and 2*probeN with gen (seeded
// by the run's seed and by probeSeeds, the largest counting) and
// extrapolates their inputs' bytes to n by the growth between them (twice
// the bytes for inputs of n elements, four times for n x n matrices). The
// inputs alone must fit the simulated device's global memory, and
// runCopies times over the memory left to the process. With detection on
// (det set), the shadow memory detection keeps for the buffers the host
// driver allocates, extrapolated the same way from runs of the driver that
// launch nothing (shadowBytes), must fit det's budget, and the process's
// memory must hold it besides. The estimate is rough; the simulator checks
// each allocation of device and shadow memory against the host's memory
// as well. A generator (or, for the shadow memory, a driver) that fails at
// the probe sizes is not checked.
func checkSize(name string, gen func(seed uint64, n, block int) kernels.Case, seed uint64, spec sim.Spec, n, block int, det *detection) string {
	if n <= 2*probeN {
		return ""
	}
	in, ok := extrapolate(func(s uint64, n int) (int64, bool) { return probeBytes(gen, s, n, block) }, seed, n)
	if !ok {
		return ""
	}
	if dev := float64(spec.GlobalMemory); in.est > dev {
		return fmt.Sprintf("%s's inputs alone would take about %s, more than the %s of global memory of the simulated %s (%s)%s",
			name, byteSize(in.est), byteSize(dev), spec.Name, spec.Arch, in.fits(dev))
	}
	var sh growth
	if det != nil {
		sh, ok = extrapolate(func(s uint64, n int) (int64, bool) { return shadowBytes(det.run, gen(s, n, block)) }, seed, n)
		if budget := float64(det.budget); ok && budget > 0 && sh.est > budget {
			return fmt.Sprintf("with detection on, %s's buffers would need about %s of shadow memory, more than detection's budget of %s (-shadow-budget)%s; run a smaller -n%s, or raise -shadow-budget (the host must hold the shadow memory)",
				name, byteSize(sh.est), byteSize(budget), sh.fits(budget), det.offHint)
		}
	}
	if avail, bound, ok := usable(); ok && runCopies*in.est+sh.est > float64(avail) {
		if sh.est == 0 {
			return fmt.Sprintf("%s's inputs would take about %s, and a run holds about %d times its inputs (on the host, in the simulated device's memory, and outputs): more than the %s this process can still allocate (%s)%s",
				name, byteSize(in.est), runCopies, byteSize(float64(avail)), bound, in.fits(float64(avail)/runCopies))
		}
		both := func(n float64) float64 { return runCopies*in.at(n) + sh.at(n) }
		return fmt.Sprintf("%s's inputs would take about %s, a run holds about %d times its inputs (on the host, in the simulated device's memory, and outputs), and detection's shadow memory about %s: more than the %s this process can still allocate (%s)%s; run a smaller -n%s",
			name, byteSize(in.est), runCopies, byteSize(sh.est), byteSize(float64(avail)), bound, largest(both, float64(avail), n), det.offHint)
	}
	return ""
}

// detection is what checkSize needs to bound detection's shadow memory:
// the kernel's host driver, the budget (0: none but the host's memory),
// and how the subcommand turns detection off, for the message (", or
// -race=false"; "" where it cannot).
type detection struct {
	run     func(kernels.Backend, kernels.Case) (kernels.Result, error)
	budget  int64
	offHint string
}

// growth is a size measured at probeN and 2*probeN (b1, b2) and
// extrapolated to n (est) as a power of n of whole degree (deg).
type growth struct {
	b2  int64
	deg float64
	est float64
}

// at is the size extrapolated to n.
func (g growth) at(n float64) float64 {
	if g.b2 == 0 {
		return 0
	}
	return float64(g.b2) * math.Pow(n/(2*probeN), g.deg)
}

// fits says the largest n whose size is at most limit bytes.
func (g growth) fits(limit float64) string {
	if g.deg == 0 {
		return ""
	}
	m := 2 * probeN * math.Pow(limit/float64(g.b2), 1/g.deg)
	return fmt.Sprintf("; sizes up to about %d fit", int64(m))
}

// largest says the largest n up to below whose size(n) is at most limit
// bytes, size growing with n.
func largest(size func(n float64) float64, limit float64, below int) string {
	lo, hi := 0, below // size(lo) fits, size(hi) does not
	if size(0) > limit {
		return ""
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if size(float64(mid)) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo <= 2*probeN {
		return ""
	}
	return fmt.Sprintf("; sizes up to about %d fit", lo)
}

// extrapolate measures a size at probeN and 2*probeN, for the run's seed
// and probeSeeds (the largest counting), and extrapolates it to n; false
// if measure fails at a probe.
func extrapolate(measure func(seed uint64, n int) (int64, bool), seed uint64, n int) (growth, bool) {
	var b1, b2 int64
	for _, s := range append([]uint64{seed}, probeSeeds...) {
		x1, ok1 := measure(s, probeN)
		x2, ok2 := measure(s, 2*probeN)
		if !ok1 || !ok2 {
			return growth{}, false
		}
		b1, b2 = max(b1, x1), max(b2, x2)
	}
	if b2 == 0 {
		return growth{}, false
	}
	// Sizes grow as a power of n of whole degree; rounding, and the shapes
	// a generator draws, blur the ratio of two small cases, which
	// extrapolation would magnify.
	g := growth{b2: b2}
	if b2 > b1 {
		g.deg = math.Round(math.Log2(float64(b2) / float64(b1)))
	}
	g.est = g.at(float64(n))
	return g, true
}

// probeBytes is the bytes of the inputs gen makes at size n, false if gen
// panics there.
func probeBytes(gen func(seed uint64, n, block int) kernels.Case, seed uint64, n, block int) (b int64, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = 0, false
		}
	}()
	for _, in := range gen(seed, n, block).Inputs {
		if v := reflect.ValueOf(in); v.Kind() == reflect.Slice {
			b += int64(v.Len()) * int64(v.Type().Elem().Size())
		}
	}
	return b, true
}

// byteSize is b bytes in KiB to EiB: "14.9 GiB".
func byteSize(b float64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b /= 1 << 10; b >= 1<<10 && i < len(units)-1; i++ {
		b /= 1 << 10
	}
	if b >= 1<<10 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// usable is usableMemory, which tests replace.
var usable = usableMemory

// usableMemory is how many bytes this process can still allocate, as far
// as Linux tells, and what bounds it: the host's available memory
// (/proc/meminfo's MemAvailable and free swap), its cgroup's memory limit,
// or its address-space limit (ulimit -v), whichever leaves least; ok is
// false where none can be read.
func usableMemory() (avail int64, bound string, ok bool) {
	consider := func(b int64, what string) {
		if !ok || b < avail {
			avail, bound, ok = max(b, 0), what, true
		}
	}
	if info := readKB("/proc/meminfo"); info != nil {
		if a, have := info["MemAvailable"]; have {
			consider(a+info["SwapFree"], "the host's available memory and free swap")
		}
	}
	if limit, used, have := cgroupMemory(); have {
		consider(limit-used, "its cgroup's memory limit")
	}
	if limit, have := addressSpaceLimit(); have {
		if status := readKB("/proc/self/status"); status != nil {
			consider(limit-status["VmSize"], "its address-space limit, ulimit -v")
		}
	}
	return avail, bound, ok
}

// readKB reads the "Name: value kB" lines of a /proc file into bytes by
// name; nil if the file cannot be read.
func readKB(path string) map[string]int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, found := strings.Cut(sc.Text(), ":")
		f := strings.Fields(rest)
		if !found || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[name] = kb << 10
		}
	}
	return out
}

// cgroupMemory reads the memory limit and usage of this process's cgroup
// (v2); have is false where it has no limit or none can be read.
func cgroupMemory() (limit, used int64, have bool) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, 0, false
	}
	var dir string
	for _, line := range strings.Split(string(data), "\n") {
		if p, found := strings.CutPrefix(line, "0::"); found {
			dir = "/sys/fs/cgroup" + p
		}
	}
	read := func(name string) (int64, bool) {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil // "max" is no limit
	}
	if dir == "" {
		return 0, 0, false
	}
	limit, ok1 := read("memory.max")
	used, ok2 := read("memory.current")
	return limit, used, ok1 && ok2
}

// shadowCellBytes is the host memory detection keeps per shadow unit of a
// global buffer (sim's cellBytes, sim/shadow.go); a unit is an element of
// up to 4 bytes, or 4 bytes of a larger one (sim's unitBytes).
// TestShadowEstimateIsTheSimulators holds it to the simulator.
const shadowCellBytes = 16

// shadowOf is the shadow memory detection keeps for a buffer of n
// elements of type dt.
func shadowOf(dt kernels.DType, n int) int64 {
	unit := int64(min(dt.Size(), 4))
	return (int64(n)*int64(dt.Size()) + unit - 1) / unit * shadowCellBytes
}

// shadowBytes is the most shadow memory detection would keep at once for
// the buffers run (a kernel's host driver) allocates for case c: the peak
// of its live allocations, counted by a backend that holds no memory and
// launches nothing (so it is quick at any size, and a buffer a launch
// would leave untouched counts too); false if the driver fails or panics
// there.
func shadowBytes(run func(kernels.Backend, kernels.Case) (kernels.Result, error), c kernels.Case) (b int64, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = 0, false
		}
	}()
	sc := &shadowCounter{}
	if _, err := run(sc, c); err != nil {
		return 0, false
	}
	return sc.peak, true
}

// shadowCounter is the backend of shadowBytes.
type shadowCounter struct {
	live, peak int64
	launches   int
}

// maxProbeLaunches bounds the launches of a driver run by shadowBytes: a
// driver that loops until its kernels' results say stop would loop for
// ever on results never computed.
const maxProbeLaunches = 1 << 16

type countedMem struct {
	dt    kernels.DType
	n     int
	freed bool
}

func (m *countedMem) Len() int             { return m.n }
func (m *countedMem) DType() kernels.DType { return m.dt }

func (c *shadowCounter) Name() string { return "shadow memory estimate" }

func (c *shadowCounter) Alloc(dt kernels.DType, n int) (kernels.Mem, error) {
	if !dt.Valid() || n < 0 {
		return nil, fmt.Errorf("alloc of %d elements of dtype %d", n, dt)
	}
	c.live += shadowOf(dt, n)
	c.peak = max(c.peak, c.live)
	return &countedMem{dt: dt, n: n}, nil
}

func (c *shadowCounter) Write(kernels.Mem, any) error   { return nil }
func (c *shadowCounter) Read(kernels.Mem, any) error    { return nil }
func (c *shadowCounter) Memset(kernels.Mem, byte) error { return nil }
func (c *shadowCounter) CopyToSymbol(_, _ any) error    { return nil }

func (c *shadowCounter) Launch(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	if c.launches++; c.launches > maxProbeLaunches {
		return fmt.Errorf("more than %d launches", maxProbeLaunches)
	}
	return nil
}

func (c *shadowCounter) LaunchCooperative(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	return c.Launch(kernel, grid, block, sharedBytes, args...)
}

func (c *shadowCounter) Free(m kernels.Mem) {
	if cm, ok := m.(*countedMem); ok && !cm.freed {
		cm.freed = true
		c.live -= shadowOf(cm.dt, cm.n)
	}
}
