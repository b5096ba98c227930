package sim_test

// Atomics and fences: locks, flags handed between blocks, last-block-done,
// chained scans and software grid barriers, each with and without the fences
// that make their release/acquire; fence scope; atomic semantics.

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// producer/consumer flag between blocks: block 1 produces, block 0 (which
// runs first and must wait for block 1 to be admitted) consumes.

type fence int

const (
	noFence fence = iota
	blockFence
	deviceFence
)

type poll int

const (
	pollEach   poll = iota // every consumer thread polls the flag with an atomic
	pollLeader             // thread 0 polls, then __syncthreads
	pollPlain              // volatile-style plain loads, plain flag store
)

const flagB = 64

func flagKernel(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], rel fence, acquire bool, p poll) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		if t.BlockIdx.X == 1 { // producer
			data.Store(t, tid, int32(tid*tid+1)) //@flagW
			t.SyncThreads()
			if tid == 0 {
				switch rel {
				case blockFence:
					t.ThreadFenceBlock()
				case deviceFence:
					t.ThreadFence()
				}
				if p == pollPlain {
					flag.Store(t, 0, 1) //@flagPlainW
				} else {
					sim.AtomicExch(t, flag, 0, 1)
				}
			}
			return
		}
		switch p { // consumer
		case pollEach:
			for sim.AtomicAdd(t, flag, 0, 0) == 0 {
			}
			if acquire {
				t.ThreadFence()
			}
		case pollLeader:
			if tid == 0 {
				for sim.AtomicAdd(t, flag, 0, 0) == 0 {
				}
				if acquire {
					t.ThreadFence()
				}
			}
			t.SyncThreads()
		case pollPlain:
			for flag.Load(t, 0) == 0 { //@flagPlainR
			}
			if acquire {
				t.ThreadFence()
			}
		}
		out.Store(t, tid, data.Load(t, tid)) //@flagR
	}
}

func runFlag(t *testing.T, rel fence, acquire bool, p poll, opts sim.Options) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", flagB)
	out := zeroed[int32](t, dev, "out", flagB)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, flagB, opts), flagKernel(data, out, flag, rel, acquire, p))
	return r, out.ToHost()
}

func checkFlagOut(t *testing.T, out []int32) {
	t.Helper()
	for i, v := range out {
		if v != int32(i*i+1) {
			t.Fatalf("out[%d] = %d, want %d (consumer did not wait for the producer)", i, v, i*i+1)
		}
	}
}

func TestNoRaceFlagBetweenBlocks(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(1), random(2), random(3)} {
		r, out := runFlag(t, deviceFence, true, pollEach, opts)
		wantClean(t, r)
		checkFlagOut(t, out)
	}
}

func TestRaceFlagWithoutReleaseFence(t *testing.T) {
	t.Parallel()
	r, out := runFlag(t, noFence, true, pollEach, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "flagW"), at(t, "flagR"))
	onlyKinds(t, r, sim.DataRace)
	checkFlagOut(t, out) // the simulator is sequentially consistent
}

func TestRaceFlagWithoutAcquireFence(t *testing.T) {
	t.Parallel()
	r, _ := runFlag(t, deviceFence, false, pollEach, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "flagW"), at(t, "flagR"))
	onlyKinds(t, r, sim.DataRace)
}

// __threadfence_block does not publish to another block.
func TestRaceFlagBlockScopeFenceAcrossBlocks(t *testing.T) {
	t.Parallel()
	r, _ := runFlag(t, blockFence, true, pollEach, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "data", at(t, "flagW"), at(t, "flagR"))
	onlyKinds(t, r, sim.DataRace)
}

// A volatile-style spin on a plain load is itself a race (documented), and
// must not hang.
func TestRaceFlagPlainPolling(t *testing.T) {
	t.Parallel()
	r, out := runFlag(t, deviceFence, true, pollPlain, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "flag", at(t, "flagPlainW"), at(t, "flagPlainR"))
	onlyKinds(t, r, sim.DataRace)
	checkFlagOut(t, out)
}

// The canonical form: thread 0 polls and acquires, __syncthreads hands the
// acquired data on to the rest of the block (barriers are cumulative on
// hardware).
func TestNoRaceFlagLeaderPollsThenBarrier(t *testing.T) {
	t.Parallel()
	r, out := runFlag(t, deviceFence, true, pollLeader, sim.Options{})
	if r.Has(sim.DataRace) {
		t.Fatal("knowledge acquired by one thread (atomic+fence) is not passed on by __syncthreads to the rest of its block: false race\n" + r.Error())
	}
	wantClean(t, r)
	checkFlagOut(t, out)
}

// ---------------------------------------------------------------------------
// atomicCAS lock protecting a multi-word update (argmax: value and index)

func argmaxLocked(vals, best *sim.Buffer[float32], bestIdx, lock *sim.Buffer[int32], properRelease bool) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		v := vals.Load(t, i)
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 { //@lkCAS
		}
		t.ThreadFence()
		if v > best.Load(t, 0) { //@lkR
			best.Store(t, 0, v) //@lkW
			bestIdx.Store(t, 0, int32(i))
		}
		if properRelease {
			t.ThreadFence()
			sim.AtomicExch(t, lock, 0, 0)
		} else {
			lock.Store(t, 0, 0) //@lkRel
		}
	}
}

