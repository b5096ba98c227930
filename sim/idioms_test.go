package sim_test

// CUDA idioms as people write them, each twice: the correct form
// (TestNoRace...) and the form with exactly one barrier, fence, memory
// order or atomic removed (TestRace...), under the natural schedule, two
// workers and RandomOrder seeds (eachSchedule). Idioms with a test file of
// their own concept (locks, flags, grid barriers, tiles) live there.

import (
	"slices"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// wantRaceOn asserts a data race on the named memory, between any sites:
// which pair of a shared-memory algorithm's accesses a schedule exposes
// first depends on the schedule.
func wantRaceOn(t *testing.T, r *sim.Report, space sim.Space, mem string) {
	t.Helper()
	for _, f := range r.Of(sim.DataRace) {
		if f.Memory == mem && f.Space == space {
			return
		}
	}
	t.Fatalf("want a data race on %v %q; report:\n%v", space, mem, r)
}

// blelloch is the work-efficient exclusive scan (GPU Gems 3, ch. 39) of
// 2*blockDim elements in shared memory: an up-sweep building partial sums
// in place, then a down-sweep; downSync false drops the barrier at the top
// of each down-sweep step.
func blelloch(in, out *sim.Buffer[int32], downSync bool) sim.Kernel {
	return func(t *sim.Thread) {
		n := 2 * t.BlockDim.X
		tmp := sim.Shared[int32](t, "temp", n)
		tid := t.ThreadIdx.X
		tmp.Store(t, 2*tid, in.Load(t, 2*tid))
		tmp.Store(t, 2*tid+1, in.Load(t, 2*tid+1))
		offset := 1
		for d := n >> 1; d > 0; d >>= 1 {
			t.SyncThreads()
			if tid < d {
				ai, bi := offset*(2*tid+1)-1, offset*(2*tid+2)-1
				tmp.Store(t, bi, tmp.Load(t, bi)+tmp.Load(t, ai))
			}
			offset *= 2
		}
		if tid == 0 {
			tmp.Store(t, n-1, 0)
		}
		for d := 1; d < n; d *= 2 {
			offset >>= 1
			if downSync {
				t.SyncThreads()
			}
			if tid < d {
				ai, bi := offset*(2*tid+1)-1, offset*(2*tid+2)-1
				v := tmp.Load(t, ai)
				tmp.Store(t, ai, tmp.Load(t, bi))
				tmp.Store(t, bi, tmp.Load(t, bi)+v)
			}
		}
		t.SyncThreads()
		out.Store(t, 2*tid, tmp.Load(t, 2*tid))
		out.Store(t, 2*tid+1, tmp.Load(t, 2*tid+1))
	}
}

func TestNoRaceBlellochScan(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		v := make([]int32, 128)
		for i := range v {
			v[i] = int32(i%7 + 1)
		}
		in, out := host(t, dev, "in", v), zeroed[int32](t, dev, "out", 128)
		wantClean(t, exec(t, dev, lin(1, 64, o), blelloch(in, out, true)))
		got, sum := out.ToHost(), int32(0)
		for i := range v {
			if got[i] != sum {
				t.Fatalf("out[%d] = %d, want %d", i, got[i], sum)
			}
			sum += v[i]
		}
	})
}

func TestRaceBlellochScanDownSweepWithoutBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		in, out := host(t, dev, "in", make([]int32, 128)), zeroed[int32](t, dev, "out", 128)
		wantRaceOn(t, exec(t, dev, lin(1, 64, o), blelloch(in, out, false)), sim.SharedSpace, "temp")
	})
}

// bitonic sorts blockDim keys in shared memory; stepSync false drops the
// barrier after each compare-and-exchange step.
func bitonic(keys *sim.Buffer[int32], stepSync bool) sim.Kernel {
	return func(t *sim.Thread) {
		n := t.BlockDim.X
		s := sim.Shared[int32](t, "keys", n)
		tid := t.ThreadIdx.X
		s.Store(t, tid, keys.Load(t, tid))
		t.SyncThreads()
		for k := 2; k <= n; k <<= 1 {
			for j := k >> 1; j > 0; j >>= 1 {
				if ixj := tid ^ j; ixj > tid {
					a, b := s.Load(t, tid), s.Load(t, ixj)
					if (tid&k == 0) == (a > b) {
						s.Store(t, tid, b)
						s.Store(t, ixj, a)
					}
				}
				if stepSync {
					t.SyncThreads()
				}
			}
		}
		keys.Store(t, tid, s.Load(t, tid))
	}
}

