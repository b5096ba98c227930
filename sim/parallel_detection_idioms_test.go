package sim_test

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// CUDA idioms under speculative detection (speculate.go): each kernel runs
// with detection on one worker and on 2 and 4 workers (epoch budget default
// and 1 byte), twice on one device; the report text and the memory must be
// identical.

type idiomCase struct {
	name        string
	grid, block sim.Dim3
	shared      int
	warpModel   sim.WarpModel
	// kept: a clean kernel over disjoint memory, every epoch must be kept.
	kept bool
	// build makes the buffers, and returns the kernel, an optional kernel
	// run once before (with detection off if preOff) and the output.
	build func(t *testing.T, dev *sim.Device) (k sim.Kernel, out func() string)
	// pre is run on the device before the two launches (host setup or a
	// launch of another kernel); may be nil.
	pre func(t *testing.T, dev *sim.Device)
}

var idiomConst = sim.NewConstant[float32]("coeffs", 64)

func idiomCases() []idiomCase {
	g := func(x int) sim.Dim3 { return sim.Dim(x) }
	return []idiomCase{
		{name: "constant memory read by every thread", grid: g(40), block: g(64), kept: true,
			pre: func(t *testing.T, dev *sim.Device) {
				if err := idiomConst.CopyFromHost(dev, seqF32(64)); err != nil {
					t.Fatal(err)
				}
			},
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[float32](t, dev, "out", 40*64)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*64 + t.ThreadIdx.X
					var s float32
					for k := 0; k < 8; k++ {
						s += idiomConst.Load(t, (t.ThreadIdx.X+k)%64)
					}
					t.SyncThreads()
					s += idiomConst.Load(t, t.ThreadIdx.X%3)
					out.Store(t, i, s)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "Ldg of per-block data", grid: g(24), block: g(64), kept: true,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(24*64))
				out := zeroed[float32](t, dev, "out", 24*64)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*64 + t.ThreadIdx.X
					out.Store(t, i, sim.Ldg(t, in, i)*2)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "Ldg of a shared lookup table", grid: g(24), block: g(64),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				lut := host(t, dev, "lut", seqF32(16))
				out := zeroed[float32](t, dev, "out", 24*64)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*64 + t.ThreadIdx.X
					out.Store(t, i, sim.Ldg(t, lut, i%16))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "Ldg of what the own block wrote, block 13", grid: g(20), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				a := host(t, dev, "a", seqF32(20*32))
				out := zeroed[float32](t, dev, "out", 20*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					if t.BlockIdx.X == 13 {
						a.Store(t, i, 1)
						t.SyncThreads()
					}
					out.Store(t, i, sim.Ldg(t, a, i))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "per-block Offset views", grid: g(16), block: g(32), kept: true,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(16*32))
				out := zeroed[float32](t, dev, "out", 16*32)
				return func(t *sim.Thread) {
					src := in.Offset(t.BlockIdx.X * 32)
					dst := out.View(t.BlockIdx.X*32, 32)
					dst.Store(t, t.ThreadIdx.X, src.Load(t, 31-t.ThreadIdx.X)+1)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "view past its end in block 11", grid: g(14), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[float32](t, dev, "out", 14*32)
				return func(t *sim.Thread) {
					dst := out.View(t.BlockIdx.X*32, 32)
					j := t.ThreadIdx.X
					if t.BlockIdx.X == 11 && j == 7 {
						j = 32
					}
					dst.Store(t, j, 5)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "float64 elements (two units each), race in block 9", grid: g(12), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", make([]float64, 12*32))
				out := zeroed[float64](t, dev, "out", 12*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					v := in.Load(t, i) + float64(i)
					if t.BlockIdx.X == 9 {
						v += out.Load(t, i-32) // block 8's element: read after write
					}
					out.Store(t, i, v)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "float4 stores over a float buffer, neighbour read in block 6", grid: g(10), block: g(16),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				buf := zeroed[float32](t, dev, "buf", 10*16*4)
				b4 := sim.Reinterpret[sim.Float4](buf)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*16 + t.ThreadIdx.X
					f := float32(i)
					b4.Store(t, i, sim.MakeFloat4(f, f+1, f+2, f+3))
					if t.BlockIdx.X == 6 && t.ThreadIdx.X == 0 {
						buf.Store(t, (i-1)*4+3, buf.Load(t, (i-1)*4+2))
					}
				}, func() string { return fmt.Sprint(buf.ToHost()) }
			}},
		{name: "float4 load with one uninitialised unit, block 7", grid: g(10), block: g(16),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				buf, err := sim.Alloc[float32](dev, "buf", 10*16*4)
				if err != nil {
					t.Fatal(err)
				}
				init := seqF32(10 * 16 * 4)
				if err := buf.CopyFromHost(init); err != nil {
					t.Fatal(err)
				}
				hole, err := sim.Alloc[float32](dev, "hole", 8)
				if err != nil {
					t.Fatal(err)
				}
				if err := hole.CopyFromHost([]float32{1, 2, 3, 4, 5}); err != nil {
					t.Fatal(err)
				}
				h4 := sim.Reinterpret[sim.Float4](hole)
				b4 := sim.Reinterpret[sim.Float4](buf)
				out := zeroed[float32](t, dev, "out", 10*16)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*16 + t.ThreadIdx.X
					v := b4.Load(t, i)
					s := v.X + v.Y + v.Z + v.W
					if t.BlockIdx.X == 0 || t.BlockIdx.X == 7 && t.ThreadIdx.X == 2 {
						w := h4.Load(t, t.BlockIdx.X/7) // block 7 reads units 4..7: only 4 initialised
						s += w.X
					}
					out.Store(t, i, s)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "dynamic shared memory carved into two arrays", grid: g(12), block: g(64), shared: 64*4 + 64*8, kept: true,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(12*64))
				out := zeroed[float64](t, dev, "out", 12*64)
				return func(t *sim.Thread) {
					smem := sim.DynamicShared[float32](t, "smem")
					a := smem.View(0, 64)
					d := sim.Reinterpret[float64](smem.Offset(64))
					tid := t.ThreadIdx.X
					i := t.BlockIdx.X*64 + tid
					a.Store(t, tid, in.Load(t, i))
					d.Store(t, tid, float64(tid))
					t.SyncThreads()
					out.Store(t, i, float64(a.Load(t, 63-tid))+d.Load(t, (tid+1)%64))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "warp ballot and shuffles, race in block 21", grid: g(24), block: g(64),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(24*64))
				out := zeroed[uint32](t, dev, "out", 24*2)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*64 + t.ThreadIdx.X
					v := in.Load(t, i)
					b := t.BallotSync(sim.FullMask, v > 20)
					x := sim.ShflXorSync(t, sim.FullMask, b, 1)
					if t.LaneID() == 0 {
						w := i / 32
						if t.BlockIdx.X == 21 {
							w = 0 // block 0's element
						}
						out.Store(t, w, x)
					}
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "lockstep warp reduction without syncwarp", grid: g(9), block: g(64), warpModel: sim.Lockstep,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(9*64))
				out := zeroed[float32](t, dev, "out", 9)
				return func(t *sim.Thread) {
					s := sim.Shared[float32](t, "s", 64)
					tid := t.ThreadIdx.X
					s.Store(t, tid, in.Load(t, t.BlockIdx.X*64+tid))
					t.SyncThreads()
					if tid < 32 {
						for d := 16; d > 0; d >>= 1 {
							s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+d))
						}
					}
					if tid == 0 {
						out.Store(t, t.BlockIdx.X, s.Load(t, 0))
					}
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "lockstep clean kernel", grid: g(9), block: g(64), warpModel: sim.Lockstep, kept: true,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(9*64))
				out := zeroed[float32](t, dev, "out", 9*64)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*64 + t.ThreadIdx.X
					out.Store(t, i, in.Load(t, i)*in.Load(t, i))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "2D stencil reading halo of neighbour blocks", grid: sim.Dim2(4, 4), block: sim.Dim2(8, 8),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				const n = 32
				in := host(t, dev, "in", seqF32(n*n))
				out := zeroed[float32](t, dev, "out", n*n)
				return func(t *sim.Thread) {
					x := t.BlockIdx.X*8 + t.ThreadIdx.X
					y := t.BlockIdx.Y*8 + t.ThreadIdx.Y
					s := in.Load(t, y*n+x)
					if x > 0 {
						s += in.Load(t, y*n+x-1)
					}
					if y+1 < n {
						s += in.Load(t, (y+1)*n+x)
					}
					out.Store(t, y*n+x, s)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "3D grid, in-place stencil (racy halo)", grid: sim.Dim3{X: 2, Y: 2, Z: 3}, block: sim.Dim3{X: 4, Y: 4, Z: 2},
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				const nx, ny, nz = 8, 8, 6
				a := host(t, dev, "a", seqF32(nx*ny*nz))
				return func(t *sim.Thread) {
					x := t.BlockIdx.X*4 + t.ThreadIdx.X
					y := t.BlockIdx.Y*4 + t.ThreadIdx.Y
					z := t.BlockIdx.Z*2 + t.ThreadIdx.Z
					i := (z*ny+y)*nx + x
					v := a.Load(t, i)
					if z > 0 {
						v += a.Load(t, i-nx*ny)
					}
					t.SyncThreads()
					a.Store(t, i, v)
				}, func() string { return fmt.Sprint(a.ToHost()) }
			}},
		{name: "3D grid clean", grid: sim.Dim3{X: 2, Y: 3, Z: 4}, block: sim.Dim3{X: 8, Y: 2, Z: 2}, kept: true,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[int32](t, dev, "out", 24*32)
				return func(t *sim.Thread) {
					b := (t.BlockIdx.Z*3+t.BlockIdx.Y)*2 + t.BlockIdx.X
					tid := (t.ThreadIdx.Z*2+t.ThreadIdx.Y)*8 + t.ThreadIdx.X
					out.Store(t, b*32+tid, int32(b*1000+tid))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "three blocks, race between blocks 1 and 2", grid: g(3), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[int32](t, dev, "out", 3*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					if t.BlockIdx.X == 2 {
						i -= 32
					}
					out.Store(t, i, int32(t.BlockIdx.X))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "two blocks", grid: g(2), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[int32](t, dev, "out", 32)
				return func(t *sim.Thread) {
					out.Store(t, t.ThreadIdx.X, int32(t.BlockIdx.X))
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "buffer first touched by block 20 (no shadow in block 0), uninit read", grid: g(30), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				late, err := sim.Alloc[float32](dev, "late", 30*32)
				if err != nil {
					t.Fatal(err)
				}
				out := zeroed[float32](t, dev, "out", 30*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					var v float32
					if t.BlockIdx.X == 20 {
						late.Store(t, i, 3)
						v = late.Load(t, i+1) // thread 31 reads block 21's element: uninitialised
					}
					out.Store(t, i, v)
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "buffer first touched by late blocks, clean", grid: g(30), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				late := zeroed[float32](t, dev, "late", 30*32)
				out := zeroed[float32](t, dev, "out", 30*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					if t.BlockIdx.X >= 20 {
						late.Store(t, i, 3)
					}
					out.Store(t, i, 1)
				}, func() string { return fmt.Sprint(out.ToHost(), late.ToHost()) }
			}},
		{name: "chained blocks: each reads its predecessor's result", grid: g(20), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				part := zeroed[float32](t, dev, "part", 20)
				out := zeroed[float32](t, dev, "out", 20*32)
				return func(t *sim.Thread) {
					b := t.BlockIdx.X
					var prev float32
					if b > 0 {
						prev = part.Load(t, b-1)
					}
					out.Store(t, b*32+t.ThreadIdx.X, prev)
					t.SyncThreads()
					if t.ThreadIdx.X == 0 {
						part.Store(t, b, prev+float32(b))
					}
				}, func() string { return fmt.Sprint(part.ToHost(), out.ToHost()) }
			}},
		{name: "loop bound read from memory a later block writes", grid: g(20), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				cnt := host(t, dev, "cnt", []int32{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
				out := zeroed[int32](t, dev, "out", 20*32)
				return func(t *sim.Thread) {
					b := t.BlockIdx.X
					n := cnt.Load(t, (b+1)%20)
					var s int32
					for k := int32(0); k < n; k++ {
						s += k
					}
					out.Store(t, b*32+t.ThreadIdx.X, s)
					t.SyncThreads()
					if t.ThreadIdx.X == 0 {
						cnt.Store(t, b, int32(b%5))
					}
				}, func() string { return fmt.Sprint(cnt.ToHost(), out.ToHost()) }
			}},
		{name: "uint16 halves of words written by neighbouring blocks", grid: g(12), block: g(33),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				h := zeroed[uint16](t, dev, "h", 12*33+1)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*33 + t.ThreadIdx.X
					h.Store(t, i, uint16(i))
				}, func() string { return fmt.Sprint(h.ToHost()) }
			}},
		{name: "uint32 read over uint16 written by two blocks, block 8", grid: g(12), block: g(33),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				h := zeroed[uint16](t, dev, "h", 12*33+1)
				w := sim.Reinterpret[uint32](h)
				out := zeroed[uint32](t, dev, "out", 12)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*33 + t.ThreadIdx.X
					h.Store(t, i, uint16(i))
					t.SyncThreads()
					if t.BlockIdx.X == 8 && t.ThreadIdx.X == 0 {
						out.Store(t, 8, w.Load(t, (i-1)/2)) // halves of blocks 7 and 8
					}
				}, func() string { return fmt.Sprint(h.ToHost(), out.ToHost()) }
			}},
		{name: "partly memset bytes, uninit read of the split unit in block 15", grid: g(20), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				a, err := sim.Alloc[int32](dev, "a", 20*32)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.MemsetBytes(1, 4*15*32+2); err != nil { // block 15's element 0 is half set
					t.Fatal(err)
				}
				out := zeroed[int32](t, dev, "out", 20*32)
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					if t.BlockIdx.X <= 15 && t.ThreadIdx.X == 0 {
						out.Store(t, i, a.Load(t, i))
					}
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
		{name: "read pairs in every block, block 7 writes block 3's element", grid: g(12), block: g(64),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				in := host(t, dev, "in", seqF32(12))
				out := zeroed[float32](t, dev, "out", 12*64)
				return func(t *sim.Thread) {
					b := t.BlockIdx.X
					out.Store(t, b*64+t.ThreadIdx.X, in.Load(t, b))
					if b == 7 && t.ThreadIdx.X == 5 {
						in.Store(t, 3, 9)
					}
				}, func() string { return fmt.Sprint(in.ToHost(), out.ToHost()) }
			}},
		{name: "in-place update then race in the second half (budget-sized epochs)", grid: g(64), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				a := host(t, dev, "a", seqF32(64*32*40))
				return func(t *sim.Thread) {
					i := (t.BlockIdx.X*32 + t.ThreadIdx.X) * 40
					for k := i; k < i+40; k++ {
						a.Store(t, k, a.Load(t, k)+1)
					}
					if t.BlockIdx.X == 50 && t.ThreadIdx.X == 0 {
						a.Store(t, 40*32*49, 0) // block 49's element
					}
				}, func() string { return fmt.Sprint(a.ToHost()) }
			}},
		{name: "atomics on shared memory only", grid: g(16), block: g(64),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[int32](t, dev, "out", 16)
				return func(t *sim.Thread) {
					s := sim.Shared[int32](t, "cnt", 1)
					if t.ThreadIdx.X == 0 {
						s.Store(t, 0, 0)
					}
					t.SyncThreads()
					sim.AtomicAdd(t, s, 0, 1)
					t.SyncThreads()
					if t.ThreadIdx.X == 0 {
						out.Store(t, t.BlockIdx.X, s.Load(t, 0))
					}
				}, func() string { return fmt.Sprint(out.ToHost()) }
			}},
	}
}

