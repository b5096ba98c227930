package ok

import "github.com/gpusim/gpusim/sim"

// Atomics calls every atomic on every type sim allows it on.
func Atomics(i32 *sim.Buffer[int32], u32 *sim.Buffer[uint32], i64 *sim.Buffer[int64], u64 *sim.Buffer[uint64], f32 *sim.Buffer[float32], f64 *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		sim.AtomicAdd(t, i32, 0, 1)
		sim.AtomicAdd(t, u32, 0, 1)
		sim.AtomicAdd(t, u64, 0, 1)
		sim.AtomicAdd(t, f32, 0, 1.5)
		sim.AtomicAdd(t, f64, 0, 2.5)
		sim.AtomicSub(t, i32, 1, 1)
		sim.AtomicSub(t, u32, 1, 1)
		sim.AtomicExch(t, i32, 2, 7)
		sim.AtomicExch(t, u32, 2, 7)
		sim.AtomicExch(t, u64, 2, 7)
		sim.AtomicExch(t, f32, 2, 7)
		sim.AtomicMin(t, i32, 3, -1)
		sim.AtomicMin(t, u32, 3, 1)
		sim.AtomicMin(t, i64, 3, -1)
		sim.AtomicMin(t, u64, 3, 1)
		sim.AtomicMax(t, i32, 4, -1)
		sim.AtomicMax(t, u32, 4, 1)
		sim.AtomicMax(t, i64, 4, -1)
		sim.AtomicMax(t, u64, 4, 1)
		sim.AtomicInc(t, u32, 5, 10)
		sim.AtomicDec(t, u32, 6, 10)
		for sim.AtomicCAS(t, i32, 7, 0, 1) != 0 {
		}
		sim.AtomicCAS(t, u32, 7, 0, 1)
		sim.AtomicCAS(t, u64, 7, 0, 1)
		sim.AtomicAnd(t, i32, 8, 3)
		sim.AtomicAnd(t, u32, 8, 3)
		sim.AtomicAnd(t, u64, 8, 3)
		sim.AtomicOr(t, i32, 9, 3)
		sim.AtomicOr(t, u32, 9, 3)
		sim.AtomicOr(t, u64, 9, 3)
		sim.AtomicXor(t, i32, 10, 3)
		sim.AtomicXor(t, u32, 10, 3)
		old := sim.AtomicXor(t, u64, 10, 3)
		u64.Store(t, 11, old)
	}
}

// Mutex is the lock of dot_mutex: CAS spin, fence, critical section, fence, exchange.
func Mutex(mutex *sim.Buffer[int32], c *sim.Buffer[float32], v float32) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
			c.Store(t, 0, c.Load(t, 0)+v)
			t.ThreadFence()
			sim.AtomicExch(t, mutex, 0, 0)
		}
	}
}
