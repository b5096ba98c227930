package sim_test

// grid.sync() under a cooperative launch: the grid-wide barrier orders
// every block's accesses before it before every block's accesses after it;
// the cooperative launch refuses a grid that cannot be co-resident, by the
// occupancy rules; grid.sync() outside one is an error.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

func coop(grid, block int, o ...sim.Options) sim.Config {
	c := lin(grid, block, o...)
	c.Options = c.Options.WithCooperative(true)
	return c
}

// twoPhase: every thread writes its element, the grid synchronises, and
// every thread reads an element of the next block; three rounds. With
// gridSync false the grid.sync is replaced by a block barrier, which does
// not order blocks.
func twoPhase(data, out *sim.Buffer[int32], gridSync bool) sim.Kernel {
	return func(t *sim.Thread) {
		grid := sim.ThisGrid(t)
		block := sim.ThisThreadBlock(t)
		i, n := grid.ThreadRank(), grid.NumThreads()
		sync := func() {
			if gridSync {
				grid.Sync()
			} else {
				block.Sync()
			}
		}
		for r := int32(0); r < 3; r++ {
			data.Store(t, i, int32(i)+1000*r) //@gridW
			sync()
			out.Store(t, i, data.Load(t, (i+t.BlockDim.X)%n)) //@gridR
			sync()
		}
	}
}

func TestNoRaceGridSyncTwoPhase(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(1), random(2)} {
		dev := sim.NewDevice(sim.H100)
		data := zeroed[int32](t, dev, "data", 6*64)
		out := zeroed[int32](t, dev, "out", 6*64)
		wantClean(t, exec(t, dev, coop(6, 64, opts), twoPhase(data, out, true)))
		for i, v := range out.ToHost() {
			if v != int32((i+64)%(6*64))+2000 {
				t.Fatalf("%v: out[%d] = %d", opts.Schedule(), i, v)
			}
		}
	}
}

func TestRaceGridSyncReplacedByBlockSync(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 6*64)
	out := zeroed[int32](t, dev, "out", 6*64)
	r := exec(t, dev, coop(6, 64), twoPhase(data, out, false))
	f := wantRace(t, r, sim.GlobalSpace, "data", at(t, "gridW"), at(t, "gridR"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
}

// Threads that return before grid.sync count as arrived, as at
// __syncthreads; the grid's results stay right.
func TestNoRaceGridSyncWithExitedThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const grid, block = 4, 64
	sums := zeroed[int32](t, dev, "sums", grid)
	out := zeroed[int32](t, dev, "out", grid)
	wantClean(t, exec(t, dev, coop(grid, block), func(t *sim.Thread) {
		if t.ThreadIdx.X%3 == 0 && t.ThreadIdx.X != 0 {
			return // a third of the threads, never thread 0, leave early
		}
		if t.ThreadIdx.X == 0 {
			sums.Store(t, t.BlockIdx.X, int32(t.BlockIdx.X+1))
		}
		sim.ThisGrid(t).Sync()
		if t.ThreadIdx.X == 1 {
			var s int32
			for b := 0; b < grid; b++ {
				s += sums.Load(t, b)
			}
			out.Store(t, t.BlockIdx.X, s)
		}
	}))
	for b, v := range out.ToHost() {
		if v != 10 {
			t.Fatalf("out[%d] = %d, want 10", b, v)
		}
	}
}

// A block whose threads all return before grid.sync never arrives: the
// others wait for it forever, as on a GPU, and the report says so, with
// every thread of the blocks that arrived in grid.sync (the leader at the
// grid barrier, the others at the __syncthreads after it).
func TestDeadlockGridSyncBlockExited(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, coop(3, 32), func(t *sim.Thread) {
		if t.BlockIdx.X == 1 {
			return
		}
		sim.ThisGrid(t).Sync() //@gsExited
	})
	f := wantKind(t, r, sim.Deadlock)
	for _, want := range []string{"grid.sync never completes: 2 of the grid's 3 blocks arrived (blocks 0, 2)", "; block 1 returned without arriving"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("detail %q does not say %q", f.Detail, want)
		}
	}
	if strings.Contains(f.Detail, "spin") {
		t.Errorf("detail %q speaks of spinning", f.Detail)
	}
	if len(f.Waiting) != 64 {
		t.Errorf("%d threads waiting, want the 64 of blocks 0 and 2:\n%v", len(f.Waiting), r)
	}
	for _, w := range f.Waiting {
		if w.At != "grid.sync" || w.Site != at(t, "gsExited") || w.Block.X == 1 {
			t.Errorf("block %v thread %v waits in %q at %s, want grid.sync at %s", w.Block, w.Thread, w.At, w.Site, at(t, "gsExited"))
		}
	}
}

