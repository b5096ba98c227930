package sim_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

// parallelCase is a kernel run with detection on one worker and on several:
// the reports and the memory it leaves must be identical. build makes its
// buffers on dev and returns the kernel and a function printing its outputs.
type parallelCase struct {
	name        string
	grid, block int
	shared      int // dynamic shared bytes
	// kept: every epoch on several workers must be kept (a clean kernel
	// whose blocks touch disjoint memory), so that the test also proves
	// the launch ran on several workers.
	kept  bool
	build func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string)
}

func seqF32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%97) * 0.5
	}
	return v
}

var parallelCases = []parallelCase{
	{name: "vector add", grid: 40, block: 256, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		const n = 40*256 - 7
		a, b := host(t, dev, "a", seqF32(n)), host(t, dev, "b", seqF32(n))
		c := zeroed[float32](t, dev, "c", n)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			if i < n {
				c.Store(t, i, a.Load(t, i)+b.Load(t, i))
			}
		}, func() string { return fmt.Sprint(c.ToHost()) }
	}},
	{name: "shared tree reduction", grid: 24, block: 128, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		in := host(t, dev, "in", seqF32(24*256))
		out := zeroed[float32](t, dev, "out", 24)
		return func(t *sim.Thread) {
			s := sim.Shared[float32](t, "s", 128)
			tid := t.ThreadIdx.X
			i := t.BlockIdx.X*256 + tid
			s.Store(t, tid, in.Load(t, i)+in.Load(t, i+128))
			t.SyncThreads()
			for stride := 64; stride > 0; stride >>= 1 {
				if tid < stride {
					s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
				}
				t.SyncThreads()
			}
			if tid == 0 {
				out.Store(t, t.BlockIdx.X, s.Load(t, 0))
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "warp shuffle reduction", grid: 16, block: 96, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		in := host(t, dev, "in", seqF32(16*96))
		out := zeroed[float32](t, dev, "out", 16*3)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			v := in.Load(t, i)
			for d := 16; d > 0; d >>= 1 {
				v += sim.ShflDownSync(t, sim.FullMask, v, d)
			}
			if t.LaneID() == 0 {
				out.Store(t, i/32, v)
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "float4 loads through a view, doubles", grid: 12, block: 64, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		in := host(t, dev, "in", seqF32(12*64*4))
		out := zeroed[float64](t, dev, "out", 12*64)
		in4 := sim.Reinterpret[sim.Float4](in)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			v := in4.Load(t, i)
			out.Store(t, i, float64(v.X+v.Y+v.Z+v.W))
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "dynamic shared memory transpose of a tile", grid: 9, block: 64, shared: 64 * 4, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		in := host(t, dev, "in", seqF32(9*64))
		out := zeroed[float32](t, dev, "out", 9*64)
		return func(t *sim.Thread) {
			s := sim.DynamicShared[float32](t, "tile")
			tid := t.ThreadIdx.X
			base := t.BlockIdx.X * 64
			s.Store(t, tid, in.Load(t, base+tid))
			t.SyncThreads()
			out.Store(t, base+tid, s.Load(t, (tid%8)*8+tid/8))
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "grid-stride loop (footprints overlap)", grid: 8, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		const n = 1000
		a := host(t, dev, "a", seqF32(n))
		c := zeroed[float32](t, dev, "c", n)
		return func(t *sim.Thread) {
			for i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X; i < n; i += t.GridDim.X * t.BlockDim.X {
				c.Store(t, i, 2*a.Load(t, i))
			}
		}, func() string { return fmt.Sprint(c.ToHost()) }
	}},
	{name: "every block writes one word", grid: 10, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 1)
		return func(t *sim.Thread) {
			if t.ThreadIdx.X == 0 {
				out.Store(t, 0, int32(t.BlockIdx.X))
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "blocks 3 and 4 race, block 0 does not", grid: 12, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 64)
		return func(t *sim.Thread) {
			if b := t.BlockIdx.X; b == 3 || b == 4 {
				out.Store(t, t.ThreadIdx.X, int32(b))
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "later blocks read what block 0 wrote", grid: 10, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 10*32)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			if t.BlockIdx.X == 0 {
				out.Store(t, i, 7)
				return
			}
			out.Store(t, i, out.Load(t, t.ThreadIdx.X)+1)
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "a shared-memory race in block 9 only", grid: 14, block: 64, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 14*64)
		return func(t *sim.Thread) {
			s := sim.Shared[int32](t, "s", 64)
			tid := t.ThreadIdx.X
			s.Store(t, tid, int32(tid))
			if t.BlockIdx.X != 9 {
				t.SyncThreads()
			}
			out.Store(t, t.BlockIdx.X*64+tid, s.Load(t, 63-tid))
			if t.BlockIdx.X == 9 {
				t.SyncThreads()
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "an uninitialised read in block 17", grid: 20, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		a := host(t, dev, "a", seqF32(20*32))
		never := zeroed[float32](t, dev, "never", 20*32)
		out := zeroed[float32](t, dev, "out", 20*32)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			v := a.Load(t, i)
			if t.BlockIdx.X == 17 && t.ThreadIdx.X == 3 {
				v += never.Load(t, i)
			}
			out.Store(t, i, v)
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "out of bounds in block 30", grid: 33, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		a := host(t, dev, "a", seqF32(33*32))
		out := zeroed[float32](t, dev, "out", 33*32)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			j := i
			if t.BlockIdx.X == 30 && t.ThreadIdx.X == 5 {
				j = 33*32 + 5
			}
			out.Store(t, i, a.Load(t, j))
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "barrier divergence in block 6", grid: 8, block: 64, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 8*64)
		return func(t *sim.Thread) {
			if t.BlockIdx.X != 6 || t.ThreadIdx.X < 32 {
				t.SyncThreads()
			}
			out.Store(t, t.BlockIdx.X*64+t.ThreadIdx.X, 1)
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "histogram with global atomics", grid: 16, block: 64, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		in := make([]int32, 16*64)
		for i := range in {
			in[i] = int32(i * 7 % 13)
		}
		data := host(t, dev, "data", in)
		bins := zeroed[int32](t, dev, "bins", 13)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*64 + t.ThreadIdx.X
			sim.AtomicAdd(t, bins, int(data.Load(t, i)), 1)
		}, func() string { return fmt.Sprint(bins.ToHost()) }
	}},
	{name: "tiled matrix multiply (blocks share rows and columns)", grid: 4, block: 256, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		const n, tile = 32, 16
		A, B := host(t, dev, "A", seqF32(n*n)), host(t, dev, "B", seqF32(n*n))
		C := zeroed[float32](t, dev, "C", n*n)
		return func(t *sim.Thread) {
			as, bs := sim.Shared[float32](t, "As", tile*tile), sim.Shared[float32](t, "Bs", tile*tile)
			tx, ty := t.ThreadIdx.X%tile, t.ThreadIdx.X/tile
			row, col := (t.BlockIdx.X/2)*tile+ty, (t.BlockIdx.X%2)*tile+tx
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
		}, func() string { return fmt.Sprint(C.ToHost()) }
	}},
	{name: "bytes of a word by different blocks", grid: 8, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		words := zeroed[int32](t, dev, "words", 2)
		bytes := sim.Reinterpret[uint8](words)
		return func(t *sim.Thread) {
			if t.ThreadIdx.X == 0 {
				bytes.Store(t, t.BlockIdx.X, uint8(t.BlockIdx.X+1))
			}
		}, func() string { return fmt.Sprint(words.ToHost()) }
	}},
	{name: "a fence in every block", grid: 6, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 6*32)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			out.Store(t, i, int32(i))
			t.ThreadFence()
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "blocks read a word a later block writes", grid: 90, block: 32, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		x := host(t, dev, "x", []float32{3})
		out := zeroed[float32](t, dev, "out", 90*32*64)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			for k := 0; k < 64; k++ { // a chunk of out per block: epochs end often
				out.Store(t, i*64+k, float32(k))
			}
			if t.ThreadIdx.X == 0 && t.BlockIdx.X < 48 {
				out.Store(t, i*64, x.Load(t, 0))
			}
			if t.BlockIdx.X == 85 && t.ThreadIdx.X == 1 {
				x.Store(t, 0, 4)
			}
		}, func() string { return fmt.Sprint(out.ToHost()[:200]) }
	}},
	{name: "clean over many epochs", grid: 120, block: 64, kept: true, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		const n = 120 * 64 * 32
		a := host(t, dev, "a", seqF32(n))
		c := zeroed[float32](t, dev, "c", n)
		return func(t *sim.Thread) {
			i := (t.BlockIdx.X*64 + t.ThreadIdx.X) * 32
			for k := i; k < i+32; k++ {
				c.Store(t, k, a.Load(t, k)*3)
			}
		}, func() string { return fmt.Sprint(c.ToHost()[n-100:]) }
	}},
	{name: "a block's threads read a word one of them then writes", grid: 7, block: 64, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		g := host(t, dev, "g", seqF32(7))
		out := zeroed[float32](t, dev, "out", 7*64)
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*64 + t.ThreadIdx.X
			out.Store(t, i, g.Load(t, t.BlockIdx.X))
			if t.BlockIdx.X == 4 && t.ThreadIdx.X == 40 {
				g.Store(t, 4, 1) // no barrier: races with the block's reads
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
	{name: "a warp race repeated in every block", grid: 11, block: 64, build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
		out := zeroed[int32](t, dev, "out", 11)
		return func(t *sim.Thread) {
			s := sim.Shared[int32](t, "s", 64)
			tid := t.ThreadIdx.X
			s.Store(t, tid, int32(tid))
			if tid < 32 {
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+32))
			}
			if tid < 16 { // no __syncwarp: lanes 0-15 read what 16-31 write
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+16))
			}
			if tid == 0 {
				out.Store(t, t.BlockIdx.X, s.Load(t, 0))
			}
		}, func() string { return fmt.Sprint(out.ToHost()) }
	}},
}