func runArgmax(t *testing.T, proper bool, opts sim.Options) (*sim.Report, float32, int32) {
	const n = 256
	dev := sim.NewDevice(sim.H100)
	vals := host(t, dev, "vals", iota32(n, func(i int) float32 { return float32((i * 37) % 251) }))
	best := host(t, dev, "best", []float32{float32(math.Inf(-1))})
	idx := host(t, dev, "bestIdx", []int32{-1})
	lock := zeroed[int32](t, dev, "lock", 1)
	r := exec(t, dev, lin(4, 64, opts), argmaxLocked(vals, best, idx, lock, proper))
	return r, best.ToHost()[0], idx.ToHost()[0]
}

func TestNoRaceLockMultiWordUpdate(t *testing.T) {
	t.Parallel()
	var wantV float32 = -1
	wantI := int32(-1)
	for i := 0; i < 256; i++ {
		if v := float32((i * 37) % 251); v > wantV {
			wantV, wantI = v, int32(i)
		}
	}
	for _, opts := range []sim.Options{{}, random(1), random(5), random(9)} {
		r, v, i := runArgmax(t, true, opts)
		wantClean(t, r)
		if v != wantV || (i != wantI && float32((int(i)*37)%251) != wantV) {
			t.Fatalf("%v: best = %v at %d, want %v at %d", opts.Schedule(), v, i, wantV, wantI)
		}
	}
}

func TestRaceLockReleasedByPlainStore(t *testing.T) {
	t.Parallel()
	r, _, _ := runArgmax(t, false, sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "best", at(t, "lkR"), at(t, "lkW"))
	wantRace(t, r, sim.GlobalSpace, "lock", at(t, "lkCAS"), at(t, "lkRel"))
	onlyKinds(t, r, sim.DataRace)
}

// A spin lock whose owner is a warp-mate of the spinners: fine since Volta
// (independent thread scheduling), a deadlock under the lockstep model.
func ownerInWarp(lock, x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		lane := t.LaneID()
		if lane == 31 {
			for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
		}
		t.SyncWarp(sim.FullMask) // lane 31 holds the lock; lanes 0..30 resume first
		if lane != 31 {
			for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
		}
		x.Store(t, 0, x.Load(t, 0)+1)
		t.ThreadFence()
		sim.AtomicExch(t, lock, 0, 0)
	}
}

func TestNoRaceSpinLockOwnerInSameWarp(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(3)} {
		dev := sim.NewDevice(sim.H100)
		lock := zeroed[int32](t, dev, "lock", 1)
		x := zeroed[int32](t, dev, "x", 1)
		wantClean(t, exec(t, dev, lin(1, 32, opts), ownerInWarp(lock, x)))
		if got := x.ToHost()[0]; got != 32 {
			t.Fatalf("x = %d, want 32", got)
		}
	}
}

// ---------------------------------------------------------------------------
// last-block-done sum (CUDA C Programming Guide, memory fence functions)

const lbB = 64

func lastBlockSum(in, partial, total *sim.Buffer[float32], count *sim.Buffer[uint32], releaseFence, wholeBlock bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "sum", lbB)
		amLast := sim.Shared[int32](t, "amLast", 1)
		tid := t.ThreadIdx.X
		reduce := func() {
			for stride := lbB / 2; stride > 0; stride /= 2 {
				if tid < stride {
					s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
				}
				t.SyncThreads()
			}
		}
		s.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		reduce()
		if tid == 0 {
			partial.Store(t, t.BlockIdx.X, s.Load(t, 0)) //@lbW
			if releaseFence {
				t.ThreadFence()
			}
			ticket := sim.AtomicInc(t, count, 0, uint32(t.GridDim.X))
			last := ticket == uint32(t.GridDim.X-1)
			if last {
				t.ThreadFence() // acquire what the other blocks published
			}
			amLast.Store(t, 0, b2i(last))
		}
		t.SyncThreads()
		if amLast.Load(t, 0) == 0 {
			return
		}
		if !wholeBlock {
			if tid == 0 {
				var sum float32
				for b := 0; b < t.GridDim.X; b++ {
					sum += partial.Load(t, b) //@lbR
				}
				total.Store(t, 0, sum)
				count.Store(t, 0, 0)
			}
			return
		}
		// calculateTotalSum: the whole last block reduces the partials.
		var v float32
		for b := tid; b < t.GridDim.X; b += lbB {
			v += partial.Load(t, b) //@lbAllR
		}
		s.Store(t, tid, v)
		t.SyncThreads()
		reduce()
		if tid == 0 {
			total.Store(t, 0, s.Load(t, 0))
			count.Store(t, 0, 0)
		}
	}
}

func runLastBlock(t *testing.T, fence, whole bool, launches int) (*sim.Report, float32, float32) {
	const grid = 8
	dev := sim.NewDevice(sim.H100)
	src := iota32(grid*lbB, func(i int) float32 { return float32(i % 5) })
	var want float32
	for _, v := range src {
		want += v
	}
	in := host(t, dev, "in", src)
	partial := zeroed[float32](t, dev, "result", grid)
	total := zeroed[float32](t, dev, "total", 1)
	count := zeroed[uint32](t, dev, "count", 1)
	var r *sim.Report
	for k := 0; k < launches && r == nil; k++ {
		total.Memset(0)
		r = exec(t, dev, lin(grid, lbB), lastBlockSum(in, partial, total, count, fence, whole))
		if r == nil && total.ToHost()[0] != want {
			t.Fatalf("launch %d: total = %v, want %v", k, total.ToHost()[0], want)
		}
	}
	return r, total.ToHost()[0], want
}

