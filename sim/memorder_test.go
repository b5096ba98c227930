package sim_test

// The memory model: volatile accesses, cuda::atomic_ref's orders and
// scopes, fences at each scope, __nanosleep, the Programming Guide's
// __threadfence() last-block sum, a grid barrier that polls a volatile
// word, and a thread's plain store followed by its own atomic. Each
// pattern is tested correct (NoRace) and with one fence or barrier
// removed (Race). RATIONALE.md's happens-before table is what they check.

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// The CUDA C++ Programming Guide's memory-fence example, as written: thread
// 0 of each block stores its partial sum, __threadfence(), then atomicInc
// on a counter; the block that draws the last ticket reads every partial
// after __syncthreads(), with no fence after the atomic. The Guide calls
// it correct; gpusim accepts it (the barrier completes the acquire).

const gsB = 32

func guideSum(in, result, total *sim.Buffer[float32], count *sim.Buffer[uint32], fence, volatile bool) sim.Kernel {
	return func(t *sim.Thread) {
		isLast := sim.Shared[int32](t, "isLastBlockDone", 1)
		s := sim.Shared[float32](t, "s", gsB)
		tid := t.ThreadIdx.X
		s.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		if tid == 0 {
			var partial float32
			for k := 0; k < gsB; k++ {
				partial += s.Load(t, k)
			}
			if volatile {
				result.StoreVolatile(t, t.BlockIdx.X, partial)
			} else {
				result.Store(t, t.BlockIdx.X, partial) //@guideW
			}
			if fence {
				t.ThreadFence()
			}
			value := sim.AtomicInc(t, count, 0, uint32(t.GridDim.X))
			isLast.Store(t, 0, b2i(value == uint32(t.GridDim.X-1)))
		}
		t.SyncThreads()
		if isLast.Load(t, 0) != 0 {
			// calculateTotalSum: every thread of the last block reads.
			var v float32
			for b := tid; b < t.GridDim.X; b += gsB {
				if volatile {
					v += result.LoadVolatile(t, b)
				} else {
					v += result.Load(t, b) //@guideR
				}
			}
			s.Store(t, tid, v)
			t.SyncThreads()
			if tid == 0 {
				var sum float32
				for k := 0; k < gsB; k++ {
					sum += s.Load(t, k)
				}
				total.Store(t, 0, sum)
				count.Store(t, 0, 0)
			}
		}
	}
}

func runGuideSum(t *testing.T, fence, volatile bool, opts sim.Options) (*sim.Report, float32, float32) {
	const grid = 48
	dev := sim.NewDevice(sim.H100)
	src := iota32(grid*gsB, func(i int) float32 { return float32(i%9) - 3 })
	var want float32
	for _, v := range src {
		want += v
	}
	in := host(t, dev, "in", src)
	result := zeroed[float32](t, dev, "result", grid)
	total := zeroed[float32](t, dev, "total", 1)
	count := zeroed[uint32](t, dev, "count", 1)
	var r *sim.Report
	for k := 0; k < 2 && r == nil; k++ { // the second launch checks count was reset
		r = exec(t, dev, lin(grid, gsB, opts), guideSum(in, result, total, count, fence, volatile))
	}
	return r, total.ToHost()[0], want
}

func TestNoRaceGuideLastBlockSum(t *testing.T) {
	t.Parallel()
	for _, volatile := range []bool{false, true} {
		for _, opts := range []sim.Options{{}, random(5)} {
			r, got, want := runGuideSum(t, true, volatile, opts)
			wantClean(t, r)
			if got != want {
				t.Fatalf("volatile=%v: total %v, want %v", volatile, got, want)
			}
		}
	}
}

func TestRaceGuideLastBlockSumWithoutFence(t *testing.T) {
	t.Parallel()
	r, _, _ := runGuideSum(t, false, false, sim.Options{})
	f := wantRace(t, r, sim.GlobalSpace, "result", at(t, "guideW"), at(t, "guideR"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// A grid barrier that polls a volatile generation word between fences (the
// classic inter-block barrier): thread 0 of each block arrives with an
// atomicAdd after a fence; the last to arrive resets the count and bumps
// the generation with volatile stores; the others spin on a volatile load
// of it; a fence, then __syncthreads, lets the whole block go on.

type gridFences struct{ release, acquire bool }

func volatileGridBarrier(data, out *sim.Buffer[int32], count, gen *sim.Buffer[uint32], f gridFences) sim.Kernel {
	return func(t *sim.Thread) {
		i, total := t.GlobalX(), t.GridDim.X*t.BlockDim.X
		barrier := func() {
			t.SyncThreads()
			if t.ThreadIdx.X == 0 {
				g := gen.LoadVolatile(t, 0)
				if f.release {
					t.ThreadFence()
				}
				if sim.AtomicAdd(t, count, 0, 1) == uint32(t.GridDim.X-1) {
					count.StoreVolatile(t, 0, 0)
					t.ThreadFence()
					gen.StoreVolatile(t, 0, g+1)
				} else {
					for gen.LoadVolatile(t, 0) == g {
					}
				}
				if f.acquire {
					t.ThreadFence()
				}
			}
			t.SyncThreads()
		}
		for round := int32(0); round < 3; round++ {
			data.Store(t, i, int32(i)+100*round) //@vgW
			barrier()
			out.Store(t, i, data.Load(t, (i+t.BlockDim.X)%total)) //@vgR
			barrier()
		}
	}
}

func runVolatileGridBarrier(t *testing.T, f gridFences, opts sim.Options) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 4*32)
	out := zeroed[int32](t, dev, "out", 4*32)
	count := zeroed[uint32](t, dev, "count", 1)
	gen := zeroed[uint32](t, dev, "gen", 1)
	r := exec(t, dev, lin(4, 32, opts), volatileGridBarrier(data, out, count, gen, f))
	return r, out.ToHost()
}

func TestNoRaceVolatileGridBarrier(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(1), random(2)} {
		r, out := runVolatileGridBarrier(t, gridFences{true, true}, opts)
		wantClean(t, r)
		for i, v := range out {
			if v != int32((i+32)%128)+200 {
				t.Fatalf("out[%d] = %d", i, v)
			}
		}
	}
}

