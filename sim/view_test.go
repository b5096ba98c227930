package sim_test

// Views, reinterpreted types, vector and 16-bit types, carved shared
// memory, constant memory, read-only loads and the host's copies at
// offsets (issue 13).

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/gpusim/gpusim/sim"
)

func mustAlloc[T sim.Storable](t *testing.T, dev *sim.Device, name string, n int) *sim.Buffer[T] {
	t.Helper()
	b, err := sim.Alloc[T](dev, name, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVectorLayoutAndAlign(t *testing.T) {
	cases := []struct {
		name        string
		align, size int
	}{
		{"char4", sim.Align[sim.Char4](), 4}, {"uchar4", sim.Align[sim.Uchar4](), 4},
		{"short2", sim.Align[sim.Short2](), 4}, {"short4", sim.Align[sim.Short4](), 8},
		{"int2", sim.Align[sim.Int2](), 8}, {"int3", sim.Align[sim.Int3](), 4},
		{"int4", sim.Align[sim.Int4](), 16}, {"uint2", sim.Align[sim.Uint2](), 8},
		{"uint4", sim.Align[sim.Uint4](), 16}, {"float2", sim.Align[sim.Float2](), 8},
		{"float3", sim.Align[sim.Float3](), 4}, {"float4", sim.Align[sim.Float4](), 16},
		{"double2", sim.Align[sim.Double2](), 16}, {"longlong2", sim.Align[sim.Longlong2](), 16},
		{"half", sim.Align[sim.Half](), 2}, {"short", sim.Align[int16](), 2},
	}
	want := map[string]int{"char4": 4, "uchar4": 4, "short2": 4, "short4": 8, "int2": 8, "int3": 4, "int4": 16,
		"uint2": 8, "uint4": 16, "float2": 8, "float3": 4, "float4": 16, "double2": 16, "longlong2": 16, "half": 2, "short": 2}
	for _, c := range cases {
		if c.align != want[c.name] {
			t.Errorf("Align of %s = %d, want %d", c.name, c.align, want[c.name])
		}
	}
	if v := sim.MakeFloat4(1, 2, 3, 4); v != (sim.Float4{X: 1, Y: 2, Z: 3, W: 4}) {
		t.Errorf("MakeFloat4 = %v", v)
	}
}

// float4Copy copies n floats as n/4 float4 loads and stores through views.
func float4Copy(in, out *sim.Buffer[float32], n4 int) sim.Kernel {
	in4, out4 := sim.Reinterpret[sim.Float4](in), sim.Reinterpret[sim.Float4](out)
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n4 {
			v := in4.Load(t, i)
			v.X *= 2
			out4.Store(t, i, v)
		}
	}
}

func TestNoRaceFloat4CopyInitialisesSixteenBytes(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(64, func(i int) float32 { return float32(i) }))
	out := mustAlloc[float32](t, dev, "out", 64)
	wantClean(t, exec(t, dev, lin(1, 16), float4Copy(in, out, 16)))
	// Every float the float4 stores wrote reads as initialised.
	sum := mustAlloc[float32](t, dev, "sum", 64)
	wantClean(t, exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		sum.Store(t, t.GlobalX(), out.Load(t, t.GlobalX())+1)
	}))
	got := out.ToHost()
	for i, v := range got {
		w := float32(i)
		if i%4 == 0 {
			w *= 2
		}
		if v != w {
			t.Fatalf("out[%d] = %v, want %v", i, v, w)
		}
	}
}

func TestUninitFloat4ReadOfPartlyWrittenFloats(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := mustAlloc[float32](t, dev, "in", 8)
	if err := in.View(0, 7).CopyFromHost(make([]float32, 7)); err != nil { // float 7 never written
		t.Fatal(err)
	}
	out := mustAlloc[float32](t, dev, "out", 8)
	r := exec(t, dev, lin(1, 2), float4Copy(in, out, 2))
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "in" || f.Index != 1 {
		t.Errorf("finding on %q[%d], want in[1] (the float4 view's element holding float 7):\n%v", f.Memory, f.Index, f)
	}
}

