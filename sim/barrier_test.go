package sim_test

// __syncthreads: barriers in loops and conditionals, divergence (threads at
// different barriers, or passing one by), and the barrier votes
// (__syncthreads_count, _and, _or).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

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

func TestBarrierDivergenceInPerThreadTripLoop(t *testing.T) {
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

// treeWithTripBound is the shared tree reduction with the loop bound folded
// into the condition: for stride := 32; stride > bound(tid); stride /= 2,
// with the barrier as the loop body's last statement. With bound = tid,
// lanes of warp 0 leave after different iteration counts while the others
// of their warp wait at the barrier (the classic bug); with a bound that is
// the same for a whole warp, whole warps leave, which is not divergence on
// Volta and later.
func treeWithTripBound(out *sim.Buffer[int32], bound func(tid int) int) sim.Kernel {
	return func(t *sim.Thread) {
		sh := sim.Shared[int32](t, "sh", 64)
		tid := t.ThreadIdx.X
		sh.Store(t, tid, 1)
		t.SyncThreads()
		for stride := 32; stride > bound(tid); stride /= 2 {
			if tid < stride {
				sh.Store(t, tid, sh.Load(t, tid)+sh.Load(t, tid+stride))
			}
			t.SyncThreads() //@tripBottomBar
		}
		if tid == 0 {
			out.Store(t, 0, sh.Load(t, 0))
		}
	}
}

func TestBarrierDivergenceTripLoopBarrierAtBottom(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), treeWithTripBound(out, func(tid int) int { return tid }))
	f := wantKind(t, r, sim.BarrierDivergence)
	if f.Previous.Site != at(t, "tripBottomBar") || f.Current.Site != at(t, "tripBottomBar") {
		t.Errorf("sites %q and %q, want both %s\n%v", f.Current.Site, f.Previous.Site, at(t, "tripBottomBar"), r)
	}
	if !strings.Contains(f.Detail, "left its loop after the barrier") {
		t.Errorf("detail %q does not say the thread left its loop\n%v", f.Detail, r)
	}
}

func TestNoRaceTripLoopBarrierAtBottomWholeWarps(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	// Warp 1 (tids 32-63) never enters; warp 0 runs every iteration.
	wantClean(t, exec(t, dev, lin(1, 64), treeWithTripBound(out, func(tid int) int { return tid / 32 * 32 })))
	if got := out.ToHost()[0]; got != 64 {
		t.Fatalf("sum %d, want 64", got)
	}
}

// syncHelper is __syncthreads in a device function of its own, called from
// more than one line: its barrier stands at one line wherever it is called
// from, and only the call lines tell the calls apart. (noinline keeps the
// call line on the stack: the site lookup sees the innermost function of an
// inlined call only.)
//
//go:noinline
func syncHelper(t *sim.Thread) {
	t.SyncThreads() //@syncHelperBar
}

// helperTwice syncs through syncHelper at two lines, and threads with
// tid%3 != 0 return between the two calls: they return before reaching the
// second barrier, which counts as arrived (Volta and later), as it does with
// SyncThreads written out at both lines.
func helperTwice(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		sh := sim.Shared[int32](t, "sh", 64)
		tid := t.ThreadIdx.X
		sh.Store(t, tid, int32(tid))
		syncHelper(t)
		if tid%3 != 0 {
			return
		}
		v := sh.Load(t, (tid+1)%64)
		syncHelper(t)
		sh.Store(t, tid, v)
		out.Store(t, tid/3, v)
	}
}

func TestNoBarrierDivergenceHelperCalledTwiceReturnBetween(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 22)
	wantClean(t, exec(t, dev, lin(1, 64), helperTwice(out)))
	for i, v := range out.ToHost() {
		if want := int32(3*i+1) % 64; v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

// treeWithHelper is treeWithTripBound (bound = tid) with the barrier at the
// loop's bottom inside syncHelper, which the kernel also calls before the
// loop: lanes of warp 0 leave the loop after different iteration counts
// while others of their warp wait at the same call of the same helper.
func treeWithHelper(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		sh := sim.Shared[int32](t, "sh", 64)
		tid := t.ThreadIdx.X
		sh.Store(t, tid, 1)
		syncHelper(t)
		for stride := 32; stride > tid; stride /= 2 {
			sh.Store(t, tid, sh.Load(t, tid)+sh.Load(t, tid+stride))
			syncHelper(t)
		}
		if tid == 0 {
			out.Store(t, 0, sh.Load(t, 0))
		}
	}
}