func TestNoRaceLastBlockDone(t *testing.T) {
	t.Parallel()
	r, _, _ := runLastBlock(t, true, false, 2) // the second launch checks count was reset
	wantClean(t, r)
}

func TestNoRaceLastBlockDoneWholeBlockReads(t *testing.T) {
	t.Parallel()
	r, _, _ := runLastBlock(t, true, true, 2)
	if r.Has(sim.DataRace) {
		wantRace(t, r, sim.GlobalSpace, "result", at(t, "lbW"), at(t, "lbAllR"))
		t.Fatal("threads of the last block read partials after __syncthreads that follows thread 0's acquire; reported as a race:\n" + r.Error())
	}
	wantClean(t, r)
}

func TestRaceLastBlockDoneWithoutFence(t *testing.T) {
	t.Parallel()
	r, _, _ := runLastBlock(t, false, false, 1)
	wantRace(t, r, sim.GlobalSpace, "result", at(t, "lbW"), at(t, "lbR"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// histogram: shared atomics, then a merge into global memory

const histBins = 16

func histogram(data *sim.Buffer[int32], hist *sim.Buffer[uint32], n int, atomicMerge bool) sim.Kernel {
	return func(t *sim.Thread) {
		sh := sim.Shared[uint32](t, "shHist", histBins)
		tid := t.ThreadIdx.X
		if tid < histBins {
			sh.Store(t, tid, 0)
		}
		t.SyncThreads()
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			sim.AtomicAdd(t, sh, int(data.Load(t, i))%histBins, 1)
		}
		t.SyncThreads()
		if tid < histBins {
			c := sh.Load(t, tid)
			if atomicMerge {
				sim.AtomicAdd(t, hist, tid, c)
			} else {
				old := hist.Load(t, tid)  //@histR
				hist.Store(t, tid, old+c) //@histW
			}
		}
	}
}

func runHistogram(t *testing.T, atomic bool) (*sim.Report, []uint32, []uint32) {
	const n = 1000
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, n)
	want := make([]uint32, histBins)
	for i := range h {
		h[i] = int32(i*i + 3*i)
		want[int(h[i])%histBins]++
	}
	data := host(t, dev, "data", h)
	hist := zeroed[uint32](t, dev, "hist", histBins)
	r := exec(t, dev, lin(4, 64), histogram(data, hist, n, atomic))
	return r, hist.ToHost(), want
}

func TestNoRaceHistogramAtomicMerge(t *testing.T) {
	t.Parallel()
	r, got, want := runHistogram(t, true)
	wantClean(t, r)
	for b := range want {
		if got[b] != want[b] {
			t.Fatalf("hist[%d] = %d, want %d", b, got[b], want[b])
		}
	}
}

func TestRaceHistogramPlainMerge(t *testing.T) {
	t.Parallel()
	r, _, _ := runHistogram(t, false)
	f := wantRace(t, r, sim.GlobalSpace, "hist", at(t, "histR"), at(t, "histW"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// stream compaction: claiming output slots

func compact(in, out *sim.Buffer[int32], cnt *sim.Buffer[uint32], mode string) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		v := in.Load(t, i)
		switch mode {
		case "atomic":
			if v > 0 {
				out.Store(t, int(sim.AtomicAdd(t, cnt, 0, 1)), v)
			}
		case "plain":
			if v > 0 {
				pos := cnt.Load(t, 0)  //@cpR
				cnt.Store(t, 0, pos+1) //@cpW
				out.Store(t, int(pos), v)
			}
		case "warpagg", "warpshared", "warpsharedsync":
			keep := v > 0
			ballot := t.BallotSync(sim.FullMask, keep)
			if ballot == 0 {
				return
			}
			lane := t.LaneID()
			leader := bits.TrailingZeros32(ballot)
			var base uint32
			if mode == "warpagg" {
				if lane == leader {
					base = sim.AtomicAdd(t, cnt, 0, uint32(bits.OnesCount32(ballot)))
				}
				base = sim.ShflSync(t, sim.FullMask, base, leader)
			} else {
				wb := sim.Shared[uint32](t, "warpBase", 8)
				if lane == leader {
					wb.Store(t, t.WarpID(), sim.AtomicAdd(t, cnt, 0, uint32(bits.OnesCount32(ballot)))) //@wbW
				}
				if mode == "warpsharedsync" {
					t.SyncWarp(sim.FullMask)
				}
				base = wb.Load(t, t.WarpID()) //@wbR
			}
			if keep {
				rank := bits.OnesCount32(ballot & (1<<lane - 1))
				out.Store(t, int(base)+rank, v)
			}
		}
	}
}

func runCompact(t *testing.T, mode string, opts sim.Options) (*sim.Report, []int32, []int32) {
	const n = 256
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, n)
	var want []int32
	for i := range h {
		h[i] = int32((i*7)%11 - 5)
		if i/32 == 5 {
			h[i] = -1 // a warp with nothing to keep
		}
		if h[i] > 0 {
			want = append(want, h[i]*1000+int32(i))
			h[i] = h[i]*1000 + int32(i)
		}
	}
	in := host(t, dev, "in", h)
	out := host(t, dev, "out", make([]int32, n))
	cnt := zeroed[uint32](t, dev, "cnt", 1)
	r := exec(t, dev, lin(2, 128, opts), compact(in, out, cnt, mode))
	got := out.ToHost()[:cnt.ToHost()[0]]
	sort.Slice(got, func(a, b int) bool { return got[a] < got[b] })
	sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
	return r, got, want
}

func checkCompact(t *testing.T, got, want []int32) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("compacted %d values %v\nwant %d values %v", len(got), got, len(want), want)
	}
}

