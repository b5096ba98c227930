package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Block synchronisation: seed 004's sync_demo, where a barrier orders every
// thread's shared write before its neighbour's read, and the misuse the seed
// warns about, a __syncthreads() that only some threads of the block reach.

const syncDemoShared = 256 // __shared__ int shared_buf[256]

// SyncDemo is the seed's
//
//	__global__ void sync_demo(int *data) {
//	    __shared__ int shared_buf[256];
//	    int tid = threadIdx.x;
//	    shared_buf[tid] = tid * 2;
//	    __syncthreads();
//	    int neighbor = (tid + 1) % blockDim.x;
//	    data[tid] = shared_buf[neighbor];
//	}
func SyncDemo(data *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		shared_buf := sim.Shared[int32](t, "shared_buf", syncDemoShared)
		tid := t.ThreadIdx.X
		shared_buf.Store(t, tid, int32(tid*2))
		t.SyncThreads()
		neighbor := (tid + 1) % t.BlockDim.X
		data.Store(t, tid, shared_buf.Load(t, neighbor))
	}
}

var syncDemo = register(&Kernel{
	Name: "sync_demo",
	Doc: `Each thread writes its shared slot, __syncthreads(), then reads its neighbour's slot.

Seed 004's sync_demo, launched <<<1, n>>> with n <= 256 (the shared array's
length; the seed launches 256). The block is the problem size: Generate takes
n from its block argument when that is set. Case: no inputs, N threads;
Result: []int32 data[n], data[i] = 2*((i+1) % n).`,
	Seed:  "004",
	Funcs: []any{SyncDemo},
	Run: func(b Backend, c Case) (Result, error) {
		return launchOnce(b, SyncDemo, sim.Dim(1), sim.Dim(c.N), 0, []devBuf{output[int32](c.N)})
	},
	Reference: func(c Case) Result {
		out := make([]int32, c.N)
		for i := range out {
			out[i] = int32(2 * ((i + 1) % c.N))
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		if block != 0 {
			n = block
		}
		n = min(max(n, 1), syncDemoShared)
		return Case{N: n, Block: n}
	},
	Blocks: []int{1, 7, 32, 100, 128, 255, 256},
	SeedN:  256,
})

// BarrierDivergentFaulty is the seed's warning made concrete:
//
//	__global__ void barrier_divergent_faulty(int *x) {
//	    if (threadIdx.x < 16) __syncthreads();
//	    x[threadIdx.x] = 1;
//	}
func BarrierDivergentFaulty(x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X < 16 {
			t.SyncThreads()
		}
		x.Store(t, t.ThreadIdx.X, 1)
	}
}

var barrierDivergentFaulty = register(&Kernel{
	Name: "barrier_divergent_faulty",
	Doc: `Faulty: __syncthreads() inside if (threadIdx.x < 16), reached by only part of the block.

Seed 004's rule that every thread of a block must reach __syncthreads(),
broken: threads 16 and up skip the barrier (undefined behaviour in CUDA: a
hang or a silently meaningless barrier). One block of n > 16 threads
(Generate: the block argument, else 32). Case: no inputs; Result: []int32
x[n], all ones if the launch completes.`,
	Seed:  "004",
	Funcs: []any{BarrierDivergentFaulty},
	Run: func(b Backend, c Case) (Result, error) {
		return launchOnce(b, BarrierDivergentFaulty, sim.Dim(1), sim.Dim(c.N), 0, []devBuf{output[int32](c.N)})
	},
	Reference: func(c Case) Result {
		out := make([]int32, c.N)
		for i := range out {
			out[i] = 1
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		block = max(orDefault(block, 32), 17)
		return Case{N: block, Block: block}
	},
	Blocks:  []int{32, 64, 128, 256},
	SeedN:   32,
	Faulty:  true,
	Expect:  []sim.Kind{sim.BarrierDivergence},
	FixedBy: "sync_demo",
})