func TestRaceVolatileGridBarrierWithoutReleaseFence(t *testing.T) {
	t.Parallel()
	r, _ := runVolatileGridBarrier(t, gridFences{false, true}, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "vgW"), at(t, "vgR"))
	onlyKinds(t, r, sim.DataRace)
}

func TestRaceVolatileGridBarrierWithoutAcquireFence(t *testing.T) {
	t.Parallel()
	r, _ := runVolatileGridBarrier(t, gridFences{true, false}, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "vgW"), at(t, "vgR"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// A thread's own atomic must not hide its earlier plain store from other
// threads' atomics: `c = 0; atomicAdd(&c, 1)` in thread 0 races with thread
// 1's atomicAdd, in natural order too. With a __syncthreads between the
// store and the atomics, it does not.

func storeThenAtomics(c *sim.Buffer[uint32], barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			c.Store(t, 0, 0) //@ownW
		}
		if barrier {
			t.SyncThreads()
		}
		sim.AtomicAdd(t, c, 0, 1) //@ownA
	}
}

func TestRaceOwnAtomicAfterPlainStore(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(1)} {
		dev := sim.NewDevice(sim.H100)
		c := zeroed[uint32](t, dev, "c", 1)
		r := exec(t, dev, lin(1, 2, opts), storeThenAtomics(c, false))
		f := wantRace(t, r, sim.GlobalSpace, "c", at(t, "ownW"), at(t, "ownA"))
		if f.Current.Thread.X == f.Previous.Thread.X {
			t.Errorf("race within one thread: %v", f)
		}
	}
}

func TestNoRaceOwnAtomicAfterPlainStoreAndBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	wantClean(t, exec(t, dev, lin(1, 64), storeThenAtomics(c, true)))
	if got := c.ToHost()[0]; got != 64 {
		t.Fatalf("c = %d, want 64", got)
	}
}

// The plain store stays visible to every later atomic, not only the next:
// thread 2's atomic, after thread 1's, still races with thread 0's store.
func TestRacePlainStoreBehindTwoAtomics(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	r := exec(t, dev, lin(1, 3), func(t *sim.Thread) {
		switch tid := t.ThreadIdx.X; tid {
		case 0, 1: // thread 1's atomic comes after thread 0's store
			if tid == 0 {
				c.Store(t, 0, 5) //@twoW
			}
			t.SyncWarp(0b11)
			if tid == 1 {
				sim.AtomicAdd(t, c, 0, 1)
			}
		case 2: // thread 2's does not
			sim.AtomicAdd(t, c, 0, 1) //@twoA
		}
	})
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "twoW"), at(t, "twoA"))
}

// ---------------------------------------------------------------------------
// volatile accesses: strong among themselves, racy against plain ones, and
// ordering only through fences.

func volatileFlag(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], release, acquire bool) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		if t.BlockIdx.X == 1 { // producer
			data.Store(t, tid, int32(tid+10)) //@vfW
			t.SyncThreads()
			if tid == 0 {
				if release {
					t.ThreadFenceSystem()
				}
				flag.StoreVolatile(t, 0, 1)
			}
			return
		}
		if tid == 0 { // consumer: block 0 runs first and waits for block 1
			for flag.LoadVolatile(t, 0) == 0 {
				t.Nanosleep(100)
			}
			if acquire {
				t.ThreadFence()
			}
		}
		t.SyncThreads()
		out.Store(t, tid, data.Load(t, tid)) //@vfR
	}
}

func runVolatileFlag(t *testing.T, release, acquire bool, opts sim.Options) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 32, opts), volatileFlag(data, out, flag, release, acquire))
	return r, out.ToHost()
}

func TestNoRaceVolatileFlagBetweenFences(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(3)} {
		r, out := runVolatileFlag(t, true, true, opts)
		wantClean(t, r)
		if out[31] != 41 {
			t.Fatalf("out = %v", out)
		}
	}
}

