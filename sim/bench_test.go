package sim_test

import (
	"fmt"
	"iter"
	"runtime"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

// The benchmarks time warm launches (one untimed launch first; b.Loop times
// from its first call) and report, besides ns per simulated thread, ratios
// measured in the same run: against a plain Go loop doing the same
// arithmetic (x-goloop) and against the cost floor of the execution mechanism (x-floor): a plain
// per-thread function call for barrier-free kernels, the cost of a bare
// barrier switch for barrier kernels. Detection is off unless the name says
// "detect"; the "detect" variants also report the ratio to detection off.

var sinkF32 float32

// measure times f over enough repetitions to take ~200ms and returns ns per call.
func measure(f func()) float64 {
	f()
	n := 1
	for {
		start := time.Now()
		for i := 0; i < n; i++ {
			f()
		}
		if d := time.Since(start); d > 200*time.Millisecond || n > 1<<20 {
			return float64(d.Nanoseconds()) / float64(n)
		}
		n *= 2
	}
}

type vecAddSetup struct {
	dev     *sim.Device
	a, b, c *sim.Buffer[float32]
	ha, hb  []float32
	hc      []float32
	n       int
}

func newVecAdd(n int) *vecAddSetup {
	s := &vecAddSetup{dev: sim.NewDevice(sim.H100), n: n}
	s.ha, s.hb, s.hc = make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range s.ha {
		s.ha[i], s.hb[i] = float32(i), float32(n-i)
	}
	s.a, _ = sim.FromHost(s.dev, "a", s.ha)
	s.b, _ = sim.FromHost(s.dev, "b", s.hb)
	s.c, _ = sim.Alloc[float32](s.dev, "c", n)
	return s
}

func (s *vecAddSetup) launch(b *testing.B, opts sim.Options) {
	cfg := sim.Config{Grid: sim.Dim((s.n + 255) / 256), Block: sim.Dim(256), Options: opts}
	if err := s.dev.Launch(cfg, vectorAdd(s.a, s.b, s.c, s.n)); err != nil {
		b.Fatal(err)
	}
}

func (s *vecAddSetup) launchProfile(b *testing.B, opts sim.Options) {
	cfg := sim.Config{Grid: sim.Dim((s.n + 255) / 256), Block: sim.Dim(256), Options: opts}
	if _, err := s.dev.LaunchProfile(cfg, vectorAdd(s.a, s.b, s.c, s.n)); err != nil {
		b.Fatal(err)
	}
}

// goLoop is the plain Go loop doing the vector add's arithmetic.
func (s *vecAddSetup) goLoop() {
	a, bb, c := s.ha, s.hb, s.hc
	for i := range c {
		c[i] = a[i] + bb[i]
	}
}

// callFloor calls a per-thread function for every element: the least any
// function-per-thread simulator can cost.
func (s *vecAddSetup) callFloor() {
	a, bb, c := s.ha, s.hb, s.hc
	f := perThread
	for i := range c {
		f(a, bb, c, i)
	}
}

//go:noinline
func perThread(a, b, c []float32, i int) {
	if i < len(c) {
		c[i] = a[i] + b[i]
	}
}

func withProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// BenchmarkVectorAdd is the seed 000 vector add: 10M float32, 256 threads
// per block, one core.
func BenchmarkVectorAdd(b *testing.B) {
	s := newVecAdd(10_000_000)
	off := sim.Options{}.WithDetection(false)
	b.Run("sim", func(b *testing.B) {
		withProcs(1, func() {
			s.launch(b, off) // warm: see benchDetect
			for b.Loop() {
				s.launch(b, off)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(s.n)
			b.ReportMetric(per, "ns/thread")
			b.ReportMetric(per*float64(s.n)/measure(s.goLoop), "x-goloop")
			b.ReportMetric(per*float64(s.n)/measure(s.callFloor), "x-floor")
		})
	})
	b.Run("detect", func(b *testing.B) { benchDetect(b, float64(s.n), s.launch, off) })
	b.Run("detect-parallel", func(b *testing.B) { benchDetectParallel(b, float64(s.n), s.launch) })
	b.Run("profile", func(b *testing.B) {
		// The profiler (memory statistics per line, coalescing, bank
		// conflicts) with detection off: what `gpusim run` pays by default.
		withProcs(1, func() {
			s.launchProfile(b, off)
			for b.Loop() {
				s.launchProfile(b, off)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(s.n)
			b.ReportMetric(per, "ns/thread")
			b.ReportMetric(per*float64(s.n)/measure(func() { s.launch(b, off) }), "x-profile-off")
		})
	})
	b.Run("parallel", func(b *testing.B) {
		if runtime.NumCPU() < 2 {
			b.Skip("needs 2 CPUs")
		}
		withProcs(2, func() {
			two := off.WithWorkers(2)
			s.launch(b, two)
			for b.Loop() {
				s.launch(b, two)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			one := measure(func() { s.launch(b, off.WithWorkers(1)) })
			b.ReportMetric(per/float64(s.n), "ns/thread")
			b.ReportMetric(one/per, "speedup-2v1")
		})
	})
}

// reduceSumSeed is seed 000's reduce_sum: each thread loads two elements,
// then a shared-memory halving tree.
func reduceSumSeed(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "sdata", 512)
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*(t.BlockDim.X*2) + tid
		var sum float32
		if i < n {
			sum = in.Load(t, i)
		}
		if i+t.BlockDim.X < n {
			sum += in.Load(t, i+t.BlockDim.X)
		}
		s.Store(t, tid, sum)
		t.SyncThreads()
		for stride := t.BlockDim.X / 2; stride > 0; stride >>= 1 {
			if tid < stride {
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			out.Store(t, t.BlockIdx.X, s.Load(t, 0))
		}
	}
}

// benchDetect times run with detection on, per thread, and reports the
// ratio to detection off (the options off) measured in the same run. Both
// are timed warm: the first launch with detection allocates the buffers'
// shadow cells (48 bytes an element, once per buffer), which a test that
// launches once pays and a loop of launches does not.
func benchDetect(b *testing.B, nthreads float64, run func(*testing.B, sim.Options), off sim.Options) {
	withProcs(1, func() {
		run(b, sim.Options{}) // b.Loop times from its first call
		for b.Loop() {
			run(b, sim.Options{})
		}
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(per/nthreads, "ns/thread")
		b.ReportMetric(per/measure(func() { run(b, off) }), "x-detect-off")
	})
}

// benchDetectParallel times run with detection on two workers (speculative
// epochs, speculate.go) and reports the speed-up over one worker measured
// in the same run, the two interleaved: issue 17's target is 1.7.
func benchDetectParallel(b *testing.B, nthreads float64, run func(*testing.B, sim.Options)) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs 2 CPUs")
	}
	withProcs(2, func() {
		two, one := sim.Options{}.WithWorkers(2), sim.Options{}.WithWorkers(1)
		run(b, two)
		run(b, one)
		var t1, t2 time.Duration
		for b.Loop() {
			start := time.Now()
			run(b, two)
			t2 += time.Since(start)
			b.StopTimer()
			start = time.Now()
			run(b, one)
			t1 += time.Since(start)
			b.StartTimer()
		}
		b.ReportMetric(float64(t2.Nanoseconds())/float64(b.N)/nthreads, "ns/thread")
		b.ReportMetric(float64(t1)/float64(t2), "speedup-2v1")
	})
}

// pullRoundTrip returns a function that resumes each of n coroutines once
// (an iter.Pull next and the coroutine's yield back): the bare cost of
// switching to a thread waiting at a barrier and back, with as many
// coroutines live as a block has threads waiting, and nothing of sim.
func pullRoundTrip(n int) (round func(), stop func()) {
	nexts := make([]func() (int, bool), n)
	stops := make([]func(), n)
	for i := range nexts {
		nexts[i], stops[i] = iter.Pull(func(yield func(int) bool) {
			for yield(i) {
			}
		})
	}
	round = func() {
		for _, next := range nexts {
			next()
		}
	}
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	return round, stop
}

// barriersOnly is the switch-cost floor: k barriers and nothing else.
func barriersOnly(k int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := 0; i < k; i++ {
			t.SyncThreads()
		}
	}
}

