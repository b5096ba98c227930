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