func TestRaceVolatileFlagWithoutReleaseFence(t *testing.T) {
	t.Parallel()
	r, _ := runVolatileFlag(t, false, true, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "vfW"), at(t, "vfR"))
	onlyKinds(t, r, sim.DataRace)
}

// Volatile accesses never race among themselves or with atomics; a plain
// access against a volatile one does.
func TestNoRaceVolatileAccessesAmongThemselves(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := zeroed[uint32](t, dev, "x", 1)
	wantClean(t, exec(t, dev, lin(4, 32), func(t *sim.Thread) {
		x.StoreVolatile(t, 0, uint32(t.GlobalX()))
		_ = x.LoadVolatile(t, 0)
		sim.AtomicMax(t, x, 0, uint32(t.GlobalX()))
		_ = x.LoadVolatile(t, 0)
	}))
}

func TestRaceVolatileStoreVersusPlainLoad(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := zeroed[uint32](t, dev, "x", 1)
	out := zeroed[uint32](t, dev, "out", 64)
	r := exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		if t.GlobalX() == 0 {
			x.StoreVolatile(t, 0, 1) //@vsW
		}
		out.Store(t, t.GlobalX(), x.Load(t, 0)) //@vsR
	})
	f := wantRace(t, r, sim.GlobalSpace, "x", at(t, "vsW"), at(t, "vsR"))
	if f.Current.Op != "read" || f.Previous.Op != "volatile write" {
		t.Errorf("ops %q and %q, want read and volatile write", f.Current.Op, f.Previous.Op)
	}
}

// ---------------------------------------------------------------------------
// cuda::atomic_ref: release/acquire orders at device scope, relaxed orders,
// block scope across blocks.

type refFlag struct {
	store, load sim.MemoryOrder
	scope       sim.ThreadScope
}

func atomicRefFlag(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], o refFlag) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		f := sim.NewAtomicRef(flag, 0, o.scope)
		if t.BlockIdx.X == 1 {
			data.Store(t, tid, int32(tid*7)) //@arW
			t.SyncThreads()
			if tid == 0 {
				f.Store(t, 1, o.store)
			}
			return
		}
		if tid == 0 {
			for f.Load(t, o.load) == 0 {
			}
		}
		t.SyncThreads()
		out.Store(t, tid, data.Load(t, tid)) //@arR
	}
}

func runAtomicRefFlag(t *testing.T, o refFlag, opts sim.Options) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 32, opts), atomicRefFlag(data, out, flag, o))
	return r, out.ToHost()
}

func TestNoRaceAtomicRefReleaseAcquire(t *testing.T) {
	t.Parallel()
	for _, o := range []refFlag{
		{sim.MemoryOrderRelease, sim.MemoryOrderAcquire, sim.ThreadScopeDevice},
		{sim.MemoryOrderSeqCst, sim.MemoryOrderSeqCst, sim.ThreadScopeSystem},
		{sim.MemoryOrderAcqRel, sim.MemoryOrderAcquire, sim.ThreadScopeDevice},
	} {
		r, out := runAtomicRefFlag(t, o, random(7))
		wantClean(t, r)
		if out[31] != 31*7 {
			t.Fatalf("%v: out = %v", o, out)
		}
	}
}

// A relaxed store publishes nothing: the data race is reported. (The
// leader's load is followed by __syncthreads, which gpusim lets complete an
// acquire, as the Guide's last-block example needs; the release side has
// no such allowance.)
func TestRaceAtomicRefRelaxedStore(t *testing.T) {
	t.Parallel()
	r, _ := runAtomicRefFlag(t, refFlag{sim.MemoryOrderRelaxed, sim.MemoryOrderAcquire, sim.ThreadScopeDevice}, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "arW"), at(t, "arR"))
	onlyKinds(t, r, sim.DataRace)
}

// Release and acquire at block scope do not synchronise two blocks.
func TestRaceAtomicRefBlockScopeAcrossBlocks(t *testing.T) {
	t.Parallel()
	r, _ := runAtomicRefFlag(t, refFlag{sim.MemoryOrderRelease, sim.MemoryOrderAcquire, sim.ThreadScopeBlock}, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "arW"), at(t, "arR"))
}

// Block-scope atomics of different blocks on one element are not morally
// strong: they race. Within a block, or at device scope, they do not.
func blockScopeCounter(c *sim.Buffer[uint32], scope sim.ThreadScope) sim.Kernel {
	return func(t *sim.Thread) {
		sim.NewAtomicRef(c, 0, scope).FetchAdd(t, 1, sim.MemoryOrderRelaxed) //@bsA
	}
}

