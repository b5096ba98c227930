package sim_test

// Kernels written from outside gpusim, in the style of Go's runtime/race
// tests: each TestRace<Name> must be reported (with its kind, memory and both
// source lines), each TestNoRace<Name> must run clean and compute the right
// answer. Source lines are found through "//@name" markers at the end of the
// line that makes the sim call, so the assertions survive edits of this file.

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// helpers

var unseenSrc struct {
	once  sync.Once
	lines []string
	err   error
}

// at returns the site ("sim/unseen_test.go:N") of the line marked //@name.
func at(t *testing.T, name string) string {
	t.Helper()
	unseenSrc.once.Do(func() {
		b, err := os.ReadFile("unseen_test.go")
		unseenSrc.lines, unseenSrc.err = strings.Split(string(b), "\n"), err
	})
	if unseenSrc.err != nil {
		t.Fatal(unseenSrc.err)
	}
	found := ""
	for i, l := range unseenSrc.lines {
		k := strings.LastIndex(l, "//@")
		if k < 0 || strings.TrimSpace(l[k+3:]) != name {
			continue
		}
		if found != "" {
			t.Fatalf("marker //@%s appears twice", name)
		}
		found = fmt.Sprintf("sim/unseen_test.go:%d", i+1)
	}
	if found == "" {
		t.Fatalf("no marker //@%s", name)
	}
	return found
}

func lineNo(t *testing.T, name string) int {
	t.Helper()
	s := at(t, name)
	var n int
	fmt.Sscanf(s[strings.LastIndexByte(s, ':')+1:], "%d", &n)
	return n
}

func exec(t *testing.T, dev *sim.Device, cfg sim.Config, k sim.Kernel) *sim.Report {
	t.Helper()
	err := dev.Launch(cfg, k)
	if err == nil {
		return nil
	}
	r, ok := err.(*sim.Report)
	if !ok {
		t.Fatalf("launch refused: %v", err)
	}
	return r
}

func lin(grid, block int, o ...sim.Options) sim.Config {
	c := sim.Config{Grid: sim.Dim(grid), Block: sim.Dim(block)}
	if len(o) > 0 {
		c.Options = o[0]
	}
	return c
}

func random(seed uint64) sim.Options {
	return sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed)
}

func host[T sim.Elem](t *testing.T, dev *sim.Device, name string, v []T) *sim.Buffer[T] {
	t.Helper()
	b, err := sim.FromHost(dev, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zeroed[T sim.Elem](t *testing.T, dev *sim.Device, name string, n int) *sim.Buffer[T] {
	t.Helper()
	b, err := sim.Alloc[T](dev, name, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Memset(0); err != nil {
		t.Fatal(err)
	}
	return b
}

func wantClean(t *testing.T, r *sim.Report) {
	t.Helper()
	if r != nil {
		t.Fatalf("want no findings, got:\n%v", r)
	}
}

// onlyKinds fails if the report holds a finding of a kind not listed.
func onlyKinds(t *testing.T, r *sim.Report, kinds ...sim.Kind) {
	t.Helper()
	if r == nil {
		return
	}
	for _, f := range r.Findings {
		ok := false
		for _, k := range kinds {
			ok = ok || f.Kind == k
		}
		if !ok {
			t.Errorf("unexpected %v finding:\n%v", f.Kind, f)
		}
	}
}

// wantRace asserts a data race on the named memory between the accesses at
// lines a and b (in either role).
func wantRace(t *testing.T, r *sim.Report, space sim.Space, mem, a, b string) sim.Finding {
	t.Helper()
	for _, f := range r.Of(sim.DataRace) {
		if f.Memory == mem && f.Space == space &&
			(f.Current.Site == a && f.Previous.Site == b || f.Current.Site == b && f.Previous.Site == a) {
			if f.Previous.Host || f.Count < 1 {
				t.Errorf("odd finding %+v", f)
			}
			return f
		}
	}
	t.Fatalf("want a data race on %v %q between %s and %s; report:\n%v", space, mem, a, b, r)
	return sim.Finding{}
}

func wantKind(t *testing.T, r *sim.Report, k sim.Kind) sim.Finding {
	t.Helper()
	fs := r.Of(k)
	if len(fs) == 0 {
		t.Fatalf("want a %v finding; report:\n%v", k, r)
	}
	return fs[0]
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func iota32(n int, f func(i int) float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// ---------------------------------------------------------------------------
// 2-D shared tile transpose

const trT = 16

func transpose(in, out *sim.Buffer[float32], n int, barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		tile := sim.Shared[float32](t, "tile", trT*(trT+1))
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		x, y := t.BlockIdx.X*trT+tx, t.BlockIdx.Y*trT+ty
		if x < n && y < n {
			tile.Store(t, ty*(trT+1)+tx, in.Load(t, y*n+x)) //@trW
		}
		if barrier {
			t.SyncThreads()
		}
		x, y = t.BlockIdx.Y*trT+tx, t.BlockIdx.X*trT+ty
		if x < n && y < n {
			out.Store(t, y*n+x, tile.Load(t, tx*(trT+1)+ty)) //@trR
		}
	}
}

func runTranspose(t *testing.T, barrier bool) (*sim.Report, []float32, []float32) {
	const n = 40
	dev := sim.NewDevice(sim.H100)
	src := iota32(n*n, func(i int) float32 { return float32(i/n*1000 + i%n) })
	in := host(t, dev, "in", src)
	out := zeroed[float32](t, dev, "out", n*n)
	g := (n + trT - 1) / trT
	r := exec(t, dev, sim.Config{Grid: sim.Dim2(g, g), Block: sim.Dim2(trT, trT)}, transpose(in, out, n, barrier))
	return r, src, out.ToHost()
}

func TestNoRaceTileTranspose(t *testing.T) {
	t.Parallel()
	const n = 40
	r, src, got := runTranspose(t, true)
	wantClean(t, r)
	for row := 0; row < n; row++ {
		for col := 0; col < n; col++ {
			if got[row*n+col] != src[col*n+row] {
				t.Fatalf("out[%d][%d] = %v, want %v", row, col, got[row*n+col], src[col*n+row])
			}
		}
	}
}

func TestRaceTileTransposeNoBarrier(t *testing.T) {
	t.Parallel()
	r, _, _ := runTranspose(t, false)
	wantRace(t, r, sim.SharedSpace, "tile", at(t, "trW"), at(t, "trR"))
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

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
// block reduction whose result is read before the final barrier

func normalise(in, out *sim.Buffer[float32], finalBarrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "partial", 128)
		tid, i := t.ThreadIdx.X, t.GlobalX()
		s.Store(t, tid, in.Load(t, i))
		for stride := t.BlockDim.X / 2; stride > 0; stride /= 2 {
			t.SyncThreads()
			if tid < stride {
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride)) //@redW
			}
		}
		if finalBarrier {
			t.SyncThreads()
		}
		total := s.Load(t, 0) //@redR
		out.Store(t, i, in.Load(t, i)/total)
	}
}

func runNormalise(t *testing.T, final bool) (*sim.Report, []float32) {
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(256, func(i int) float32 { return float32(1 + i%128/64) })) // 64 ones, 64 twos per block
	out := zeroed[float32](t, dev, "out", 256)
	r := exec(t, dev, lin(2, 128), normalise(in, out, final))
	return r, out.ToHost()
}

func TestNoRaceBlockReduceBroadcast(t *testing.T) {
	t.Parallel()
	r, out := runNormalise(t, true)
	wantClean(t, r)
	for i, v := range out {
		want := float32(1+i%128/64) / 192
		if v != want {
			t.Fatalf("out[%d] = %v, want %v", i, v, want)
		}
	}
}

func TestRaceBlockReduceReadBeforeFinalBarrier(t *testing.T) {
	t.Parallel()
	r, _ := runNormalise(t, false)
	f := wantRace(t, r, sim.SharedSpace, "partial", at(t, "redW"), at(t, "redR"))
	if f.Index != 0 {
		t.Errorf("race on partial[%d], want partial[0]", f.Index)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// warp reduction with __shfl_xor_sync

const shflN = 20 // valid elements: lanes 20..31 have none

func warpSum(in, out *sim.Buffer[int32], mode string) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		switch mode {
		case "full": // pad with zero, every lane takes part
			var v int32
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off)
			}
			out.Store(t, t.LaneID(), v)
		case "ballot": // only the valid lanes, named by a ballot: xor 16 leaves the mask
			active := t.BallotSync(sim.FullMask, i < shflN)
			if i < shflN {
				v := in.Load(t, i)
				for off := 16; off > 0; off /= 2 {
					v += sim.ShflXorSync(t, active, v, off) //@xorPartial
				}
				out.Store(t, t.LaneID(), v)
			}
		case "halfmask": // every lane calls with a mask naming only the low half
			v := int32(0)
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, 0x0000ffff, v, off) //@xorHalf
			}
			out.Store(t, t.LaneID(), v)
		case "return": // the guard returns before a full-mask collective
			if i >= shflN {
				return
			}
			v := in.Load(t, i)
			for off := 16; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off) //@xorRet
			}
			out.Store(t, t.LaneID(), v)
		case "width16": // two independent 16-lane segments, all lanes present
			v := int32(0)
			if i < shflN {
				v = in.Load(t, i)
			}
			for off := 8; off > 0; off /= 2 {
				v += sim.ShflXorSync(t, sim.FullMask, v, off, 16)
			}
			out.Store(t, t.LaneID(), v)
		}
	}
}