func TestNoRaceCompactionAtomicCounter(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(4)} {
		r, got, want := runCompact(t, "atomic", opts)
		wantClean(t, r)
		checkCompact(t, got, want)
	}
}

func TestRaceCompactionPlainCounter(t *testing.T) {
	t.Parallel()
	r, _, _ := runCompact(t, "plain", sim.Options{})
	wantRace(t, r, sim.GlobalSpace, "cnt", at(t, "cpR"), at(t, "cpW"))
	onlyKinds(t, r, sim.DataRace)
}

func TestNoRaceWarpAggregatedAtomics(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(6)} {
		r, got, want := runCompact(t, "warpagg", opts)
		wantClean(t, r)
		checkCompact(t, got, want)
	}
}

func TestNoRaceWarpAggregatedBaseViaSharedAndSyncWarp(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(7)} {
		r, got, want := runCompact(t, "warpsharedsync", opts)
		wantClean(t, r)
		checkCompact(t, got, want)
	}
}

func TestRaceWarpAggregatedBaseViaSharedNoSyncWarp(t *testing.T) {
	t.Parallel()
	r, _, _ := runCompact(t, "warpshared", sim.Options{})
	wantRace(t, r, sim.SharedSpace, "warpBase", at(t, "wbW"), at(t, "wbR"))
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// a software grid barrier (every thread arrives and polls), then each block
// reads its neighbour block's data

func gridBarrier(data, out *sim.Buffer[int32], arrive *sim.Buffer[uint32], fences bool) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		total := t.GridDim.X * t.BlockDim.X
		data.Store(t, i, int32(i*3)) //@gbW
		if fences {
			t.ThreadFence()
		}
		sim.AtomicAdd(t, arrive, 0, 1)
		for sim.AtomicAdd(t, arrive, 0, 0) < uint32(total) {
		}
		if fences {
			t.ThreadFence()
		}
		out.Store(t, i, data.Load(t, (i+t.BlockDim.X)%total)) //@gbR
	}
}

func runGridBarrier(t *testing.T, fences bool, opts sim.Options) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 128)
	out := zeroed[int32](t, dev, "out", 128)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	r := exec(t, dev, lin(4, 32, opts), gridBarrier(data, out, arrive, fences))
	return r, out.ToHost()
}

func TestNoRaceSoftwareGridBarrier(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(8)} {
		r, out := runGridBarrier(t, true, opts)
		wantClean(t, r)
		for i, v := range out {
			if v != int32((i+32)%128*3) {
				t.Fatalf("out[%d] = %d", i, v)
			}
		}
	}
}

