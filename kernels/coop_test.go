package kernels

import (
	"errors"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// tile_reduce's reference is cg::reduce's butterfly, not a sequential sum:
// on 2^24 followed by 31 ones the two differ (the sequential sum loses
// every 1), and the simulator gives the butterfly's 2^24 + 30.
func TestTileReduceButterflyOrder(t *testing.T) {
	in := make([]float32, 32)
	in[0] = 1 << 24
	for i := 1; i < 32; i++ {
		in[i] = 1
	}
	var seq float32
	for _, v := range in {
		seq += v
	}
	want := butterfly32(in)
	if want != 1<<24+30 || seq == want {
		t.Fatalf("butterfly %v, sequential %v: the case does not tell the orders apart", want, seq)
	}
	c := Case{N: 32, Block: 32, Inputs: []any{in}}
	got, err := tileReduce.Run(NewSimBackend(sim.H100, sim.Options{}), c)
	if err != nil {
		t.Fatal(err)
	}
	if s := got[0].([]float32)[0]; s != want {
		t.Errorf("tile_reduce gave %v, want the butterfly's %v", s, want)
	}
	if err := tileReduce.Rule.Check(got, tileReduce.Reference(c)); err != nil {
		t.Error(err)
	}
}

// gridReduceNoSync is GridReduce without grid.sync(): block 0 reads the
// partials while other blocks may still write them.
func gridReduceNoSync(in, partial, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		grid := sim.ThisGrid(t)
		if t.ThreadIdx.X == 0 {
			var s int32
			for i := t.BlockIdx.X; i < n; i += t.GridDim.X {
				s += in.Load(t, i)
			}
			partial.Store(t, grid.BlockRank(), s)
		}
		if grid.ThreadRank() == 0 {
			var total int32
			for b := range grid.NumBlocks() {
				total += partial.Load(t, b)
			}
			out.Store(t, 0, total)
		}
	}
}

// grid_reduce needs its grid.sync() and its cooperative launch: without
// the sync the partials race; launched plainly, grid.sync() panics; and
// its grid of at most gridReduceBlocks fits co-resident on the H100 at
// every block size for a kernel of its size.
func TestGridReduceCooperative(t *testing.T) {
	in := make([]int32, 4096)
	for i := range in {
		in[i] = int32(i)
	}
	b := NewSimBackend(sim.H100, sim.Options{})
	m := make([]Mem, 3)
	var err error
	if m[0], err = Upload(b, in); err != nil {
		t.Fatal(err)
	}
	if m[1], err = Upload(b, make([]int32, 16)); err != nil {
		t.Fatal(err)
	}
	if m[2], err = Upload(b, []int32{0}); err != nil {
		t.Fatal(err)
	}
	var r *sim.Report
	err = LaunchCooperative(b, gridReduceNoSync, sim.Dim(16), sim.Dim(64), 0, m[0], m[1], m[2], int32(len(in)))
	if !errors.As(err, &r) || !r.Has(sim.DataRace) {
		t.Errorf("grid_reduce without grid.sync(): %v, want a DataRace on the partials", err)
	}
	err = b.Launch(GridReduce, sim.Dim(16), sim.Dim(64), 0, m[0], m[1], m[2], int32(len(in)))
	if !errors.As(err, &r) || !r.Has(sim.KernelPanic) {
		t.Errorf("grid_reduce in a plain launch: %v, want a KernelPanic", err)
	}
	if err := LaunchCooperative(b, GridReduce, sim.Dim(16), sim.Dim(64), 0, m[0], m[1], m[2], int32(len(in))); err != nil {
		t.Fatal(err)
	}
	got, err := Download[int32](b, m[2])
	if err != nil || got[0] != 4095*4096/2 {
		t.Errorf("grid_reduce = %v, %v; want %d", got, err, 4095*4096/2)
	}
	for block := 32; block <= 1024; block *= 2 {
		// 32 registers per thread and the 128 bytes of warpSums: more
		// than the kernel needs.
		lim, err := b.Dev.CooperativeLimit(sim.Config{Block: sim.Dim(block), Registers: 32}, 128)
		if err != nil || lim < gridReduceBlocks {
			t.Errorf("block %d: cooperative limit %d, %v; grid_reduce launches up to %d blocks", block, lim, err, gridReduceBlocks)
		}
	}
}

// warp_aggregated_atomic makes one atomic per coalesced group: on 256
// positive elements in one block of 256 threads (eight converged warps),
// eight atomics, not 256.
func TestWarpAggregatedAtomicAggregates(t *testing.T) {
	in := make([]int32, 256)
	for i := range in {
		in[i] = int32(i + 1)
	}
	b := NewSimBackend(sim.H100, sim.Options{})
	c := Case{N: len(in), Block: 256, Inputs: []any{in}}
	got, err := warpAggregatedAtomic.Run(b, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := warpAggregatedAtomic.Rule.Check(got, warpAggregatedAtomic.Reference(c)); err != nil {
		t.Fatal(err)
	}
	if n := b.Dev.Counters().Atomics; n != 8 {
		t.Errorf("%d atomics, want 8 (one per warp)", n)
	}
}