func TestRaceBlockScopeAtomicsOfTwoBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	r := exec(t, dev, lin(2, 32), blockScopeCounter(c, sim.ThreadScopeBlock))
	f := wantRace(t, r, sim.GlobalSpace, "c", at(t, "bsA"), at(t, "bsA"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
	if !strings.Contains(f.Detail, "block scope") {
		t.Errorf("want the detail to name the block scope: %v", f)
	}
}

// A block-scope atomic_ref store is named as a store where it is the
// earlier access of a race.
func TestRaceBlockScopeStoreNamedAsStore(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	r := exec(t, dev, lin(2, 1), func(t *sim.Thread) {
		ref := sim.NewAtomicRef(c, 0, sim.ThreadScopeBlock)
		if t.BlockIdx.X == 0 {
			ref.Store(t, 1, sim.MemoryOrderRelease)
		} else {
			ref.Load(t, sim.MemoryOrderAcquire)
		}
	})
	f := wantKind(t, r, sim.DataRace)
	if f.Previous.Op != "atomic store" || f.Current.Op != "atomic load" {
		t.Errorf("want an atomic load racing with a previous atomic store:\n%v", f)
	}
}

func TestNoRaceBlockScopeAtomicsOfOneBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	wantClean(t, exec(t, dev, lin(1, 64), blockScopeCounter(c, sim.ThreadScopeBlock)))
	wantClean(t, exec(t, dev, lin(2, 32), blockScopeCounter(c, sim.ThreadScopeDevice)))
	if got := c.ToHost()[0]; got != 128 {
		t.Fatalf("c = %d, want 128", got)
	}
}

// scopedLoadsThenStore: block 0's thread loads c through a ref of scope
// first, then through a device-scope ref; block 1's thread then stores c at
// device scope. A block-scope load and another block's store are not
// morally strong: they race. The thread's second load does not: it must
// not stand in for the first in the shadow (it used to, and the race went
// unreported).
func scopedLoadsThenStore(c, out *sim.Buffer[int32], first sim.ThreadScope) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			v := sim.NewAtomicRef(c, 0, first).Load(t, sim.MemoryOrderRelaxed) //@scopedFirstLoad
			v += sim.NewAtomicRef(c, 0, sim.ThreadScopeDevice).Load(t, sim.MemoryOrderRelaxed)
			out.Store(t, 0, v)
			return
		}
		sim.NewAtomicRef(c, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed) //@scopedStore
	}
}

func TestRaceBlockScopeLoadThenOwnDeviceLoadOtherBlockStores(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "c", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(2, 1), scopedLoadsThenStore(c, out, sim.ThreadScopeBlock))
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "scopedFirstLoad"), at(t, "scopedStore"))
	onlyKinds(t, r, sim.DataRace)
}

func TestNoRaceDeviceScopeLoadsOtherBlockStores(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		c := zeroed[int32](t, dev, "c", 1)
		out := zeroed[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(2, 1, o), scopedLoadsThenStore(c, out, sim.ThreadScopeDevice)))
	})
}

// cuda::atomic_thread_fence with relaxed operations: a release fence
// before the flag store and an acquire fence after the load make the pair.
func fencedRelaxedFlag(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], acquireFence bool) sim.Kernel {
	return func(t *sim.Thread) {
		f := sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice)
		if t.BlockIdx.X == 1 {
			data.Store(t, 0, 42) //@afW
			t.AtomicThreadFence(sim.MemoryOrderRelease, sim.ThreadScopeDevice)
			f.Store(t, 1, sim.MemoryOrderRelaxed)
			return
		}
		for f.Load(t, sim.MemoryOrderRelaxed) == 0 {
		}
		if acquireFence {
			t.AtomicThreadFence(sim.MemoryOrderAcquire, sim.ThreadScopeDevice)
		}
		out.Store(t, 0, data.Load(t, 0)) //@afR
	}
}

func TestNoRaceAtomicThreadFencePair(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, out := zeroed[int32](t, dev, "data", 1), zeroed[int32](t, dev, "out", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	wantClean(t, exec(t, dev, lin(2, 1), fencedRelaxedFlag(data, out, flag, true)))
	if out.ToHost()[0] != 42 {
		t.Fatal("consumer did not wait")
	}
}

func TestRaceAtomicThreadFenceWithoutAcquire(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, out := zeroed[int32](t, dev, "data", 1), zeroed[int32](t, dev, "out", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 1), fencedRelaxedFlag(data, out, flag, false))
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "afW"), at(t, "afR"))
}