func TestRaceSoftwareGridBarrierWithoutFences(t *testing.T) {
	t.Parallel()
	r, _ := runGridBarrier(t, false, sim.Options{})
	f := wantRace(t, r, sim.GlobalSpace, "data", at(t, "gbW"), at(t, "gbR"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// chained (decoupled look-back style) scan: each block waits for its
// predecessor's inclusive prefix; block ids come from an atomic ticket.
// Every block also reads block 0's prefix, which it learns of only through
// the chain of release/acquire pairs (transitivity).

const csB = 32

func chainedScan(in, out, prefix, first *sim.Buffer[int32], flags, ticket *sim.Buffer[uint32], acquire, reverse bool) sim.Kernel {
	return func(t *sim.Thread) {
		bid := sim.Shared[int32](t, "bid", 1)
		base := sim.Shared[int32](t, "base", 1)
		tid := t.ThreadIdx.X
		if tid == 0 {
			b := int32(sim.AtomicAdd(t, ticket, 0, 1))
			if reverse { // later tickets first: the first block resident waits for blocks not yet admitted
				b = int32(t.GridDim.X) - 1 - b
			}
			bid.Store(t, 0, b)
		}
		t.SyncThreads()
		b := int(bid.Load(t, 0))
		i := b*csB + tid
		v := in.Load(t, i)
		for d := 1; d < 32; d *= 2 {
			u := sim.ShflUpSync(t, sim.FullMask, v, d)
			if t.LaneID() >= d {
				v += u
			}
		}
		if tid == csB-1 {
			var excl int32
			if b > 0 {
				for sim.AtomicOr(t, flags, b-1, 0) == 0 {
				}
				if acquire {
					t.ThreadFence()
				}
				excl = prefix.Load(t, b-1) //@csR
				first.Store(t, b, prefix.Load(t, 0))
			}
			prefix.Store(t, b, excl+v) //@csW
			t.ThreadFence()
			sim.AtomicExch(t, flags, b, 1)
			base.Store(t, 0, excl)
		}
		t.SyncThreads()
		out.Store(t, i, v+base.Load(t, 0))
	}
}

func runChainedScan(t *testing.T, acquire, reverse bool, opts sim.Options) (*sim.Report, []int32, []int32, []int32) {
	const grid = 8
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, grid*csB)
	for i := range h {
		h[i] = int32(i%7 - 2)
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", len(h))
	prefix := zeroed[int32](t, dev, "prefix", grid)
	first := zeroed[int32](t, dev, "first", grid)
	flags := zeroed[uint32](t, dev, "flags", grid)
	ticket := zeroed[uint32](t, dev, "ticket", 1)
	r := exec(t, dev, lin(grid, csB, opts), chainedScan(in, out, prefix, first, flags, ticket, acquire, reverse))
	return r, h, out.ToHost(), first.ToHost()
}

func TestNoRaceChainedScan(t *testing.T) {
	t.Parallel()
	for _, reverse := range []bool{false, true} {
		for _, opts := range []sim.Options{{}, random(2)} {
			r, h, out, first := runChainedScan(t, true, reverse, opts)
			wantClean(t, r)
			var acc int32
			for i := range h {
				acc += h[i]
				if out[i] != acc {
					t.Fatalf("reverse=%v: out[%d] = %d, want %d", reverse, i, out[i], acc)
				}
			}
			for b := 1; b < len(first); b++ {
				if first[b] != out[csB-1] {
					t.Fatalf("first[%d] = %d, want %d", b, first[b], out[csB-1])
				}
			}
		}
	}
}

func TestRaceChainedScanWithoutAcquireFence(t *testing.T) {
	t.Parallel()
	r, _, _, _ := runChainedScan(t, false, false, sim.Options{})
	f := wantRace(t, r, sim.GlobalSpace, "prefix", at(t, "csW"), at(t, "csR"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a race between blocks: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// a lock in shared memory, fenced at block scope

func sharedLockSum(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		lock := sim.Shared[int32](t, "slock", 1)
		acc := sim.Shared[int32](t, "sacc", 2)
		tid := t.ThreadIdx.X
		if tid == 0 {
			lock.Store(t, 0, 0)
			acc.Store(t, 0, 0)
			acc.Store(t, 1, 0)
		}
		t.SyncThreads()
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
		}
		t.ThreadFenceBlock()
		acc.Store(t, 0, acc.Load(t, 0)+int32(tid))
		acc.Store(t, 1, acc.Load(t, 1)+1)
		t.ThreadFenceBlock()
		sim.AtomicExch(t, lock, 0, 0)
		t.SyncThreads()
		if tid == 0 {
			out.Store(t, 2*t.BlockIdx.X, acc.Load(t, 0))
			out.Store(t, 2*t.BlockIdx.X+1, acc.Load(t, 1))
		}
	}
}

func TestNoRaceSharedMemoryLockBlockFence(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(11), random(12)} {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 4)
		wantClean(t, exec(t, dev, lin(2, 96, opts), sharedLockSum(out)))
		if got := out.ToHost(); fmt.Sprint(got) != fmt.Sprint([]int32{95 * 96 / 2, 96, 95 * 96 / 2, 96}) {
			t.Fatalf("%v: out = %v", opts.Schedule(), got)
		}
	}
}

// ---------------------------------------------------------------------------
// atomics

func TestNoRaceAtomicCASLoopMultiply(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	prod := host(t, dev, "prod", []uint64{1})
	mx := host(t, dev, "max", []int32{math.MinInt32})
	wantClean(t, exec(t, dev, lin(2, 40, random(11)), func(t *sim.Thread) {
		g := t.GlobalX()
		f := uint64(g%3 + 1)
		old := sim.AtomicCAS(t, prod, 0, 0, 0) // read atomically
		for {
			seen := sim.AtomicCAS(t, prod, 0, old, old*f)
			if seen == old {
				break
			}
			old = seen
		}
		v := int32((g*37)%79) - 40
		o := sim.AtomicCAS(t, mx, 0, math.MinInt32, v)
		for o < v {
			s := sim.AtomicCAS(t, mx, 0, o, v)
			if s == o {
				break
			}
			o = s
		}
	}))
	want := uint64(1)
	wmax := int32(math.MinInt32)
	for g := 0; g < 80; g++ {
		want *= uint64(g%3 + 1)
		wmax = max(wmax, int32((g*37)%79)-40)
	}
	if p := prod.ToHost()[0]; p != want {
		t.Fatalf("product = %d, want %d", p, want)
	}
	if m := mx.ToHost()[0]; m != wmax {
		t.Fatalf("max = %d, want %d", m, wmax)
	}
}

// guideAtomicAddDouble is the Programming Guide's atomicAdd for double:
// a plain first read of the element, then compare-and-swap until the
// guess holds. With readsOnly, every thread also reads the sum plainly
// after its add and never compare-and-swaps with that value: a race the
// loop's acceptance must not hide.
func guideAtomicAddDouble(x *sim.Buffer[float64], seen *sim.Buffer[float64], readAfter bool) sim.Kernel {
	return func(t *sim.Thread) {
		u := sim.Reinterpret[uint64](x)
		old := u.Load(t, 0) // unsigned long long old = *address_as_ull
		for {
			assumed := old
			old = sim.AtomicCAS(t, u, 0, assumed, math.Float64bits(math.Float64frombits(assumed)+1))
			if old == assumed {
				break
			}
		}
		if readAfter {
			seen.Store(t, t.GlobalX(), x.Load(t, 0)) //@guideReadAfter
		}
	}
}

func TestNoRaceGuideAtomicAddDoubleCASLoop(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(3)} {
		dev := sim.NewDevice(sim.H100)
		x := host(t, dev, "x", []float64{0})
		seen := zeroed[float64](t, dev, "seen", 128)
		wantClean(t, exec(t, dev, lin(2, 64, opts), guideAtomicAddDouble(x, seen, false)))
		if got := x.ToHost()[0]; got != 128 {
			t.Fatalf("%v: sum = %v, want 128", opts.Schedule(), got)
		}
	}
}

func TestRacePlainReadOfCASLoopResult(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	x := host(t, dev, "x", []float64{0})
	seen := zeroed[float64](t, dev, "seen", 128)
	r := exec(t, dev, lin(2, 64), guideAtomicAddDouble(x, seen, true))
	f := wantKind(t, r, sim.DataRace)
	found := false
	for _, f := range r.Of(sim.DataRace) {
		found = found || f.Current.Site == at(t, "guideReadAfter") || f.Previous.Site == at(t, "guideReadAfter")
	}
	if !found {
		t.Fatalf("no race names the plain read after the loop (%s); first: %+v\n%v", at(t, "guideReadAfter"), f, r)
	}
}

// The CAS loop's exception covers a plain read racing with atomic
// read-modify-writes only: a plain read of a flag another block stores
// with an atomic store races with it, though the reader compare-and-swaps
// the flag afterwards (found by the differential fuzzer).
func TestRacePlainReadOfAtomicStoreBeforeOwnCAS(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(2, 1), func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed) //@flagStore
			return
		}
		old := flag.Load(t, 0) //@flagRead
		sim.AtomicCAS(t, flag, 0, old, old+1)
	})
	wantRace(t, r, sim.GlobalSpace, "flag", at(t, "flagStore"), at(t, "flagRead"))
}