// bytesThenWord: thread 0 stores byte 1 of a word; thread 1 loads the
// word through a uint32 view, after a barrier or not.
func bytesThenWord(b *sim.Buffer[uint8], out *sim.Buffer[uint32], barrier bool) sim.Kernel {
	w := sim.Reinterpret[uint32](b)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			b.Store(t, 1, 7) //@bwW
		}
		if barrier {
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 1 {
			out.Store(t, 0, w.Load(t, 0)) //@bwR
		}
	}
}

func TestRaceByteStoreWordLoad(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[uint8](t, dev, "b", 8)
	out := mustAlloc[uint32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), bytesThenWord(b, out, false))
	wantRace(t, r, sim.GlobalSpace, "b", at(t, "bwW"), at(t, "bwR"))
}

func TestNoRaceByteStoreWordLoadAfterBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[uint8](t, dev, "b", 8)
	out := mustAlloc[uint32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 2), bytesThenWord(b, out, true)))
	if got := out.ToHost()[0]; got != 7<<8 {
		t.Errorf("word = %#x, want 0x700 (little-endian byte 1)", got)
	}
}

// offsetView: thread i of the view writes view[i]; thread 0 of the base
// writes base[k].
func offsetView(base *sim.Buffer[int32], off, k int) sim.Kernel {
	v := base.View(off, 4)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X < 4 {
			v.Store(t, t.ThreadIdx.X, 1) //@ovV
		} else if t.ThreadIdx.X == 4 {
			base.Store(t, k, 2) //@ovB
		}
	}
}

func TestRaceOffsetViewAndBase(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	r := exec(t, dev, lin(1, 5), offsetView(base, 8, 10))
	f := wantRace(t, r, sim.GlobalSpace, "base", at(t, "ovV"), at(t, "ovB"))
	if f.Index != 2 && f.Index != 10 {
		t.Errorf("race at index %d, want the view's 2 or the base's 10", f.Index)
	}
}

func TestNoRaceOffsetViewDisjoint(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	wantClean(t, exec(t, dev, lin(1, 5), offsetView(base, 8, 3)))
	got := base.ToHost()
	if got[3] != 2 || got[8] != 1 || got[11] != 1 || got[12] != 0 {
		t.Errorf("base = %v", got)
	}
}

func TestOutOfBoundsViewNamesItsOwnIndex(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	v := base.View(8, 4)
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) { v.Store(t, 4, 1) })
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "base" || f.Index != 4 {
		t.Errorf("finding on %q[%d], want base[4] of the view", f.Memory, f.Index)
	}
}

func TestViewPastEndRefused(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	for _, mk := range []func(){func() { base.View(8, 9) }, func() { base.Offset(17) }, func() { base.View(-1, 2) }} {
		func() {
			defer func() {
				var me *sim.MisuseError
				if e, ok := recover().(error); !ok || !errors.As(e, &me) {
					t.Errorf("want a *MisuseError panic, got %v", e)
				}
			}()
			mk()
		}()
	}
}

// A view of a freed buffer is refused as a use after Free, not as a range
// past the end of a buffer Free left with no elements.
func TestViewOfFreedBufferSaysFreed(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	base.Free()
	for _, mk := range []func(){func() { base.View(0, 2) }, func() { base.Offset(1) }} {
		func() {
			defer func() {
				var me *sim.MisuseError
				if e, ok := recover().(error); !ok || !errors.As(e, &me) || !strings.Contains(me.Error(), "freed") {
					t.Errorf("want a *MisuseError panic saying the buffer is freed, got %v", e)
				}
			}()
			mk()
		}()
	}
}

func TestPanicViewPastEndInKernel(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	base := zeroed[int32](t, dev, "base", 16)
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		base.View(8, 16).Store(t, 0, 1) //@vpe
	})
	f := wantKind(t, r, sim.KernelPanic)
	if !strings.Contains(f.String(), "past its end") {
		t.Errorf("finding does not say why:\n%v", f)
	}
}

