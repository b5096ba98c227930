package ok

import "github.com/gpusim/gpusim/sim"

// SharedTree is the classic shared-memory reduction with a constant size.
func SharedTree(in, out *sim.Buffer[float32], n int) sim.Kernel {
	const block = 128
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "s", block)
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*block*2 + tid
		var sum float32
		if i < n {
			sum += in.Load(t, i)
		}
		if i+block < n {
			sum += in.Load(t, i+block)
		}
		s.Store(t, tid, sum)
		t.SyncThreads()
		for stride := block / 2; stride > 0; stride >>= 1 {
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

// DynamicHist counts into dynamic shared memory.
func DynamicHist(data, hist *sim.Buffer[int32], n, bins int) sim.Kernel {
	return func(t *sim.Thread) {
		h := sim.DynamicShared[int32](t, "h")
		for b := t.ThreadIdx.X; b < bins; b += t.BlockDim.X {
			h.Store(t, b, 0)
		}
		t.SyncThreads()
		if i := t.GlobalX(); i < n {
			if b := int(data.Load(t, i)); b >= 0 && b < bins {
				sim.AtomicAdd(t, h, b, 1)
			}
		}
		t.SyncThreads()
		for b := t.ThreadIdx.X; b < bins; b += t.BlockDim.X {
			sim.AtomicAdd(t, hist, b, h.Load(t, b))
		}
	}
}

// Barriers: SyncThreadsCount, And, Or, and the fences.
func Barriers(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		v := a.Load(t, tid)
		c := t.SyncThreadsCount(v > 0)
		all := t.SyncThreadsAnd(v > 0)
		any := t.SyncThreadsOr(v < 0)
		t.ThreadFenceBlock()
		t.ThreadFence()
		if all || any {
			a.Store(t, tid, int32(c))
		}
	}
}

// DynamicTwoTypes declares the dynamic shared memory twice, as float and
// as int (extern __shared__ float sf[]; extern __shared__ int si[];): both
// start at its base, so si[i] reads the bits of the float stored at sf[i].
func DynamicTwoTypes(bits *sim.Buffer[int32], sums *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		sf := sim.DynamicShared[float32](t, "sf")
		si := sim.DynamicShared[int32](t, "si")
		tid := t.ThreadIdx.X
		n := t.BlockDim.X
		sf.Store(t, tid, float32(tid)+0.5)
		si.Store(t, n+tid, int32(tid))
		t.SyncThreads()
		bits.Store(t, t.GlobalX(), si.Load(t, n-1-tid))
		sums.Store(t, t.GlobalX(), sf.Load(t, n-1-tid)+float32(si.Load(t, 2*n-1-tid)))
	}
}

// blockReduceSum is a block-wide sum through the helper's own static shared
// array, as CUDA's blockReduceSum: one array per function, whatever calls
// it, in CUDA and in the simulator.
func blockReduceSum(t *sim.Thread, v float32) float32 {
	part := sim.Shared[float32](t, "part", 32)
	lane, w := t.ThreadIdx.X%32, t.ThreadIdx.X/32
	for o := 16; o > 0; o /= 2 {
		v += sim.ShflDownSync(t, sim.FullMask, v, o)
	}
	if lane == 0 {
		part.Store(t, w, v)
	}
	t.SyncThreads()
	v = 0
	if t.ThreadIdx.X < t.BlockDim.X/32 {
		v = part.Load(t, lane)
	}
	if w == 0 {
		for o := 16; o > 0; o /= 2 {
			v += sim.ShflDownSync(t, sim.FullMask, v, o)
		}
	}
	t.SyncThreads()
	return v
}

// RowStats calls blockReduceSum twice per row (a layer norm's mean, then its
// variance) in a loop over rows: the helper's array is one array.
func RowStats(x, mean, vari *sim.Buffer[float32], rows, cols int) sim.Kernel {
	return func(t *sim.Thread) {
		for r := t.BlockIdx.X; r < rows; r += t.GridDim.X {
			var s float32
			for c := t.ThreadIdx.X; c < cols; c += t.BlockDim.X {
				s += x.Load(t, r*cols+c)
			}
			m := blockReduceSum(t, s) / float32(cols)
			var q float32
			for c := t.ThreadIdx.X; c < cols; c += t.BlockDim.X {
				d := x.Load(t, r*cols+c) - m
				q += d * d
			}
			v := blockReduceSum(t, q) / float32(cols)
			if t.ThreadIdx.X == 0 {
				mean.Store(t, r, m)
				vari.Store(t, r, v)
			}
		}
	}
}

// SharedInLoop declares its shared array inside a loop and a branch: one
// array, as in CUDA, whose values carry over from one iteration to the
// next.
func SharedInLoop(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		for i := 0; i < 3; i++ {
			if i >= 0 {
				s := sim.Shared[int32](t, "s", 32)
				if i == 0 {
					s.Store(t, tid, 0)
				}
				t.SyncThreads()
				s.Store(t, tid, s.Load(t, tid)+int32(i))
				t.SyncThreads()
				if i == 2 {
					out.Store(t, tid, s.Load(t, (tid+1)%32))
				}
			}
		}
	}
}