// runIdiom runs c on a fresh device: its pre step, then two launches.
func runIdiom(t *testing.T, c idiomCase, workers, budget int) (string, sim.Counters) {
	dev := sim.NewDevice(sim.H100)
	if c.pre != nil {
		c.pre(t, dev)
	}
	k, out := c.build(t, dev)
	opts := sim.WithEpochBudgetForTest(sim.Options{}.WithWorkers(workers), budget)
	if c.warpModel != 0 {
		opts = opts.WithWarpModel(c.warpModel)
	}
	cfg := sim.Config{Grid: c.grid, Block: c.block, SharedBytes: c.shared, Options: opts}
	var text string
	for launch := 1; launch <= 2; launch++ {
		err := dev.Launch(cfg, k)
		text += fmt.Sprintf("launch %d: %v\nmemory: %s\n", launch, err, out())
	}
	return text, dev.Counters()
}

func TestParallelDetectionIdioms(t *testing.T) {
	for _, c := range idiomCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want, _ := runIdiom(t, c, 1, 0)
			for _, budget := range []int{0, 1} {
				for _, workers := range []int{2, 4, 0} {
					got, n := runIdiom(t, c, workers, budget)
					if got != want {
						t.Errorf("%d workers, epoch budget %d:\n%s\none worker:\n%s", workers, budget, got, want)
					}
					if c.kept && !raceBuild && workers != 0 && (n.Epochs == 0 || n.EpochsUndone != 0) {
						t.Errorf("%d workers, epoch budget %d: %d epochs kept, %d undone; want every epoch kept", workers, budget, n.Epochs, n.EpochsUndone)
					}
				}
			}
		})
	}
}