func TestMisalignedWordLoad(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[uint8](t, dev, "bytes", 16)
	w := sim.Reinterpret[uint32](b.Offset(1))
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		_ = w.Load(t, 0) //@mis
	})
	f := wantKind(t, r, sim.MisalignedAddress)
	if f.Memory != "bytes" || f.Current.Site != at(t, "mis") {
		t.Errorf("finding on %q at %s, want bytes at %s:\n%v", f.Memory, f.Current.Site, at(t, "mis"), f)
	}
	// Fatal, as cudaErrorMisalignedAddress is: the report says so.
	if !sim.MisalignedAddress.Fatal() || !r.Aborted || !strings.Contains(r.Error(), "launch aborted") {
		t.Errorf("a misaligned access should abort the launch and say so:\n%v", r)
	}
	// A float4 view at a 4-byte (not 16-byte) offset is misaligned too;
	// a float2 at 8 is not.
	fl := zeroed[float32](t, dev, "fl", 16)
	f4 := sim.Reinterpret[sim.Float4](fl.Offset(1))
	r = exec(t, dev, lin(1, 1), func(t *sim.Thread) { f4.Store(t, 0, sim.Float4{}) })
	wantKind(t, r, sim.MisalignedAddress)
	f2 := sim.Reinterpret[sim.Float2](fl.Offset(2))
	wantClean(t, exec(t, dev, lin(1, 1), func(t *sim.Thread) { f2.Store(t, 0, sim.MakeFloat2(1, 2)) }))
	if got := fl.ToHost(); got[2] != 1 || got[3] != 2 {
		t.Errorf("float2 store landed at %v", got[:4])
	}
}

// Atomics, volatile and atomic_ref accesses and read-only loads through a
// misaligned view are MisalignedAddress findings naming the element in the
// view's type and its byte in the allocation, as a plain load is; they
// were "index 0 outside [0,15)". An index past the view is out of bounds.
func TestMisalignedStrongAccessesAreNamed(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, sim.Options{}.WithDetection(false)} {
		dev := sim.NewDevice(sim.H100)
		b := zeroed[uint8](t, dev, "b", 64)
		w := sim.Reinterpret[uint32](b.Offset(1)) // 15 words from byte 1
		d := sim.Reinterpret[uint64](b.Offset(4)) // 7 double words from byte 4
		for _, tc := range []struct {
			name  string
			index int
			bytes int // the access's first byte in "b"
			use   func(th *sim.Thread)
		}{
			{"AtomicAdd", 0, 1, func(th *sim.Thread) { sim.AtomicAdd(th, w, 0, 1) }},
			{"AtomicCAS", 3, 13, func(th *sim.Thread) { sim.AtomicCAS(th, w, 3, 0, 1) }},
			{"AtomicRef", 2, 9, func(th *sim.Thread) {
				sim.NewAtomicRef(w, 2, sim.ThreadScopeDevice).FetchAdd(th, 1, sim.MemoryOrderRelaxed)
			}},
			{"LoadVolatile", 0, 1, func(th *sim.Thread) { w.LoadVolatile(th, 0) }},
			{"StoreVolatile", 14, 57, func(th *sim.Thread) { w.StoreVolatile(th, 14, 1) }},
			{"Ldg", 1, 5, func(th *sim.Thread) { sim.Ldg(th, w, 1) }},
			{"AtomicAdd uint64", 0, 4, func(th *sim.Thread) { sim.AtomicAdd(th, d, 0, 1) }},
		} {
			r := exec(t, dev, lin(1, 1, o), func(th *sim.Thread) { tc.use(th) })
			f := only(t, r, sim.MisalignedAddress)
			if f.Memory != "b" || f.Index != tc.index || !strings.Contains(f.Detail, fmt.Sprintf("access at byte %d of", tc.bytes)) {
				t.Errorf("detection %v, %s: want element %d at byte %d:\n%v", o.Detection(), tc.name, tc.index, tc.bytes, r)
			}
		}
		r := exec(t, dev, lin(1, 1, o), func(th *sim.Thread) { sim.AtomicAdd(th, w, 15, 1) })
		if f := only(t, r, sim.OutOfBounds); f.Index != 15 || !strings.Contains(f.Detail, "outside [0,15)") {
			t.Errorf("detection %v: an atomic past the misaligned view:\n%v", o.Detection(), r)
		}
	}
}