func TestNoRaceBitonicSortShared(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		v := make([]int32, 128)
		for i := range v {
			v[i] = int32((i * 37) % 101)
		}
		keys := host(t, dev, "keys", v)
		wantClean(t, exec(t, dev, lin(1, 128, o), bitonic(keys, true)))
		slices.Sort(v)
		if got := keys.ToHost(); !slices.Equal(got, v) {
			t.Fatalf("not sorted: %v", got)
		}
	})
}

func TestRaceBitonicSortSharedWithoutStepBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		v := make([]int32, 128)
		for i := range v {
			v[i] = int32(128 - i)
		}
		keys := host(t, dev, "keys", v)
		wantRaceOn(t, exec(t, dev, lin(1, 128, o), bitonic(keys, false)), sim.SharedSpace, "keys")
	})
}

// warpHistogram privatises a 16-bin histogram per warp in shared memory
// (shared atomics), then merges the warps' bins into the global histogram;
// mergeSync false drops the barrier before the merge.
func warpHistogram(data *sim.Buffer[uint32], hist *sim.Buffer[uint32], mergeSync bool) sim.Kernel {
	const bins = 16
	return func(t *sim.Thread) {
		warps := t.BlockDim.X / 32
		sub := sim.Shared[uint32](t, "subhist", warps*bins)
		tid := t.ThreadIdx.X
		for i := tid; i < warps*bins; i += t.BlockDim.X {
			sub.Store(t, i, 0)
		}
		t.SyncThreads()
		for i := t.GlobalX(); i < data.Len(); i += t.GridStrideX() {
			sim.AtomicAdd(t, sub, t.WarpID()*bins+int(data.Load(t, i)%bins), 1)
		}
		if mergeSync {
			t.SyncThreads()
		}
		for b := tid; b < bins; b += t.BlockDim.X {
			var sum uint32
			for w := 0; w < warps; w++ {
				sum += sub.Load(t, w*bins+b)
			}
			sim.AtomicAdd(t, hist, b, sum)
		}
	}
}

func TestNoRacePrivatizedWarpHistogram(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		v := make([]uint32, 1000)
		for i := range v {
			v[i] = uint32(i * 7)
		}
		data, hist := host(t, dev, "data", v), zeroed[uint32](t, dev, "hist", 16)
		wantClean(t, exec(t, dev, lin(2, 128, o), warpHistogram(data, hist, true)))
		var want [16]uint32
		for _, x := range v {
			want[x%16]++
		}
		if got := hist.ToHost(); !slices.Equal(got, want[:]) {
			t.Fatalf("hist %v, want %v", got, want)
		}
	})
}

func TestRacePrivatizedWarpHistogramMergeWithoutBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		data, hist := host(t, dev, "data", make([]uint32, 1000)), zeroed[uint32](t, dev, "hist", 16)
		wantRaceOn(t, exec(t, dev, lin(2, 128, o), warpHistogram(data, hist, false)), sim.SharedSpace, "subhist")
	})
}

// workQueue: threads of every block take items off a global queue by
// bumping its head; atomic false bumps it with a plain read and write.
func workQueue(head *sim.Buffer[int32], in, out *sim.Buffer[float32], atomic bool) sim.Kernel {
	return func(t *sim.Thread) {
		for {
			var i int32
			if atomic {
				i = sim.AtomicAdd(t, head, 0, 1)
			} else {
				i = head.Load(t, 0)
				head.Store(t, 0, i+1)
			}
			if int(i) >= in.Len() {
				return
			}
			out.Store(t, int(i), 2*in.Load(t, int(i)))
		}
	}
}

func TestNoRaceGlobalWorkQueue(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		head := zeroed[int32](t, dev, "head", 1)
		in, out := host(t, dev, "in", iota32(300, func(i int) float32 { return float32(i) })), zeroed[float32](t, dev, "out", 300)
		wantClean(t, exec(t, dev, lin(3, 64, o), workQueue(head, in, out, true)))
		for i, x := range out.ToHost() {
			if x != float32(2*i) {
				t.Fatalf("out[%d] = %v", i, x)
			}
		}
	})
}

func TestRaceGlobalWorkQueuePlainHead(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		head := zeroed[int32](t, dev, "head", 1)
		in, out := host(t, dev, "in", make([]float32, 300)), zeroed[float32](t, dev, "out", 300)
		wantRaceOn(t, exec(t, dev, lin(3, 64, o), workQueue(head, in, out, false)), sim.GlobalSpace, "head")
	})
}