func runWarpSum(t *testing.T, mode string) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, shflN)
	for i := range h {
		h[i] = int32(i + 1)
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), warpSum(in, out, mode))
	return r, out.ToHost()
}

func TestNoRaceShflXorFullMask(t *testing.T) {
	t.Parallel()
	r, out := runWarpSum(t, "full")
	wantClean(t, r)
	for l, v := range out {
		if v != shflN*(shflN+1)/2 {
			t.Fatalf("lane %d: sum %d, want %d", l, v, shflN*(shflN+1)/2)
		}
	}
}

func TestNoRaceShflXorWidth16(t *testing.T) {
	t.Parallel()
	r, out := runWarpSum(t, "width16")
	wantClean(t, r)
	lo, hi := int32(16*17/2), int32(17+18+19+20)
	for l, v := range out {
		want := lo
		if l >= 16 {
			want = hi
		}
		if v != want {
			t.Fatalf("lane %d: segment sum %d, want %d", l, v, want)
		}
	}
}

func TestRaceShflXorBallotMaskReadsOutsideMask(t *testing.T) {
	t.Parallel()
	r, _ := runWarpSum(t, "ballot")
	f := wantKind(t, r, sim.InvalidShuffle)
	if f.Current.Site != at(t, "xorPartial") {
		t.Errorf("invalid shuffle at %s, want %s", f.Current.Site, at(t, "xorPartial"))
	}
	onlyKinds(t, r, sim.InvalidShuffle)
}

func TestRaceShflXorMaskExcludesCallers(t *testing.T) {
	t.Parallel()
	r, _ := runWarpSum(t, "halfmask")
	f := wantKind(t, r, sim.WarpDivergence)
	if !r.Aborted || f.Current.Site != at(t, "xorHalf") {
		t.Errorf("aborted=%v site=%s; want aborted at %s\n%v", r.Aborted, f.Current.Site, at(t, "xorHalf"), r)
	}
}

func TestRaceShflXorAfterGuardReturn(t *testing.T) {
	t.Parallel()
	r, _ := runWarpSum(t, "return")
	f := wantKind(t, r, sim.WarpDivergence)
	if !r.Aborted {
		t.Errorf("not aborted: %v", r)
	}
	if f.Current.Site != at(t, "xorRet") && f.Previous.Site != at(t, "xorRet") {
		t.Errorf("finding does not name the shuffle line %s:\n%v", at(t, "xorRet"), f)
	}
	onlyKinds(t, r, sim.WarpDivergence)
}

// ---------------------------------------------------------------------------
// grid-stride loop

func saxpyGS(x, y *sim.Buffer[float32], a float32, n int, wrongStride bool) sim.Kernel {
	return func(t *sim.Thread) {
		stride := t.GridStrideX()
		if wrongStride {
			stride = t.BlockDim.X // blocks overlap
		}
		for i := t.GlobalX(); i < n; i += stride {
			v := a*x.Load(t, i) + y.Load(t, i) //@gsR
			y.Store(t, i, v)                   //@gsW
		}
	}
}

func runSaxpy(t *testing.T, wrong bool) (*sim.Report, []float32) {
	const n = 1000
	dev := sim.NewDevice(sim.H100)
	x := host(t, dev, "x", iota32(n, func(i int) float32 { return float32(i) }))
	y := host(t, dev, "y", iota32(n, func(i int) float32 { return 1 }))
	r := exec(t, dev, lin(3, 64), saxpyGS(x, y, 2, n, wrong))
	return r, y.ToHost()
}

func TestNoRaceGridStrideLoop(t *testing.T) {
	t.Parallel()
	r, y := runSaxpy(t, false)
	wantClean(t, r)
	for i, v := range y {
		if v != float32(2*i+1) {
			t.Fatalf("y[%d] = %v, want %v", i, v, 2*i+1)
		}
	}
}

func TestRaceGridStrideOverlappingBlocks(t *testing.T) {
	t.Parallel()
	r, y := runSaxpy(t, true)
	f := wantRace(t, r, sim.GlobalSpace, "y", at(t, "gsR"), at(t, "gsW"))
	if f.Current.Block == f.Previous.Block {
		t.Errorf("want a cross-block race, got %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
	if y[64] == 129 {
		t.Errorf("y[64] updated once only; the overlapping blocks should both have added")
	}
}

// ---------------------------------------------------------------------------
// double-buffered shared memory (1-D smoothing), barrier at the swap

const dbB = 64

func smooth(in, out *sim.Buffer[float32], iters int, swapBarrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		buf := sim.Shared[float32](t, "buf", 2*dbB)
		tid := t.ThreadIdx.X
		buf.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		cur := 0
		for k := 0; k < iters; k++ {
			l, r := max(tid-1, 0), min(tid+1, dbB-1)
			v := (buf.Load(t, cur*dbB+l) + 2*buf.Load(t, cur*dbB+tid) + buf.Load(t, cur*dbB+r)) / 4 //@dbR
			buf.Store(t, (1-cur)*dbB+tid, v)                                                        //@dbW
			if swapBarrier {
				t.SyncThreads()
			}
			cur = 1 - cur
		}
		out.Store(t, t.GlobalX(), buf.Load(t, cur*dbB+tid))
	}
}

func TestNoRaceDoubleBufferSmoothing(t *testing.T) {
	t.Parallel()
	const iters = 3
	dev := sim.NewDevice(sim.H100)
	src := iota32(2*dbB, func(i int) float32 { return float32(i * 5 % 8) })
	in := host(t, dev, "in", src)
	out := zeroed[float32](t, dev, "out", 2*dbB)
	wantClean(t, exec(t, dev, lin(2, dbB), smooth(in, out, iters, true)))
	got := out.ToHost()
	for b := 0; b < 2; b++ {
		cur := append([]float32(nil), src[b*dbB:(b+1)*dbB]...)
		for k := 0; k < iters; k++ {
			nxt := make([]float32, dbB)
			for i := range nxt {
				nxt[i] = (cur[max(i-1, 0)] + 2*cur[i] + cur[min(i+1, dbB-1)]) / 4
			}
			cur = nxt
		}
		for i, v := range cur {
			if got[b*dbB+i] != v {
				t.Fatalf("out[%d] = %v, want %v", b*dbB+i, got[b*dbB+i], v)
			}
		}
	}
}

func TestRaceDoubleBufferMissingSwapBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(dbB, func(i int) float32 { return float32(i % 8) }))
	out := zeroed[float32](t, dev, "out", dbB)
	r := exec(t, dev, lin(1, dbB), smooth(in, out, 3, false))
	wantRace(t, r, sim.SharedSpace, "buf", at(t, "dbR"), at(t, "dbW"))
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
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

func TestDeadlockSpinLockOwnerInSameWarpLockstep(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	lock := zeroed[int32](t, dev, "lock", 1)
	x := zeroed[int32](t, dev, "x", 1)
	r := exec(t, dev, lin(1, 32, sim.Options{}.WithWarpModel(sim.Lockstep)), ownerInWarp(lock, x))
	f := wantKind(t, r, sim.Deadlock)
	held := 0
	for _, w := range f.Waiting {
		if strings.Contains(w.At, "held back") {
			held++
		}
	}
	if !r.Aborted || held == 0 || x.ToHost()[0] >= 32 {
		t.Fatalf("aborted=%v, %d held back, x=%d; want a lockstep deadlock:\n%v", r.Aborted, held, x.ToHost()[0], r)
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
// warp-synchronous tail of a reduction, with and without __syncwarp

func warpTail(in, out *sim.Buffer[int32], syncwarp bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "sdata", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		if tid < 32 {
			v := s.Load(t, tid) + s.Load(t, tid+32)
			for off := 16; off > 0; off /= 2 {
				if syncwarp {
					t.SyncWarp(sim.FullMask)
				}
				s.Store(t, tid, v) //@wsW
				if syncwarp {
					t.SyncWarp(sim.FullMask)
				}
				v += s.Load(t, tid+off) //@wsR
			}
			if tid == 0 {
				out.Store(t, t.BlockIdx.X, v)
			}
		}
	}
}

func runWarpTail(t *testing.T, sync bool) (*sim.Report, []int32, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 4*64)
	want := make([]int32, 4)
	for i := range h {
		h[i] = int32(i%13 - 4)
		want[i/64] += h[i]
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 4)
	r := exec(t, dev, lin(4, 64), warpTail(in, out, sync))
	return r, out.ToHost(), want
}

