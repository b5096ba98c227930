package ok

import "github.com/gpusim/gpusim/sim"

// Number are the element types the generic kernels take.
type Number interface {
	float32 | float64 | int32 | uint32 | int64
}

// add is a generic helper, instantiated per caller instance.
func add[T Number](a, b T) T { return a + b }

// ReduceSum is a generic shared-memory tree (blockDim.x == 256).
func ReduceSum[T float32 | int32](in, out *sim.Buffer[T], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[T](t, "s", 256)
		tid := t.ThreadIdx.X
		i := t.GlobalX()
		var v T
		if i < n {
			v = in.Load(t, i)
		}
		s.Store(t, tid, v)
		t.SyncThreads()
		for stride := 128; stride > 0; stride /= 2 {
			if tid < stride {
				s.Store(t, tid, add(s.Load(t, tid), s.Load(t, tid+stride)))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			out.Store(t, t.BlockIdx.X, s.Load(t, 0))
		}
	}
}

// Scale multiplies by a constant converted to T.
func Scale[T Number](a *sim.Buffer[T], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			a.Store(t, i, add[T](a.Load(t, i)*T(3), 1))
		}
	}
}

// The instances the package uses are the ones translated.
var (
	_ = ReduceSum[float32]
	_ = ReduceSum[int32]
	_ = Scale[float64]
	_ = Scale[uint32]
)