// sharedQueue: the threads whose key passes push their index onto a
// block-wide queue in shared memory (shared atomicAdd on its tail), then
// the block drains it; drainSync false drops the barrier between.
func sharedQueue(keys, out *sim.Buffer[int32], drainSync bool) sim.Kernel {
	return func(t *sim.Thread) {
		tail := sim.SharedVar[int32](t, "tail")
		q := sim.Shared[int32](t, "queue", t.BlockDim.X)
		tid := t.ThreadIdx.X
		if tid == 0 {
			tail.Store(t, 0, 0)
		}
		t.SyncThreads()
		if keys.Load(t, tid)%3 == 0 {
			q.Store(t, int(sim.AtomicAdd(t, tail, 0, 1)), int32(tid))
		}
		if drainSync {
			t.SyncThreads()
		}
		n := int(tail.Load(t, 0))
		for i := tid; i < n; i += t.BlockDim.X {
			out.Store(t, int(q.Load(t, i)), 1)
		}
	}
}

func TestNoRaceSharedQueuePushThenDrain(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		keys := host(t, dev, "keys", iota32i(96))
		out := zeroed[int32](t, dev, "out", 96)
		wantClean(t, exec(t, dev, lin(1, 96, o), sharedQueue(keys, out, true)))
		for i, x := range out.ToHost() {
			if want := b2i(i%3 == 0); x != want {
				t.Fatalf("out[%d] = %d, want %d", i, x, want)
			}
		}
	})
}

func TestRaceSharedQueueDrainWithoutBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		keys := host(t, dev, "keys", iota32i(96))
		out := zeroed[int32](t, dev, "out", 96)
		wantRaceOn(t, exec(t, dev, lin(1, 96, o), sharedQueue(keys, out, false)), sim.SharedSpace, "tail")
	})
}

func iota32i(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// lookBack is a single-pass scan's decoupled look-back (Merrill and
// Garland) over 32-element tiles, one tile per block: thread 0 publishes
// its tile's aggregate (flag 1), looks back over its predecessors' flags,
// adding aggregates until it meets an inclusive prefix (flag 2), then
// publishes its own inclusive prefix. Values are plain, flags volatile,
// with a fence before each flag store (release) and after each flag read
// (acquire); aggFence false drops the fence before the aggregate's flag.
// Blocks take tiles in reverse, so that a block looks back at tiles of
// blocks that start after it and meets aggregates, not only inclusive
// prefixes (real code takes tiles from an atomic counter, in start order).
func lookBack(in, agg, incl, flags, prefix *sim.Buffer[int32], aggFence bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		tile := t.GridDim.X - 1 - t.BlockIdx.X
		var sum int32
		for i := 0; i < 32; i++ {
			sum += in.Load(t, tile*32+i)
		}
		agg.Store(t, tile, sum)
		if aggFence {
			t.ThreadFence()
		}
		flags.StoreVolatile(t, tile, 1)
		var excl int32
		for p := tile - 1; p >= 0; p-- {
			f := flags.LoadVolatile(t, p)
			for f == 0 {
				f = flags.LoadVolatile(t, p)
			}
			t.ThreadFence()
			if f == 2 {
				excl += incl.Load(t, p)
				break
			}
			excl += agg.Load(t, p)
		}
		incl.Store(t, tile, excl+sum)
		t.ThreadFence()
		flags.StoreVolatile(t, tile, 2)
		prefix.Store(t, tile, excl)
	}
}

func lookBackRun(t *testing.T, o sim.Options, aggFence bool) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	const tiles = 6
	in := host(t, dev, "in", iota32i(tiles*32))
	agg, incl := zeroed[int32](t, dev, "aggregate", tiles), zeroed[int32](t, dev, "inclusive", tiles)
	flags, prefix := zeroed[int32](t, dev, "flags", tiles), zeroed[int32](t, dev, "prefix", tiles)
	r := exec(t, dev, lin(tiles, 32, o), lookBack(in, agg, incl, flags, prefix, aggFence))
	return r, prefix.ToHost()
}

func TestNoRaceDecoupledLookBack(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, prefix := lookBackRun(t, o, true)
		wantClean(t, r)
		for k, p := range prefix {
			if n := int32(32 * k); p != n*(n-1)/2 {
				t.Fatalf("prefix[%d] = %d, want %d", k, p, n*(n-1)/2)
			}
		}
	})
}

