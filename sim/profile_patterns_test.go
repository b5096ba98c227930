package sim

import (
	"fmt"
	"testing"
)

// The profiler's numbers for access patterns real kernels use, against what
// Nsight Compute reports on an H100 by the hardware's definitions, worked
// out by hand in each case's comment:
//
//   - a global request is one warp-level load or store instruction (its
//     active lanes); its sectors are the distinct 32-byte sectors its lanes
//     touch, whatever the element size (buffers start 256-byte aligned);
//   - shared memory has 32 banks of 4 bytes; a request takes, per phase, as
//     many wavefronts as the most distinct words one bank must deliver
//     (lanes reading one word share it). 4-byte and narrower accesses are
//     one phase of 32 lanes, 8-byte accesses two of 16 (half-warps), 16-byte
//     ones four of 8 (quarter-warps); the ideal is one wavefront per phase
//     with lanes in it (128 bytes at most), and bank conflicts are the
//     wavefronts above the ideal;
//   - atomics count one per thread, as AtomicStats documents.
//
// Every case runs with detection on and off, on one worker and on two, and
// under the Lockstep warp model, and must give the same numbers each time.

// patLine is what one source line of a pattern must report: for global
// lines requests and sectors, for shared lines requests, wavefronts and
// ideal wavefronts, for atomic lines the thread-level atomics.
type patLine struct {
	space     Space
	op        string
	requests  int64
	sectors   int64 // global: sectors; shared: wavefronts
	ideal     int64 // shared only
	atomicOps int64
}

func gLoad(req, sect int64) patLine  { return patLine{GlobalSpace, "load", req, sect, 0, 0} }
func gStore(req, sect int64) patLine { return patLine{GlobalSpace, "store", req, sect, 0, 0} }
func sLoad(req, wav, ideal int64) patLine {
	return patLine{SharedSpace, "load", req, wav, ideal, 0}
}
func sStore(req, wav, ideal int64) patLine {
	return patLine{SharedSpace, "store", req, wav, ideal, 0}
}
func cLoad(req, passes int64) patLine {
	return patLine{ConstantSpace, "load", req, passes, req, 0}
}
func atomicLine(space Space, n int64) patLine { return patLine{space, "atomic", 0, 0, 0, n} }

// patConst is the constant memory the patterns read (zeros).
var patConst = NewConstant[float32]("pc", 64)

type pattern struct {
	name        string
	grid, block Dim3
	k           func(d *Device) Kernel
	lines       []patLine // in source order
	dynShared   int
}

// zeros is a global buffer of n zeroed T.
func zeros[T Storable](d *Device, name string, n int) *Buffer[T] {
	b, _ := Alloc[T](d, name, n)
	b.Memset(0)
	return b
}

var patternConfigs = []struct {
	name string
	opts Options
}{
	{"detect-w1", Options{}},
	{"nodetect-w1", Options{}.WithDetection(false)},
	{"detect-w2", Options{}.WithWorkers(2)},
	{"nodetect-w2", Options{}.WithDetection(false).WithWorkers(2)},
	{"lockstep-w1", Options{}.WithWarpModel(Lockstep)},
}

func checkPatterns(t *testing.T, pats []pattern) {
	t.Helper()
	for _, pt := range pats {
		for _, c := range patternConfigs {
			t.Run(pt.name+"/"+c.name, func(t *testing.T) {
				d := NewDevice(H100)
				p, err := d.LaunchProfile(Config{Grid: pt.grid, Block: pt.block, SharedBytes: pt.dynShared, Options: c.opts}, pt.k(d))
				if err != nil {
					t.Fatal(err)
				}
				checkPatternProfile(t, p, pt.lines)
			})
		}
	}
}