// TestParallelDetectionMatchesOneWorker runs every parallelCase with
// detection on 1, 2 and 4 workers, twice on one device (the second launch
// finds the memory and shadow the first left): the report text and the
// memory must be those of one worker. Clean kernels over disjoint memory
// must also have run on several workers (every epoch kept).
func TestParallelDetectionMatchesOneWorker(t *testing.T) {
	if raceBuild {
		t.Log("the race detector build runs detection on one worker: this compares one worker with itself")
	}
	for _, c := range parallelCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run := func(workers, budget int) (string, sim.Counters) {
				dev := sim.NewDevice(sim.H100)
				k, out := c.build(t, dev)
				cfg := lin(c.grid, c.block, sim.WithEpochBudgetForTest(sim.Options{}.WithWorkers(workers), budget))
				cfg.SharedBytes = c.shared
				var text string
				for launch := 1; launch <= 2; launch++ {
					err := dev.Launch(cfg, k)
					text += fmt.Sprintf("launch %d: %v\nmemory: %s\n", launch, err, out())
				}
				return text, dev.Counters()
			}
			want, _ := run(1, 0)
			// A budget of one byte ends an epoch at its first saved
			// chunk: epochs of a batch of blocks per worker.
			for _, budget := range []int{0, 1} {
				for _, workers := range []int{2, 4} {
					got, n := run(workers, budget)
					if got != want {
						t.Errorf("%d workers, epoch budget %d:\n%s\none worker:\n%s", workers, budget, got, want)
					}
					if c.kept && !raceBuild && (n.Epochs == 0 || n.EpochsUndone != 0) {
						t.Errorf("%d workers, epoch budget %d: %d epochs kept, %d undone; want every epoch kept", workers, budget, n.Epochs, n.EpochsUndone)
					}
				}
			}
		})
	}
}