// A strong store that its own thread's atomicAdd then replaces races with
// another thread's plain read all the same, and the reader's CAS after
// the read excuses only the read's race with the add (a CAS loop's first
// guess), not with the store. The add used to replace the store in the
// shadow cell, and the natural schedule reported nothing (an open finding
// of the differential fuzzer).
func TestRacePlainGuessOfStoreAnRMWReplaced(t *testing.T) {
	t.Parallel()
	for _, scope := range []sim.ThreadScope{sim.ThreadScopeBlock, sim.ThreadScopeDevice} {
		for _, grid := range []int{1, 2} {
			t.Run(fmt.Sprintf("%v/grid %d", scope, grid), func(t *testing.T) {
				eachSchedule(t, func(t *testing.T, o sim.Options) {
					dev := sim.NewDevice(sim.H100)
					x := zeroed[uint32](t, dev, "x", 1)
					cfg := sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(3 - grid), Options: o}
					r := exec(t, dev, cfg, func(t *sim.Thread) {
						if t.BlockIdx.X == 0 && t.ThreadIdx.X == 0 {
							sim.NewAtomicRef(x, 0, scope).Store(t, 1, sim.MemoryOrderRelaxed) //@chainStore
							sim.AtomicAdd(t, x, 0, 1)
							return
						}
						old := x.Load(t, 0) //@chainGuess
						sim.AtomicCAS(t, x, 0, old, old+1)
					})
					wantRace(t, r, sim.GlobalSpace, "x", at(t, "chainStore"), at(t, "chainGuess"))
				})
			})
		}
	}
}

// The store an atomicAdd replaced comes before what comes after the add:
// a poller whose atomic read the add (observation order), and a thread
// ordered after that poller by a fence and a flag, read the element
// plainly without a race. Keeping the store for the race above must not
// report them.
func TestNoRacePlainReadAfterRMWChainFromStore(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		x := zeroed[uint32](t, dev, "x", 1)
		flag := zeroed[uint32](t, dev, "flag", 1)
		out := zeroed[uint32](t, dev, "out", 3)
		wantClean(t, exec(t, dev, lin(3, 1, o), func(t *sim.Thread) {
			switch t.BlockIdx.X {
			case 0:
				sim.NewAtomicRef(x, 0, sim.ThreadScopeDevice).Store(t, 1, sim.MemoryOrderRelaxed)
				sim.AtomicAdd(t, x, 0, 1)
			case 1:
				for sim.AtomicAdd(t, x, 0, 0) != 2 {
				}
				out.Store(t, 1, x.Load(t, 0))
				t.ThreadFence()
				sim.AtomicExch(t, flag, 0, 1)
			case 2:
				for sim.AtomicAdd(t, flag, 0, 0) == 0 {
				}
				t.ThreadFence()
				out.Store(t, 2, x.Load(t, 0))
			}
		}))
	})
}

// A plain read of a counter that other threads add to atomically, by a
// thread that never compare-and-swaps it, is a race as PTX says.
func TestRacePlainReadOfAtomicCounter(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "count", 1)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		sim.AtomicAdd(t, c, 0, 1)                 //@ctrAdd
		out.Store(t, t.ThreadIdx.X, c.Load(t, 0)) //@ctrRead
	})
	wantRace(t, r, sim.GlobalSpace, "count", at(t, "ctrAdd"), at(t, "ctrRead"))
}

