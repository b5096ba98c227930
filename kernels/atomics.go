package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Seed 003's examples 4.1, 4.2 and 4.5: 160 threads ([10, 16]) each add one
// to x[0], a float64 (Numba's np.zeros((1,)) is double): racily, with
// atomicAdd, and under a spin mutex built from atomicCAS and atomicExch,
// with and without the __threadfence calls that make it a lock.

const (
	addOneGrid  = 10
	addOneBlock = 16
)

// AddOne is example 4.1's increment, x[0] = x[0] + 1 from every thread
// with nothing ordering them: a read-modify-write race.
func AddOne(x *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		x.Store(t, 0, x.Load(t, 0)+1)
	}
}

// AddOneAtomic is example 4.2's cuda.atomic.add(x, 0, 1): atomicAdd(&x[0], 1.0).
func AddOneAtomic(x *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		sim.AtomicAdd(t, x, 0, 1)
	}
}

// AddOneMutex is example 4.5's add_one_mutex with its device functions
// inlined:
//
//	lock:   while atomicCAS(mutex, 0, 1) != 0 {}; __threadfence();
//	        x[0] += 1;
//	unlock: __threadfence(); atomicExch(mutex, 0);
func AddOneMutex(x *sim.Buffer[float64], mutex *sim.Buffer[uint64]) sim.Kernel {
	return func(t *sim.Thread) {
		for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
		}
		t.ThreadFence()
		x.Store(t, 0, x.Load(t, 0)+1)
		t.ThreadFence()
		sim.AtomicExch(t, mutex, 0, 0)
	}
}

// AddOneMutexNofence is AddOneMutex without the fences. Nothing orders one
// holder's x[0] update before the next holder's read: the atomics on mutex
// synchronise only with each other, so the plain accesses to x race.
func AddOneMutexNofence(x *sim.Buffer[float64], mutex *sim.Buffer[uint64]) sim.Kernel {
	return func(t *sim.Thread) {
		for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
		}
		x.Store(t, 0, x.Load(t, 0)+1)
		sim.AtomicExch(t, mutex, 0, 0)
	}
}

const addOneCaseDoc = `
Launch: [10, 16], as in the seed. Case: Inputs[0] []float64{x0}, the initial
x[0] (an integer, so every sum is exact); Result: []float64{x[0]}, which is
x0 + 160 when every increment counts.`

// addOneKernel is the registry entry of an example 4.x variant: fn on the
// seed's [10, 16] over x, and over a zeroed mutex word withMutex. Every
// variant means to compute x0 + 160.
func addOneKernel(name, doc string, fn any, withMutex bool) *Kernel {
	return &Kernel{
		Name:      name,
		Doc:       doc + addOneCaseDoc,
		Seed:      "003",
		Funcs:     []any{fn},
		Run:       func(b Backend, c Case) (Result, error) { return runAddOne(b, c, fn, withMutex) },
		Reference: referenceAddOne,
		Generate:  generateAddOne,
		Blocks:    []int{addOneBlock},
		SeedN:     addOneGrid * addOneBlock,
	}
}

var addOne = register(faulty(addOneKernel("add_one",
	`Faulty: x[0] = x[0] + 1 from 160 threads, a read-modify-write race on one element.

Seed 003, Numba example 4.1.`,
	AddOne, false), "add_one_atomic", sim.DataRace))

var addOneAtomic = register(addOneKernel("add_one_atomic",
	`atomicAdd(&x[0], 1.0) from 160 threads: gives 160.

Seed 003, Numba example 4.2 (cuda.atomic.add). atomicAdd on double needs
compute capability 6.0.`,
	AddOneAtomic, false))

var addOneMutex = register(addOneKernel("add_one_mutex",
	`x[0] += 1 from 160 threads under a spin mutex (atomicCAS, __threadfence, atomicExch).

Seed 003, Numba example 4.5. The mutex word is uint64 (unsigned long long;
the seed's int64 has no atomicCAS overload in CUDA), zeroed by the host. The
lock spins within a warp, which relies on independent thread scheduling
(Volta and later); under the simulator's Lockstep warp model it deadlocks,
as it would on earlier GPUs.`,
	AddOneMutex, true))

var addOneMutexNofence = register(faulty(addOneKernel("add_one_mutex_nofence",
	`Faulty: add_one_mutex without its two __threadfence calls: the guarded x[0] += 1 races.

The lock still excludes, but the atomics on the mutex word order nothing
else: a new holder may read x[0] before the previous holder's write is
visible (the bug Alglave et al. found in CUDA by Example, which the seed
cites).`,
	AddOneMutexNofence, true), "add_one_mutex", sim.DataRace))

// runAddOne launches fn(x) or, withMutex, fn(x, mutex) with the mutex
// word zeroed (unlocked), on the seed's [10, 16], and returns x.
func runAddOne(b Backend, c Case, fn any, withMutex bool) (Result, error) {
	bufs := []devBuf{inOut(c.Inputs[0].([]float64))}
	if withMutex {
		bufs = append(bufs, zeroedScratch[uint64](1))
	}
	return launchOnce(b, fn, sim.Dim(addOneGrid), sim.Dim(orDefault(c.Block, addOneBlock)), 0, bufs)
}

func referenceAddOne(c Case) Result {
	x := c.Inputs[0].([]float64)[0]
	for range addOneGrid * addOneBlock {
		x++
	}
	return Result{[]float64{x}}
}

// generateAddOne draws the initial x[0]: zero (the seed's), or an integer
// of either sign small enough that adding 1.0 stays exact.
func generateAddOne(r *rand.Rand, n, block int) Case {
	x0 := 0.0
	if r.IntN(3) != 0 {
		x0 = float64(r.Int64N(1<<52) - 1<<51)
	}
	return Case{N: 1, Block: addOneBlock, Inputs: []any{[]float64{x0}}}
}