// atomic_ref's read-modify-writes compute what cuda::atomic_ref does.
func TestNoRaceAtomicRefOperations(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := host(t, dev, "x", []int32{10, 0b1100, 5, 7})
	out := zeroed[int32](t, dev, "out", 8)
	wantClean(t, exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		a := sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice)
		out.Store(t, 0, a.FetchAdd(t, 5, sim.MemoryOrderRelaxed)) // 10 -> 15
		out.Store(t, 1, a.FetchSub(t, 3, sim.MemoryOrderAcqRel))  // 15 -> 12
		old, ok := a.CompareExchangeStrong(t, 12, 99, sim.MemoryOrderSeqCst)
		out.Store(t, 2, old+b2i(ok)*1000) // 12, swapped -> 99
		old, ok = a.CompareExchangeWeak(t, 12, 0, sim.MemoryOrderSeqCst)
		out.Store(t, 3, old+b2i(ok)*1000) // 99, not swapped
		b := sim.NewAtomicRef(x, 1, sim.ThreadScopeBlock)
		b.FetchAnd(t, 0b0110, sim.MemoryOrderRelaxed) // 0b0100
		b.FetchOr(t, 0b0001, sim.MemoryOrderRelaxed)  // 0b0101
		out.Store(t, 4, b.FetchXor(t, 0b1111, sim.MemoryOrderRelaxed))
		c := sim.NewAtomicRef(x, 2, sim.ThreadScopeSystem)
		c.FetchMin(t, 3, sim.MemoryOrderRelaxed)
		out.Store(t, 5, c.FetchMax(t, 4, sim.MemoryOrderRelaxed)) // 3, then 4
		d := sim.NewAtomicRef(x, 3, sim.ThreadScopeDevice)
		out.Store(t, 6, d.Exchange(t, 8, sim.MemoryOrderRelease))
		out.Store(t, 7, d.Load(t, sim.MemoryOrderAcquire))
	}))
	got, want := out.ToHost(), []int32{10, 15, 1012, 99, 0b0101, 3, 7, 8}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("out = %v, want %v", got, want)
		}
	}
	if xs := x.ToHost(); xs[0] != 99 || xs[1] != 0b1010 || xs[2] != 4 || xs[3] != 8 {
		t.Fatalf("x = %v", xs)
	}
}

// A spin lock with __nanosleep backoff: the sleeper yields to the holder.
func TestNoRaceNanosleepBackoffLock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	lock := zeroed[uint32](t, dev, "lock", 1)
	sum := zeroed[int32](t, dev, "sum", 1)
	wantClean(t, exec(t, dev, lin(4, 32, random(9)), func(t *sim.Thread) {
		if t.LaneID() != 0 {
			return
		}
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
			t.Nanosleep(32)
		}
		t.ThreadFence()
		sum.Store(t, 0, sum.Load(t, 0)+1)
		t.ThreadFence()
		sim.AtomicExch(t, lock, 0, 0)
	}))
	if got := sum.ToHost()[0]; got != 4 {
		t.Fatalf("sum = %d, want 4", got)
	}
}

// Waiting with __nanosleep for a flag nobody sets is a livelock, reported.
func TestDeadlockNanosleepForFlagNeverSet(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(1, 2), func(t *sim.Thread) {
		for flag.LoadVolatile(t, 0) == 0 {
			t.Nanosleep(1000) //@napWait
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if len(f.Waiting) == 0 || f.Waiting[0].Site != at(t, "napWait") {
		t.Errorf("deadlock %v, want the threads waiting at %s", f, at(t, "napWait"))
	}
}

// A thread's strong read does not replace its own plain read in the
// shadow: the plain read still races with another thread's atomic store,
// which the strong read alone would not.
func TestRaceStrongReadKeepsOwnPlainRead(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := zeroed[uint32](t, dev, "x", 1)
	out := zeroed[uint32](t, dev, "out", 1)
	r := exec(t, dev, lin(2, 1), func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			v := x.Load(t, 0) //@ownPlainR
			out.Store(t, 0, v+x.LoadVolatile(t, 0))
			return
		}
		sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed) //@otherStrongW
	})
	wantRace(t, r, sim.GlobalSpace, "x", at(t, "ownPlainR"), at(t, "otherStrongW"))
}

func TestNoRaceStrongReadsAndStrongWrite(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := zeroed[uint32](t, dev, "x", 1)
	out := zeroed[uint32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(2, 1), func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			out.Store(t, 0, x.LoadVolatile(t, 0)+x.LoadVolatile(t, 0))
			return
		}
		sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed)
	}))
}

// ---------------------------------------------------------------------------
// a release fence publishes what precedes it, not what precedes the strong
// write after it: a barrier or group sync between the fence and the flag
// store orders the other threads' writes before the store, not before the
// fence (PTX's release pattern is cumulative over what is ordered before
// the fence). Side by side: the fence after the sync, and before it.

func fenceAroundSync(data, out, flag *sim.Buffer[int32], fenceFirst, tile bool) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		if t.BlockIdx.X == 1 { // producer
			if tid == 0 && fenceFirst {
				t.ThreadFence()
			}
			data.Store(t, tid, int32(tid+10)) //@fsW
			if tile {
				sim.TiledPartitionOf[sim.Size64](sim.ThisThreadBlock(t)).Sync()
			} else {
				t.SyncThreads()
			}
			if tid == 0 {
				if !fenceFirst {
					t.ThreadFence()
				}
				flag.StoreVolatile(t, 0, 1)
			}
			return
		}
		if tid == 0 { // consumer: block 0 runs first and waits for block 1
			for flag.LoadVolatile(t, 0) == 0 {
				t.Nanosleep(100)
			}
			t.ThreadFence()
		}
		t.SyncThreads()
		out.Store(t, tid, data.Load(t, tid)) //@fsR
	}
}

func runFenceAroundSync(t *testing.T, fenceFirst, tile bool) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 64)
	out := zeroed[int32](t, dev, "out", 64)
	flag := zeroed[int32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 64), fenceAroundSync(data, out, flag, fenceFirst, tile))
	return r, out.ToHost()
}