func TestNoRaceAtomicIncDecWrap(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 3)
	olds := zeroed[uint32](t, dev, "olds", 100+7)
	c.CopyFromHost([]uint32{0, 0, 50})
	wantClean(t, exec(t, dev, lin(1, 100), func(t *sim.Thread) {
		i := t.ThreadIdx.X
		olds.Store(t, i, sim.AtomicInc(t, c, 0, 9))
		if i < 7 {
			olds.Store(t, 100+i, sim.AtomicDec(t, c, 1, 4))
		}
		if i == 0 {
			sim.AtomicInc(t, c, 2, 9) // old 50 > limit: wraps to 0
		}
	}))
	got := c.ToHost()
	if got[0] != 0 || got[1] != 3 || got[2] != 0 {
		t.Fatalf("counters = %v, want [0 3 0]", got)
	}
	o := olds.ToHost()
	hist := map[uint32]int{}
	for _, v := range o[:100] {
		hist[v]++
	}
	for v := uint32(0); v < 10; v++ {
		if hist[v] != 10 {
			t.Fatalf("AtomicInc olds histogram %v, want each of 0..9 ten times", hist)
		}
	}
	dec := append([]uint32(nil), o[100:]...)
	sort.Slice(dec, func(i, j int) bool { return dec[i] < dec[j] })
	if fmt.Sprint(dec) != "[0 0 1 2 3 4 4]" {
		t.Fatalf("AtomicDec olds %v, want the cycle 0,4,3,2,1,0,4", dec)
	}
}

func TestNoRaceAtomicMinMaxSignedness(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	i32 := host(t, dev, "i32", []int32{0, 0})
	u32 := host(t, dev, "u32", []uint32{math.MaxUint32 / 2, math.MaxUint32 / 2})
	i64 := host(t, dev, "i64", []int64{0, 0})
	u64 := host(t, dev, "u64", []uint64{1 << 40, 1 << 40})
	wantClean(t, exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		g := t.GlobalX()
		v := int32(g) - 40 // -40..23
		sim.AtomicMin(t, i32, 0, v)
		sim.AtomicMax(t, i32, 1, v)
		sim.AtomicMin(t, u32, 0, uint32(v)) // negative values are huge unsigned
		sim.AtomicMax(t, u32, 1, uint32(v))
		sim.AtomicMin(t, i64, 0, int64(v)<<33)
		sim.AtomicMax(t, i64, 1, int64(v)<<33)
		sim.AtomicMin(t, u64, 0, uint64(int64(v)))
		sim.AtomicMax(t, u64, 1, uint64(int64(v)))
	}))
	if g := i32.ToHost(); g[0] != -40 || g[1] != 23 {
		t.Errorf("int32 min/max = %v", g)
	}
	if g := u32.ToHost(); g[0] != 0 || g[1] != math.MaxUint32 {
		t.Errorf("uint32 min/max = %v, want [0 %d]", g, uint32(math.MaxUint32))
	}
	if g := i64.ToHost(); g[0] != -40<<33 || g[1] != 23<<33 {
		t.Errorf("int64 min/max = %v", g)
	}
	if g := u64.ToHost(); g[0] != 0 || g[1] != math.MaxUint64 {
		t.Errorf("uint64 min/max = %v", g)
	}
}

func floatSum(t *testing.T, o sim.Options) (uint32, uint64) {
	dev := sim.NewDevice(sim.H100)
	f := zeroed[float32](t, dev, "f", 1)
	d := zeroed[float64](t, dev, "d", 1)
	wantClean(t, exec(t, dev, lin(4, 64, o), func(t *sim.Thread) {
		g := t.GlobalX()
		x := math.Ldexp(1+float64(g)/7, (g*13)%50-25)
		if g%2 == 1 {
			x = -x
		}
		sim.AtomicAdd(t, f, 0, float32(x))
		sim.AtomicAdd(t, d, 0, x*1e20)
	}))
	return math.Float32bits(f.ToHost()[0]), math.Float64bits(d.ToHost()[0])
}

func TestNoRaceFloatAtomicsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(1), random(99)} {
		a1, b1 := floatSum(t, o)
		a2, b2 := floatSum(t, o)
		if a1 != a2 || b1 != b2 {
			t.Fatalf("seed %d: %#x/%#x vs %#x/%#x", o.Seed(), a1, b1, a2, b2)
		}
	}
}

func TestRacePlainLoadVersusAtomic(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[int32](t, dev, "c", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			sim.AtomicAdd(t, c, 0, 5) //@atomA
		}
		if t.ThreadIdx.X == 33 {
			out.Store(t, 0, c.Load(t, 0)) //@plainR
		}
	})
	f := wantRace(t, r, sim.GlobalSpace, "c", at(t, "atomA"), at(t, "plainR"))
	th := map[int]bool{f.Current.Thread.X: true, f.Previous.Thread.X: true}
	if !th[0] || !th[33] {
		t.Errorf("finding %+v, want threads 0 and 33", f)
	}
}

func TestRacePlainStoreVersusAtomicAcrossBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	r := exec(t, dev, lin(2, 32), func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			if t.BlockIdx.X == 0 {
				sim.AtomicOr(t, c, 0, 1) //@atomOr
			} else {
				c.Store(t, 0, 7) //@plainW
			}
		}
	})
	wantRace(t, r, sim.GlobalSpace, "c", at(t, "atomOr"), at(t, "plainW"))
}

func TestNoRaceMixedAtomicsAcrossBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	c := zeroed[uint32](t, dev, "c", 1)
	wantClean(t, exec(t, dev, lin(3, 64, random(5)), func(t *sim.Thread) {
		switch t.BlockIdx.X {
		case 0:
			sim.AtomicAdd(t, c, 0, 1<<8)
		case 1:
			sim.AtomicOr(t, c, 0, 1<<uint(t.ThreadIdx.X%8))
		case 2:
			sim.AtomicSub(t, c, 0, 1<<8)
		}
	}))
	if g := c.ToHost()[0]; g != 0xff {
		t.Fatalf("c = %#x, want 0xff", g)
	}
}

func TestNoRaceAddOneAtomic(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	if r := launchOn(t, dev, 10, 16, sim.Options{}, func(t *sim.Thread) {
		sim.AtomicAdd(t, x, 0, 1)
	}); r != nil {
		t.Fatal(r)
	}
	if got := x.ToHost()[0]; got != 160 {
		t.Fatalf("x = %v, want 160", got)
	}
}

func mutexKernel(x *sim.Buffer[float64], mutex *sim.Buffer[uint64], fences bool) sim.Kernel {
	return func(t *sim.Thread) {
		for sim.AtomicCAS(t, mutex, 0, 0, 1) != 0 {
		}
		if fences {
			t.ThreadFence()
		}
		x.Store(t, 0, x.Load(t, 0)+1)
		if fences {
			t.ThreadFence()
		}
		sim.AtomicExch(t, mutex, 0, 0)
	}
}

func TestNoRaceMutex(t *testing.T) {
	for _, sched := range []sim.Schedule{sim.NaturalOrder, sim.RandomOrder} {
		dev := sim.NewDevice(sim.H100)
		x := mustF64(t, dev, "x", 1)
		mu, _ := sim.Alloc[uint64](dev, "mutex", 1)
		mu.Memset(0)
		if r := launchOn(t, dev, 10, 16, sim.Options{}.WithSchedule(sched).WithSeed(7), mutexKernel(x, mu, true)); r != nil {
			t.Fatalf("%v: %v", sched, r)
		}
		if got := x.ToHost()[0]; got != 160 {
			t.Fatalf("%v: x = %v, want 160", sched, got)
		}
	}
}

func TestRaceMutexWithoutFences(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	mu, _ := sim.Alloc[uint64](dev, "mutex", 1)
	mu.Memset(0)
	r := launchOn(t, dev, 10, 16, sim.Options{}, mutexKernel(x, mu, false))
	if !r.Has(sim.DataRace) {
		t.Fatalf("no race reported: %v", r)
	}
}

// A consumer that acquires with __threadfence_block does not synchronise
// with a producer in another block (PTX: a fence.cta is not morally strong
// with another CTA's release); __threadfence does, and so does
// __threadfence_block when producer and consumer share a block.

// flagHandoff: thread 0 of block prod writes data, fences (device scope)
// and sets the flag with an atomic; thread 0 of block cons polls the flag
// with an atomic, fences with blockFence's scope, and reads data.
func flagHandoff(data *sim.Buffer[int32], flag *sim.Buffer[uint32], out *sim.Buffer[int32], prod, cons int, blockFence bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		switch t.BlockIdx.X {
		case prod:
			data.Store(t, 0, 42)
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
		case cons:
			for sim.AtomicAdd(t, flag, 0, 0) == 0 {
			}
			if blockFence {
				t.ThreadFenceBlock()
			} else {
				t.ThreadFence()
			}
			out.Store(t, 0, data.Load(t, 0))
		}
	}
}

func runHandoff(t *testing.T, grid, prod, cons int, blockFence bool) (*sim.Report, int32) {
	t.Helper()
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(grid, 32), flagHandoff(data, flag, out, prod, cons, blockFence))
	return r, out.ToHost()[0]
}

func TestRaceAcquireWithBlockFenceAcrossBlocks(t *testing.T) {
	r, _ := runHandoff(t, 2, 0, 1, true)
	f := wantKind(t, r, sim.DataRace)
	if f.Memory != "data" {
		t.Errorf("race on %q, want data:\n%v", f.Memory, r)
	}
}

func TestNoRaceAcquireWithDeviceFenceAcrossBlocks(t *testing.T) {
	r, got := runHandoff(t, 2, 0, 1, false)
	wantClean(t, r)
	if got != 42 {
		t.Fatalf("out = %d, want 42", got)
	}
}

// Within one block a block-scope fence is enough to acquire: producer and
// consumer are threads of different warps of block 0.
func TestNoRaceAcquireWithBlockFenceSameBlock(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		switch t.ThreadIdx.X {
		case 0: // producer, warp 0
			data.Store(t, 0, 42)
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
		case 32: // consumer, warp 1
			for sim.AtomicAdd(t, flag, 0, 0) == 0 {
			}
			t.ThreadFenceBlock()
			out.Store(t, 0, data.Load(t, 0))
		}
	})
	wantClean(t, r)
	if got := out.ToHost()[0]; got != 42 {
		t.Fatalf("out = %d, want 42", got)
	}
}
