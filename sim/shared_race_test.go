package sim_test

// Shared memory: races on tiles, double buffers and block reductions that a
// missing __syncthreads leaves unordered; dynamic shared memory and several
// shared arrays per block.

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

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
// dynamic shared memory

func TestDynSharedLengthFromBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 2)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim(1), SharedBytes: 100}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		out.Store(t, 0, int32(sim.DynamicShared[float64](t, "d").Len()))
		out.Store(t, 1, int32(sim.DynamicShared[float64](t, "d").Len()))
	}))
	if got := out.ToHost(); got[0] != 12 || got[1] != 12 {
		t.Fatalf("len = %v, want 100/8 = 12", got)
	}
}

func TestDynSharedOutOfBoundsPastBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(64), SharedBytes: 63 * 4}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		s := sim.DynamicShared[int32](t, "dyn")
		s.Store(t, t.ThreadIdx.X, 1) //@dynOOB
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if !r.Aborted || f.Memory != "dyn" || f.Space != sim.SharedSpace || f.Index != 63 ||
		f.Current.Thread != d3(63, 0, 0) || f.Current.Block != d3(0, 0, 0) || f.Current.Site != at(t, "dynOOB") {
		t.Errorf("finding %+v, want dyn[63] by block 0 thread 63 at %s", f, at(t, "dynOOB"))
	}
	onlyKinds(t, r, sim.OutOfBounds)
}

func TestDynSharedNegativeIndexAndZeroBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32)}, func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "none")
		if t.ThreadIdx.X == 7 {
			s.Store(t, 0, 1) //@dynZero
		}
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "none" || f.Current.Thread.X != 7 || f.Current.Site != at(t, "dynZero") {
		t.Errorf("finding %+v", f)
	}
	r = exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: 128}, func(t *sim.Thread) {
		s := sim.DynamicShared[float32](t, "neg")
		_ = s.Load(t, t.ThreadIdx.X-1) //@dynNeg
	})
	f = wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "neg" || f.Index != -1 || f.Current.Thread.X != 0 || f.Current.Site != at(t, "dynNeg") {
		t.Errorf("finding %+v, want neg[-1] by thread 0", f)
	}
}

func TestDynSharedOverLimitRefused(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	ran := false
	err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: sim.H100.SharedPerBlockOptin + 4},
		func(t *sim.Thread) { ran = true })
	var le *sim.LaunchError
	if !errors.As(err, &le) || ran {
		t.Fatalf("err = %v (ran %v), want a LaunchError before anything runs", err, ran)
	}
}

// Two extern __shared__ declarations of different types (`extern
// __shared__ float sf[]; extern __shared__ int si[];`) name the same
// bytes: what a thread stores through sf another reads through si, after a
// barrier, and a third view under a new name of the first type aliases
// them too. Two blocks run on the block's memory in turn.
func TestNoRaceDynamicSharedTwoTypes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	bits := zeroed[uint32](t, dev, "bits", 64)
	sums := zeroed[float32](t, dev, "sums", 64)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(32), SharedBytes: 64 * 4}
	wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
		sf := sim.DynamicShared[float32](t, "sf")
		si := sim.DynamicShared[int32](t, "si")
		tail := sim.DynamicShared[float32](t, "tail")
		tid, g := t.ThreadIdx.X, t.GlobalX()
		sf.Store(t, tid, float32(g)+0.5)
		si.Store(t, 32+tid, int32(g))
		t.SyncThreads()
		bits.Store(t, g, uint32(si.Load(t, 31-tid)))
		sums.Store(t, g, sf.Load(t, 31-tid)+float32(si.Load(t, 63-tid))+tail.Load(t, tid))
	}))
	gotBits, gotSums := bits.ToHost(), sums.ToHost()
	for g := range 64 {
		blk, tid := g/32, g%32
		mirror := float32(blk*32+31-tid) + 0.5
		if want := math.Float32bits(mirror); gotBits[g] != want {
			t.Fatalf("bits[%d] = %#x, want %#x: si[%d] is not the bytes of sf[%d]", g, gotBits[g], want, 31-tid, 31-tid)
		}
		if want := mirror + float32(blk*32+31-tid) + float32(g) + 0.5; gotSums[g] != want {
			t.Fatalf("sums[%d] = %v, want %v", g, gotSums[g], want)
		}
	}
}

