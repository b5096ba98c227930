// Command gpusim runs bench/numba's five kernels (the ones kernels.py
// writes for Numba's CUDA simulator) on gpusim, with race detection on
// (the default Options) and off, each on one worker and on a worker per
// core, checks their results, and prints one JSON
// object: per kernel and mode, the mean time per simulated thread of each
// round's timed launches. bench.py runs it once per round, interleaved with
// Numba's rounds, and prints the comparison table; see README.md.
//
// Only launches are timed: buffers are allocated and filled before, and
// the host copies that reset a kernel's output between launches are not
// timed. Every kernel and mode gets one untimed launch first (with
// detection on, the first launch allocates the buffers' shadow memory).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/gpusim/gpusim/sim"
)

const (
	n       = 1 << 16 // elements of vector add, reduction, histogram
	block   = 256     // threads per block of those three
	bins    = 256     // histogram bins
	matN    = 64      // matmul is matN x matN
	tile    = 16      // matmul tile (block tile x tile)
	racyGr  = 10      // racy add_one: 10 blocks
	racyBlk = 16      // of 16 threads
)

// The inputs, identical to kernels.py's.

func vecInputs() (a, b []float32) {
	a, b = make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(2*i+1)
	}
	return
}

func reduceInput() []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%7 + 1)
	}
	return x
}

func histInput() []int32 {
	x := make([]int32, n)
	for i := range x {
		x[i] = int32((i*i*7 + i*13 + 5) % bins)
	}
	return x
}

func matInputs() (a, b []float32) {
	a, b = make([]float32, matN*matN), make([]float32, matN*matN)
	for i := 0; i < matN; i++ {
		for j := 0; j < matN; j++ {
			a[i*matN+j] = float32((i*3+j*5)%11 - 5)
			b[i*matN+j] = float32((i*7+j*2)%13 - 6)
		}
	}
	return
}

// The kernels, line for line kernels.py's.

// vecAdd: c[i] = a[i] + b[i].
func vecAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			c.Store(t, i, a.Load(t, i)+b.Load(t, i))
		}
	}
}

// reduce: shared-memory halving tree, block partial to out[blockIdx.x].
func reduce(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sdata := sim.Shared[float32](t, "sdata", block)
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*t.BlockDim.X + tid
		var v float32
		if i < n {
			v = in.Load(t, i)
		}
		sdata.Store(t, tid, v)
		t.SyncThreads()
		for s := t.BlockDim.X / 2; s > 0; s >>= 1 {
			if tid < s {
				sdata.Store(t, tid, sdata.Load(t, tid)+sdata.Load(t, tid+s))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			out.Store(t, t.BlockIdx.X, sdata.Load(t, 0))
		}
	}
}

// histogram: shared bins, shared atomicAdd, then the block's bins added
// to the global ones with atomicAdd (block == bins, so thread tid owns bin
// tid).
func histogram(in, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sbins := sim.Shared[int32](t, "sbins", bins)
		tid := t.ThreadIdx.X
		sbins.Store(t, tid, 0)
		t.SyncThreads()
		i := t.BlockIdx.X*t.BlockDim.X + tid
		if i < n {
			sim.AtomicAdd(t, sbins, int(in.Load(t, i)), 1)
		}
		t.SyncThreads()
		sim.AtomicAdd(t, out, tid, sbins.Load(t, tid))
	}
}

// addOne: every thread does a[0] = a[0] + 1 with a plain load and store,
// a data race.
func addOne(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, a.Load(t, 0)+1)
	}
}

// matmul: C = A B, tile x tile tiles of A and B in shared memory.
func matmul(a, b, c *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		sA := sim.Shared[float32](t, "sA", tile*tile)
		sB := sim.Shared[float32](t, "sB", tile*tile)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile + ty
		col := t.BlockIdx.X*tile + tx
		var acc float32
		for k := 0; k < matN/tile; k++ {
			sA.Store(t, ty*tile+tx, a.Load(t, row*matN+k*tile+tx))
			sB.Store(t, ty*tile+tx, b.Load(t, (k*tile+ty)*matN+col))
			t.SyncThreads()
			for j := 0; j < tile; j++ {
				acc += sA.Load(t, ty*tile+j) * sB.Load(t, j*tile+tx)
			}
			t.SyncThreads()
		}
		c.Store(t, row*matN+col, acc)
	}
}

// bench is one kernel ready to launch: reset (untimed) before every
// launch, launch, and check after the last one.
type bench struct {
	name    string
	threads int
	cfg     sim.Config
	kernel  sim.Kernel
	reset   func() error
	check   func() error
	racy    bool // detection on must report a data race
}