func checkPatternProfile(t *testing.T, p *Profile, want []patLine) {
	t.Helper()
	show := func(l LineStats) string {
		switch {
		case l.Op == "atomic":
			return fmt.Sprintf("%s %v atomic: %d", l.Site, l.Space, l.Atomics)
		case l.Space == GlobalSpace:
			return fmt.Sprintf("%s global %s: %d requests, %d sectors", l.Site, l.Op, l.Global.Requests, l.Global.Sectors)
		}
		return fmt.Sprintf("%s %v %s: %d requests, %d wavefronts, %d ideal", l.Site, l.Space, l.Op, l.Shared.Requests, l.Shared.Wavefronts, l.Shared.IdealWavefronts)
	}
	if len(p.Lines) != len(want) {
		for _, l := range p.Lines {
			t.Log(show(l))
		}
		t.Fatalf("%d lines, want %d", len(p.Lines), len(want))
	}
	var sum MemStats
	var atomics [2]int64
	for i, w := range want {
		l := p.Lines[i]
		var got patLine
		switch {
		case l.Op == "atomic":
			got = atomicLine(l.Space, l.Atomics)
			if l.Space == GlobalSpace {
				atomics[0] += l.Atomics
			} else {
				atomics[1] += l.Atomics
			}
		case l.Space == GlobalSpace:
			got = patLine{l.Space, l.Op, l.Global.Requests, l.Global.Sectors, 0, 0}
			g := GlobalStats{Requests: w.requests, Sectors: w.sectors}
			if w.op == "load" {
				sum.GlobalLoad.add(g)
			} else {
				sum.GlobalStore.add(g)
			}
		case l.Space == ConstantSpace:
			got = patLine{l.Space, l.Op, l.Shared.Requests, l.Shared.Wavefronts, l.Shared.IdealWavefronts, 0}
		default:
			got = patLine{l.Space, l.Op, l.Shared.Requests, l.Shared.Wavefronts, l.Shared.IdealWavefronts, 0}
			s := SharedStats{Requests: w.requests, Wavefronts: w.sectors, IdealWavefronts: w.ideal}
			if w.op == "load" {
				sum.SharedLoad.add(s)
			} else {
				sum.SharedStore.add(s)
			}
		}
		if got != w {
			t.Errorf("line %d: %s; want %+v", i, show(l), w)
		}
	}
	// The summary sections are the lines' sums.
	m := p.Memory
	for _, c := range []struct {
		name      string
		got, want GlobalStats
	}{{"global load", m.GlobalLoad, sum.GlobalLoad}, {"global store", m.GlobalStore, sum.GlobalStore}} {
		if c.got.Requests != c.want.Requests || c.got.Sectors != c.want.Sectors {
			t.Errorf("%s summary: %d requests, %d sectors; want %d, %d", c.name, c.got.Requests, c.got.Sectors, c.want.Requests, c.want.Sectors)
		}
	}
	for _, c := range []struct {
		name      string
		got, want SharedStats
	}{{"shared load", m.SharedLoad, sum.SharedLoad}, {"shared store", m.SharedStore, sum.SharedStore}} {
		if c.got.Requests != c.want.Requests || c.got.Wavefronts != c.want.Wavefronts || c.got.Conflicts() != c.want.Conflicts() {
			t.Errorf("%s summary: %d requests, %d wavefronts, %d conflicts; want %d, %d, %d", c.name,
				c.got.Requests, c.got.Wavefronts, c.got.Conflicts(), c.want.Requests, c.want.Wavefronts, c.want.Conflicts())
		}
	}
	if p.Atomics.Global != atomics[0] || p.Atomics.Shared != atomics[1] {
		t.Errorf("atomics summary: %d global, %d shared; want %d, %d", p.Atomics.Global, p.Atomics.Shared, atomics[0], atomics[1])
	}
}