func TestRaceDecoupledLookBackAggregateWithoutFence(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, _ := lookBackRun(t, o, false)
		wantRaceOn(t, r, sim.GlobalSpace, "aggregate")
	})
}

// ticketLock serialises thread 0 of every block through a ticket lock:
// an atomicAdd draws a ticket, a volatile poll waits for it to be served,
// fences make the critical section's plain update an acquire and a release.
// acquireFence false drops the fence after the poll.
func ticketLock(ticket, serving, counter *sim.Buffer[int32], acquireFence bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		my := sim.AtomicAdd(t, ticket, 0, 1)
		for serving.LoadVolatile(t, 0) != my {
		}
		if acquireFence {
			t.ThreadFence()
		}
		counter.Store(t, 0, counter.Load(t, 0)+1)
		t.ThreadFence()
		serving.StoreVolatile(t, 0, my+1)
	}
}

func TestNoRaceTicketLockAcrossBlocks(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		ticket, serving, counter := zeroed[int32](t, dev, "ticket", 1), zeroed[int32](t, dev, "serving", 1), zeroed[int32](t, dev, "counter", 1)
		wantClean(t, exec(t, dev, lin(5, 32, o), ticketLock(ticket, serving, counter, true)))
		if c := counter.ToHost()[0]; c != 5 {
			t.Fatalf("counter %d, want 5", c)
		}
	})
}

func TestRaceTicketLockWithoutAcquireFence(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		ticket, serving, counter := zeroed[int32](t, dev, "ticket", 1), zeroed[int32](t, dev, "serving", 1), zeroed[int32](t, dev, "counter", 1)
		wantRaceOn(t, exec(t, dev, lin(5, 32, o), ticketLock(ticket, serving, counter, false)), sim.GlobalSpace, "counter")
	})
}

// lastBlockAcqRel is the last-block-done pattern with cuda::atomic_ref
// instead of __threadfence: each block's partial is published by a
// fetch_add(acq_rel) on the retirement counter, and the block that draws
// the last ticket reads every partial. order is the fetch_add's order.
func lastBlockAcqRel(partial, count, result *sim.Buffer[float32], order sim.MemoryOrder) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		partial.Store(t, t.BlockIdx.X, float32(t.BlockIdx.X+1))
		if sim.NewAtomicRef(count, 0, sim.ThreadScopeDevice).FetchAdd(t, 1, order) == float32(t.GridDim.X-1) {
			var s float32
			for b := 0; b < t.GridDim.X; b++ {
				s += partial.Load(t, b)
			}
			result.Store(t, 0, s)
		}
	}
}

func TestNoRaceLastBlockFetchAddAcqRel(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		partial, count, result := zeroed[float32](t, dev, "partial", 6), zeroed[float32](t, dev, "count", 1), zeroed[float32](t, dev, "result", 1)
		wantClean(t, exec(t, dev, lin(6, 32, o), lastBlockAcqRel(partial, count, result, sim.MemoryOrderAcqRel)))
		if r := result.ToHost()[0]; r != 21 {
			t.Fatalf("result %v, want 21", r)
		}
	})
}

func TestRaceLastBlockFetchAddRelaxed(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		partial, count, result := zeroed[float32](t, dev, "partial", 6), zeroed[float32](t, dev, "count", 1), zeroed[float32](t, dev, "result", 1)
		wantRaceOn(t, exec(t, dev, lin(6, 32, o), lastBlockAcqRel(partial, count, result, sim.MemoryOrderRelaxed)), sim.GlobalSpace, "partial")
	})
}