// carved: dynamic shared memory carved into n floats then ints, with the
// int array starting at float element at (n for the right carving, n-1
// for one that overlaps the floats' last element).
func carved(out *sim.Buffer[float32], n, at int) sim.Kernel {
	return func(t *sim.Thread) {
		smem := sim.DynamicShared[uint8](t, "smem")
		a := sim.Reinterpret[float32](smem)
		b := sim.Reinterpret[int32](a.Offset(at))
		i := t.ThreadIdx.X
		a.Store(t, i, float32(i)) //@cvA
		b.Store(t, i, int32(i))   //@cvB
		t.SyncThreads()
		out.Store(t, t.GlobalX(), a.Load(t, i)+float32(b.Load(t, (i+1)%n)))
	}
}

func TestRaceCarvedSharedOverlap(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[float32](t, dev, "out", 8)
	r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(8), SharedBytes: 64}, carved(out, 8, 7))
	wantRace(t, r, sim.SharedSpace, "smem", at(t, "cvA"), at(t, "cvB"))
}

func TestNoRaceCarvedShared(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[float32](t, dev, "out", 16)
	wantClean(t, exec(t, dev, sim.Config{Grid: sim.Dim(2), Block: sim.Dim(8), SharedBytes: 64}, carved(out, 8, 8)))
	for i, v := range out.ToHost() {
		if v != float32(i%8+(i+1)%8) {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
}

func TestSharedTwoDAndScalar(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[int16](t, dev, "out", 12)
	wantClean(t, exec(t, dev, lin(1, 12), func(t *sim.Thread) {
		tile := sim.Shared2D[int16](t, "tile", 3, 4)
		count := sim.SharedVar[sim.Half](t, "count")
		i := t.ThreadIdx.X
		r, c := i/4, i%4
		tile.Store(t, c*3+r, int16(10*r+c)) // transposed: [c][r] of a 4x3 view
		if i == 0 {
			count.Store(t, 0, sim.Float2Half(1.5))
		}
		t.SyncThreads()
		out.Store(t, i, tile.Load(t, i)+int16(sim.Half2Float(count.Load(t, 0))*2))
	}))
	got := out.ToHost()
	for i, v := range got {
		c, r := i/3, i%3
		if v != int16(10*r+c+3) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 10*r+c+3)
		}
	}
}

var convFilter = sim.NewConstant[float32]("convFilter", 3)

func TestConstantMemory(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	if err := convFilter.CopyFromHost(dev, []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	out := mustAlloc[float32](t, dev, "out", 3)
	wantClean(t, exec(t, dev, lin(1, 3), func(t *sim.Thread) {
		out.Store(t, t.ThreadIdx.X, convFilter.Load(t, t.ThreadIdx.X)*10)
	}))
	if got := out.ToHost(); got[0] != 10 || got[2] != 30 {
		t.Errorf("out = %v", got)
	}
	// Another device has its own copy, zero until written.
	dev2 := sim.NewDevice(sim.H100)
	out2 := mustAlloc[float32](t, dev2, "out", 3)
	wantClean(t, exec(t, dev2, lin(1, 3), func(t *sim.Thread) {
		out2.Store(t, t.ThreadIdx.X, convFilter.Load(t, t.ThreadIdx.X)+1)
	}))
	if got := out2.ToHost(); got[2] != 1 {
		t.Errorf("second device's constant = %v, want zeros", got)
	}
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		convFilter.Store(t, 0, 5) //@cw
	})
	if f := wantKind(t, r, sim.ConstantWrite); f.Current.Site != at(t, "cw") || f.Memory != "convFilter" {
		t.Errorf("finding %v", f)
	}
	if !sim.ConstantWrite.Fatal() || !r.Aborted || !strings.Contains(r.Error(), "launch aborted") {
		t.Errorf("a write to constant memory should abort the launch and say so:\n%v", r)
	}
	if err := convFilter.CopyFromHostAt(dev, 2, []float32{1, 2}); err == nil {
		t.Error("a copy past the constant's end was accepted")
	}
}

func TestConstantLimit(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	a := sim.NewConstant[float64]("a", 6000)
	b := sim.NewConstant[float64]("b", 3000)
	if err := a.CopyFromHost(dev, []float64{1}); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromHost(dev, []float64{1}); err == nil {
		t.Error("72000 bytes of constants on one device were accepted")
	}
	defer func() {
		if recover() == nil {
			t.Error("a 64 KiB + 4 byte constant was declared")
		}
	}()
	sim.NewConstant[float32]("big", 16385)
}