func TestNoRaceWarpSynchronousWithSyncWarp(t *testing.T) {
	t.Parallel()
	r, got, want := runWarpTail(t, true)
	wantClean(t, r)
	for b := range want {
		if got[b] != want[b] {
			t.Fatalf("block %d: %d, want %d", b, got[b], want[b])
		}
	}
}

func TestRaceWarpSynchronousWithoutSyncWarp(t *testing.T) {
	t.Parallel()
	r, _, _ := runWarpTail(t, false)
	f := wantRace(t, r, sim.SharedSpace, "sdata", at(t, "wsW"), at(t, "wsR"))
	if f.Current.Thread.X/32 != f.Previous.Thread.X/32 || f.Current.Block != f.Previous.Block {
		t.Errorf("want a race inside one warp: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// __syncwarp orders a warp, not the block.
func crossWarp(out *sim.Buffer[int32], block bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "xw", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid*3)) //@xwW
		if block {
			t.SyncThreads()
		} else {
			t.SyncWarp(sim.FullMask)
		}
		out.Store(t, tid, s.Load(t, (tid+32)%64)) //@xwR
	}
}

func TestNoRaceNeighbourWarpAfterSyncThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	wantClean(t, exec(t, dev, lin(1, 64), crossWarp(out, true)))
	for i, v := range out.ToHost() {
		if v != int32((i+32)%64*3) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}

func TestRaceNeighbourWarpAfterSyncWarpOnly(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), crossWarp(out, false))
	f := wantRace(t, r, sim.SharedSpace, "xw", at(t, "xwW"), at(t, "xwR"))
	if f.Current.Thread.X/32 == f.Previous.Thread.X/32 {
		t.Errorf("want a race between warps: %v", f)
	}
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// __syncthreads_count / _and / _or, with exited threads

func votes(in, out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i >= n {
			return
		}
		v := in.Load(t, i)
		cnt := t.SyncThreadsCount(v > 0)
		all := t.SyncThreadsAnd(v != 0)
		anyNeg := t.SyncThreadsOr(v < 0)
		if t.ThreadIdx.X == 1 {
			b := t.BlockIdx.X
			out.Store(t, 3*b, int32(cnt))
			out.Store(t, 3*b+1, b2i(all))
			out.Store(t, 3*b+2, b2i(anyNeg))
		}
	}
}

func TestNoRaceSyncThreadsCountAndOr(t *testing.T) {
	t.Parallel()
	const n, B = 100, 64
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i%7 + 1) // positive
	}
	h[5], h[9], h[20] = 0, -3, -1 // block 0: two non-positive, one zero, two negative
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 6)
	wantClean(t, exec(t, dev, lin(2, B), votes(in, out, n)))
	got := out.ToHost()
	want := []int32{B - 3, 0, 1, n - B, 1, 0} // block 1 has 36 live threads, all positive
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("votes = %v, want %v", got, want)
		}
	}
}

// Counting with a shared atomic and reading the count before the barrier.
func countPositive(in, out *sim.Buffer[int32], barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		cnt := sim.Shared[int32](t, "count", 1)
		tid := t.ThreadIdx.X
		if tid == 0 {
			cnt.Store(t, 0, 0)
		}
		t.SyncThreads()
		if in.Load(t, t.GlobalX()) > 0 {
			sim.AtomicAdd(t, cnt, 0, 1) //@cntA
		}
		if barrier {
			t.SyncThreads()
		}
		if tid == 0 {
			out.Store(t, t.BlockIdx.X, cnt.Load(t, 0)) //@cntR
		}
	}
}

func TestNoRaceSharedAtomicCountThenBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 128)
	for i := range h {
		h[i] = int32(i%3 - 1)
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 2)
	wantClean(t, exec(t, dev, lin(2, 64), countPositive(in, out, true)))
	for b, v := range out.ToHost() {
		want := int32(0)
		for _, x := range h[b*64 : b*64+64] {
			want += b2i(x > 0)
		}
		if v != want {
			t.Fatalf("block %d: count %d, want %d", b, v, want)
		}
	}
}

func TestRaceSharedAtomicCountReadBeforeBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 64)
	for i := range h {
		h[i] = 1
	}
	ins := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), countPositive(ins, out, false))
	wantRace(t, r, sim.SharedSpace, "count", at(t, "cntA"), at(t, "cntR"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// barriers in loops and conditionals

func loopBarrier(out *sim.Buffer[float32], uniform bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "ring", 64)
		tid := t.ThreadIdx.X
		trips := 1 + tid%3
		if uniform {
			trips = 3
		}
		var acc float32
		for k := 0; k < trips; k++ {
			s.Store(t, tid, float32(k+tid))
			t.SyncThreads() //@loopBar
			acc += s.Load(t, (tid+1)%64)
			t.SyncThreads()
		}
		out.Store(t, t.GlobalX(), acc) //@loopOut
	}
}

func TestNoRaceBarrierInUniformLoop(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[float32](t, dev, "out", 64)
	wantClean(t, exec(t, dev, lin(1, 64), loopBarrier(out, true)))
	for i, v := range out.ToHost() {
		n := (i + 1) % 64
		if want := float32(3*n + 3); v != want {
			t.Fatalf("out[%d] = %v, want %v", i, v, want)
		}
	}
}

func TestRaceBarrierInPerThreadTripLoop(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[float32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), loopBarrier(out, false))
	f := wantKind(t, r, sim.BarrierDivergence)
	if f.Previous.Site != at(t, "loopBar") {
		t.Errorf("barrier site %q, want %s\n%v", f.Previous.Site, at(t, "loopBar"), r)
	}
	if !strings.Contains(f.Current.Site, fmt.Sprint(lineNo(t, "loopOut"))) {
		t.Errorf("exit site %q does not name line %d\n%v", f.Current.Site, lineNo(t, "loopOut"), r)
	}
}

// Threads drop out of an iterative loop at the bottom of an iteration (they
// exit before reaching the loop's first barrier again); the rest go on.
// Exited threads count as arrived (Volta and later).
func retireLoop(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "vals", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid))
		for k := 0; k < 4; k++ {
			t.SyncThreads() //@retBar
			v := s.Load(t, tid) + s.Load(t, (tid+1)%32)
			t.SyncThreads()
			s.Store(t, tid, v)
			if k == 1 && tid >= 32 {
				return
			}
		}
		out.Store(t, tid, s.Load(t, tid))
	}
}

func TestNoRaceThreadsRetireFromBarrierLoop(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), retireLoop(out))
	if f := r.Of(sim.BarrierDivergence); len(f) > 0 && f[0].Previous.Site == at(t, "retBar") {
		t.Fatal("threads that return at the bottom of a loop iteration, before reaching the loop's first barrier again, are reported as passing it by:\n" + r.Error())
	}
	wantClean(t, r)
	s := make([]int32, 64)
	for i := range s {
		s[i] = int32(i)
	}
	for k := 0; k < 4; k++ {
		nxt := append([]int32(nil), s...)
		for i := 0; i < 32; i++ {
			nxt[i] = s[i] + s[(i+1)%32]
		}
		s = nxt
	}
	for i, v := range out.ToHost()[:32] {
		if v != s[i] {
			t.Fatalf("out[%d] = %d, want %d", i, v, s[i])
		}
	}
}

// Guard-and-return on a 2-D image whose size is not a multiple of the block.
func rightDiff(img, out *sim.Buffer[float32], w, h int) sim.Kernel {
	return func(t *sim.Thread) {
		const B = 8
		tile := sim.Shared[float32](t, "tile2d", B*B)
		x, y := t.GlobalX(), t.GlobalY()
		if x >= w || y >= h {
			return
		}
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		tile.Store(t, ty*B+tx, img.Load(t, y*w+x))
		t.SyncThreads()
		nx := tx + 1
		if nx >= B || x+1 >= w {
			nx = tx
		}
		out.Store(t, y*w+x, tile.Load(t, ty*B+nx)-tile.Load(t, ty*B+tx))
	}
}