// BenchmarkReduceSum is seed 000's reduce_sum over 1M float32 with 512
// threads per block: 10 barriers per thread.
func BenchmarkReduceSum(b *testing.B) {
	const n, threads, barriers = 1 << 20, 512, 10
	dev := sim.NewDevice(sim.H100)
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i % 7)
	}
	in, _ := sim.FromHost(dev, "in", host)
	blocks := n / (2 * threads)
	out, _ := sim.Alloc[float32](dev, "out", blocks)
	cfg := func(o sim.Options) sim.Config {
		return sim.Config{Grid: sim.Dim(blocks), Block: sim.Dim(threads), Options: o}
	}
	off := sim.Options{}.WithDetection(false)
	run := func(b *testing.B, o sim.Options) {
		if err := dev.Launch(cfg(o), reduceSumSeed(in, out, n)); err != nil {
			b.Fatal(err)
		}
	}
	nthreads := float64(blocks * threads)
	goLoop := func() {
		var s float32
		for _, v := range host {
			s += v
		}
		sinkF32 = s
	}
	floor := func() {
		if err := dev.Launch(cfg(off), barriersOnly(barriers)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("sim", func(b *testing.B) {
		withProcs(1, func() {
			run(b, off)
			for b.Loop() {
				run(b, off)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/nthreads, "ns/thread")
			b.ReportMetric(per/nthreads/barriers, "ns/thread/barrier")
			b.ReportMetric(per/measure(goLoop), "x-goloop")
			bar := measure(floor)
			b.ReportMetric(per/bar, "x-floor")
			// barrier-x-switch: a barrier of barriersOnly, per thread,
			// against the bare coroutine round trip it needs (resumed by
			// the scheduler, yielding back), with a block's worth of
			// coroutines live: what sim adds to the switch.
			round, stop := pullRoundTrip(threads)
			b.ReportMetric(bar/nthreads/barriers/(measure(round)/threads), "barrier-x-switch")
			stop()
		})
	})
	b.Run("detect", func(b *testing.B) { benchDetect(b, nthreads, run, off) })
	b.Run("detect-parallel", func(b *testing.B) { benchDetectParallel(b, nthreads, run) })
	b.Run("parallel", func(b *testing.B) {
		if runtime.NumCPU() < 2 {
			b.Skip("needs 2 CPUs")
		}
		withProcs(2, func() {
			run(b, off.WithWorkers(2))
			for b.Loop() {
				run(b, off.WithWorkers(2))
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/nthreads, "ns/thread")
			b.ReportMetric(measure(func() { run(b, off.WithWorkers(1)) })/per, "speedup-2v1")
		})
	})
}

// matmulTiled32 is seed 000's tiled matrix multiply with 32x32 tiles.
func matmulTiled32(A, B, C *sim.Buffer[float32], n int) sim.Kernel {
	const tile = 32
	return func(t *sim.Thread) {
		as := sim.Shared[float32](t, "As", tile*tile)
		bs := sim.Shared[float32](t, "Bs", tile*tile)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile + ty
		col := t.BlockIdx.X*tile + tx
		var sum float32
		for m := 0; m < n/tile; m++ {
			as.Store(t, ty*tile+tx, A.Load(t, row*n+m*tile+tx))
			bs.Store(t, ty*tile+tx, B.Load(t, (m*tile+ty)*n+col))
			t.SyncThreads()
			for k := 0; k < tile; k++ {
				sum += as.Load(t, ty*tile+k) * bs.Load(t, k*tile+tx)
			}
			t.SyncThreads()
		}
		C.Store(t, row*n+col, sum)
	}
}

// BenchmarkMatmulTiled is a 512x512 tiled 32x32 matrix multiply.
func BenchmarkMatmulTiled(b *testing.B) {
	const n, tile = 512, 32
	dev := sim.NewDevice(sim.H100)
	ha, hb, hc := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range ha {
		ha[i], hb[i] = float32(i%13), float32(i%7)
	}
	A, _ := sim.FromHost(dev, "A", ha)
	B, _ := sim.FromHost(dev, "B", hb)
	C, _ := sim.Alloc[float32](dev, "C", n*n)
	cfg := func(o sim.Options) sim.Config {
		return sim.Config{Grid: sim.Dim2(n/tile, n/tile), Block: sim.Dim2(tile, tile), Options: o}
	}
	off := sim.Options{}.WithDetection(false)
	run := func(b *testing.B, o sim.Options) {
		if err := dev.Launch(cfg(o), matmulTiled32(A, B, C, n)); err != nil {
			b.Fatal(err)
		}
	}
	nthreads := float64(n * n)
	barriers := 2 * n / tile
	goLoop := func() {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float32
				for k := 0; k < n; k++ {
					s += ha[i*n+k] * hb[k*n+j]
				}
				hc[i*n+j] = s
			}
		}
	}
	floor := func() {
		if err := dev.Launch(cfg(off), barriersOnly(barriers)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("sim", func(b *testing.B) {
		withProcs(1, func() {
			run(b, off)
			for b.Loop() {
				run(b, off)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/nthreads, "ns/thread")
			b.ReportMetric(per/measure(goLoop), "x-goloop")
			b.ReportMetric(per/measure(floor), "x-floor")
		})
	})
	b.Run("detect", func(b *testing.B) { benchDetect(b, nthreads, run, off) })
}

// BenchmarkRacyAddOne is the Numba seed's racy add_one over [10,16]: every
// thread increments a[0] plainly, a data race reported with detection on.
// A repeated race must cost about a counter increment (raceKey), so what
// is left is the launch's fixed cost, which the 160 threads expose.
func BenchmarkRacyAddOne(b *testing.B) {
	dev := sim.NewDevice(sim.H100)
	a, _ := sim.FromHost(dev, "a", []int32{0})
	k := func(t *sim.Thread) { a.Store(t, 0, a.Load(t, 0)+1) }
	cfg := func(o sim.Options) sim.Config { return sim.Config{Grid: sim.Dim(10), Block: sim.Dim(16), Options: o} }
	off := sim.Options{}.WithDetection(false)
	run := func(b *testing.B, o sim.Options) {
		_ = dev.Launch(cfg(o), k) // the race is the point; its report is not an error here
	}
	b.Run("detect", func(b *testing.B) { benchDetect(b, 160, run, off) })
	b.Run("detect-procs2", func(b *testing.B) {
		// The same launch with GOMAXPROCS 2, the default on the 2-core
		// VM, against GOMAXPROCS 1, interleaved: the launch's threads run
		// on a goroutine of their own (the watchdog's way out, see
		// RATIONALE.md, Hang-proofing), and with an idle P the two
		// hand-offs, to that goroutine and back, each wake an OS thread.
		if runtime.NumCPU() < 2 {
			b.Skip("needs 2 CPUs")
		}
		on := sim.Options{}
		one := func() { withProcs(1, func() { run(b, on) }) }
		two := func() { withProcs(2, func() { run(b, on) }) }
		one()
		two()
		var t1, t2 time.Duration
		const batch = 200 // launches per GOMAXPROCS change, which stops the world
		for b.Loop() {
			b.StopTimer()
			start := time.Now()
			withProcs(1, func() {
				for range batch {
					run(b, on)
				}
			})
			t1 += time.Since(start)
			b.StartTimer()
			start = time.Now()
			withProcs(2, func() {
				for range batch {
					run(b, on)
				}
			})
			t2 += time.Since(start)
		}
		n := float64(b.N * batch)
		b.ReportMetric(float64(t2.Nanoseconds())/n/160, "ns/thread")
		b.ReportMetric(float64(t2)/float64(t1), "x-procs1")
		b.ReportMetric(float64(t2-t1)/n/1000, "us-per-launch-over-procs1")
	})
}

// BenchmarkHandoff is a warp-specialised producer and consumer: two warps
// of one block pass 16 tiles through shared memory, each hand-off a
// block-scope release store of a flag the other warp polls with acquire
// loads. With detection on, a poll of a flag nobody released to since
// costs no vector-clock join (hbState.seen); before, each poll joined the
// flag's whole history and five hand-offs took ~30 s (~1,800x).
func BenchmarkHandoff(b *testing.B) {
	const rounds = 16
	dev := sim.NewDevice(sim.H100)
	hin := make([]int32, rounds*32)
	for i := range hin {
		hin[i] = int32(i)
	}
	in, _ := sim.FromHost(dev, "in", hin)
	out, _ := sim.Alloc[int32](dev, "out", rounds*32)
	k := func(t *sim.Thread) {
		buf := sim.Shared[int32](t, "buf", 32)
		flags := sim.Shared[uint32](t, "flags", 2)
		lane, w := t.LaneID(), t.WarpID()
		if t.ThreadIdx.X == 0 {
			flags.Store(t, 0, 0)
			flags.Store(t, 1, 0)
		}
		t.SyncThreads()
		full := sim.NewAtomicRef(flags, 0, sim.ThreadScopeBlock)
		empty := sim.NewAtomicRef(flags, 1, sim.ThreadScopeBlock)
		for r := 0; r < rounds; r++ {
			if w == 0 {
				for empty.Load(t, sim.MemoryOrderAcquire) != uint32(r) {
				}
				buf.Store(t, lane, in.Load(t, r*32+lane))
				t.SyncWarp(sim.FullMask)
				if lane == 0 {
					full.Store(t, uint32(r+1), sim.MemoryOrderRelease)
				}
			} else {
				for full.Load(t, sim.MemoryOrderAcquire) != uint32(r+1) {
				}
				out.Store(t, r*32+lane, 2*buf.Load(t, 31-lane))
				t.SyncWarp(sim.FullMask)
				if lane == 0 {
					empty.Store(t, uint32(r+1), sim.MemoryOrderRelease)
				}
			}
		}
	}
	run := func(b *testing.B, o sim.Options) {
		if err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(64), Options: o}, k); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("detect", func(b *testing.B) { benchDetect(b, 64, run, sim.Options{}.WithDetection(false)) })
}