// The two views of TestNoRaceDynamicSharedTwoTypes without the barrier: a
// thread's store through sf and its neighbour's load of the same bytes
// through si race, and the finding names each access by its own view.
func TestRaceDynamicSharedTwoTypes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 32)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: 32 * 4}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		sf := sim.DynamicShared[float32](t, "sf")
		si := sim.DynamicShared[int32](t, "si")
		tid := t.ThreadIdx.X
		sf.Store(t, tid, float32(tid))            //@dynTwoW
		out.Store(t, tid, si.Load(t, (tid+1)%32)) //@dynTwoR
	})
	for _, want := range []struct{ view, current string }{{"sf", at(t, "dynTwoW")}, {"si", at(t, "dynTwoR")}} {
		if f := wantRace(t, r, sim.SharedSpace, want.view, at(t, "dynTwoW"), at(t, "dynTwoR")); f.Current.Site != want.current {
			t.Errorf("the race on %q is at %s, want the access through %s at %s:\n%v", want.view, f.Current.Site, want.view, want.current, f)
		}
	}
	onlyKinds(t, r, sim.DataRace, sim.UninitializedRead)
}

// Static arrays and the dynamic array are distinct memories: a race on one
// is reported under its own name only.
func TestRaceOnlyTheRacyOfSeveralSharedArrays(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 64)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(64), SharedBytes: 64 * 4}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		a := sim.Shared[int32](t, "a", 64)
		b := sim.Shared[int32](t, "b", 64)
		d := sim.DynamicShared[int32](t, "d")
		i := t.ThreadIdx.X
		a.Store(t, i, int32(i))
		d.Store(t, i, int32(2*i))
		b.Store(t, i, int32(3*i)) //@sevW
		t.SyncThreads()
		v := a.Load(t, 63-i) + d.Load(t, 63-i)
		// lanes 2k and 2k+1 collide
		b.Store(t, i/2, v) //@sevW2
		if t.BlockIdx.X == 0 {
			out.Store(t, i, v)
		}
	})
	wantRace(t, r, sim.SharedSpace, "b", at(t, "sevW2"), at(t, "sevW2"))
	for _, f := range r.Findings {
		if f.Memory != "b" || f.Kind != sim.DataRace {
			t.Errorf("unexpected finding %v", f)
		}
	}
	for i, v := range out.ToHost() {
		if v != int32(3*(63-i)) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 3*(63-i))
		}
	}
}

// Blocks that reuse the same static shared array (one after another, and
// concurrently admitted) must not race with each other.
func TestNoRaceSharedReusedByManyBlocks(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	const G, B = 6, 64
	out := zeroed[int32](t, dev, "out", G*B)
	for _, o := range []sim.Options{{}, random(3)} {
		wantClean(t, exec(t, dev, lin(G, B, o), func(t *sim.Thread) {
			s := sim.Shared[int32](t, "tile", B)
			u := sim.Shared[int32](t, "aux", 1)
			i := t.ThreadIdx.X
			s.Store(t, i, int32(t.GlobalX()))
			if i == 0 {
				u.Store(t, 0, int32(t.BlockIdx.X))
			}
			t.SyncThreads()
			out.Store(t, t.GlobalX(), s.Load(t, (i+1)%B)+1000*u.Load(t, 0))
		}))
		for g, v := range out.ToHost() {
			b, i := g/B, g%B
			if v != int32(b*B+(i+1)%B+1000*b) {
				t.Fatalf("out[%d] = %d", g, v)
			}
		}
	}
}