func TestNoRaceGuardReturn2D(t *testing.T) {
	t.Parallel()
	const w, h = 13, 11
	src := iota32(w*h, func(i int) float32 { return float32(i * i % 17) })
	for _, opts := range []sim.Options{{}, random(1), random(2)} {
		dev := sim.NewDevice(sim.H100)
		img := host(t, dev, "img", src)
		out := zeroed[float32](t, dev, "out", w*h)
		wantClean(t, exec(t, dev, sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(8, 8), Options: opts}, rightDiff(img, out, w, h)))
		got := out.ToHost()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				nx := x + 1
				if x%8 == 7 || nx >= w {
					nx = x
				}
				if want := src[y*w+nx] - src[y*w+x]; got[y*w+x] != want {
					t.Fatalf("out(%d,%d) = %v, want %v", x, y, got[y*w+x], want)
				}
			}
		}
	}
}

func barrierInIf(in, out *sim.Buffer[float32], active int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "part", 64)
		tid := t.ThreadIdx.X
		if tid < active {
			s.Store(t, tid, in.Load(t, tid))
			t.SyncThreads() //@ifBar
			out.Store(t, tid, s.Load(t, (tid+1)%active))
		} else {
			out.Store(t, tid, 0) //@elseOut
		}
	}
}

func TestNoRaceBarrierInUniformIf(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(64, func(i int) float32 { return float32(i) }))
	out := zeroed[float32](t, dev, "out", 64)
	wantClean(t, exec(t, dev, lin(1, 64), barrierInIf(in, out, 64)))
	for i, v := range out.ToHost() {
		if v != float32((i+1)%64) {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
}

func TestRaceBarrierInsideIf(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(64, func(i int) float32 { return float32(i) }))
	out := zeroed[float32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), barrierInIf(in, out, 48))
	f := wantKind(t, r, sim.BarrierDivergence)
	if f.Previous.Site != at(t, "ifBar") || !strings.Contains(f.Current.Site, fmt.Sprint(lineNo(t, "elseOut"))) {
		t.Errorf("finding names %q and %q, want the barrier %s and line %d:\n%v",
			f.Current.Site, f.Previous.Site, at(t, "ifBar"), lineNo(t, "elseOut"), r)
	}
}

// The same bug with the barrier inside a helper (a blockReduce-style device
// function), called under a data-dependent condition.
func blockSumHelper(t *sim.Thread, s *sim.Buffer[int32], v int32) int32 {
	tid := t.ThreadIdx.X
	s.Store(t, tid, v)
	t.SyncThreads() //@helperBar
	for stride := 32; stride > 0; stride /= 2 {
		if tid < stride {
			s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
		}
		t.SyncThreads()
	}
	return s.Load(t, 0)
}

func helperBarrierKernel(in, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "hs", 64)
		v := in.Load(t, t.GlobalX())
		if v > 0 { // not uniform: some threads skip the helper's barriers
			v = blockSumHelper(t, s, v)
		}
		out.Store(t, t.GlobalX(), v) //@helperOut
	}
}

func TestRaceBarrierInHelperUnderDivergentIf(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 64)
	for i := range h {
		h[i] = int32(i%4 - 1) // a quarter are negative, a quarter zero
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), helperBarrierKernel(in, out))
	if !r.Has(sim.BarrierDivergence) {
		t.Fatal("barrier divergence missed when the barrier is in a helper function: threads that skip the helper run kernel lines after the call and exit, but the past-line check compares lines only within the barrier's own function\nreport: " + fmt.Sprint(r))
	}
	f := wantKind(t, r, sim.BarrierDivergence)
	if f.Previous.Site != at(t, "helperBar") || !strings.Contains(f.Current.Site, fmt.Sprint(lineNo(t, "helperOut"))) {
		t.Errorf("finding names %q and %q, want the barrier %s and line %d", f.Current.Site, f.Previous.Site, at(t, "helperBar"), lineNo(t, "helperOut"))
	}
}

func TestRaceIfElseDifferentBarriers(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		if tid%2 == 0 {
			out.Store(t, tid, 1)
			t.SyncThreads() //@evenBar
		} else {
			t.SyncThreads() //@oddBar
			out.Store(t, tid, 2)
		}
	})
	f := wantKind(t, r, sim.BarrierDivergence)
	a, b := at(t, "evenBar"), at(t, "oddBar")
	if !(f.Current.Site == a && f.Previous.Site == b || f.Current.Site == b && f.Previous.Site == a) {
		t.Errorf("finding names %s and %s, want %s and %s", f.Current.Site, f.Previous.Site, a, b)
	}
}

// ---------------------------------------------------------------------------
// uninitialised shared memory: a 3-point stencil whose halo is not loaded

const haloB = 32

func stencil3(in, out *sim.Buffer[float32], n int, loadHalo bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "halo", haloB+2)
		tid, i := t.ThreadIdx.X, t.GlobalX()
		s.Store(t, tid+1, in.Load(t, i))
		if loadHalo {
			if tid == 0 {
				s.Store(t, 0, in.Load(t, max(i-1, 0)))
			}
			if tid == haloB-1 {
				s.Store(t, haloB+1, in.Load(t, min(i+1, n-1)))
			}
		}
		t.SyncThreads()
		out.Store(t, i, s.Load(t, tid)+s.Load(t, tid+1)+s.Load(t, tid+2)) //@haloR
	}
}

func TestNoRaceStencilWithHalo(t *testing.T) {
	t.Parallel()
	const n = 4 * haloB
	dev := sim.NewDevice(sim.H100)
	src := iota32(n, func(i int) float32 { return float32(i % 9) })
	in := host(t, dev, "in", src)
	out := zeroed[float32](t, dev, "out", n)
	wantClean(t, exec(t, dev, lin(4, haloB), stencil3(in, out, n, true)))
	for i, v := range out.ToHost() {
		if want := src[max(i-1, 0)] + src[i] + src[min(i+1, n-1)]; v != want {
			t.Fatalf("out[%d] = %v, want %v", i, v, want)
		}
	}
}

func TestRaceStencilHaloUninitialised(t *testing.T) {
	t.Parallel()
	const n = 4 * haloB
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(n, func(i int) float32 { return 1 }))
	out := zeroed[float32](t, dev, "out", n)
	r := exec(t, dev, lin(4, haloB), stencil3(in, out, n, false))
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "halo" || f.Space != sim.SharedSpace || f.Index != 0 || f.Current.Site != at(t, "haloR") {
		t.Errorf("finding %v, want halo[0] read at %s", f, at(t, "haloR"))
	}
	if f.Count != 8 { // halo[0] and halo[33], once per element per block (same line: one finding)
		t.Errorf("%d uninitialised halo reads, want 8 (two per block)", f.Count)
	}
	onlyKinds(t, r, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// out of bounds: a forward difference that reads one past the end

func forwardDiff(in, out *sim.Buffer[float32], n int, guardLast bool) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		limit := n
		if guardLast {
			limit = n - 1
		}
		if i < limit {
			out.Store(t, i, in.Load(t, i+1)-in.Load(t, i)) //@fdR
		}
	}
}

