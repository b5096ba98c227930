package ok

import "github.com/gpusim/gpusim/sim"

// square is a __device__ function.
func square(x float32) float32 { return x * x }

// load2 takes the thread (dropped in C) and a buffer.
func load2(t *sim.Thread, b *sim.Buffer[float32], i int) float32 {
	return b.Load(t, i) + b.Load(t, i+1)
}

// divmod has two results, returned in a struct.
func divmod(a, b int) (q, r int) {
	q = a / b
	r = a % b
	return
}

// fib recurses.
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// Helpers calls the helpers above.
func Helpers(a *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i+1 >= n {
			return
		}
		q, r := divmod(i, 3)
		s := square(load2(t, a, i))
		a.Store(t, i, s+float32(q+r+fib(5)))
	}
}

// blockSum reduces a block's values in a shared array it declares, and
// returns that array: a helper may declare shared memory when it is called
// once.
func blockSum(t *sim.Thread, v float32) *sim.Buffer[float32] {
	s := sim.Shared[float32](t, "s", 256)
	tid := t.ThreadIdx.X
	s.Store(t, tid, v)
	t.SyncThreads()
	for stride := t.BlockDim.X / 2; stride > 0; stride >>= 1 {
		if tid < stride {
			s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
		}
		t.SyncThreads()
	}
	return s
}

// BlockSum writes each block's sum through a helper's shared array.
func BlockSum(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		var v float32
		if i < n {
			v = in.Load(t, i)
		}
		s := blockSum(t, v)
		if t.ThreadIdx.X == 0 {
			out.Store(t, t.BlockIdx.X, s.Load(t, 0))
		}
	}
}
