package saxpy

import (
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/parity"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// TestSaxpyParity holds Saxpy to a CPU reference on the simulator with the
// detectors on and, built with -tags cuda on a GPU host, to the GPU.
func TestSaxpyParity(t *testing.T) {
	parity.Check(t, parity.Test{
		Kernel: Saxpy,
		Draw: func(rt *rapid.T) parity.Launch {
			n := rapid.IntRange(0, 5000).Draw(rt, "n")
			x := rapid.SliceOfN(rapid.Float32(), n, n).Draw(rt, "x")
			y := rapid.SliceOfN(rapid.Float32(), n, n).Draw(rt, "y")
			block := rapid.SampledFrom([]int{32, 128, 256}).Draw(rt, "block")
			grid := rapid.IntRange(1, 8).Draw(rt, "grid")
			return parity.Launch{Grid: sim.Dim(grid), Block: sim.Dim(block),
				Args: []any{x, y, rapid.Float32().Draw(rt, "a"), n}}
		},
		Reference: func(l parity.Launch) []any {
			x, a := l.Args[0].([]float32), l.Args[2].(float32)
			y := append([]float32(nil), l.Args[1].([]float32)...)
			for i := range y {
				y[i] = float32(a*x[i]) + y[i]
			}
			return []any{nil, y} // x is only read
		},
	})
}

// TestBlockSumParity checks the per-block sums, wrap-around included.
func TestBlockSumParity(t *testing.T) {
	parity.Check(t, parity.Test{
		Kernel: BlockSum,
		Draw: func(rt *rapid.T) parity.Launch {
			block := rapid.SampledFrom([]int{64, 128, 256, 1024}).Draw(rt, "block")
			n := rapid.IntRange(1, 4*block).Draw(rt, "n")
			in := rapid.SliceOfN(rapid.Int32(), n, n).Draw(rt, "in")
			blocks := (n + block - 1) / block
			return parity.Launch{Grid: sim.Dim(blocks), Block: sim.Dim(block), Args: []any{in, make([]int32, blocks), n}}
		},
		Reference: func(l parity.Launch) []any {
			in, out := l.Args[0].([]int32), make([]int32, len(l.Args[1].([]int32)))
			block := l.Block.X
			for i, v := range in {
				out[i/block] += v
			}
			return []any{nil, out}
		},
		Rule: kernels.Rule{}, // integers: exact
	})
}