// A package-level Constant does not keep the Devices it was used on: a
// dropped Device is collected (only the last one used stays, until it is
// closed), with its buffers. The constant held every Device in a map.
var keepsNone = sim.NewConstant[float32]("keepsNone", 16)

func TestConstantKeepsNoDevice(t *testing.T) {
	c := keepsNone
	var devs []weak.Pointer[sim.Device]
	for k := 0; k < 5; k++ {
		dev := sim.NewDevice(sim.H100)
		if err := c.CopyFromHost(dev, []float32{float32(k)}); err != nil {
			t.Fatal(err)
		}
		out := mustAlloc[float32](t, dev, "out", 1<<16)
		wantClean(t, exec(t, dev, lin(1, 1), func(t *sim.Thread) { out.Store(t, 0, c.Load(t, 0)) }))
		if got := out.ToHost()[0]; got != float32(k) {
			t.Fatalf("device %d read %v from its constant", k, got)
		}
		devs = append(devs, weak.Make(dev))
		if k == 4 {
			dev.Close()
		}
	}
	for range 3 {
		runtime.GC()
	}
	for k, w := range devs {
		if w.Value() != nil {
			t.Errorf("device %d is still reachable", k)
		}
	}
}

// ldgAfter: thread 0 writes in[0]; after a barrier, thread 1 loads it
// read-only (or in[1], which nothing in the launch wrote).
func ldgAfter(in, out *sim.Buffer[float32], k int) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			in.Store(t, 0, 3)
		}
		t.SyncThreads()
		if t.ThreadIdx.X == 1 {
			out.Store(t, 0, sim.Ldg(t, in, k)) //@ldg
		}
	}
}

func TestNoRaceLdgOfWrittenMemory(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", []float32{1, 2})
	out := mustAlloc[float32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), ldgAfter(in, out, 0))
	if f := wantKind(t, r, sim.ReadOnlyWritten); f.Current.Site != at(t, "ldg") || f.Index != 0 {
		t.Errorf("finding %v", f)
	}
	wantClean(t, exec(t, dev, lin(1, 2), ldgAfter(in, out, 1)))
	if got := out.ToHost()[0]; got != 2 {
		t.Errorf("ldg read %v", got)
	}
}

func TestHostCopiesAtOffsets(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	a := host(t, dev, "a", []int32{1, 2, 3, 4, 5, 6})
	b := zeroed[int32](t, dev, "b", 6)
	if err := sim.Copy(b.Offset(2), a.View(1, 3)); err != nil {
		t.Fatal(err)
	}
	if got := b.ToHost(); got[1] != 0 || got[2] != 2 || got[4] != 4 || got[5] != 0 {
		t.Errorf("b = %v", got)
	}
	if err := sim.Copy(b, mustAlloc[int32](t, dev, "big", 7)); err == nil {
		t.Error("a copy of 7 elements into 6 was accepted")
	}
	// MemsetBytes sets bytes, not elements: 5 bytes of 0x01 are element 0
	// and the low byte of element 1.
	c := zeroed[uint32](t, dev, "c", 2)
	if err := c.MemsetBytes(1, 5); err != nil {
		t.Fatal(err)
	}
	if got := c.ToHost(); got[0] != 0x01010101 || got[1] != 1 {
		t.Errorf("c = %#x", got)
	}
	if err := c.MemsetBytes(1, 9); err == nil {
		t.Error("a memset of 9 bytes of an 8-byte buffer was accepted")
	}
	// A host copy into a view initialises only the view's elements.
	d := mustAlloc[int32](t, dev, "d", 4)
	if err := d.Offset(2).CopyFromHost([]int32{7, 8}); err != nil {
		t.Fatal(err)
	}
	out := mustAlloc[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) { out.Store(t, 0, d.Load(t, 1)+d.Load(t, 2)) })
	if f := wantKind(t, r, sim.UninitializedRead); f.Index != 1 {
		t.Errorf("uninitialised read of d[%d], want d[1]", f.Index)
	}
	// Copying an uninitialised source leaves the copy uninitialised.
	e := mustAlloc[int32](t, dev, "e", 4)
	if err := sim.Copy(e, d); err != nil {
		t.Fatal(err)
	}
	r = exec(t, dev, lin(1, 1), func(t *sim.Thread) { out.Store(t, 0, e.Load(t, 3)+e.Load(t, 0)) })
	if f := wantKind(t, r, sim.UninitializedRead); f.Index != 0 || f.Memory != "e" {
		t.Errorf("uninitialised read of %s[%d], want e[0]", f.Memory, f.Index)
	}
}