// threadFenceReduction is the CUDA sample of that name, reduced to its
// synchronisation: each block reduces in shared memory, thread 0 writes
// the block's partial, fences, and draws a ticket with atomicInc; the
// block that draws the last one reads every partial (the whole block,
// after __syncthreads), and its thread 0 writes the result and resets the
// retirement counter with a plain store for the next launch, as the
// sample does. fence false drops the __threadfence.
func threadFenceReduction(in, partial, result *sim.Buffer[float32], count *sim.Buffer[uint32], fence bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "sdata", t.BlockDim.X)
		amLast := sim.SharedVar[int32](t, "amLast")
		tid := t.ThreadIdx.X
		s.Store(t, tid, in.Load(t, t.GlobalX()))
		for k := t.BlockDim.X / 2; k > 0; k /= 2 {
			t.SyncThreads()
			if tid < k {
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+k))
			}
		}
		if tid == 0 {
			partial.Store(t, t.BlockIdx.X, s.Load(t, 0))
			if fence {
				t.ThreadFence()
			}
			ticket := sim.AtomicInc(t, count, 0, uint32(t.GridDim.X))
			amLast.Store(t, 0, b2i(ticket == uint32(t.GridDim.X-1)))
		}
		t.SyncThreads()
		if amLast.Load(t, 0) == 0 {
			return
		}
		var v float32
		if tid < t.GridDim.X {
			v = partial.Load(t, tid)
		}
		s.Store(t, tid, v)
		t.SyncThreads()
		if tid == 0 {
			var sum float32
			for i := 0; i < t.GridDim.X; i++ {
				sum += s.Load(t, i)
			}
			result.Store(t, 0, sum)
			count.Store(t, 0, 0)
		}
	}
}

func threadFenceReductionRun(t *testing.T, o sim.Options, fence bool) (*sim.Report, float32) {
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(4*64, func(i int) float32 { return 1 }))
	partial, result := zeroed[float32](t, dev, "partial", 4), zeroed[float32](t, dev, "result", 1)
	count := zeroed[uint32](t, dev, "retirementCount", 1)
	r := exec(t, dev, lin(4, 64, o), threadFenceReduction(in, partial, result, count, fence))
	return r, result.ToHost()[0]
}

func TestNoRaceThreadFenceReductionResetsCounter(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, sum := threadFenceReductionRun(t, o, true)
		wantClean(t, r)
		if sum != 256 {
			t.Fatalf("sum %v, want 256", sum)
		}
	})
}

func TestRaceThreadFenceReductionWithoutFence(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		r, _ := threadFenceReductionRun(t, o, false)
		wantRaceOn(t, r, sim.GlobalSpace, "partial")
	})
}

// warpHandOff hands a shared tile from warp 0 to warp 1 of a block with a
// block-scope atomic_ref flag in shared memory: warp 0's lanes write the
// tile, __syncwarp, and lane 0 stores the flag with order; warp 1's lane 0
// polls it with an acquire load, __syncwarp, and every lane reads.
func warpHandOff(out *sim.Buffer[int32], order sim.MemoryOrder) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.Shared[int32](t, "tile", 32)
		ready := sim.SharedVar[uint32](t, "ready")
		lane := t.LaneID()
		if t.ThreadIdx.X == 0 {
			ready.Store(t, 0, 0)
		}
		t.SyncThreads()
		flag := sim.NewAtomicRef(ready, 0, sim.ThreadScopeBlock)
		switch t.WarpID() {
		case 0:
			tile.Store(t, lane, int32(3*lane))
			t.SyncWarp(sim.FullMask)
			if lane == 0 {
				flag.Store(t, 1, order)
			}
		case 1:
			if lane == 0 {
				for flag.Load(t, sim.MemoryOrderAcquire) == 0 {
				}
			}
			t.SyncWarp(sim.FullMask)
			out.Store(t, lane, tile.Load(t, lane))
		}
	}
}

func TestNoRaceWarpHandOffBlockScopeReleaseAcquire(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 32)
		wantClean(t, exec(t, dev, lin(1, 64, o), warpHandOff(out, sim.MemoryOrderRelease)))
		if got := out.ToHost(); got[31] != 93 {
			t.Fatalf("out %v", got)
		}
	})
}

func TestRaceWarpHandOffBlockScopeRelaxedStore(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 32)
		wantRaceOn(t, exec(t, dev, lin(1, 64, o), warpHandOff(out, sim.MemoryOrderRelaxed)), sim.SharedSpace, "tile")
	})
}

// senseBarrier is a reusable grid barrier built from cuda::atomic_ref at
// device scope, generation-counting (sense-reversing): thread 0 of each
// block reads the generation, arrives with fetch_add(arrive); the last to
// arrive resets the count and bumps the generation (release), the others
// wait for the bump (acquire). __syncthreads on both sides carries it to
// the block. Correct with arrive = acq_rel: the last arriver acquires
// every arrival's release and passes it on with the bump.
func senseBarrier(t *sim.Thread, count, gen *sim.Buffer[uint32], arrive sim.MemoryOrder) {
	t.SyncThreads()
	if t.ThreadIdx.X == 0 {
		c, g := sim.NewAtomicRef(count, 0, sim.ThreadScopeDevice), sim.NewAtomicRef(gen, 0, sim.ThreadScopeDevice)
		old := g.Load(t, sim.MemoryOrderRelaxed)
		if c.FetchAdd(t, 1, arrive) == uint32(t.GridDim.X-1) {
			c.Store(t, 0, sim.MemoryOrderRelaxed)
			g.FetchAdd(t, 1, sim.MemoryOrderRelease)
		} else {
			for g.Load(t, sim.MemoryOrderAcquire) == old {
			}
		}
	}
	t.SyncThreads()
}