func TestNoRaceReleaseFenceAfterSync(t *testing.T) {
	t.Parallel()
	for _, tile := range []bool{false, true} {
		r, out := runFenceAroundSync(t, false, tile)
		wantClean(t, r)
		if out[63] != 73 {
			t.Fatalf("tile %v: out = %v", tile, out)
		}
	}
}

func TestRaceReleaseFenceBeforeSync(t *testing.T) {
	t.Parallel()
	for _, tile := range []bool{false, true} {
		r, _ := runFenceAroundSync(t, true, tile)
		wantRace(t, r, sim.GlobalSpace, "data", at(t, "fsW"), at(t, "fsR"))
		onlyKinds(t, r, sim.DataRace)
	}
}

// ---------------------------------------------------------------------------
// a warp's leader acquires, __syncwarp passes it on to the other lanes (PTX:
// bar.warp.sync orders the lanes, and causality order is transitive). Side
// by side: with the __syncwarp, and without it.

func warpLeaderAcquire(data, out, flag *sim.Buffer[int32], syncwarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.ThreadIdx.X
		if t.BlockIdx.X == 1 { // producer
			data.Store(t, lane, int32(lane+10)) //@wlW
			t.SyncThreads()
			if lane == 0 {
				t.ThreadFence()
				flag.StoreVolatile(t, 0, 1)
			}
			return
		}
		if lane == 0 { // consumer: block 0 runs first and waits for block 1
			for flag.LoadVolatile(t, 0) == 0 {
				t.Nanosleep(100)
			}
			t.ThreadFence()
		}
		if syncwarp {
			t.SyncWarp(sim.FullMask)
		}
		out.Store(t, lane, data.Load(t, lane)) //@wlR
	}
}

func runWarpLeaderAcquire(t *testing.T, syncwarp bool) *sim.Report {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[int32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 32), warpLeaderAcquire(data, out, flag, syncwarp))
	if syncwarp {
		if got := out.ToHost(); got[31] != 41 {
			t.Errorf("out = %v", got)
		}
	}
	return r
}

func TestNoRaceWarpLeaderAcquireSyncWarp(t *testing.T) {
	t.Parallel()
	wantClean(t, runWarpLeaderAcquire(t, true))
}

func TestRaceWarpLeaderAcquireWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	r := runWarpLeaderAcquire(t, false)
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "wlW"), at(t, "wlR"))
}

// ---------------------------------------------------------------------------
// The producer side: every lane of a warp writes, __syncwarp orders the
// lanes' writes before the leader's fence, and the leader's release
// publishes them (a fence is cumulative: it releases what is ordered before
// it, in any thread). Side by side: the correct form; without the
// __syncwarp; with the __syncwarp after the fence, which orders the lanes'
// writes before the flag's store but not before the fence; and the same in
// shared memory between two warps of a block, with __threadfence_block.

// syncwarpPlace is where warpLeaderRelease puts its __syncwarp.
type syncwarpPlace int

const (
	noSyncwarp syncwarpPlace = iota
	syncwarpBeforeFence
	syncwarpAfterFence
)

func warpLeaderRelease(data, out, flag *sim.Buffer[int32], place syncwarpPlace) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.ThreadIdx.X
		if t.BlockIdx.X == 1 { // producer warp
			data.Store(t, lane, int32(lane+10)) //@wrW
			if place == syncwarpBeforeFence {
				t.SyncWarp(sim.FullMask)
			}
			if lane == 0 {
				t.ThreadFence()
			}
			if place == syncwarpAfterFence {
				t.SyncWarp(sim.FullMask)
			}
			if lane == 0 {
				flag.StoreVolatile(t, 0, 1)
			}
			return
		}
		if lane == 0 { // consumer: one thread of block 0, which runs first
			for flag.LoadVolatile(t, 0) == 0 {
				t.Nanosleep(100)
			}
			t.ThreadFence()
			var sum int32
			for k := 0; k < 32; k++ {
				sum += data.Load(t, k) //@wrR
			}
			out.Store(t, 0, sum)
		}
	}
}

func runWarpLeaderRelease(t *testing.T, place syncwarpPlace) *sim.Report {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 1)
	flag := zeroed[int32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 32), warpLeaderRelease(data, out, flag, place))
	if got := out.ToHost()[0]; place == syncwarpBeforeFence && got != 32*10+31*32/2 {
		t.Errorf("sum = %d, want %d", got, 32*10+31*32/2)
	}
	return r
}

func TestNoRaceWarpLeaderReleaseSyncWarp(t *testing.T) {
	t.Parallel()
	wantClean(t, runWarpLeaderRelease(t, syncwarpBeforeFence))
}

func TestRaceWarpLeaderReleaseWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	r := runWarpLeaderRelease(t, noSyncwarp)
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "wrW"), at(t, "wrR"))
	onlyKinds(t, r, sim.DataRace)
}

func TestRaceWarpLeaderReleaseSyncWarpAfterFence(t *testing.T) {
	t.Parallel()
	r := runWarpLeaderRelease(t, syncwarpAfterFence)
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "wrW"), at(t, "wrR"))
	onlyKinds(t, r, sim.DataRace)
}