func TestHalfBufferDot(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	xs := make([]sim.Half, 64)
	for i := range xs {
		xs[i] = sim.Float2Half(float32(i) / 8)
	}
	x, err := sim.FromHost(dev, "x", xs)
	if err != nil {
		t.Fatal(err)
	}
	out := mustAlloc[float32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		var s float32
		for i := 0; i < 64; i++ {
			v := sim.Half2Float(x.Load(t, i))
			s += v * v
		}
		out.Store(t, 0, s)
	}))
	want := float32(0)
	for i := 0; i < 64; i++ {
		want += float32(i*i) / 64
	}
	if got := out.ToHost()[0]; got != want {
		t.Errorf("dot = %v, want %v", got, want)
	}
}

// A row pointer (in + y*w) reads the rows above and below with negative
// and past-the-end indices, as CUDA's pointer does: no finding, the right
// values; plain, volatile, __ldg and atomic accesses alike.
func TestNoRaceOffsetRowPointerReachesNeighbours(t *testing.T) {
	t.Parallel()
	const w, h = 8, 6
	dev := sim.NewDevice(sim.H100)
	hin := make([]float32, w*h)
	for i := range hin {
		hin[i] = float32(i)
	}
	in := host(t, dev, "in", hin)
	out := zeroed[float32](t, dev, "out", w*h)
	cnt := zeroed[int32](t, dev, "cnt", w*h)
	wantClean(t, exec(t, dev, lin(1, w*h), func(t *sim.Thread) {
		x, y := t.ThreadIdx.X%w, t.ThreadIdx.X/w
		if y == 0 || y == h-1 {
			return
		}
		row := in.Offset(y * w)
		c := cnt.Offset(y * w)
		v := row.Load(t, x-w) + sim.Ldg(t, row, x+w) + row.LoadVolatile(t, x)
		out.Offset(y*w).Store(t, x, v)
		sim.AtomicAdd(t, c, x-w, 1)
	}))
	got, n := out.ToHost(), cnt.ToHost()
	for y := 1; y < h-1; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if want := hin[i-w] + hin[i+w] + hin[i]; got[i] != want {
				t.Fatalf("out[%d] = %v, want %v", i, got[i], want)
			}
		}
	}
	for i, c := range n {
		if want := int32(0); i/w < h-2 {
			want = 1
			if c != want {
				t.Fatalf("cnt[%d] = %d, want %d", i, c, want)
			}
		}
	}
}

// Past the whole buffer, a row pointer's access is out of bounds, reported
// as the buffer's own index.
func TestOutOfBoundsOffsetRowPointerBeforeBuffer(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", make([]float32, 16))
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		row := in.Offset(4)
		_ = row.Load(t, -5)
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "in" || f.Index != -1 || !strings.Contains(f.Detail, "outside [0,16)") {
		t.Fatalf("finding %+v, want in[-1] outside [0,16)", f)
	}
}

// A 2-D shared array's findings name the element by row and column, as the
// CUDA source does (tile[r][c]), not by its flat index.
func TestRaceSharedTwoDNamesRowAndColumn(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[float32](t, dev, "out", 64)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		tile := sim.Shared2D[float32](t, "tile", 8, 8)
		x, y := t.ThreadIdx.X%8, t.ThreadIdx.X/8
		tile.Store(t, y*8+x, float32(t.ThreadIdx.X))
		// (the __syncthreads() of a transpose is missing)
		out.Store(t, t.ThreadIdx.X, tile.Load(t, x*8+y))
	})
	f := wantKind(t, r, sim.DataRace)
	if f.Cols != 8 || !strings.Contains(f.String(), fmt.Sprintf(`"tile"[%d][%d]`, f.Index/8, f.Index%8)) {
		t.Errorf("finding does not name the element by row and column (Cols %d):\n%v", f.Cols, f)
	}
}