// TestParallelDetectionProgress: blocks of an undone epoch run again, but
// Progress counts each block once.
func TestParallelDetectionProgress(t *testing.T) {
	for _, racyBlock := range []int{-1, 37} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 64*32)
		p := new(sim.Progress)
		cfg := lin(64, 32, sim.Options{}.WithWorkers(4).WithProgress(p))
		err := dev.Launch(cfg, func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			if t.BlockIdx.X == racyBlock {
				i = 0 // block 0's element: a race between blocks
			}
			out.Store(t, i, 1)
		})
		if (err != nil) != (racyBlock >= 0) {
			t.Fatalf("racy block %d: %v", racyBlock, err)
		}
		if done, total := p.Blocks(); done != 64 || total != 64 {
			t.Errorf("racy block %d: progress %d of %d blocks, want 64 of 64", racyBlock, done, total)
		}
	}
}

// TestParallelDetectionStops: a launch cancelled, or out of time, while an
// epoch runs returns a stopped report, and the device runs the next launch.
func TestParallelDetectionStops(t *testing.T) {
	slow := func(a *sim.Buffer[float32]) sim.Kernel {
		return func(t *sim.Thread) {
			i := t.BlockIdx.X*32 + t.ThreadIdx.X
			if t.BlockIdx.X == 0 {
				a.Store(t, i, 0) // block 0, which runs alone, ends: the rest run in an epoch
				return
			}
			for k := 0; k < 1<<30; k++ {
				a.Store(t, i, a.Load(t, i)+1)
			}
		}
	}
	for _, how := range []string{"cancel", "time limit"} {
		dev := sim.NewDevice(sim.H100)
		a := host(t, dev, "a", seqF32(16*32))
		opts := sim.Options{}.WithWorkers(4)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		if how == "time limit" {
			cancel()
			ctx, cancel = context.Background(), func() {}
			opts = opts.WithTimeLimit(100 * time.Millisecond)
		}
		start := time.Now()
		err := dev.LaunchContext(ctx, lin(16, 32, opts), slow(a))
		cancel()
		var r *sim.Report
		if !errors.As(err, &r) || !r.Aborted {
			t.Fatalf("%s: want an aborted report, got %v", how, err)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: the launch took %v to stop", how, d)
		}
		if n := dev.Counters(); !raceBuild && n.Epochs+n.EpochsUndone != 1 {
			t.Errorf("%s: %d epochs kept, %d undone: want the launch stopped in its first", how, n.Epochs, n.EpochsUndone)
		}
		if err := dev.Launch(lin(16, 32, sim.Options{}.WithWorkers(4)), func(t *sim.Thread) {
			a.Store(t, t.BlockIdx.X*32+t.ThreadIdx.X, 1)
		}); err != nil {
			t.Errorf("%s: the next launch: %v", how, err)
		}
	}
}