func TestBarrierDivergenceTripLoopHelperBarrierAtBottom(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), treeWithHelper(out))
	f := wantKind(t, r, sim.BarrierDivergence)
	if f.Previous.Site != at(t, "syncHelperBar") || f.Current.Site != at(t, "syncHelperBar") {
		t.Errorf("sites %q and %q, want both %s\n%v", f.Current.Site, f.Previous.Site, at(t, "syncHelperBar"), r)
	}
	if want := fmt.Sprintf("left its loop after the barrier at line %d", lineNo(t, "syncHelperBar")); !strings.Contains(f.Detail, want) {
		t.Errorf("detail %q does not say %q\n%v", f.Detail, want, r)
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

func TestBarrierDivergenceInsideIf(t *testing.T) {
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

func TestBarrierDivergenceInHelperUnderDivergentIf(t *testing.T) {
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

func TestBarrierDivergenceIfElseDifferentBarriers(t *testing.T) {
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
// SyncThreadsCount/And/Or

func TestNoRaceBarrierVotesPerPhase(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const B = 96
	out := zeroed[int32](t, dev, "out", 3*5)
	wantClean(t, exec(t, dev, lin(1, B), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", B)
		i := t.ThreadIdx.X
		for k := 0; k < 5; k++ {
			s.Store(t, i, int32(i*k))
			c := t.SyncThreadsCount(i < 10*k+1)
			// the vote barrier orders the store above before the load
			and := t.SyncThreadsAnd(s.Load(t, (i+1)%B) >= 0 && k != 2)
			or := t.SyncThreadsOr(i == 95 && k == 3)
			if i == 50 {
				out.Store(t, 3*k, int32(c))
				out.Store(t, 3*k+1, b2i(and))
				out.Store(t, 3*k+2, b2i(or))
			}
		}
	}))
	want := []int32{1, 1, 0, 11, 1, 0, 21, 0, 0, 31, 1, 1, 41, 1, 0}
	if got := out.ToHost(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("votes = %v, want %v", got, want)
	}
}

// Threads that exited count as arrived; And over the live threads ignores them.
func TestNoRaceBarrierVotesWithExitedThreads(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 3)
	wantClean(t, exec(t, dev, lin(1, 128), func(t *sim.Thread) {
		i := t.ThreadIdx.X
		if i >= 40 {
			return
		}
		c := t.SyncThreadsCount(true)
		a := t.SyncThreadsAnd(true)
		o := t.SyncThreadsOr(false)
		if i == 0 {
			out.Store(t, 0, int32(c))
			out.Store(t, 1, b2i(a))
			out.Store(t, 2, b2i(o))
		}
	}))
	if got := out.ToHost(); fmt.Sprint(got) != "[40 1 0]" {
		t.Fatalf("count/and/or = %v, want [40 1 0]", got)
	}
}

// Reading another warp's shared write after SyncThreadsOr (a barrier) is
// ordered; reading it after a warp-only ballot is not.
func TestRaceVoteWarpOnlyVersusBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	k := func(block bool) sim.Kernel {
		return func(t *sim.Thread) {
			s := sim.Shared[int32](t, "flags", 64)
			i := t.ThreadIdx.X
			s.Store(t, i, int32(i%5)) //@voteW
			if block {
				t.SyncThreadsOr(i == 0)
			} else {
				t.BallotSync(sim.FullMask, i == 0)
			}
			out.Store(t, i, s.Load(t, 63-i)) //@voteR
		}
	}
	wantClean(t, exec(t, dev, lin(1, 64), k(true)))
	r := exec(t, dev, lin(1, 64), k(false))
	wantRace(t, r, sim.SharedSpace, "flags", at(t, "voteW"), at(t, "voteR"))
}

func TestBarrierDivergencePassBy(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 32)
	r := launchOn(t, dev, 1, 32, sim.Options{}, func(t *sim.Thread) {
		if t.ThreadIdx.X < 16 {
			t.SyncThreads()
		}
		x.Store(t, t.ThreadIdx.X, 1)
	})
	if !r.Has(sim.BarrierDivergence) {
		t.Fatalf("%v", r)
	}
	t.Log(r)
}

func TestNoRaceGuardReturnBeforeBarrier(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 40)
	n := 20
	r := launchOn(t, dev, 1, 32, sim.Options{}, func(t *sim.Thread) {
		i := t.ThreadIdx.X
		if i >= n {
			return
		}
		x.Store(t, i, 1)
		t.SyncThreads()
		x.Store(t, i+20, x.Load(t, (i+1)%n))
	})
	if r != nil {
		t.Fatal(r)
	}
}

// ---------------------------------------------------------------------------
// a helper holding the barrier, called from both branches of an if: the two
// __syncthreads of an if and its else, legal only if the whole block takes
// one branch (a condition on blockIdx), divergence if threads split (on
// threadIdx). The barrier's line alone is the same for both; the call lines
// tell them apart, whether the compiler inlined the helper or not.

func barrierInHelper(t *sim.Thread) { t.SyncThreads() }

//go:noinline
func barrierInHelperNoInline(t *sim.Thread) { t.SyncThreads() }

func helperBothBranches(out *sim.Buffer[int32], perThread, inline bool) sim.Kernel {
	sync := barrierInHelperNoInline
	if inline {
		sync = barrierInHelper
	}
	return func(t *sim.Thread) {
		tid := t.ThreadIdx.X
		cond := t.BlockIdx.X%2 == 0
		if perThread {
			cond = tid%2 == 0
		}
		if cond {
			out.Store(t, t.GlobalX(), 1)
			sync(t) //@helperThen
		} else {
			sync(t) //@helperElse
			out.Store(t, t.GlobalX(), 2)
		}
	}
}

func TestNoBarrierDivergenceHelperInBothBranchesUniform(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		for _, inline := range []bool{true, false} {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 128)
			onlyKinds(t, exec(t, dev, lin(2, 64, o), helperBothBranches(out, false, inline)))
		}
	})
}

func TestBarrierDivergenceHelperInBothBranches(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		for _, inline := range []bool{true, false} {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 128)
			r := exec(t, dev, lin(2, 64, o), helperBothBranches(out, true, inline))
			f := wantKind(t, r, sim.BarrierDivergence)
			a, b := at(t, "helperThen"), at(t, "helperElse")
			if !(f.Current.Site == a && f.Previous.Site == b || f.Current.Site == b && f.Previous.Site == a) {
				t.Errorf("inline %v: finding names %s and %s, want %s and %s", inline, f.Current.Site, f.Previous.Site, a, b)
			}
			if !strings.Contains(f.Detail, "different calls of the function holding it") || f.Current.Thread.X%2 == f.Previous.Thread.X%2 {
				t.Errorf("inline %v: finding %+v", inline, f)
			}
		}
	})
}