// A block that waits for something else before its grid.sync is named as
// not arrived, and its threads are listed where they wait.
func TestDeadlockGridSyncBlockWaitsElsewhere(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[int32](t, dev, "flag", 1)
	r := exec(t, dev, coop(4, 32), func(t *sim.Thread) {
		if t.BlockIdx.X == 2 {
			for flag.LoadVolatile(t, 0) == 0 { //@gsElsewhere
			}
		}
		sim.ThisGrid(t).Sync()
	})
	f := wantKind(t, r, sim.Deadlock)
	for _, want := range []string{"3 of the grid's 4 blocks arrived (blocks 0-1, 3)", "; block 2 waits elsewhere (below)"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("detail %q does not say %q", f.Detail, want)
		}
	}
	spinning := 0
	for _, w := range f.Waiting {
		if w.Block.X == 2 && w.At == "spinning without progress" && w.Site == at(t, "gsElsewhere") {
			spinning++
		}
	}
	if spinning != 32 {
		t.Errorf("%d threads of block 2 spinning at %s, want 32:\n%v", spinning, at(t, "gsElsewhere"), r)
	}
}

// A tile of more than 32 threads whose member waits at __syncthreads
// instead: the tile's sync is named as what its threads wait in.
func TestDeadlockTileSyncMemberAtBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, lin(1, 128), func(t *sim.Thread) {
		if t.ThreadIdx.X < 63 {
			sim.TiledPartitionOf[sim.Size64](sim.ThisThreadBlock(t)).Sync() //@tileWait
		} else {
			t.SyncThreads()
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if f.Detail != "no thread can make progress" {
		t.Errorf("detail %q, want no thread can make progress", f.Detail)
	}
	inTile := 0
	for _, w := range f.Waiting {
		if w.At == "tile sync (a tile of more than 32 threads)" && w.Site == at(t, "tileWait") {
			inTile++
		}
	}
	if inTile != 63 {
		t.Errorf("%d threads in the tile's sync at %s, want 63:\n%v", inTile, at(t, "tileWait"), r)
	}
}

func TestPanicGridSyncOutsideCooperativeLaunch(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	valid := zeroed[int32](t, dev, "valid", 1)
	r := exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		g := sim.ThisGrid(t)
		valid.Store(t, 0, b2i(g.IsValid()))
		g.Sync() //@badGridSync
	})
	f := wantKind(t, r, sim.KernelPanic)
	if f.Current.Site != at(t, "badGridSync") || !r.Aborted {
		t.Errorf("finding %v, want a fatal one at %s", f, at(t, "badGridSync"))
	}
	if valid.ToHost()[0] != 0 {
		t.Error("grid.is_valid() in a launch that is not cooperative")
	}
}

// The cooperative launch refuses a grid larger than SMs x blocks per SM,
// the latter by the occupancy rules with registers and shared memory.
func TestCooperativeLaunchLimit(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	spec := dev.Spec()
	for _, c := range []struct {
		block, regs, shared int
	}{
		{1024, 0, 0}, {256, 0, 0}, {128, 64, 0}, {1024, 64, 0}, {256, 32, 100 << 10}, {32, 0, 0}, {96, 40, 4000},
	} {
		o, err := spec.CalcOccupancy(c.block, c.regs, c.shared)
		if err != nil {
			t.Fatal(err)
		}
		want := o.BlocksPerSM * spec.SMs
		cfg := sim.Config{Grid: sim.Dim(want), Block: sim.Dim(c.block), Registers: c.regs, SharedBytes: c.shared,
			Options: sim.Options{}.WithCooperative(true).WithSharedOptIn(true)}
		got, err := dev.CooperativeLimit(cfg, 0)
		if err != nil || got != want {
			t.Errorf("%+v: CooperativeLimit = %d, %v; want %d", c, got, err, want)
		}
		if err := dev.Validate(cfg); err != nil {
			t.Errorf("%+v: a grid of %d blocks refused: %v", c, want, err)
		}
		cfg.Grid = sim.Dim(want + 1)
		var le *sim.LaunchError
		if err := dev.Validate(cfg); !errors.As(err, &le) || le.Code != sim.ErrCooperativeLaunchTooLarge {
			t.Errorf("%+v: a grid of %d blocks: %v, want cudaErrorCooperativeLaunchTooLarge", c, want+1, err)
		}
		cfg.Options = cfg.Options.WithCooperative(false)
		if err := dev.Validate(cfg); err != nil {
			t.Errorf("%+v: a launch that is not cooperative refused: %v", c, err)
		}
	}
	if n, _ := dev.CooperativeLimit(sim.Config{Block: sim.Dim(1024)}, 0); n != 2*132 {
		t.Errorf("H100, 1024 threads: %d blocks, want 264", n)
	}
	if n, _ := dev.CooperativeLimit(sim.Config{Block: sim.Dim(256)}, 60<<10); n != 3*132 {
		t.Errorf("H100, 256 threads and 60 KiB of static shared memory: %d blocks, want 396", n)
	}
}