func must[T any](v T, err error) T {
	if err != nil {
		fail("setup: %v", err)
	}
	return v
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gpusim bench: FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func benches(dev *sim.Device) []*bench {
	var bs []*bench

	{ // vector add
		ha, hb := vecInputs()
		a := must(sim.FromHost(dev, "a", ha))
		b := must(sim.FromHost(dev, "b", hb))
		c := must(sim.FromHost(dev, "c", make([]float32, n)))
		bs = append(bs, &bench{
			name: "vector_add", threads: n,
			cfg:    sim.Config{Grid: sim.Dim((n + block - 1) / block), Block: sim.Dim(block)},
			kernel: vecAdd(a, b, c, n),
			reset:  func() error { return c.Memset(0) },
			check: func() error {
				for i, v := range c.ToHost() {
					if v != ha[i]+hb[i] {
						return fmt.Errorf("c[%d] = %v, want %v", i, v, ha[i]+hb[i])
					}
				}
				return nil
			},
		})
	}
	{ // reduction
		hx := reduceInput()
		blocks := (n + block - 1) / block
		in := must(sim.FromHost(dev, "in", hx))
		out := must(sim.FromHost(dev, "partial", make([]float32, blocks)))
		bs = append(bs, &bench{
			name: "reduction", threads: n,
			cfg:    sim.Config{Grid: sim.Dim(blocks), Block: sim.Dim(block)},
			kernel: reduce(in, out, n),
			reset:  func() error { return out.Memset(0) },
			check: func() error {
				var want, got int64
				for _, v := range hx {
					want += int64(v)
				}
				for _, p := range out.ToHost() {
					got += int64(p)
				}
				if got != want {
					return fmt.Errorf("sum = %d, want %d", got, want)
				}
				return nil
			},
		})
	}
	{ // histogram
		hx := histInput()
		in := must(sim.FromHost(dev, "values", hx))
		out := must(sim.FromHost(dev, "bins", make([]int32, bins)))
		bs = append(bs, &bench{
			name: "histogram", threads: n,
			cfg:    sim.Config{Grid: sim.Dim((n + block - 1) / block), Block: sim.Dim(block)},
			kernel: histogram(in, out, n),
			reset:  func() error { return out.Memset(0) },
			check: func() error {
				want := make([]int32, bins)
				for _, v := range hx {
					want[v]++
				}
				for i, v := range out.ToHost() {
					if v != want[i] {
						return fmt.Errorf("bins[%d] = %d, want %d", i, v, want[i])
					}
				}
				return nil
			},
		})
	}
	{ // racy add_one
		a := must(sim.FromHost(dev, "a0", []int32{0}))
		bs = append(bs, &bench{
			name: "racy_add_one", threads: racyGr * racyBlk, racy: true,
			cfg:    sim.Config{Grid: sim.Dim(racyGr), Block: sim.Dim(racyBlk)},
			kernel: addOne(a),
			reset:  func() error { return a.Memset(0) },
			check:  func() error { return nil }, // the race is checked per launch
		})
	}
	{ // tiled matmul
		ha, hb := matInputs()
		a := must(sim.FromHost(dev, "A", ha))
		b := must(sim.FromHost(dev, "B", hb))
		c := must(sim.FromHost(dev, "C", make([]float32, matN*matN)))
		bs = append(bs, &bench{
			name: "matmul", threads: matN * matN,
			cfg:    sim.Config{Grid: sim.Dim2(matN/tile, matN/tile), Block: sim.Dim2(tile, tile)},
			kernel: matmul(a, b, c),
			reset:  func() error { return c.Memset(0) },
			check: func() error {
				hc := c.ToHost()
				for i := 0; i < matN; i++ {
					for j := 0; j < matN; j++ {
						var want float64
						for k := 0; k < matN; k++ {
							want += float64(ha[i*matN+k]) * float64(hb[k*matN+j])
						}
						if got := hc[i*matN+j]; float64(got) != want {
							return fmt.Errorf("C[%d][%d] = %v, want %v", i, j, got, want)
						}
					}
				}
				return nil
			},
		})
	}
	return bs
}

// modes are the ways each kernel is timed: detection on (one worker, the
// default), detection on with a worker per core (speculative epochs whose
// findings are one worker's), detection off (one worker), detection off
// with a worker per core (blocks simply spread over the workers).
var modes = []string{"on", "on-cores", "off", "off-cores"}

// launch runs one launch of b in mode and checks what it returned: nil,
// except a data race report for the racy kernel with detection on.
func (b *bench) launch(dev *sim.Device, mode string) (time.Duration, error) {
	if err := b.reset(); err != nil {
		return 0, err
	}
	detect := !strings.HasPrefix(mode, "off")
	cfg := b.cfg
	cfg.Options = sim.Options{}.WithDetection(detect)
	if strings.HasSuffix(mode, "-cores") {
		cfg.Options = cfg.Options.WithWorkers(0)
	}
	start := time.Now()
	err := dev.Launch(cfg, b.kernel)
	d := time.Since(start)
	if b.racy && detect {
		var r *sim.Report
		if !errors.As(err, &r) || !r.Has(sim.DataRace) {
			return d, fmt.Errorf("detection on reported no data race (err = %v)", err)
		}
		return d, nil
	}
	return d, err
}

// Result is what main prints, one per kernel.
type Result struct {
	Name    string `json:"name"`
	Threads int    `json:"threads"`
	// NsPerThread maps each of modes to one mean per round.
	NsPerThread map[string][]float64 `json:"ns_per_thread"`
	Launches    map[string][]int     `json:"launches"`
	Race        string               `json:"race_report,omitempty"`
}

type Output struct {
	GoVersion  string    `json:"go_version"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	NumCPU     int       `json:"num_cpu"`
	Rounds     int       `json:"rounds"`
	Results    []*Result `json:"results"`
}

func main() {
	rounds := flag.Int("rounds", 1, "rounds (each times every kernel with detection on, then off)")
	target := flag.Duration("target", 200*time.Millisecond, "timed launches per kernel and mode in a round last at least this long")
	minLaunches := flag.Int("min-launches", 3, "timed launches per kernel and mode in a round, at least")
	only := flag.String("kernels", "", "comma-separated kernel names to time (default: all five)")
	onlyModes := flag.String("modes", "", "comma-separated modes to time, of "+strings.Join(modes, ",")+" (default: all)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the rounds to this file")
	flag.Parse()
	if *onlyModes != "" {
		modes = pick(modes, *onlyModes, "mode")
	}

	dev := sim.NewDevice(sim.H100)
	defer dev.Close()
	bs := benches(dev)
	if *only != "" {
		var names []string
		for _, b := range bs {
			names = append(names, b.name)
		}
		keep := pick(names, *only, "kernel")
		bs = slices.DeleteFunc(bs, func(b *bench) bool { return !slices.Contains(keep, b.name) })
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail("%v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail("%v", err)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	out := Output{GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), Rounds: *rounds}
	res := make([]*Result, len(bs))
	for i, b := range bs {
		res[i] = &Result{Name: b.name, Threads: b.threads, NsPerThread: map[string][]float64{}, Launches: map[string][]int{}}
	}
	for r := 0; r < *rounds; r++ {
		for i, b := range bs {
			for _, mode := range modes {
				if _, err := b.launch(dev, mode); err != nil { // warm, untimed
					fail("%s (detection %s): %v", b.name, mode, err)
				}
				var total time.Duration
				k := 0
				for k < *minLaunches || total < *target {
					d, err := b.launch(dev, mode)
					if err != nil {
						fail("%s (detection %s): %v", b.name, mode, err)
					}
					total += d
					k++
				}
				if err := b.check(); err != nil {
					fail("%s (detection %s): wrong result: %v", b.name, mode, err)
				}
				res[i].NsPerThread[mode] = append(res[i].NsPerThread[mode], float64(total.Nanoseconds())/float64(k)/float64(b.threads))
				res[i].Launches[mode] = append(res[i].Launches[mode], k)
			}
		}
	}
	// The racy kernel's report, once, for the README's claim.
	for i, b := range bs {
		if b.racy {
			_ = b.reset()
			cfg := b.cfg
			if err := dev.Launch(cfg, b.kernel); err != nil {
				var r *sim.Report
				if errors.As(err, &r) && len(r.Of(sim.DataRace)) > 0 {
					res[i].Race = r.Of(sim.DataRace)[0].String()
				}
			}
		}
	}
	out.Results = res
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fail("%v", err)
	}
}

// pick returns the names of list (comma-separated) after checking each is
// one of all.
func pick(all []string, list, what string) []string {
	var out []string
	for _, x := range strings.Split(list, ",") {
		if !slices.Contains(all, x) {
			fail("unknown %s %q (have %s)", what, x, strings.Join(all, ", "))
		}
		out = append(out, x)
	}
	return out
}