// warpToWarpShared passes a warp's shared-memory writes to another warp of
// the block: warp 0 writes, __syncwarp, its lane 0 fences at block scope and
// sets a shared flag; lane 0 of warp 1 polls, fences, and reads them all.
func warpToWarpShared(out *sim.Buffer[int32], syncwarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		data := sim.Shared[int32](t, "data", 32)
		flag := sim.SharedVar[int32](t, "flag")
		tid := t.ThreadIdx.X
		if tid == 0 {
			flag.StoreVolatile(t, 0, 0)
		}
		t.SyncThreads()
		if t.WarpID() == 1 { // consumer warp: runs first in natural order
			if t.LaneID() == 0 {
				for flag.LoadVolatile(t, 0) == 0 {
					t.Nanosleep(100)
				}
				t.ThreadFenceBlock()
				var sum int32
				for k := 0; k < 32; k++ {
					sum += data.Load(t, k) //@wwR
				}
				out.Store(t, 0, sum)
			}
			return
		}
		data.Store(t, tid, int32(tid)) //@wwW
		if syncwarp {
			t.SyncWarp(sim.FullMask)
		}
		if tid == 0 {
			t.ThreadFenceBlock()
			flag.StoreVolatile(t, 0, 1)
		}
	}
}

func TestNoRaceWarpToWarpSharedSyncWarp(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 64), warpToWarpShared(out, true)))
	if got := out.ToHost()[0]; got != 31*32/2 {
		t.Errorf("sum = %d, want %d", got, 31*32/2)
	}
}

func TestRaceWarpToWarpSharedWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), warpToWarpShared(out, false))
	wantRace(t, r, sim.SharedSpace, "data", at(t, "wwW"), at(t, "wwR"))
	onlyKinds(t, r, sim.DataRace)
}

// PTX's release pattern is a fence followed by a strong write anywhere
// later in program order: a statistics atomic between the fence and the
// flag does not use the release up. Side by side with the fence removed.
func fenceStatsFlag(data *sim.Buffer[int32], flag *sim.Buffer[uint32], out *sim.Buffer[int32], fence bool) sim.Kernel {
	return func(t *sim.Thread) {
		switch {
		case t.BlockIdx.X == 1 && t.ThreadIdx.X == 0:
			data.Store(t, 0, 42) //@statsW
			if fence {
				t.ThreadFence()
			}
			sim.AtomicAdd(t, flag, 1, 1) // a statistics counter
			flag.StoreVolatile(t, 0, 1)
		case t.BlockIdx.X == 0 && t.ThreadIdx.X == 0:
			for flag.LoadVolatile(t, 0) == 0 {
			}
			t.ThreadFence()
			out.Store(t, 0, data.Load(t, 0)) //@statsR
		}
	}
}

func TestNoRaceFenceThenStatsAtomicThenFlag(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[uint32](t, dev, "flag", 2), zeroed[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(2, 32), fenceStatsFlag(data, flag, out, true)))
	if got := out.ToHost()[0]; got != 42 {
		t.Errorf("out = %d, want 42", got)
	}
}

func TestRaceStatsAtomicThenFlagWithoutFence(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[uint32](t, dev, "flag", 2), zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(2, 32), fenceStatsFlag(data, flag, out, false))
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "statsW"), at(t, "statsR"))
}

// Scopes decide by the releasing thread, not by who wrote what it
// releases: block 1 publishes data to thread 32 of block 0 at device
// scope; that thread passes it on at block scope (fence_block, flag) to
// thread 0 of its block, whose block-scope acquire takes it in. Thread 0
// acquiring, at block scope, a release made in another block takes in
// nothing, though the data's writer is of its own block.
func crossScopeChain(data *sim.Buffer[int32], flag *sim.Buffer[uint32], out *sim.Buffer[int32], otherBlockHop bool) sim.Kernel {
	return func(t *sim.Thread) {
		writer, relay := 1, 0 // blocks of the writer and of the relay
		if otherBlockHop {
			writer, relay = 0, 1
		}
		switch {
		case t.BlockIdx.X == writer && t.ThreadIdx.X == 32:
			data.Store(t, 0, 42) //@chainW
			t.ThreadFence()
			flag.StoreVolatile(t, 0, 1)
		case t.BlockIdx.X == relay && t.ThreadIdx.X == 0:
			for flag.LoadVolatile(t, 0) == 0 {
			}
			t.ThreadFence() // acquires, and releases at device scope
			if !otherBlockHop {
				t.ThreadFenceBlock() // releases at block scope
			}
			flag.StoreVolatile(t, 1, 1)
		case t.BlockIdx.X == 0 && t.ThreadIdx.X == 1:
			for flag.LoadVolatile(t, 1) == 0 {
			}
			t.ThreadFenceBlock()
			out.Store(t, 0, data.Load(t, 0)) //@chainR
		}
	}
}

func TestNoRaceCrossScopeChainDeviceThenBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[uint32](t, dev, "flag", 2), zeroed[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(2, 64), crossScopeChain(data, flag, out, false)))
}