// The H100's cooperative limits, as scripts/coop_probe.cu printed them: the
// driver's co-resident blocks (cudaOccupancyMaxActiveBlocksPerMultiprocessor
// x 132 SMs) for the probe's two kernels at each block size, with the
// compiled kernel's numRegs and static shared bytes, and its refusal of one
// block more (720, cudaErrorCooperativeLaunchTooLarge).
func TestCooperativeLimitMatchesH100(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	for _, c := range []struct {
		kernel                   string
		block, dyn, regs, static int
		perSM, limit             int
	}{
		{"grid_reduce", 64, 256, 31, 0, 32, 4224},
		{"grid_reduce", 128, 512, 31, 0, 16, 2112},
		{"grid_reduce", 256, 1024, 31, 0, 8, 1056},
		{"grid_reduce", 512, 2048, 31, 0, 4, 528},
		{"grid_reduce", 1024, 4096, 31, 0, 2, 264},
		{"heavy", 128, 0, 56, 24000, 9, 1188},
		{"heavy", 256, 0, 56, 24000, 4, 528},
		{"heavy", 1024, 0, 56, 24000, 1, 132},
	} {
		name := fmt.Sprintf("%s block=%d dyn=%d numRegs=%d static=%d", c.kernel, c.block, c.dyn, c.regs, c.static)
		if c.perSM*dev.Spec().SMs != c.limit {
			t.Fatalf("%s: table: %d x %d SMs != %d", name, c.perSM, dev.Spec().SMs, c.limit)
		}
		cfg := sim.Config{Grid: sim.Dim(c.limit), Block: sim.Dim(c.block), SharedBytes: c.dyn, Registers: c.regs,
			Options: sim.Options{}.WithCooperative(true)}
		if got, err := dev.CooperativeLimit(cfg, c.static); err != nil || got != c.limit {
			t.Errorf("%s: CooperativeLimit = %d, %v; H100 %d", name, got, err, c.limit)
		}
		// The launch knows no static shared memory (see
		// Options.WithCooperative): give it the kernel's whole shared
		// memory as the dynamic part, which occupancy counts alike.
		cfg.SharedBytes += c.static
		if err := dev.Validate(cfg); err != nil {
			t.Errorf("%s: a grid at the limit, %d blocks, refused: %v", name, c.limit, err)
		}
		cfg.Grid = sim.Dim(c.limit + 1)
		var le *sim.LaunchError
		if err := dev.Validate(cfg); !errors.As(err, &le) || le.Code != sim.ErrCooperativeLaunchTooLarge {
			t.Errorf("%s: a grid of %d blocks: %v; H100 720 (cudaErrorCooperativeLaunchTooLarge)", name, c.limit+1, err)
		}
	}
}

// A grid at the cooperative limit runs: every block resident at once.
func TestNoRaceGridSyncAtTheLimit(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.T4) // 40 SMs, 1 block of 1024 threads each
	n, err := dev.CooperativeLimit(sim.Config{Block: sim.Dim(1024)}, 0)
	if err != nil || n != 40 {
		t.Fatalf("T4 limit %d, %v", n, err)
	}
	flags := zeroed[int32](t, dev, "flags", n)
	out := zeroed[int32](t, dev, "out", n)
	wantClean(t, exec(t, dev, coop(n, 1024, sim.Options{}.WithDetection(false)), func(t *sim.Thread) {
		g := sim.ThisGrid(t)
		if t.ThreadIdx.X == 0 {
			flags.Store(t, g.BlockRank(), 1)
		}
		g.Sync()
		if t.ThreadIdx.X == 0 {
			var s int32
			for b := 0; b < g.NumBlocks(); b++ {
				s += flags.Load(t, b)
			}
			out.Store(t, g.BlockRank(), s)
		}
	}))
	for b, v := range out.ToHost() {
		if v != int32(n) {
			t.Fatalf("out[%d] = %d, want %d", b, v, n)
		}
	}
}