// BenchmarkGridSync is a cooperative Jacobi sweep: 64 blocks of 256
// threads, 10 grid.sync() calls. With detection on, a barrier gives its
// threads one shared clock of what they acquired (clockUnion), where it
// used to join the grid's knowledge into every thread (15x detection off
// at 132 blocks).
func BenchmarkGridSync(b *testing.B) {
	const blocks, threads, sweeps = 64, 256, 10
	n := blocks * threads
	dev := sim.NewDevice(sim.H100)
	h := make([]float32, n)
	for i := range h {
		h[i] = float32(i % 17)
	}
	x, _ := sim.FromHost(dev, "x", h)
	y, _ := sim.Alloc[float32](dev, "y", n)
	k := func(t *sim.Thread) {
		g := sim.ThisGrid(t)
		i := t.GlobalX()
		src, dst := x, y
		for s := 0; s < sweeps; s++ {
			l, r := src.Load(t, max(i-1, 0)), src.Load(t, min(i+1, n-1))
			dst.Store(t, i, (l+r)/2)
			g.Sync()
			src, dst = dst, src
		}
	}
	run := func(b *testing.B, o sim.Options) {
		if err := dev.Launch(sim.Config{Grid: sim.Dim(blocks), Block: sim.Dim(threads), Options: o.WithCooperative(true)}, k); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("detect", func(b *testing.B) { benchDetect(b, float64(n), run, sim.Options{}.WithDetection(false)) })
}

// BenchmarkGoroutineHandoff is the Go runtime alone: a body of ~15 us run
// on a new goroutine that the caller waits for on a channel (what a launch
// does), against the same body in a coroutine the caller resumes
// (iter.Pull), each with GOMAXPROCS 1 and 2. RATIONALE.md (Hang-proofing)
// says why launches pay for the first.
func BenchmarkGoroutineHandoff(b *testing.B) {
	body := func() {
		s := float32(1)
		for i := 0; i < 20_000; i++ {
			s = s*0.999 + 1
		}
		sinkF32 = s
	}
	goChan := func() {
		done := make(chan struct{})
		go func() {
			body()
			close(done)
		}()
		<-done
	}
	coroutine := func() {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			body()
			yield(struct{}{})
		})
		next()
		stop()
	}
	for _, procs := range []int{1, 2} {
		for _, c := range []struct {
			name string
			f    func()
		}{{"go-chan", goChan}, {"coroutine", coroutine}} {
			b.Run(fmt.Sprintf("%s/procs%d", c.name, procs), func(b *testing.B) {
				if procs > runtime.NumCPU() {
					b.Skipf("needs %d CPUs", procs)
				}
				withProcs(procs, func() {
					for b.Loop() {
						c.f()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/measure(body), "x-body")
				})
			})
		}
	}
}