func TestNoRaceForwardDifference(t *testing.T) {
	t.Parallel()
	const n = 100
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(n, func(i int) float32 { return float32(i * i) }))
	out := zeroed[float32](t, dev, "out", n)
	wantClean(t, exec(t, dev, lin(4, 32), forwardDiff(in, out, n, true)))
	for i, v := range out.ToHost()[:n-1] {
		if v != float32(2*i+1) {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
}

func TestRaceForwardDifferenceReadsPastEnd(t *testing.T) {
	t.Parallel()
	const n = 100
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(n, func(i int) float32 { return float32(i) }))
	out := zeroed[float32](t, dev, "out", n)
	r := exec(t, dev, lin(4, 32), forwardDiff(in, out, n, false))
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Memory != "in" || f.Index != n || f.Current.Op != "read" ||
		f.Current.Site != at(t, "fdR") || f.Current.Thread.X != 3 || f.Current.Block.X != 3 {
		t.Errorf("finding %+v, want read of in[%d] by block 3 thread 3 at %s", f, n, at(t, "fdR"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
}

// ---------------------------------------------------------------------------
// deadlock and livelock must be reported promptly

// "Promptly" is measured in simulated work, not wall time, so that the
// bound holds under -race too: the pollers' iterations are counted by the
// kernel itself (deferred, so the abort's unwinding reports them).

func TestDeadlockFlagNeverSetAtomicPoll(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var polls atomic.Int64
	r := exec(t, dev, lin(3, 64), func(t *sim.Thread) {
		if t.BlockIdx.X == 2 {
			if t.ThreadIdx.X == t.BlockDim.X { // off by one: never true
				sim.AtomicExch(t, flag, 0, 1)
			}
			return
		}
		n := int64(0)
		defer func() { polls.Add(n) }()
		for sim.AtomicOr(t, flag, 0, 0) == 0 { //@neverPoll
			n++
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if !r.Aborted || len(f.Waiting) != 128 {
		t.Fatalf("aborted=%v waiting=%d, want 128 spinners:\n%v", r.Aborted, len(f.Waiting), r)
	}
	for _, w := range f.Waiting {
		if w.Site != at(t, "neverPoll") || !strings.Contains(w.At, "spin") {
			t.Fatalf("waiting entry %+v, want spinning at %s", w, at(t, "neverPoll"))
		}
	}
	if p := polls.Load(); p > 128*1000 {
		t.Errorf("%d polls (%d per thread) before the deadlock was reported", p, p/128)
	}
}

func TestDeadlockFlagNeverSetPlainPoll(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	flag := zeroed[int32](t, dev, "flag", 1)
	var polls atomic.Int64
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		n := int64(0)
		defer func() { polls.Add(n) }()
		for flag.Load(t, 0) == 0 { //@neverPlain
			n++
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	if len(f.Waiting) != 32 || f.Waiting[0].Site != at(t, "neverPlain") {
		t.Fatalf("want 32 spinners at %s:\n%v", at(t, "neverPlain"), r)
	}
	onlyKinds(t, r, sim.Deadlock)
	// The spin watch looks every 4096 accesses, and 64 idle rounds make a
	// deadlock: some 270k loads per thread. Allow 1M.
	if p := polls.Load(); p > 32*1000000 {
		t.Errorf("%d polls (%d per thread) before the livelock was reported", p, p/32)
	}
	t.Logf("%d polls per thread", polls.Load()/32)
}

// Thread 1 waits for a flag that thread 0 sets only after a barrier that
// thread 1 never reaches.
func TestDeadlockBarrierAndSpin(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	start := time.Now()
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		flag := sim.Shared[uint32](t, "ready", 1)
		tid := t.ThreadIdx.X
		if tid == 0 {
			flag.Store(t, 0, 0)
		}
		t.SyncThreads()
		if tid == 1 {
			for sim.AtomicAdd(t, flag, 0, 0) == 0 { //@bsSpin
			}
		}
		t.SyncThreads() //@bsBar
		if tid == 0 {
			sim.AtomicExch(t, flag, 0, 1)
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	var spin, bar int
	for _, w := range f.Waiting {
		switch {
		case w.Site == at(t, "bsSpin") && w.Thread.X == 1:
			spin++
		case w.Site == at(t, "bsBar") && w.At == "SyncThreads":
			bar++
		}
	}
	if spin != 1 || bar != 63 {
		t.Errorf("spinning %d (want 1), at barrier %d (want 63):\n%v", spin, bar, r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("deadlock took %v to report", el)
	}
}

// ---------------------------------------------------------------------------
// a schedule-dependent bug: the consumer reads the data only if it sees the
// flag, and forgets the acquire fence. Whether the race happens depends on
// the interleaving; each seed must give the same answer every time.

func oneShot(data, seen *sim.Buffer[int32], flag *sim.Buffer[uint32], acquire bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			data.Store(t, 0, 42) //@osW
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
			return
		}
		if sim.AtomicOr(t, flag, 0, 0) == 1 {
			if acquire {
				t.ThreadFence()
			}
			seen.Store(t, 0, data.Load(t, 0)) //@osR
		} else {
			seen.Store(t, 0, -1)
		}
	}
}

func runOneShot(t *testing.T, acquire bool, opts sim.Options) (string, int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	seen := zeroed[int32](t, dev, "seen", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(1, 2, opts), oneShot(data, seen, flag, acquire))
	if r != nil {
		onlyKinds(t, r, sim.DataRace)
		wantRace(t, r, sim.GlobalSpace, "data", at(t, "osW"), at(t, "osR"))
		return r.Error(), seen.ToHost()[0]
	}
	return "", seen.ToHost()[0]
}

func TestRaceScheduleDependentMissingAcquire(t *testing.T) {
	t.Parallel()
	if rep, seen := runOneShot(t, false, sim.Options{}); rep == "" || seen != 42 {
		t.Fatalf("natural order: seen=%d report=%q; want the race", seen, rep)
	}
	raced, missed := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		rep, seen := runOneShot(t, false, random(seed))
		rep2, seen2 := runOneShot(t, false, random(seed))
		if rep != rep2 || seen != seen2 {
			t.Fatalf("seed %d not deterministic: %q/%d vs %q/%d", seed, rep, seen, rep2, seen2)
		}
		switch {
		case seen == 42 && rep != "":
			raced++
		case seen == -1 && rep == "":
			missed++
		default:
			t.Fatalf("seed %d: seen=%d but report=%q", seed, seen, rep)
		}
	}
	if raced == 0 || missed == 0 {
		t.Errorf("40 seeds: %d raced, %d did not see the flag; want both interleavings explored", raced, missed)
	}
}

func TestNoRaceScheduleDependentWithAcquire(t *testing.T) {
	t.Parallel()
	saw := map[int32]bool{}
	for seed := uint64(0); seed <= 40; seed++ {
		opts := random(seed)
		if seed == 0 {
			opts = sim.Options{}
		}
		rep, seen := runOneShot(t, true, opts)
		if rep != "" || (seen != 42 && seen != -1) {
			t.Fatalf("seed %d: seen=%d report:\n%s", seed, seen, rep)
		}
		saw[seen] = true
	}
	if !saw[42] || !saw[-1] {
		t.Errorf("outcomes seen: %v; want both", saw)
	}
}

// ---------------------------------------------------------------------------
// in-place stencil in global memory

func jacobiStep(u, v *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i > 0 && i < n-1 {
			x := (u.Load(t, i-1) + u.Load(t, i+1)) / 2 //@jR
			v.Store(t, i, x)                           //@jW
		}
	}
}

func TestNoRaceJacobiOutOfPlace(t *testing.T) {
	t.Parallel()
	const n = 96
	dev := sim.NewDevice(sim.H100)
	src := iota32(n, func(i int) float32 { return float32(i % 4 * 2) })
	u := host(t, dev, "u", src)
	v := host(t, dev, "v", src)
	wantClean(t, exec(t, dev, lin(3, 32), jacobiStep(u, v, n)))
	for i, x := range v.ToHost() {
		want := src[i]
		if i > 0 && i < n-1 {
			want = (src[i-1] + src[i+1]) / 2
		}
		if x != want {
			t.Fatalf("v[%d] = %v, want %v", i, x, want)
		}
	}
}

func TestRaceJacobiInPlace(t *testing.T) {
	t.Parallel()
	const n = 96
	dev := sim.NewDevice(sim.H100)
	u := host(t, dev, "u", iota32(n, func(i int) float32 { return float32(i % 4) }))
	r := exec(t, dev, lin(3, 32), jacobiStep(u, u, n))
	wantRace(t, r, sim.GlobalSpace, "u", at(t, "jR"), at(t, "jW"))
	wantRace(t, r, sim.GlobalSpace, "u", at(t, "jW"), at(t, "jR"))
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
// tiled matrix multiply, with and without the barrier that protects the
// tiles from the next iteration's loads

const mmT = 4

func matmul(A, B, C *sim.Buffer[float32], n int, second bool) sim.Kernel {
	return func(t *sim.Thread) {
		As := sim.Shared[float32](t, "As", mmT*mmT)
		Bs := sim.Shared[float32](t, "Bs", mmT*mmT)
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row, col := t.GlobalY(), t.GlobalX()
		var acc float32
		for k0 := 0; k0 < n; k0 += mmT {
			As.Store(t, ty*mmT+tx, A.Load(t, row*n+k0+tx)) //@mmW
			Bs.Store(t, ty*mmT+tx, B.Load(t, (k0+ty)*n+col))
			t.SyncThreads()
			for k := 0; k < mmT; k++ {
				acc += As.Load(t, ty*mmT+k) * Bs.Load(t, k*mmT+tx) //@mmR
			}
			if second {
				t.SyncThreads()
			}
		}
		C.Store(t, row*n+col, acc)
	}
}

func runMatmul(t *testing.T, second bool) (*sim.Report, []float32, []float32) {
	const n = 16
	dev := sim.NewDevice(sim.H100)
	a := iota32(n*n, func(i int) float32 { return float32(i%5 - 2) })
	b := iota32(n*n, func(i int) float32 { return float32(i%3 + 1) })
	A, B := host(t, dev, "A", a), host(t, dev, "B", b)
	C := zeroed[float32](t, dev, "C", n*n)
	r := exec(t, dev, sim.Config{Grid: sim.Dim2(n/mmT, n/mmT), Block: sim.Dim2(mmT, mmT)}, matmul(A, B, C, n, second))
	want := make([]float32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				want[i*n+j] += a[i*n+k] * b[k*n+j]
			}
		}
	}
	return r, C.ToHost(), want
}

func TestNoRaceTiledMatmul(t *testing.T) {
	t.Parallel()
	r, got, want := runMatmul(t, true)
	wantClean(t, r)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("C[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestRaceTiledMatmulMissingSecondBarrier(t *testing.T) {
	t.Parallel()
	r, _, _ := runMatmul(t, false)
	wantRace(t, r, sim.SharedSpace, "As", at(t, "mmW"), at(t, "mmR"))
	onlyKinds(t, r, sim.DataRace)
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
// kernel boundaries and uninitialised global memory

func TestNoRaceAcrossKernelLaunches(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	buf, _ := sim.Alloc[int32](dev, "buf", 128)
	out, _ := sim.Alloc[int32](dev, "out", 128)
	wantClean(t, exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		buf.Store(t, t.GlobalX(), int32(t.GlobalX()+7))
	}))
	wantClean(t, exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		i := t.GlobalX()
		out.Store(t, i, buf.Load(t, 127-i)) // written by another block, in the previous launch
		buf.Store(t, 127-i, 0)              // and overwritten: ordered by the launch boundary too
	}))
	for i, v := range out.ToHost() {
		if v != int32(127-i+7) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}

func TestRaceUninitialisedGlobalShortCopy(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in, _ := sim.Alloc[float32](dev, "coeffs", 64)
	in.CopyFromHost(iota32(63, func(i int) float32 { return 1 })) // one element short
	out := zeroed[float32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		out.Store(t, t.ThreadIdx.X, 2*in.Load(t, t.ThreadIdx.X)) //@shortR
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "coeffs" || f.Space != sim.GlobalSpace || f.Index != 63 || f.Count != 1 || f.Current.Site != at(t, "shortR") {
		t.Errorf("finding %+v, want coeffs[63] once at %s", f, at(t, "shortR"))
	}
	onlyKinds(t, r, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// dynamic shared memory: reversing an array in place (NVIDIA's dynamicReverse)

func dynReverse(d *sim.Buffer[int32], barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.DynamicShared[int32](t, "s")
		n := s.Len()
		tid := t.ThreadIdx.X
		s.Store(t, tid, d.Load(t, tid)) //@revW
		if barrier {
			t.SyncThreads()
		}
		d.Store(t, tid, s.Load(t, n-tid-1)) //@revR
	}
}

func runReverse(t *testing.T, barrier bool) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 64)
	for i := range h {
		h[i] = int32(i * 11)
	}
	d := host(t, dev, "d", h)
	r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(64), SharedBytes: 64 * 4}, dynReverse(d, barrier))
	return r, d.ToHost()
}

func TestNoRaceDynamicSharedReverse(t *testing.T) {
	t.Parallel()
	r, d := runReverse(t, true)
	wantClean(t, r)
	for i, v := range d {
		if v != int32((63-i)*11) {
			t.Fatalf("d[%d] = %d", i, v)
		}
	}
}

func TestRaceDynamicSharedReverseNoBarrier(t *testing.T) {
	t.Parallel()
	r, _ := runReverse(t, false)
	wantRace(t, r, sim.SharedSpace, "s", at(t, "revW"), at(t, "revR"))
	u := wantKind(t, r, sim.UninitializedRead)
	if u.Memory != "s" || u.Index != 63 {
		t.Errorf("uninitialised read %v, want s[63] first", u)
	}
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// determinism: the same seed gives the same report text and the same bits

func TestRaceReportDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		var texts []string
		var sums []float32
		for k := 0; k < 2; k++ {
			dev := sim.NewDevice(sim.H100)
			acc := zeroed[float32](t, dev, "acc", 1)
			x := zeroed[float32](t, dev, "x", 1)
			r := exec(t, dev, lin(2, 64, random(seed)), func(t *sim.Thread) {
				sim.AtomicAdd(t, acc, 0, 1/float32(1+t.GlobalX()))
				if t.GlobalX()%3 == 0 {
					x.Store(t, 0, float32(t.GlobalX())) //@detW
				}
			})
			wantRace(t, r, sim.GlobalSpace, "x", at(t, "detW"), at(t, "detW"))
			texts = append(texts, r.Error())
			sums = append(sums, acc.ToHost()[0])
		}
		if texts[0] != texts[1] || math.Float32bits(sums[0]) != math.Float32bits(sums[1]) {
			t.Fatalf("seed %d: runs differ:\n%s\n%v\n---\n%s\n%v", seed, texts[0], sums[0], texts[1], sums[1])
		}
	}
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
// a software grid barrier needs every block resident: 40 blocks of 1024
// threads fit a T4 (one per SM), 41 do not and deadlock, on hardware too.

func leaderGridSync(arrive *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		sim.AtomicAdd(t, arrive, 0, 1)
		for sim.AtomicOr(t, arrive, 0, 0) < uint32(t.GridDim.X) { //@gsyncSpin
		}
	}
}