// senseBarrierKernel runs three phases over per-thread data with the
// barrier between them, each phase reading what the next block wrote in
// the phase before, and the third rewriting what the second read.
func senseBarrierKernel(a, b *sim.Buffer[int32], count, gen *sim.Buffer[uint32], arrive sim.MemoryOrder) sim.Kernel {
	return func(t *sim.Thread) {
		n, i := a.Len(), t.GlobalX()
		next := (i + t.BlockDim.X) % n
		a.Store(t, i, int32(i))
		senseBarrier(t, count, gen, arrive)
		b.Store(t, i, a.Load(t, next)+1)
		senseBarrier(t, count, gen, arrive)
		a.Store(t, i, b.Load(t, next)+1)
	}
}

func TestNoRaceSenseReversingGridBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		a, b := zeroed[int32](t, dev, "a", 4*32), zeroed[int32](t, dev, "b", 4*32)
		count, gen := zeroed[uint32](t, dev, "count", 1), zeroed[uint32](t, dev, "gen", 1)
		wantClean(t, exec(t, dev, lin(4, 32, o), senseBarrierKernel(a, b, count, gen, sim.MemoryOrderAcqRel)))
		for i, v := range a.ToHost() {
			if want := int32((i+64)%128) + 2; v != want {
				t.Fatalf("a[%d] = %d, want %d", i, v, want)
			}
		}
	})
}

func TestRaceSenseReversingGridBarrierRelaxedArrival(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		a, b := zeroed[int32](t, dev, "a", 4*32), zeroed[int32](t, dev, "b", 4*32)
		count, gen := zeroed[uint32](t, dev, "count", 1), zeroed[uint32](t, dev, "gen", 1)
		wantRaceOn(t, exec(t, dev, lin(4, 32, o), senseBarrierKernel(a, b, count, gen, sim.MemoryOrderRelaxed)), sim.GlobalSpace, "a")
	})
}

// blockTotals counts, per block, the threads whose value passes, in a
// global counter of its own, with fetch_adds at scope; block 1's thread 0
// also adds to block 0's counter, at device scope, if cross. After grid.sync every
// block reads its neighbour's count. Block scope (atomicAdd_block) would
// do for a counter only its own block touches; on block 0's it races with
// block 1's add: the block-scope adds are not morally strong with another
// block's thread.
func blockTotals(counts, out *sim.Buffer[uint32], scope sim.ThreadScope, cross bool) sim.Kernel {
	return func(t *sim.Thread) {
		b := t.BlockIdx.X
		if t.ThreadIdx.X%3 == 0 {
			sim.NewAtomicRef(counts, b, scope).FetchAdd(t, 1, sim.MemoryOrderRelaxed)
		}
		if cross && b == 1 && t.ThreadIdx.X == 0 {
			sim.NewAtomicRef(counts, 0, sim.ThreadScopeDevice).FetchAdd(t, 10, sim.MemoryOrderRelaxed)
		}
		sim.ThisGrid(t).Sync()
		if t.ThreadIdx.X == 0 {
			out.Store(t, b, counts.Load(t, (b+1)%t.GridDim.X))
		}
	}
}

func TestNoRaceBlockScopeCountersReadAfterGridSync(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		counts, out := zeroed[uint32](t, dev, "counts", 4), zeroed[uint32](t, dev, "out", 4)
		wantClean(t, exec(t, dev, coop(4, 64, o), blockTotals(counts, out, sim.ThreadScopeDevice, true)))
		if got := out.ToHost(); !slices.Equal(got, []uint32{22, 22, 22, 32}) {
			t.Fatalf("out %v", got)
		}
		// Block scope where only the block adds: grid.sync orders the
		// adds before the other blocks' plain reads.
		counts, out = zeroed[uint32](t, dev, "counts", 4), zeroed[uint32](t, dev, "out", 4)
		wantClean(t, exec(t, dev, coop(4, 64, o), blockTotals(counts, out, sim.ThreadScopeBlock, false)))
		if got := out.ToHost(); !slices.Equal(got, []uint32{22, 22, 22, 22}) {
			t.Fatalf("out %v", got)
		}
	})
}

