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
// runCopies times over the memory left to the process. The estimate is
// rough; the simulator checks each allocation of device and shadow memory
// against the host's memory as well. A generator that fails at the probe
// sizes is not checked.
func checkSize(name string, gen func(seed uint64, n, block int) kernels.Case, seed uint64, spec sim.Spec, n, block int) string {
	if n <= 2*probeN {
		return ""
	}
	var b1, b2 int64
	for _, s := range append([]uint64{seed}, probeSeeds...) {
		x1, ok1 := probeBytes(gen, s, probeN, block)
		x2, ok2 := probeBytes(gen, s, 2*probeN, block)
		if !ok1 || !ok2 {
			return ""
		}
		b1, b2 = max(b1, x1), max(b2, x2)
	}
	if b2 == 0 {
		return ""
	}
	// Inputs grow as a power of n of whole degree; rounding, and the
	// shapes a generator draws, blur the ratio of two small cases, which
	// extrapolation would magnify.
	growth := 0.0
	if b2 > b1 {
		growth = math.Round(math.Log2(float64(b2) / float64(b1)))
	}
	est := float64(b2) * math.Pow(float64(n)/(2*probeN), growth)
	// fits says the largest size whose inputs take at most limit bytes.
	fits := func(limit float64) string {
		if growth == 0 {
			return ""
		}
		m := 2 * probeN * math.Pow(limit/float64(b2), 1/growth)
		return fmt.Sprintf("; sizes up to about %d fit", int64(m))
	}
	if dev := float64(spec.GlobalMemory); est > dev {
		return fmt.Sprintf("%s's inputs alone would take about %s, more than the %s of global memory of the simulated %s (%s)%s",
			name, byteSize(est), byteSize(dev), spec.Name, spec.Arch, fits(dev))
	}
	if avail, bound, ok := usable(); ok && runCopies*est > float64(avail) {
		return fmt.Sprintf("%s's inputs would take about %s, and a run holds about %d times its inputs (on the host, in the simulated device's memory, and outputs): more than the %s this process can still allocate (%s)%s",
			name, byteSize(est), runCopies, byteSize(float64(avail)), bound, fits(float64(avail)/runCopies))
	}
	return ""
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