// deviceStateCases probe device state left before the launch: bytes the
// host or an earlier launch left.
func deviceStateCases() []idiomCase {
	g := func(x int) sim.Dim3 { return sim.Dim(x) }
	return []idiomCase{
		{name: "bytes Copy set without init bits survive an undone epoch", grid: g(8), block: g(32),
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				src, err := sim.Alloc[int32](dev, "src", 4)
				if err != nil {
					t.Fatal(err)
				}
				// Element 0 half set: Copy copies its bytes but leaves
				// it uninitialised.
				if err := src.MemsetBytes(0x7f, 2); err != nil {
					t.Fatal(err)
				}
				dst, err := sim.Alloc[int32](dev, "dst", 2048)
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Copy(dst.View(1000, 4), src); err != nil {
					t.Fatal(err)
				}
				return func(t *sim.Thread) {
					b, tid := t.BlockIdx.X, t.ThreadIdx.X
					if b == 0 {
						dst.Store(t, 1024+tid, 1) // shadow for dst, in chunk 1 only
						return
					}
					dst.Store(t, b*32+tid, int32(b)) // chunk 0
					if (b == 5 || b == 6) && tid == 0 {
						dst.Store(t, 1500, int32(b)) // a race between blocks: the epoch is undone
					}
				}, func() string { return fmt.Sprint(dst.ToHost()[1000:1004]) }
			}},
		{name: "detection-off launch writes, then detected launch with a late race", grid: g(16), block: g(32),
			pre: nil,
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				a, err := sim.Alloc[int32](dev, "a", 16*32)
				if err != nil {
					t.Fatal(err)
				}
				if err := dev.Launch(lin(16, 32, sim.Options{}.WithDetection(false)), func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					a.Store(t, i, int32(i*3))
				}); err != nil {
					t.Fatal(err)
				}
				return func(t *sim.Thread) {
					i := t.BlockIdx.X*32 + t.ThreadIdx.X
					v := a.Load(t, i)
					if t.BlockIdx.X == 12 {
						v += a.Load(t, i-32)
					}
					a.Store(t, i, v+1)
				}, func() string { return fmt.Sprint(a.ToHost()) }
			}},
		{name: "constant memory read heavily by many blocks", grid: g(200), block: g(128), kept: true,
			pre: func(t *testing.T, dev *sim.Device) {
				if err := idiomConst.CopyFromHost(dev, seqF32(64)); err != nil {
					t.Fatal(err)
				}
			},
			build: func(t *testing.T, dev *sim.Device) (sim.Kernel, func() string) {
				out := zeroed[float32](t, dev, "out", 200*128)
				return func(t *sim.Thread) {
					var s float32
					for k := 0; k < 64; k++ {
						s += idiomConst.Load(t, k)
						if k%16 == 15 {
							t.SyncThreads()
						}
					}
					out.Store(t, t.BlockIdx.X*128+t.ThreadIdx.X, s)
				}, func() string { return fmt.Sprint(out.ToHost()[:64]) }
			}},
	}
}

func TestParallelDetectionDeviceState(t *testing.T) {
	for _, c := range deviceStateCases() {
		t.Run(c.name, func(t *testing.T) {
			want, _ := runIdiom(t, c, 1, 0)
			for _, budget := range []int{0, 1} {
				for _, workers := range []int{2, 4} {
					got, n := runIdiom(t, c, workers, budget)
					if got != want {
						t.Errorf("%d workers, epoch budget %d:\n%s\none worker:\n%s", workers, budget, got, want)
					}
					if c.kept && !raceBuild && (n.Epochs == 0 || n.EpochsUndone != 0) {
						t.Errorf("%d workers, epoch budget %d: %d epochs kept, %d undone; want every epoch kept", workers, budget, n.Epochs, n.EpochsUndone)
					}
				}
			}
		})
	}
}