func TestOutOfBoundsSharedTwoDPastLastRow(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	r := exec(t, dev, lin(1, 32), func(t *sim.Thread) {
		tile := sim.Shared2D[int32](t, "tile", 4, 8)
		tile.Store(t, (t.ThreadIdx.X/8+1)*8+t.ThreadIdx.X%8, 1) // row 1..4 of 4 rows
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if !strings.Contains(f.String(), `"tile"[4][`) {
		t.Errorf("want the element as tile[4][c]:\n%v", f)
	}
}

// A finding through a view of another element type says so: "out"[1] of
// its float4 view is floats 4 to 7, not the buffer's element 1.
func TestRaceFloat4ViewNamesItsType(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[float32](t, dev, "out", 8)
	r := exec(t, dev, lin(1, 2), func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			out.Store(t, 5, 1)
		} else {
			sim.Reinterpret[sim.Float4](out).Store(t, 1, sim.Float4{})
		}
	})
	f := wantKind(t, r, sim.DataRace)
	if f.Memory != "out" || f.View != "sim.Float4" || !strings.Contains(f.String(), `"out"[1] of its sim.Float4 view`) {
		t.Errorf("want the race named as element 1 of out's sim.Float4 view:\n%v", f)
	}
}

// The cast of a row pointer reaches what the pointer does:
// `((float4 *)(in + 8))[-1]` is floats 4 to 7 of in, no finding; [-3]
// starts 4 floats before in, out of bounds, named as the kernel indexed
// it. Reinterpret of an Offset view was bounded at the view's start.
func TestNoRaceReinterpretedRowPointerReachesBack(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", iota32(16, func(i int) float32 { return float32(i) }))
	out := mustAlloc[sim.Float4](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		p := sim.Reinterpret[sim.Float4](in.Offset(8))
		out.Store(t, 0, p.Load(t, -1))
	}))
	if got := out.ToHost()[0]; got != sim.MakeFloat4(4, 5, 6, 7) {
		t.Errorf("((float4 *)(in + 8))[-1] = %v, want floats 4 to 7", got)
	}
}

func TestOutOfBoundsReinterpretedRowPointerBeforeBuffer(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	in := host(t, dev, "in", make([]float32, 16))
	out := mustAlloc[sim.Float4](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 1), func(t *sim.Thread) {
		p := sim.Reinterpret[sim.Float4](in.Offset(8))
		out.Store(t, 0, p.Load(t, -3))
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "in" || f.View != "sim.Float4" || f.Index != -3 || !strings.Contains(f.Detail, "outside [0,2)") {
		t.Fatalf("want in[-3] of its float4 view, outside [0,2):\n%v", f)
	}
}

// carvedBack: dynamic shared memory carved into n floats a and ints c
// from a[n] (`int *c = (int *)&a[n]`); each thread stores c[-1], which is
// a[n-1], then thread 0 reads a[n-1] after a barrier, or without one.
func carvedBack(out *sim.Buffer[float32], n int, barrier bool) sim.Kernel {
	return func(t *sim.Thread) {
		a := sim.Reinterpret[float32](sim.DynamicShared[uint8](t, "smem"))
		c := sim.Reinterpret[int32](a.Offset(n))
		if t.ThreadIdx.X == 1 {
			c.Store(t, -1, 0x3f800000) //@cbStore
		}
		if barrier {
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 0 {
			out.Store(t, 0, a.Load(t, n-1)) //@cbLoad
		}
	}
}

func TestNoRaceCarvedSharedCastReachesBack(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	out := mustAlloc[float32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(2), SharedBytes: 64}, carvedBack(out, 8, true)))
	if got := out.ToHost()[0]; got != 1 {
		t.Errorf("a[7] = %v, want 1 (stored as c[-1])", got)
	}
}

func TestRaceCarvedSharedCastReachesBack(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		out := mustAlloc[float32](t, dev, "out", 1)
		r := exec(t, dev, sim.Config{Grid: sim.Dim(1), Block: sim.Dim(2), SharedBytes: 64, Options: o}, carvedBack(out, 8, false))
		wantRace(t, r, sim.SharedSpace, "smem", at(t, "cbStore"), at(t, "cbLoad"))
	})
}