func TestNoRaceGridSyncAllBlocksResident(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.T4)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	wantClean(t, exec(t, dev, lin(40, 1024), leaderGridSync(arrive)))
	if got := arrive.ToHost()[0]; got != 40 {
		t.Fatalf("arrive = %d, want 40", got)
	}
}

func TestDeadlockGridSyncMoreBlocksThanResident(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.T4)
	arrive := zeroed[uint32](t, dev, "arrive", 1)
	r := exec(t, dev, lin(41, 1024), leaderGridSync(arrive))
	f := wantKind(t, r, sim.Deadlock)
	spin := 0
	for _, w := range f.Waiting {
		if w.Site == at(t, "gsyncSpin") {
			spin++
		}
	}
	if spin != 40 || arrive.ToHost()[0] != 40 {
		t.Fatalf("%d spinning at %s (want 40), arrive = %d:\n%v", spin, at(t, "gsyncSpin"), arrive.ToHost()[0], r)
	}
	if !strings.Contains(f.Detail, "1 of the grid's 41 blocks never started") {
		t.Errorf("the deadlock should name the block that never started: %q", f.Detail)
	}
}

// ---------------------------------------------------------------------------
// 3-D indexing: forgetting the z term makes z-slices overwrite each other

func volume(out *sim.Buffer[int32], forgetZ bool) sim.Kernel {
	return func(t *sim.Thread) {
		x, y, z := t.GlobalX(), t.GlobalY(), t.GlobalZ()
		nx, ny := t.GridDim.X*t.BlockDim.X, t.GridDim.Y*t.BlockDim.Y
		idx := (z*ny+y)*nx + x
		if forgetZ {
			idx = y*nx + x
		}
		out.Store(t, idx, int32(x+100*y+10000*z)) //@volW
	}
}

func TestNoRaceVolume3D(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const nx, ny, nz = 16, 8, 4
	out := zeroed[int32](t, dev, "vol", nx*ny*nz)
	cfg := sim.Config{Grid: sim.Dim3{X: 2, Y: 2, Z: 2}, Block: sim.Dim3{X: 8, Y: 4, Z: 2}}
	wantClean(t, exec(t, dev, cfg, volume(out, false)))
	for i, v := range out.ToHost() {
		x, y, z := i%nx, i/nx%ny, i/(nx*ny)
		if v != int32(x+100*y+10000*z) {
			t.Fatalf("vol[%d] = %d", i, v)
		}
	}
}

func TestRaceVolume3DForgotZ(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "vol", 16*8*4)
	cfg := sim.Config{Grid: sim.Dim3{X: 2, Y: 2, Z: 2}, Block: sim.Dim3{X: 8, Y: 4, Z: 2}}
	r := exec(t, dev, cfg, volume(out, true))
	f := wantRace(t, r, sim.GlobalSpace, "vol", at(t, "volW"), at(t, "volW"))
	if f.Current.Thread.Z == f.Previous.Thread.Z && f.Current.Block.Z == f.Previous.Block.Z {
		t.Errorf("want threads of different z: %v", f)
	}
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// a Go panic in one thread while others wait at a barrier: reported, the
// launch aborted, every suspended thread unwound (its defers run), no later
// block started.

func TestKernelPanicWhileOthersWaitAtBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 128)
	var entered, unwound atomic.Int32
	r := exec(t, dev, lin(2, 64), func(t *sim.Thread) {
		entered.Add(1)
		defer unwound.Add(1)
		s := sim.Shared[int32](t, "p", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid, int32(tid))
		t.SyncThreads()
		d := s.Load(t, (tid+1)%64) - 6
		q := 600 / d //@divZero
		t.SyncThreads()
		out.Store(t, t.GlobalX(), q)
	})
	f := wantKind(t, r, sim.KernelPanic)
	if !r.Aborted || f.Current.Site != at(t, "divZero") || f.Current.Thread.X != 5 || !strings.Contains(f.Detail, "divide by zero") {
		t.Errorf("finding %+v, want thread 5's division at %s", f, at(t, "divZero"))
	}
	if entered.Load() != 64 || unwound.Load() != 64 {
		t.Errorf("entered %d, unwound %d; want 64 and 64 (block 1 never starts)", entered.Load(), unwound.Load())
	}
	onlyKinds(t, r, sim.KernelPanic)
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
// warp collectives: halves of a warp synchronising separately; lanes meeting
// in different collectives; a lane stuck at __syncthreads while its warp
// waits at __syncwarp

func halves(out *sim.Buffer[int32], partner int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "halves", 32)
		lane := t.LaneID()
		s.Store(t, lane, int32(lane*2)) //@hvW
		if lane < 16 {
			t.SyncWarp(0x0000ffff)
		} else {
			t.SyncWarp(0xffff0000)
		}
		out.Store(t, lane, s.Load(t, lane^partner)) //@hvR
	}
}

func TestNoRaceHalfWarpSyncWarpMasks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	wantClean(t, exec(t, dev, lin(1, 32), halves(out, 15)))
	for l, v := range out.ToHost() {
		if v != int32((l^15)*2) {
			t.Fatalf("out[%d] = %d", l, v)
		}
	}
}

func TestRaceHalfWarpSyncWarpReadsOtherHalf(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), halves(out, 16))
	wantRace(t, r, sim.SharedSpace, "halves", at(t, "hvW"), at(t, "hvR"))
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

func TestRaceLanesInDifferentCollectives(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		lane := t.LaneID()
		v := int32(lane)
		if lane < 16 {
			v = sim.ShflDownSync(t, sim.FullMask, v, 1) //@collA
		} else {
			v = int32(t.BallotSync(sim.FullMask, true)) //@collB
		}
		out.Store(t, lane, v)
	})
	var f *sim.Finding
	spurious := ""
	for k, g := range r.Of(sim.WarpDivergence) {
		if strings.Contains(g.Detail, "different collectives") {
			f = &r.Of(sim.WarpDivergence)[k]
		}
		if g.Current.Op == "exit" {
			spurious = g.String()
		}
	}
	if f == nil || !r.Aborted {
		t.Fatalf("want an aborting warp divergence for lanes in different collectives:\n%v", r)
	}
	if !strings.Contains(f.Detail, at(t, "collA")) || f.Current.Site != at(t, "collB") {
		t.Errorf("finding %v, want the shuffle at %s and the ballot at %s", f, at(t, "collA"), at(t, "collB"))
	}
	_ = spurious // see TestWarpAbortNoSpuriousExitFinding
}

// A fatal finding unwinds the thread that caused it; that thread did not
// exit, so its waiting warp-mates must not produce a second finding that
// says it did.
func TestWarpAbortNoSpuriousExitFinding(t *testing.T) {
	t.Parallel()
	cases := map[string]sim.Kernel{
		"collective mismatch": func(t *sim.Thread) {
			if t.LaneID() < 16 {
				sim.ShflDownSync(t, sim.FullMask, int32(1), 1)
			} else {
				t.BallotSync(sim.FullMask, true)
			}
		},
		"panic": func(t *sim.Thread) {
			var table []int
			if t.LaneID() == 20 {
				_ = table[t.LaneID()] // index out of range: a Go panic
			}
			t.SyncWarp(sim.FullMask)
		},
	}
	var bad []string
	for name, k := range cases {
		dev := sim.NewDevice(sim.H100)
		r := exec(t, dev, lin(1, 32), k)
		if r == nil || !r.Aborted {
			t.Fatalf("%s: want an aborted launch, got %v", name, r)
		}
		for _, f := range r.Findings {
			if f.Current.Op == "exit" {
				bad = append(bad, name+": "+f.String())
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatal("a lane unwound by a fatal finding is also reported as a WarpDivergence 'lane N exited without reaching <collective>' (it never exited; the extra finding sorts first in the report):\n" + strings.Join(bad, "\n"))
	}
}

func TestDeadlockSyncWarpVersusSyncThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		if t.LaneID() == 0 {
			t.SyncThreads() //@dlBar
		} else {
			t.SyncWarp(sim.FullMask) //@dlWarp
		}
	})
	f := wantKind(t, r, sim.Deadlock)
	bar, warp := 0, 0
	for _, w := range f.Waiting {
		switch w.Site {
		case at(t, "dlBar"):
			bar++
		case at(t, "dlWarp"):
			warp++
		}
	}
	if bar != 1 || warp != 31 {
		t.Errorf("%d at the barrier, %d at __syncwarp; want 1 and 31:\n%v", bar, warp, r)
	}
}

// ---------------------------------------------------------------------------
// more memory errors