func TestRaceBlockScopeCounterAnotherBlockAddsTo(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		counts, out := zeroed[uint32](t, dev, "counts", 4), zeroed[uint32](t, dev, "out", 4)
		wantRaceOn(t, exec(t, dev, coop(4, 64, o), blockTotals(counts, out, sim.ThreadScopeBlock, true)), sim.GlobalSpace, "counts")
	})
}

// refSpinLock is a lock in cuda::atomic_ref's style across blocks:
// compare_exchange(acquire) to take it, store(release) to give it back,
// no fences; unlock is the release store's order.
func refSpinLock(lock *sim.Buffer[uint32], total *sim.Buffer[float32], unlock sim.MemoryOrder) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		l := sim.NewAtomicRef(lock, 0, sim.ThreadScopeDevice)
		for {
			if _, ok := l.CompareExchangeStrong(t, 0, 1, sim.MemoryOrderAcquire); ok {
				break
			}
		}
		total.Store(t, 0, total.Load(t, 0)+float32(t.BlockIdx.X))
		l.Store(t, 0, unlock)
	}
}

func TestNoRaceAtomicRefSpinLockAcrossBlocks(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		lock, total := zeroed[uint32](t, dev, "lock", 1), zeroed[float32](t, dev, "total", 1)
		wantClean(t, exec(t, dev, lin(5, 32, o), refSpinLock(lock, total, sim.MemoryOrderRelease)))
		if got := total.ToHost()[0]; got != 10 {
			t.Fatalf("total %v, want 10", got)
		}
	})
}

func TestRaceAtomicRefSpinLockRelaxedUnlock(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		lock, total := zeroed[uint32](t, dev, "lock", 1), zeroed[float32](t, dev, "total", 1)
		wantRaceOn(t, exec(t, dev, lin(5, 32, o), refSpinLock(lock, total, sim.MemoryOrderRelaxed)), sim.GlobalSpace, "total")
	})
}

// stencil2D is a 5-point stencil over an n x n grid with 16x16 blocks: each
// block loads its tile and a one-cell halo into a Shared2D array (edge
// threads load the halo cells beyond them, zero outside the grid), then
// each thread combines its neighbours; loadSync false drops the barrier
// between the loads and the stencil.
func stencil2D(in, out *sim.Buffer[float32], n int, loadSync bool) sim.Kernel {
	const b = 16
	return func(t *sim.Thread) {
		s := sim.Shared2D[float32](t, "halo", b+2, b+2)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		x, y := t.GlobalX(), t.GlobalY()
		at := func(x, y int) float32 {
			if x < 0 || y < 0 || x >= n || y >= n {
				return 0
			}
			return in.Load(t, y*(n)+x)
		}
		s.Store(t, (ty+1)*(b+2)+tx+1, at(x, y))
		if tx == 0 {
			s.Store(t, (ty+1)*(b+2), at(x-1, y))
		}
		if tx == b-1 {
			s.Store(t, (ty+1)*(b+2)+b+1, at(x+1, y))
		}
		if ty == 0 {
			s.Store(t, tx+1, at(x, y-1))
		}
		if ty == b-1 {
			s.Store(t, (b+1)*(b+2)+tx+1, at(x, y+1))
		}
		if loadSync {
			t.SyncThreads()
		}
		c := func(dx, dy int) float32 { return s.Load(t, (ty+1+dy)*(b+2)+tx+1+dx) }
		out.Store(t, y*n+x, c(0, 0)+c(-1, 0)+c(1, 0)+c(0, -1)+c(0, 1))
	}
}

func TestNoRaceStencil2DSharedHalo(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		const n = 32
		dev := sim.NewDevice(sim.H100)
		in, out := host(t, dev, "in", iota32(n*n, func(int) float32 { return 1 })), zeroed[float32](t, dev, "out", n*n)
		cfg := sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(16, 16), Options: o}
		wantClean(t, exec(t, dev, cfg, stencil2D(in, out, n, true)))
		got := out.ToHost()
		if got[0] != 3 || got[1] != 4 || got[n+1] != 5 || got[16*n+16] != 5 {
			t.Fatalf("corner %v, edge %v, inside %v, block corner %v", got[0], got[1], got[n+1], got[16*n+16])
		}
	})
}