// rowSum is CUDA's blockReduceSum: a helper with its own static shared
// array, one per function in CUDA however often it is called.
func rowSum(t *sim.Thread, v float32) float32 {
	part := sim.Shared[float32](t, "part", 33)
	lane, w := t.LaneID(), t.WarpID()
	for o := 16; o > 0; o /= 2 {
		v += sim.ShflDownSync(t, sim.FullMask, v, o)
	}
	if lane == 0 {
		part.Store(t, w, v)
	}
	t.SyncThreads()
	v = 0
	if t.ThreadIdx.X < t.BlockDim.X/32 {
		v = part.Load(t, lane)
	}
	if w == 0 {
		for o := 16; o > 0; o /= 2 {
			v += sim.ShflDownSync(t, sim.FullMask, v, o)
		}
	}
	t.SyncThreads()
	return v
}

// A persistent kernel calls the helper twice per row over 800 rows: one
// 132-byte array, as on the GPU, where one array per call overflowed the
// 48 KiB static limit after 372 calls.
func TestNoRaceSharedHelperCalledInLoop(t *testing.T) {
	t.Parallel()
	const rows, cols = 800, 64
	dev := sim.NewDevice(sim.H100)
	hx := make([]float32, rows*cols)
	for i := range hx {
		hx[i] = float32(i%cols) + float32(i/cols%3)
	}
	x := host(t, dev, "x", hx)
	sum := zeroed[float32](t, dev, "sum", rows)
	sq := zeroed[float32](t, dev, "sq", rows)
	var static atomic.Int64
	p, err := dev.LaunchProfile(sim.Config{Grid: sim.Dim(4), Block: sim.Dim(64)}, func(t *sim.Thread) {
		for r := t.BlockIdx.X; r < rows; r += t.GridDim.X {
			v := x.Load(t, r*cols+t.ThreadIdx.X)
			s := rowSum(t, v)
			q := rowSum(t, v*v)
			if t.ThreadIdx.X == 0 {
				sum.Store(t, r, s)
				sq.Store(t, r, q)
			}
		}
	})
	sim.ExpectByName(t, err)
	if p != nil {
		static.Store(int64(p.SharedStatic))
	}
	for r, got := range sum.ToHost() {
		var want, wantSq float32
		for c := 0; c < cols; c++ {
			want += hx[r*cols+c]
			wantSq += hx[r*cols+c] * hx[r*cols+c]
		}
		if got != want || sq.ToHost()[r] != wantSq {
			t.Fatalf("row %d: sum %v, squares %v; want %v, %v", r, got, sq.ToHost()[r], want, wantSq)
		}
	}
	if got := static.Load(); got != 33*4 {
		t.Errorf("static shared memory %d bytes, want %d (one array)", got, 33*4)
	}
}

// Two declaration sites are two arrays, even with one name; a generic
// helper instantiated with two element types declares one array per type.
func TestNoRaceSharedDeclarationSites(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 4)
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		a := sim.Shared[int32](t, "s", 32)
		b := sim.Shared[int32](t, "s", 32)
		f := sharedOf[float32](t)
		i := sharedOf[int32](t)
		tid := t.ThreadIdx.X
		a.Store(t, tid, 1)
		b.Store(t, tid, 2)
		f.Store(t, tid, 3)
		i.Store(t, tid, 4)
		t.SyncThreads()
		if tid == 0 {
			out.Store(t, 0, a.Load(t, 31))
			out.Store(t, 1, b.Load(t, 31))
			out.Store(t, 2, int32(f.Load(t, 31)))
			out.Store(t, 3, i.Load(t, 31))
		}
	}))
	if got := fmt.Sprint(out.ToHost()); got != "[1 2 3 4]" {
		t.Fatalf("out = %s, want [1 2 3 4]: declarations shared an array", got)
	}
}

func sharedOf[T int32 | float32](t *sim.Thread) *sim.Buffer[T] {
	return sim.Shared[T](t, "g", 32)
}