// TestProfileGlobalPatterns checks sectors per request of global loads and
// stores.
func TestProfileGlobalPatterns(t *testing.T) {
	checkPatterns(t, []pattern{
		// 4 blocks of 4 warps, each reading 32 consecutive floats: one
		// 128-byte line, 4 sectors.
		{"coalesced-float", Dim(4), Dim(128), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 512)
			return func(t *Thread) { _ = a.Load(t, t.GlobalX()) }
		}, []patLine{gLoad(16, 64)}, 0},
		// 32 float2 are 256 bytes (8 sectors), 32 float4 512 (16 sectors),
		// whether the buffer holds them or is a float buffer cast.
		{"float2-float4", Dim(1), Dim(64), func(d *Device) Kernel {
			a2 := zeros[Float2](d, "a2", 64)
			a4 := zeros[Float4](d, "a4", 64)
			f := zeros[float32](d, "f", 256)
			return func(t *Thread) {
				_ = a2.Load(t, t.GlobalX())
				_ = a4.Load(t, t.GlobalX())
				_ = Reinterpret[Float4](f).Load(t, t.GlobalX())
			}
		}, []patLine{gLoad(2, 16), gLoad(2, 32), gLoad(2, 32)}, 0},
		// float3 (12 bytes, 4-byte aligned): 32 consecutive are 384
		// bytes, 12 sectors. Elements 8 apart from element 2 lie at bytes
		// 96l+24 to 96l+35, across sectors 3l and 3l+1: 64 sectors. (On
		// hardware a float3 load is three 4-byte loads, three requests;
		// gpusim makes it one access of 12 bytes, as vector.go says.)
		{"float3", Dim(1), Dim(32), func(d *Device) Kernel {
			a := zeros[Float3](d, "a", 256)
			return func(t *Thread) {
				_ = a.Load(t, t.LaneID())
				_ = a.Load(t, 8*t.LaneID()+2)
			}
		}, []patLine{gLoad(1, 12), gLoad(1, 64)}, 0},
		// Stride 2 floats: 256 bytes, 8 sectors; stride 32: a sector per
		// lane.
		{"strided-float", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 64*32)
			return func(t *Thread) {
				_ = a.Load(t, 2*t.GlobalX())
				_ = a.Load(t, 32*t.GlobalX())
			}
		}, []patLine{gLoad(2, 16), gLoad(2, 64)}, 0},
		// A start one float in: warp 0 reads bytes 4-131 (sectors 0-4),
		// warp 1 bytes 132-259 (sectors 4-8): 5 sectors each, by index or
		// through the pointer in+1 (an Offset view).
		{"misaligned-start", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 128)
			return func(t *Thread) {
				_ = a.Load(t, t.GlobalX()+1)
				_ = a.Offset(1).Load(t, t.GlobalX())
				_ = a.View(1, 64).Load(t, t.GlobalX())
			}
		}, []patLine{gLoad(2, 10), gLoad(2, 10), gLoad(2, 10)}, 0},
		// 100 elements, 128 threads: warps of 32, 32, 32 and 4 lanes; the
		// last reads bytes 384-399, one sector.
		{"tail", Dim(1), Dim(128), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 100)
			return func(t *Thread) {
				if i := t.GlobalX(); i < 100 {
					_ = a.Load(t, i)
				}
			}
		}, []patLine{gLoad(4, 13)}, 0},
		// Even lanes only: 16 lanes over the warp's 128 bytes, 4 sectors.
		// Lanes 0-7 read bytes 0-31 of their warp's 128 (1 sector), lanes
		// 8-31 the other 96 (3 sectors), on two lines.
		{"divergent", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 64)
			return func(t *Thread) {
				i := t.GlobalX()
				if t.LaneID()%2 == 0 {
					_ = a.Load(t, i)
				}
				if t.LaneID() < 8 {
					_ = a.Load(t, i)
				} else {
					_ = a.Load(t, i)
				}
			}
		}, []patLine{gLoad(2, 8), gLoad(2, 2), gLoad(2, 6)}, 0},
		// Every lane reads element 0: one sector.
		{"broadcast", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 64)
			return func(t *Thread) { _ = a.Load(t, 0) }
		}, []patLine{gLoad(2, 2)}, 0},
		// Each line makes two requests a warp: the index load, coalesced
		// (4 sectors), and the gather. A gather through a permutation of
		// each warp's 32 elements touches the warp's 4 sectors (8 a line),
		// one through indices 8 floats apart a sector a lane (36).
		{"gather", Dim(1), Dim(64), func(d *Device) Kernel {
			perm, scat := make([]int32, 64), make([]int32, 64)
			for i := range perm {
				perm[i] = int32(i/32*32 + i*13%32)
				scat[i] = int32(i * 37 % 64 * 8)
			}
			ip, _ := FromHost(d, "perm", perm)
			is, _ := FromHost(d, "scat", scat)
			a := zeros[float32](d, "a", 512)
			return func(t *Thread) {
				_ = a.Load(t, int(ip.Load(t, t.GlobalX())))
				_ = a.Load(t, int(is.Load(t, t.GlobalX())))
			}
		}, []patLine{gLoad(4, 16), gLoad(4, 72)}, 0},
		// A loop: each iteration is a request of its own at one line, 4
		// iterations of 4 sectors per warp. Lanes 16-31 go round twice:
		// the second request has their 16 lanes, 2 sectors.
		{"loop", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 256)
			return func(t *Thread) {
				for k := 0; k < 4; k++ {
					_ = a.Load(t, k*64+t.GlobalX())
				}
				for k := 0; k < 1+t.LaneID()/16; k++ {
					_ = a.Load(t, k*64+t.GlobalX())
				}
			}
		}, []patLine{gLoad(8, 32), gLoad(4, 12)}, 0},
		// A 16x16 block: warp w is rows 2w and 2w+1 (x fastest), 16
		// floats (2 sectors) of each of two rows 256 bytes apart.
		{"2d-block", Dim(1), Dim2(16, 16), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 16*64)
			return func(t *Thread) { _ = a.Load(t, t.ThreadIdx.Y*64+t.ThreadIdx.X) }
		}, []patLine{gLoad(8, 32)}, 0},
		// Blocks of 48: a full warp (4 sectors) and one of 16 lanes (64
		// bytes, 2 sectors) each; block 1 starts at byte 192, a sector
		// boundary.
		{"block-48", Dim(2), Dim(48), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 96)
			return func(t *Thread) { _ = a.Load(t, t.GlobalX()) }
		}, []patLine{gLoad(4, 12)}, 0},
		// Stores: 32 floats 4 sectors, 32 bytes 1, 32 shorts 2, 32
		// doubles 8.
		{"stores", Dim(1), Dim(64), func(d *Device) Kernel {
			f, _ := Alloc[float32](d, "f", 64)
			b, _ := Alloc[uint8](d, "b", 64)
			s, _ := Alloc[int16](d, "s", 64)
			x, _ := Alloc[float64](d, "x", 64)
			return func(t *Thread) {
				i := t.GlobalX()
				f.Store(t, i, 1)
				b.Store(t, i, 1)
				s.Store(t, i, 1)
				x.Store(t, i, 1)
			}
		}, []patLine{gStore(2, 8), gStore(2, 2), gStore(2, 4), gStore(2, 16)}, 0},
		// Strong loads and stores (volatile, atomic_ref) are load and
		// store instructions: coalesced, 4 sectors a warp; a volatile
		// store to shared memory, one wavefront.
		{"strong", Dim(1), Dim(64), func(d *Device) Kernel {
			a := zeros[float32](d, "a", 64)
			x := zeros[int32](d, "x", 64)
			return func(t *Thread) {
				i := t.GlobalX()
				_ = a.LoadVolatile(t, i)
				NewAtomicRef(x, i, ThreadScopeDevice).Store(t, 1, MemoryOrderRelaxed)
				Shared[int32](t, "s", 64).StoreVolatile(t, i, 1)
			}
		}, []patLine{gLoad(2, 8), gStore(2, 8), sStore(2, 2, 2)}, 0},
		// Constant memory: one pass per distinct element, on the
		// constant line only (not in the shared summary): every lane
		// reading one element is 1, lanes reading 4 elements 4, 32
		// elements 32.
		{"constant", Dim(1), Dim(64), func(d *Device) Kernel {
			return func(t *Thread) {
				l := t.LaneID()
				_ = patConst.Load(t, 3)
				_ = patConst.Load(t, l/8)
				_ = patConst.Load(t, l)
			}
		}, []patLine{cLoad(2, 2), cLoad(2, 8), cLoad(2, 64)}, 0},
		// Atomics count one per thread, on their own line, not as loads
		// or stores. (Lane 0's store of the shared counter is a request of
		// one lane a block.)
		{"atomics", Dim(2), Dim(64), func(d *Device) Kernel {
			h := zeros[uint32](d, "h", 4)
			return func(t *Thread) {
				AtomicAdd(t, h, t.GlobalX()%4, 1)
				s := SharedVar[int32](t, "s")
				if t.ThreadIdx.X == 0 {
					s.Store(t, 0, 0)
				}
				t.SyncThreads()
				AtomicAdd(t, s, 0, 1)
			}
		}, []patLine{atomicLine(GlobalSpace, 128), sStore(2, 2, 2), atomicLine(SharedSpace, 128)}, 0},
	})
}

