package sim_test

// Data races in global memory: grid-stride loops, in-place stencils, 2-D
// and 3-D indexing, and the ordering a kernel boundary gives.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

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

func TestRaceGrid2DBlocksWriteSameCell(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	img := zeroed[float32](t, dev, "img", 8*8)
	cfg := sim.Config{Grid: sim.Dim2(2, 2), Block: sim.Dim2(4, 4)}
	r := exec(t, dev, cfg, func(t *sim.Thread) {
		x, y := t.GlobalX(), t.GlobalY()
		img.Store(t, y*8+x, 1)
		if t.BlockIdx == d3(1, 0, 0) && t.ThreadIdx == d3(0, 0, 0) {
			img.Store(t, 4*8+0, 2) // block (0,1)'s first cell //@g2Stray
		}
	})
	f := wantKind(t, r, sim.DataRace)
	bl := map[sim.Dim3]bool{f.Current.Block: true, f.Previous.Block: true}
	if f.Memory != "img" || f.Index != 32 || !bl[d3(1, 0, 0)] || !bl[d3(0, 1, 0)] {
		t.Errorf("finding %+v, want img[32] between blocks (1,0,0) and (0,1,0)", f)
	}
	if f.Current.Site != at(t, "g2Stray") && f.Previous.Site != at(t, "g2Stray") {
		t.Errorf("finding %+v does not name the stray store", f)
	}
}

// A write in launch 1 by one block and a write/read in launch 2 by another
// block, through shared memory too: ordered by the kernel boundary, and a
// new launch's shared memory is uninitialised again.
func TestNoRaceLaunchBoundaryOrdersEverything(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	g := zeroed[int32](t, dev, "g", 4)
	k := func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 32)
		i := t.ThreadIdx.X
		s.Store(t, i, int32(i))
		t.SyncThreads()
		if i == 0 {
			b := t.BlockIdx.X
			v := g.Load(t, (b+1)%4)
			g.Store(t, (b+1)%4, v+s.Load(t, 31)+int32(b))
		}
	}
	for n := 0; n < 3; n++ {
		// one block per launch: each writes the element the next launch's block reads
		for b := 0; b < 4; b++ {
			cfg := sim.Config{Grid: sim.Dim(4), Block: sim.Dim(32)}
			_ = b
			wantClean(t, exec(t, dev, cfg, func(t *sim.Thread) {
				if t.BlockIdx.X == (b+n)%4 {
					k(t)
				}
			}))
		}
	}
	// every element got 3 increments of 31 + the block index (i-1)%4
	for i, v := range g.ToHost() {
		if v != int32(3*(31+(i+3)%4)) {
			t.Fatalf("g = %v", g.ToHost())
		}
	}
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 32)
		_ = s.Load(t, t.ThreadIdx.X) //@freshShared
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "s" || f.Count != 32 || f.Current.Site != at(t, "freshShared") {
		t.Errorf("finding %+v", f)
	}
}

func TestRaceAddOne(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x := mustF64(t, dev, "x", 1)
	r := launchOn(t, dev, 10, 16, sim.Options{}, func(t *sim.Thread) {
		x.Store(t, 0, x.Load(t, 0)+1)
	})
	if !r.Has(sim.DataRace) {
		t.Fatalf("add_one[10,16]: no race reported; report: %v", r)
	}
	f := r.Of(sim.DataRace)[0]
	if f.Memory != "x" || f.Index != 0 || !strings.Contains(f.Current.Site, "race_test.go:") {
		t.Errorf("finding = %+v", f)
	}
	t.Log(r)
}

// TestRaceRepeatCountsExact: a worker counts repeats of its last races
// without the launch's lock; with more races in turn than it keeps, every
// count must still be exact: three or six buffers incremented racily by
// every thread report, each, the counts one buffer alone reports.
func TestRaceRepeatCountsExact(t *testing.T) {
	t.Parallel()
	counts := func(nbuf int) map[string][]int {
		dev := sim.NewDevice(sim.H100)
		bufs := make([]*sim.Buffer[int32], nbuf)
		for j := range bufs {
			bufs[j] = zeroed[int32](t, dev, fmt.Sprintf("x%d", j), 4)
		}
		r := exec(t, dev, lin(10, 16), func(t *sim.Thread) {
			for _, b := range bufs {
				for e := range 4 { // the same races four times in a row
					b.Store(t, e, b.Load(t, e)+1)
				}
			}
		})
		got := map[string][]int{}
		for _, f := range r.Of(sim.DataRace) {
			got[f.Memory] = append(got[f.Memory], f.Count)
		}
		return got
	}
	one := counts(1)["x0"]
	if len(one) == 0 {
		t.Fatal("no race on one buffer")
	}
	// Three races in turn fit the worker's cache of repeats; six do not,
	// and an entry that makes room hands its count on.
	for _, nbuf := range []int{3, 6} {
		got := counts(nbuf)
		if len(got) != nbuf {
			t.Errorf("%d buffers: races on %d of them, want all", nbuf, len(got))
		}
		for name, c := range got {
			if fmt.Sprint(c) != fmt.Sprint(one) {
				t.Errorf("%d buffers: %s: counts %v, want %v (one buffer alone)", nbuf, name, c, one)
			}
		}
	}
}