func TestRaceSharedOutOfBoundsWrite(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(64, func(i int) float32 { return float32(i) }))
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		s := sim.Shared[float32](t, "shifted", 64)
		tid := t.ThreadIdx.X
		s.Store(t, tid+1, in.Load(t, tid)) //@oobW
		t.SyncThreads()
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Space != sim.SharedSpace || f.Memory != "shifted" || f.Index != 64 || f.Current.Op != "write" || f.Current.Site != at(t, "oobW") {
		t.Errorf("finding %+v, want a write of shared shifted[64] at %s", f, at(t, "oobW"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
}

func counterKernel(cnt *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		sim.AtomicAdd(t, cnt, t.GlobalX()%4, 1) //@ctrA
	}
}

func TestNoRaceAtomicCounterZeroed(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	cnt := zeroed[uint32](t, dev, "counter", 4)
	wantClean(t, exec(t, dev, lin(2, 64), counterKernel(cnt)))
	if got := cnt.ToHost(); fmt.Sprint(got) != "[32 32 32 32]" {
		t.Fatalf("counter = %v", got)
	}
}

func TestRaceAtomicCounterNeverZeroed(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	cnt, _ := sim.Alloc[uint32](dev, "counter", 4) // cudaMalloc without cudaMemset
	r := exec(t, dev, lin(2, 64), counterKernel(cnt))
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "counter" || f.Index != 0 || f.Count != 4 || f.Current.Op != "atomic" || f.Current.Site != at(t, "ctrA") {
		t.Errorf("finding %+v, want 4 atomic reads of uninitialised counter elements at %s", f, at(t, "ctrA"))
	}
	onlyKinds(t, r, sim.UninitializedRead)
}

// Shared memory does not survive from one block to the next.
func TestRaceSharedCarriedAcrossBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 3)
	r := exec(t, dev, lin(3, 32), func(t *sim.Thread) {
		carry := sim.Shared[int32](t, "carry", 1)
		if t.ThreadIdx.X == 0 {
			c := carry.Load(t, 0) //@carryR
			carry.Store(t, 0, c+1)
			out.Store(t, t.BlockIdx.X, c)
		}
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "carry" || f.Space != sim.SharedSpace || f.Count != 3 || f.Current.Site != at(t, "carryR") {
		t.Errorf("finding %+v, want carry[0] read uninitialised once per block at %s", f, at(t, "carryR"))
	}
	if got := out.ToHost(); fmt.Sprint(got) != "[0 0 0]" {
		t.Errorf("out = %v: a new block's shared memory must read as zero", got)
	}
	onlyKinds(t, r, sim.UninitializedRead)
}

// ---------------------------------------------------------------------------
// volatile-style polling of more flags than the spin watch remembers: block 0
// waits for the flags of blocks 1..12 with plain loads. On hardware it
// completes; the simulator must not hang (the flags are reported as races).

func TestRaceVolatilePollManyFlags(t *testing.T) {
	const producers = 12
	dev := sim.NewDevice(sim.H100)
	flags := zeroed[int32](t, dev, "flags", producers+1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(producers+1, 32), hangLimit, &abandon, func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		if b := t.BlockIdx.X; b > 0 {
			t.ThreadFence()
			flags.Store(t, b, 1) //@mfW
			return
		}
		for {
			all := true
			for b := 1; b <= producers; b++ {
				if flags.Load(t, b) == 0 { //@mfR
					all = false
				}
			}
			if all || abandon.Load() {
				return
			}
		}
	})
	if !ok {
		t.Fatal("a thread polling more than 8 addresses with plain loads is never recognised as spinning: the producer blocks are never admitted and the launch hangs (the test had to tell the kernel to give up)")
	}
	wantRace(t, r, sim.GlobalSpace, "flags", at(t, "mfW"), at(t, "mfR"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// iterative relaxation until no thread changes: __syncthreads_or as the
// loop's exit test (label propagation to the minimum around a ring)

func minLabel(in, out *sim.Buffer[int32], middleBarrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		lab := sim.Shared[int32](t, "label", 64)
		tid, n := t.ThreadIdx.X, t.BlockDim.X
		lab.Store(t, tid, in.Load(t, t.GlobalX()))
		t.SyncThreads()
		for {
			m := min(lab.Load(t, tid), lab.Load(t, (tid+1)%n), lab.Load(t, (tid+n-1)%n)) //@lpR
			changed := m < lab.Load(t, tid)
			if middleBarrier {
				t.SyncThreads()
			}
			if changed {
				lab.Store(t, tid, m) //@lpW
			}
			if !t.SyncThreadsOr(changed) {
				break
			}
		}
		out.Store(t, t.GlobalX(), lab.Load(t, tid))
	}
}

func runMinLabel(t *testing.T, middle bool) (*sim.Report, []int32) {
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 128)
	for i := range h {
		h[i] = int32((i*29)%97 + 3)
	}
	in := host(t, dev, "in", h)
	out := zeroed[int32](t, dev, "out", 128)
	r := exec(t, dev, lin(2, 64), minLabel(in, out, middle))
	want := make([]int32, 128)
	for b := 0; b < 2; b++ {
		m := h[b*64]
		for _, v := range h[b*64 : b*64+64] {
			m = min(m, v)
		}
		for i := 0; i < 64; i++ {
			want[b*64+i] = m
		}
	}
	if r == nil && fmt.Sprint(out.ToHost()) != fmt.Sprint(want) {
		t.Fatalf("labels %v, want %v", out.ToHost(), want)
	}
	return r, out.ToHost()
}

func TestNoRaceRelaxUntilSyncThreadsOr(t *testing.T) {
	t.Parallel()
	r, _ := runMinLabel(t, true)
	wantClean(t, r)
}

func TestRaceRelaxWithoutMiddleBarrier(t *testing.T) {
	t.Parallel()
	r, _ := runMinLabel(t, false)
	wantRace(t, r, sim.SharedSpace, "label", at(t, "lpR"), at(t, "lpW"))
	onlyKinds(t, r, sim.DataRace)
}

// ---------------------------------------------------------------------------
// __match_any_sync: one atomic per group of lanes holding the same key

func TestNoRaceMatchAnyAggregatedHistogram(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	h := make([]int32, 256)
	want := make([]uint32, 8)
	for i := range h {
		h[i] = int32((i*i)%13) % 8
		want[h[i]]++
	}
	keys := host(t, dev, "keys", h)
	hist := zeroed[uint32](t, dev, "hist", 8)
	var atomics atomic.Int32
	wantClean(t, exec(t, dev, lin(2, 128), func(t *sim.Thread) {
		k := keys.Load(t, t.GlobalX())
		peers := sim.MatchAnySync(t, sim.FullMask, k)
		if t.LaneID() == bits.TrailingZeros32(peers) {
			atomics.Add(1)
			sim.AtomicAdd(t, hist, int(k), uint32(bits.OnesCount32(peers)))
		}
	}))
	if got := hist.ToHost(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hist = %v, want %v", got, want)
	}
	if atomics.Load() >= 256 || atomics.Load() < 8 {
		t.Errorf("%d leader atomics: match_any did not group the lanes", atomics.Load())
	}
}

// ---------------------------------------------------------------------------
// the lockstep model: a lock taken by one lane per warp works across warps

func TestNoRaceLockstepWarpLeaderLock(t *testing.T) {
	t.Parallel()
	for _, opts := range []sim.Options{{}, random(5)} {
		opts = opts.WithWarpModel(sim.Lockstep)
		dev := sim.NewDevice(sim.H100)
		lock := zeroed[int32](t, dev, "lock", 1)
		x := zeroed[int32](t, dev, "x", 1)
		wantClean(t, exec(t, dev, lin(2, 128, opts), func(t *sim.Thread) {
			if t.LaneID() != 0 {
				return
			}
			for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
			}
			t.ThreadFence()
			x.Store(t, 0, x.Load(t, 0)+1)
			t.ThreadFence()
			sim.AtomicExch(t, lock, 0, 0)
		}))
		if got := x.ToHost()[0]; got != 8 {
			t.Fatalf("x = %d, want 8", got)
		}
	}
}

// Holding a lock across __syncthreads: the block's other threads spin on the
// lock and never reach the barrier.
func TestDeadlockLockHeldAcrossBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	lock := zeroed[int32](t, dev, "lock", 1)
	start := time.Now()
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 { //@lhSpin
		}
		t.SyncThreads() //@lhBar
		sim.AtomicExch(t, lock, 0, 0)
	})
	f := wantKind(t, r, sim.Deadlock)
	spin, bar := 0, 0
	for _, w := range f.Waiting {
		switch w.Site {
		case at(t, "lhSpin"):
			spin++
		case at(t, "lhBar"):
			bar++
		}
	}
	if bar != 1 || spin != 63 {
		t.Errorf("%d at the barrier, %d spinning; want 1 and 63:\n%v", bar, spin, r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("deadlock took %v", el)
	}
}

// ---------------------------------------------------------------------------
// warp-cooperative polling: the whole warp polls with __any_sync around an
// atomic read. The collective completes on every round, but nothing changes.

// hangLimit is how long a launch may take before a test calls it a hang: far
// above the tens of milliseconds these launches take, so that a slow machine
// or the race detector does not turn into a failure.
const hangLimit = 10 * time.Second

func launchWithin(t *testing.T, dev *sim.Device, cfg sim.Config, limit time.Duration, abandon *atomic.Bool, k sim.Kernel) (*sim.Report, bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- dev.Launch(cfg, k) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		abandon.Store(true)
		<-done
		return nil, false
	}
	if err == nil {
		return nil, true
	}
	r, ok := err.(*sim.Report)
	if !ok {
		t.Fatalf("launch refused: %v", err)
	}
	return r, true
}

func warpPoll(data, out *sim.Buffer[int32], flag *sim.Buffer[uint32], abandon *atomic.Bool, produce bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 1 {
			if produce {
				data.Store(t, t.ThreadIdx.X, int32(t.ThreadIdx.X+100))
				t.ThreadFence()
				sim.AtomicAdd(t, flag, 0, 1)
			}
			return
		}
		for !t.AnySync(sim.FullMask, sim.AtomicOr(t, flag, 0, 0) == 32) { //@wpPoll
			if abandon.Load() {
				return
			}
		}
		t.ThreadFence()
		out.Store(t, t.ThreadIdx.X, data.Load(t, t.ThreadIdx.X))
	}
}

func TestNoRaceWarpCooperativePolling(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(2, 32), hangLimit, &abandon, warpPoll(data, out, flag, &abandon, true))
	if !ok {
		t.Fatal("a warp polling with __any_sync never lets the producer block in: each completed collective counts as progress, so the spin rounds never reach the admission (or deadlock) threshold, and the launch hangs (the test told the kernel to give up)")
	}
	wantClean(t, r)
	for i, v := range out.ToHost() {
		if v != int32(i+100) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}

func TestDeadlockWarpCooperativePollingNeverSet(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 32)
	out := zeroed[int32](t, dev, "out", 32)
	flag := zeroed[uint32](t, dev, "flag", 1)
	var abandon atomic.Bool
	r, ok := launchWithin(t, dev, lin(2, 32), hangLimit, &abandon, warpPoll(data, out, flag, &abandon, false))
	if !ok {
		t.Fatal("livelock of a warp polling with __any_sync is never reported (each completed collective counts as progress); the launch hangs until the test tells the kernel to give up")
	}
	f := wantKind(t, r, sim.Deadlock)
	if len(f.Waiting) == 0 || f.Waiting[0].Site != at(t, "wpPoll") {
		t.Errorf("want the pollers at %s:\n%v", at(t, "wpPoll"), r)
	}
}

// ---------------------------------------------------------------------------
// a long warp-synchronous loop: 32000 __syncwarp between a write and a read.
// Warp-sync clocks are 16 bits compared as signed differences: RATIONALE.md
// documents that ordering holds up to 32767 synchronisations apart.

func TestNoRaceLongSyncWarpLoop(t *testing.T) {
	t.Parallel()
	const rounds = 32000
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "early", 32)
		lane := t.LaneID()
		s.Store(t, lane, int32(lane+1))
		for k := 0; k < rounds; k++ {
			t.SyncWarp(sim.FullMask)
		}
		out.Store(t, lane, s.Load(t, (lane+1)%32))
	})
	wantClean(t, r)
	for l, v := range out.ToHost() {
		if v != int32((l+1)%32+1) {
			t.Fatalf("out[%d] = %d", l, v)
		}
	}
}