func TestRaceBlockFenceAcquiresOtherBlocksRelease(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	data, flag, out := zeroed[int32](t, dev, "data", 1), zeroed[uint32](t, dev, "flag", 2), zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(2, 64), crossScopeChain(data, flag, out, true))
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "chainW"), at(t, "chainR"))
}

// storesThenOwnRead: threads 0 and 32 each store to a flag with a relaxed
// atomic store, then thread 32 reads the flag back, plainly or with an
// atomic load. A store reads nothing, so thread 0's store is not ordered
// before thread 32's read: a plain read races with it. The cell's write
// is thread 32's own store by then; thread 0's is kept in a read slot.
func storesThenOwnRead(flag *sim.Buffer[uint32], out *sim.Buffer[uint32], plain bool) sim.Kernel {
	return func(t *sim.Thread) {
		f := sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice)
		switch t.ThreadIdx.X {
		case 0:
			f.Store(t, 1, sim.MemoryOrderRelaxed) //@storeOther
		case 32:
			f.Store(t, 2, sim.MemoryOrderRelaxed)
			if plain {
				out.Store(t, 0, flag.Load(t, 0)) //@storeOwnRead
			} else {
				out.Store(t, 0, f.Load(t, sim.MemoryOrderRelaxed))
			}
		}
	}
}

func TestRaceAtomicStoreThenOwnPlainRead(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag, out := zeroed[uint32](t, dev, "flag", 1), zeroed[uint32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), storesThenOwnRead(flag, out, true))
	wantRace(t, r, sim.GlobalSpace, "flag", at(t, "storeOther"), at(t, "storeOwnRead"))
	if f := r.Findings[0]; f.Previous.Op != "atomic store" {
		t.Errorf("previous access named %q, want \"atomic store\":\n%v", f.Previous.Op, r)
	}
}

func TestNoRaceAtomicStoreThenOwnAtomicLoad(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag, out := zeroed[uint32](t, dev, "flag", 1), zeroed[uint32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 64), storesThenOwnRead(flag, out, false)))
}

// A read-modify-write reads the value it replaces: the chain of atomicAdds
// before it precedes what its thread does next (PTX: observation order is
// part of causality order). Thread 32's plain read after its own
// atomicAdd, which read thread 0's, does not race with thread 0's in this
// execution, where thread 0 added first. (Run the other way round, it
// would race: the read would come before thread 0's add, as
// TestRaceAtomicAddAfterOtherThreadsPlainRead shows.)
func addsThenRead(c, out *sim.Buffer[int32], readerFirst bool) sim.Kernel {
	return func(t *sim.Thread) {
		reader, other := 32, 0
		if readerFirst {
			reader, other = 0, 32
		}
		switch t.ThreadIdx.X {
		case other:
			sim.AtomicAdd(t, c, 0, 1) //@addOther
		case reader:
			sim.AtomicAdd(t, c, 0, 1)
			out.Store(t, 0, c.Load(t, 0)) //@addOwnRead
		}
	}
}

func TestNoRaceAtomicAddChainThenOwnPlainRead(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c, out := zeroed[int32](t, dev, "c", 1), zeroed[int32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 64), addsThenRead(c, out, false)))
	if got := out.ToHost()[0]; got != 2 {
		t.Errorf("out = %d, want 2", got)
	}
}

func TestRaceAtomicAddAfterOtherThreadsPlainRead(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c, out := zeroed[int32](t, dev, "c", 1), zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), addsThenRead(c, out, true))
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "addOwnRead"), at(t, "addOther"))
}

// readsThenPeekAndStore: every thread reads x; thread 0 then peeks at x
// with a volatile load and stores to it with an atomic store. Without the
// barrier the other threads' reads (made while thread 0 waited on a
// no-change atomic) race with the store. The shadow keeps the other
// threads' plain reads rather than thread 0's volatile read, which
// conflicts with less (found by the differential fuzzer: the volatile read
// displaced them).
func readsThenPeekAndStore(x, y *sim.Buffer[int32], synced bool) sim.Kernel {
	return func(t *sim.Thread) {
		_ = x.Load(t, 0) //@peekedRead
		if synced {
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 0 {
			sim.AtomicAdd(t, y, 0, 0) // changes nothing: the others run meanwhile
			_ = x.LoadVolatile(t, 0)
			sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed) //@peekedStore
		}
	}
}

func TestRaceAtomicStoreAfterOwnPeekAndOthersReads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x, y := zeroed[int32](t, dev, "x", 1), zeroed[int32](t, dev, "y", 1)
	r := exec(t, dev, lin(1, 2), readsThenPeekAndStore(x, y, false))
	wantRace(t, r, sim.GlobalSpace, "x", at(t, "peekedRead"), at(t, "peekedStore"))
}

func TestNoRaceAtomicStoreAfterOwnPeekAndBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x, y := zeroed[int32](t, dev, "x", 1), zeroed[int32](t, dev, "y", 1)
	wantClean(t, exec(t, dev, lin(1, 2), readsThenPeekAndStore(x, y, true)))
}
