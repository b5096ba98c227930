package kernels_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// gridSumTest: each block's thread 0 writes its block's count to partial,
// the grid synchronises, and block 0's thread 0 sums the partials. Correct
// only under a cooperative launch.
func gridSumTest(partial, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		grid := sim.ThisGrid(t)
		if t.ThreadIdx.X == 0 {
			partial.Store(t, grid.BlockRank(), int32(t.BlockDim.X))
		}
		grid.Sync()
		if grid.ThreadRank() == 0 {
			var s int32
			for b := range grid.NumBlocks() {
				s += partial.Load(t, b)
			}
			out.Store(t, 0, s)
		}
	}
}

// plainBackend is a Backend without LaunchCooperative.
type plainBackend struct{ kernels.Backend }

// kernels.LaunchCooperative runs a grid.sync() kernel cooperatively on the
// simulator, clean and correct; the same kernel launched plainly panics
// (grid.sync outside a cooperative launch); a grid over the cooperative
// limit is refused with cudaErrorCooperativeLaunchTooLarge; a backend that
// cannot launch cooperatively is an error, not a plain launch.
func TestLaunchCooperative(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	partial, err := kernels.Upload(b, make([]int32, 300))
	if err != nil {
		t.Fatal(err)
	}
	out, err := kernels.Upload(b, []int32{0})
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.LaunchCooperative(b, gridSumTest, sim.Dim(264), sim.Dim(64), 0, partial, out); err != nil {
		t.Fatalf("cooperative launch of 264 blocks: %v", err)
	}
	got := make([]int32, 1)
	if err := b.Read(out, got); err != nil || got[0] != 264*64 {
		t.Fatalf("sum %d, %v; want %d", got[0], err, 264*64)
	}
	err = b.Launch(gridSumTest, sim.Dim(4), sim.Dim(64), 0, partial, out)
	var r *sim.Report
	if !errors.As(err, &r) || !r.Has(sim.KernelPanic) {
		t.Errorf("grid.sync() in a plain launch: %v, want a KernelPanic", err)
	}
	// H100, 1024 threads: 2 blocks per SM x 132 SMs.
	err = kernels.LaunchCooperative(b, gridSumTest, sim.Dim(265), sim.Dim(1024), 0, partial, out)
	var le *sim.LaunchError
	if !errors.As(err, &le) || le.Code != sim.ErrCooperativeLaunchTooLarge {
		t.Errorf("265 blocks of 1024 threads: %v, want cudaErrorCooperativeLaunchTooLarge", err)
	}
	err = kernels.LaunchCooperative(plainBackend{b}, gridSumTest, sim.Dim(2), sim.Dim(64), 0, partial, out)
	if err == nil || !strings.Contains(err.Error(), "cannot launch cooperatively") {
		t.Errorf("a backend without LaunchCooperative: %v", err)
	}
}
