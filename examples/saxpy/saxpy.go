// Package saxpy is a user's kernel tested with gpusim, from a module of its
// own: the kernel is written once in Go, runs on the simulator with every
// detector in `go test`, and its generated CUDA twin (saxpy_cuda.go, made by
// go generate) runs on a GPU in a test binary built with -tags cuda.
package saxpy

import "github.com/gpusim/gpusim/sim"

//go:generate go tool gpusim cuda -go .

// Saxpy is y[i] = a*x[i] + y[i] for i < n, one thread per element, in a
// grid-stride loop so that any grid covers any n.
func Saxpy(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			// The conversion rounds the product, so that Go never fuses
			// it with the add (it may on arm64); the CUDA twin is built
			// with -fmad=false for the same reason.
			y.Store(t, i, float32(a*x.Load(t, i))+y.Load(t, i))
		}
	}
}

// BlockSum writes the sum of each block's elements of in to out[blockIdx.x]:
// a shared-memory tree with a warp-shuffle finish, for blocks of 64 to 1024
// threads (a power of two).
func BlockSum(in, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		partial := sim.Shared[int32](t, "partial", 32)
		var v int32
		if i := t.GlobalX(); i < n {
			v = in.Load(t, i)
		}
		v = warpSum(t, v)
		if t.LaneID() == 0 {
			partial.Store(t, t.WarpID(), v)
		}
		t.SyncThreads()
		if t.WarpID() == 0 {
			v = 0
			if t.LaneID() < t.BlockDim.X/32 {
				v = partial.Load(t, t.LaneID())
			}
			v = warpSum(t, v)
			if t.LaneID() == 0 {
				out.Store(t, t.BlockIdx.X, v)
			}
		}
	}
}

// warpSum adds v over the 32 lanes of the warp; every lane gets the sum.
func warpSum(t *sim.Thread, v int32) int32 {
	for offset := 16; offset > 0; offset /= 2 {
		v += sim.ShflXorSync(t, sim.FullMask, v, offset)
	}
	return v
}