// TestProfileSharedPatterns checks wavefronts and bank conflicts of shared
// loads and stores.
func TestProfileSharedPatterns(t *testing.T) {
	checkPatterns(t, []pattern{
		// A 32x32 float tile, written a row per request (conflict-free),
		// read down column 0: 32 words in bank 0, 32 wavefronts. Padded to
		// 33 columns, row r of column 0 is in bank r: one wavefront.
		{"tile-column", Dim(1), Dim(32), func(d *Device) Kernel {
			return func(t *Thread) {
				tile := Shared[float32](t, "tile", 32*32)
				pad := Shared[float32](t, "pad", 32*33)
				l := t.LaneID()
				for r := 0; r < 32; r++ {
					tile.Store(t, r*32+l, 1)
					pad.Store(t, r*33+l, 1)
				}
				t.SyncThreads()
				_ = tile.Load(t, l*32)
				_ = pad.Load(t, l*33)
			}
		}, []patLine{sStore(32, 32, 32), sStore(32, 32, 32), sLoad(1, 32, 1), sLoad(1, 1, 1)}, 0},
		// float2: two half-warp phases of 128 bytes. Consecutive: 2
		// wavefronts, no conflict. Stride 2 (16 bytes): each half-warp
		// puts 2 words in 16 banks, 2 wavefronts each, 4 in all. Lanes
		// 8-15 and 16-23 swapped: half-warp 0 reads elements 0-7 and
		// 16-23 (words 0-15, 32-47: banks 0-15 twice), half-warp 1 the
		// rest (banks 16-31 twice): 4 wavefronts, though the warp as a
		// whole puts 2 words in each bank.
		{"float2", Dim(1), Dim(32), func(d *Device) Kernel {
			return func(t *Thread) {
				s := Shared[Float2](t, "s", 64)
				l := t.LaneID()
				s.Store(t, l, Float2{})
				s.Store(t, l+32, Float2{})
				t.SyncThreads()
				_ = s.Load(t, 2*l)
				swap := l
				if l >= 8 && l < 24 {
					swap = l ^ 24
				}
				_ = s.Load(t, swap)
			}
		}, []patLine{sStore(1, 2, 2), sStore(1, 2, 2), sLoad(1, 4, 2), sLoad(1, 4, 2)}, 0},
		// float4: four quarter-warp phases of 128 bytes. Consecutive: 4
		// wavefronts, no conflict. Stride 2 (32 bytes): each quarter
		// puts 2 words in 16 banks, 8 wavefronts. Transposed (lane l reads
		// element l%8*4 + l/8): quarter q reads elements q, q+4, ..., all
		// in banks 4q-4q+3 or 4q+16-4q+19, 4 words each: 16 wavefronts,
		// though the warp as a whole puts 4 words in each bank. A
		// broadcast of one element: one wavefront per quarter, no
		// conflict.
		{"float4", Dim(1), Dim(32), func(d *Device) Kernel {
			return func(t *Thread) {
				s := Shared[Float4](t, "s", 64)
				l := t.LaneID()
				s.Store(t, l, Float4{})
				s.Store(t, l+32, Float4{})
				t.SyncThreads()
				_ = s.Load(t, 2*l)
				_ = s.Load(t, l%8*4+l/8)
				_ = s.Load(t, 0)
			}
		}, []patLine{sStore(1, 4, 4), sStore(1, 4, 4), sLoad(1, 8, 4), sLoad(1, 16, 4), sLoad(1, 4, 4)}, 0},
		// Bytes: 32 consecutive are 8 words, 4 apart 32 words in 32
		// banks, 128 apart 32 words of bank 0. Shorts: 32 consecutive are
		// 16 words, 64 apart 32 words of bank 0.
		{"bytes-shorts", Dim(1), Dim(32), func(d *Device) Kernel {
			return func(t *Thread) {
				b := Shared[uint8](t, "b", 8192)
				h := Shared[int16](t, "h", 4096)
				l := t.LaneID()
				b.Store(t, l, 1)
				b.Store(t, 1024+4*l, 1)
				b.Store(t, 4096+128*l, 1)
				h.Store(t, l, 1)
				h.Store(t, 1024+64*l, 1)
			}
		}, []patLine{sStore(1, 1, 1), sStore(1, 1, 1), sStore(1, 32, 1), sStore(1, 1, 1), sStore(1, 32, 1)}, 0},
		// A 16x16 block, row-major (warp w is rows 2w, 2w+1: 32
		// consecutive words), then transposed: lane (x, y) reads word
		// 16x+y, in bank y or y+16 by x's parity, 8 words each: 8
		// wavefronts a warp.
		{"2d-block", Dim(1), Dim2(16, 16), func(d *Device) Kernel {
			return func(t *Thread) {
				s := Shared[float32](t, "s", 256)
				x, y := t.ThreadIdx.X, t.ThreadIdx.Y
				s.Store(t, 16*y+x, 1)
				t.SyncThreads()
				_ = s.Load(t, 16*x+y)
			}
		}, []patLine{sStore(8, 8, 8), sLoad(8, 64, 8)}, 0},
		// Blocks of 48: a warp of 32 lanes and one of 16, one wavefront
		// each; a broadcast of one word, one wavefront.
		{"block-48", Dim(2), Dim(48), func(d *Device) Kernel {
			return func(t *Thread) {
				s := Shared[float32](t, "s", 48)
				s.Store(t, t.ThreadIdx.X, 1)
				t.SyncThreads()
				_ = s.Load(t, 0)
			}
		}, []patLine{sStore(4, 4, 4), sLoad(4, 4, 4)}, 0},
		// Dynamic shared memory carved into a float array of 33 and an
		// int array after it (`int *c = (int *)&a[33]`): c's words are
		// those of 33 on, the same banks shifted; column 0 of c as a
		// 32x32 tile is 32 words of one bank.
		{"carved-dynamic", Dim(1), Dim(32), func(d *Device) Kernel {
			return func(t *Thread) {
				a := DynamicShared[float32](t, "smem")
				c := Reinterpret[int32](a.Offset(33))
				l := t.LaneID()
				c.Store(t, l*32, 1)
				c.Store(t, l, 1)
			}
		}, []patLine{sStore(1, 32, 1), sStore(1, 1, 1)}, 4 * (33 + 32*32)},
	})
}
