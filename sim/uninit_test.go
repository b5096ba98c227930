package sim_test

// Uninitialised reads: memory read before the host or any thread wrote it,
// in global and shared memory, within and across launches.

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

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

func TestUninitStencilHalo(t *testing.T) {
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

func TestUninitGlobalShortCopy(t *testing.T) {
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

func TestUninitAtomicCounterNeverZeroed(t *testing.T) {
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
func TestUninitSharedCarriedAcrossBlocks(t *testing.T) {
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
// state across launches on one device

func TestUninitStateCarriesAcrossLaunches(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	buf, err := sim.Alloc[int32](dev, "buf", 64)
	if err != nil {
		t.Fatal(err)
	}
	sum := zeroed[int32](t, dev, "sum", 1)
	// launch 1 writes the first half only
	wantClean(t, exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		buf.Store(t, t.ThreadIdx.X, 1)
	}))
	read := func(t *sim.Thread) {
		sim.AtomicAdd(t, sum, 0, buf.Load(t, t.ThreadIdx.X)) //@carryLoad
	}
	r := exec(t, dev, lin(1, 64), read)
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "buf" || f.Index != 32 || f.Count != 32 || f.Current.Site != at(t, "carryLoad") {
		t.Errorf("finding %+v, want buf[32..63] (32 reads)", f)
	}
	onlyKinds(t, r, sim.UninitializedRead)
	// An element is reported once: the next launch reading the same
	// elements is not reported again (uninitRead marks them).
	wantClean(t, exec(t, dev, lin(1, 64), read))
	// A fresh buffer the host fills partially: CopyFromHost covers a prefix.
	buf2, _ := sim.Alloc[int32](dev, "buf2", 64)
	if err := buf2.CopyFromHost(make([]int32, 40)); err != nil {
		t.Fatal(err)
	}
	read2 := func(t *sim.Thread) { sim.AtomicAdd(t, sum, 0, buf2.Load(t, t.ThreadIdx.X)) }
	r = exec(t, dev, lin(1, 64), read2)
	f = wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "buf2" || f.Index != 40 || f.Count != 24 {
		t.Errorf("after a 40-element copy: finding %+v, want buf2[40..63] (24 reads)", f)
	}
	buf3, _ := sim.Alloc[int32](dev, "buf3", 64)
	if err := buf3.Memset(0); err != nil {
		t.Fatal(err)
	}
	read = func(t *sim.Thread) { sim.AtomicAdd(t, sum, 0, buf3.Load(t, t.ThreadIdx.X)) }
	wantClean(t, exec(t, dev, lin(1, 64), read))
}

// A new block's dynamic shared memory is uninitialised again, and the
// previous block's write is not a race partner.
func TestUninitDynamicSharedFreshPerBlock(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := zeroed[int32](t, dev, "out", 2)
	cfg := sim.Config{Grid: sim.Dim(2), Block: sim.Dim(32), SharedBytes: 8}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		d := sim.DynamicShared[int32](t, "dd")
		if t.ThreadIdx.X == 0 {
			if t.BlockIdx.X == 0 {
				d.Store(t, 1, 9)
			} else {
				out.Store(t, 1, d.Load(t, 1)) //@dynFresh
			}
		}
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "dd" || f.Index != 1 || f.Current.Block.X != 1 || f.Current.Site != at(t, "dynFresh") {
		t.Errorf("finding %+v", f)
	}
	onlyKinds(t, r, sim.UninitializedRead)
	if g := out.ToHost()[1]; g != 0 {
		t.Errorf("block 1 read %d from dynamic shared, want 0 (fresh)", g)
	}
}