func TestRaceStencil2DSharedHaloWithoutBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		const n = 32
		dev := sim.NewDevice(sim.H100)
		in, out := host(t, dev, "in", make([]float32, n*n)), zeroed[float32](t, dev, "out", n*n)
		cfg := sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(16, 16), Options: o}
		wantRaceOn(t, exec(t, dev, cfg, stencil2D(in, out, n, false)), sim.SharedSpace, "halo")
	})
}

// blockCompact keeps the elements that pass, in order within each warp:
// each warp counts its survivors with a ballot, lane 0 puts the count in
// shared memory; after a barrier thread 0 scans the warps' counts and
// claims the block's place in the output with one atomicAdd; after a
// second barrier each survivor writes at its block's base plus its warp's
// offset plus its rank in the warp. baseSync false drops the second.
func blockCompact(in, out *sim.Buffer[int32], count *sim.Buffer[int32], baseSync bool) sim.Kernel {
	return func(t *sim.Thread) {
		warps := t.BlockDim.X / 32
		offs := sim.Shared[int32](t, "warpOffsets", warps+1)
		v := in.Load(t, t.GlobalX())
		keep := v%3 != 0
		ballot := t.BallotSync(sim.FullMask, keep)
		lane, w := t.LaneID(), t.WarpID()
		if lane == 0 {
			offs.Store(t, w, int32(popcount(ballot)))
		}
		t.SyncThreads()
		if t.ThreadIdx.X == 0 {
			var sum int32
			for k := 0; k < warps; k++ {
				c := offs.Load(t, k)
				offs.Store(t, k, sum)
				sum += c
			}
			offs.Store(t, warps, sim.AtomicAdd(t, count, 0, sum))
		}
		if baseSync {
			t.SyncThreads()
		}
		if keep {
			rank := int32(popcount(ballot & (1<<lane - 1)))
			out.Store(t, int(offs.Load(t, warps)+offs.Load(t, w)+rank), v)
		}
	}
}

func popcount(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

func TestNoRaceBlockCompactionBallotAndAtomicBase(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		in, out, count := host(t, dev, "in", iota32i(4*128)), zeroed[int32](t, dev, "out", 4*128), zeroed[int32](t, dev, "count", 1)
		wantClean(t, exec(t, dev, lin(4, 128, o), blockCompact(in, out, count, true)))
		n := count.ToHost()[0]
		got := slices.Clone(out.ToHost()[:n])
		slices.Sort(got)
		for i, x := range got {
			if want := int32(i/2*3 + i%2 + 1); x != want {
				t.Fatalf("kept[%d] = %d, want %d", i, x, want)
			}
		}
	})
}

func TestRaceBlockCompactionBaseReadWithoutBarrier(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		in, out, count := host(t, dev, "in", iota32i(4*128)), zeroed[int32](t, dev, "out", 4*128), zeroed[int32](t, dev, "count", 1)
		wantRaceOn(t, exec(t, dev, lin(4, 128, o), blockCompact(in, out, count, false)), sim.SharedSpace, "warpOffsets")
	})
}

// volatileMailbox passes a value from block 0 to block 1 through volatile
// accesses alone, the data and the flag: every access is strong, so there
// is no data race (PTX), though nothing orders the data before the flag
// (the consumer may read the old value: a bug of another kind, which no
// race detector reports). With plainData the consumer reads the data
// plainly, which races with the producer's volatile store.
func volatileMailbox(data, flag, out *sim.Buffer[int32], plainData bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		if t.BlockIdx.X == 0 {
			data.StoreVolatile(t, 0, 42)
			flag.StoreVolatile(t, 0, 1)
			return
		}
		for flag.LoadVolatile(t, 0) == 0 {
		}
		if plainData {
			out.Store(t, 0, data.Load(t, 0))
		} else {
			out.Store(t, 0, data.LoadVolatile(t, 0))
		}
	}
}

func TestNoRaceVolatileMailboxAllStrong(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[int32](t, dev, "flag", 1), zeroed[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(2, 32, o), volatileMailbox(data, flag, out, false)))
	})
}

func TestRaceVolatileMailboxPlainDataRead(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[int32](t, dev, "flag", 1), zeroed[int32](t, dev, "out", 1)
		wantRaceOn(t, exec(t, dev, lin(2, 32, o), volatileMailbox(data, flag, out, true)), sim.GlobalSpace, "data")
	})
}
