package ok

import "github.com/gpusim/gpusim/sim"

// VolatileFlag: a flag handed between blocks with volatile accesses and
// fences, __threadfence_system, cuda::atomic_thread_fence and __nanosleep.
func VolatileFlag(data *sim.Buffer[float32], flag *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 1 {
			data.Store(t, 0, 2.5)
			t.ThreadFenceSystem()
			flag.StoreVolatile(t, 0, 1)
			return
		}
		for flag.LoadVolatile(t, 0) == 0 {
			t.Nanosleep(100)
		}
		t.AtomicThreadFence(sim.MemoryOrderAcquire, sim.ThreadScopeDevice)
		t.AtomicThreadFence(sim.MemoryOrderSeqCst, sim.ThreadScopeBlock)
		t.AtomicThreadFence(sim.MemoryOrderRelaxed, sim.ThreadScopeSystem)
		data.StoreVolatile(t, 1, data.LoadVolatile(t, 0)+1)
	}
}

// VolatileHalf: __half and __nv_bfloat16 have no volatile copy; their
// volatile accesses load and store the 16 bits.
func VolatileHalf(h *sim.Buffer[sim.Half], b *sim.Buffer[sim.BFloat16]) sim.Kernel {
	return func(t *sim.Thread) {
		h.StoreVolatile(t, 1, h.LoadVolatile(t, 0))
		b.StoreVolatile(t, 1, b.LoadVolatile(t, 0))
	}
}
