package kernels_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// cudaLayout is every element type a sim.Buffer holds, with the size and
// alignment CUDA gives its counterpart (vector_types.h, cuda_fp16.h,
// cuda_bf16.h), written out by hand rather than taken from Go.
var cudaLayout = []struct {
	dt          kernels.DType
	of          func() kernels.DType // kernels.DTypeOf[T]
	name, ctype string
	size, align int
}{
	{kernels.Int8, kernels.DTypeOf[int8], "int8", "signed char", 1, 1},
	{kernels.Uint8, kernels.DTypeOf[uint8], "uint8", "unsigned char", 1, 1},
	{kernels.Int16, kernels.DTypeOf[int16], "int16", "short", 2, 2},
	{kernels.Uint16, kernels.DTypeOf[uint16], "uint16", "unsigned short", 2, 2},
	{kernels.Int32, kernels.DTypeOf[int32], "int32", "int", 4, 4},
	{kernels.Uint32, kernels.DTypeOf[uint32], "uint32", "unsigned int", 4, 4},
	{kernels.Int64, kernels.DTypeOf[int64], "int64", "long long", 8, 8},
	{kernels.Uint64, kernels.DTypeOf[uint64], "uint64", "unsigned long long", 8, 8},
	{kernels.Float32, kernels.DTypeOf[float32], "float32", "float", 4, 4},
	{kernels.Float64, kernels.DTypeOf[float64], "float64", "double", 8, 8},
	{kernels.Half, kernels.DTypeOf[sim.Half], "sim.Half", "__half", 2, 2},
	{kernels.BFloat16, kernels.DTypeOf[sim.BFloat16], "sim.BFloat16", "__nv_bfloat16", 2, 2},
	{kernels.Char4, kernels.DTypeOf[sim.Char4], "sim.Char4", "char4", 4, 4},
	{kernels.Uchar4, kernels.DTypeOf[sim.Uchar4], "sim.Uchar4", "uchar4", 4, 4},
	{kernels.Short2, kernels.DTypeOf[sim.Short2], "sim.Short2", "short2", 4, 4},
	{kernels.Short4, kernels.DTypeOf[sim.Short4], "sim.Short4", "short4", 8, 8},
	{kernels.Int2, kernels.DTypeOf[sim.Int2], "sim.Int2", "int2", 8, 8},
	{kernels.Int3, kernels.DTypeOf[sim.Int3], "sim.Int3", "int3", 12, 4},
	{kernels.Int4, kernels.DTypeOf[sim.Int4], "sim.Int4", "int4", 16, 16},
	{kernels.Uint2, kernels.DTypeOf[sim.Uint2], "sim.Uint2", "uint2", 8, 8},
	{kernels.Uint4, kernels.DTypeOf[sim.Uint4], "sim.Uint4", "uint4", 16, 16},
	{kernels.Float2, kernels.DTypeOf[sim.Float2], "sim.Float2", "float2", 8, 8},
	{kernels.Float3, kernels.DTypeOf[sim.Float3], "sim.Float3", "float3", 12, 4},
	{kernels.Float4, kernels.DTypeOf[sim.Float4], "sim.Float4", "float4", 16, 16},
	{kernels.Double2, kernels.DTypeOf[sim.Double2], "sim.Double2", "double2", 16, 16},
	{kernels.Longlong2, kernels.DTypeOf[sim.Longlong2], "sim.Longlong2", "longlong2", 16, 16},
}

// TestDTypeLayout holds every DType to CUDA's layout of its type: its size
// is CUDA's sizeof (so a host slice's bytes are the CUDA array's), its
// alignment CUDA's, and its name the Go type a twin's Param.Elem gives a
// buffer of it (the CUDA backend matches the two at launch).
func TestDTypeLayout(t *testing.T) {
	seen := map[kernels.DType]bool{}
	for _, c := range cudaLayout {
		dt := c.dt
		seen[dt] = true
		if got := c.of(); got != dt {
			t.Errorf("DTypeOf[%s] = %v, want %v", c.name, got, dt)
		}
		if !dt.Valid() || dt.String() != c.name {
			t.Errorf("DType %d: String %q (valid %v), want %q", dt, dt.String(), dt.Valid(), c.name)
		}
		if dt.Size() != c.size || dt.Align() != c.align {
			t.Errorf("%v: size %d align %d, want %s's %d and %d", dt, dt.Size(), dt.Align(), c.ctype, c.size, c.align)
		}
		if gt := dt.GoType(); gt == nil || gt.String() != c.name || int(gt.Size()) != c.size {
			t.Errorf("%v: GoType %v", dt, gt)
		}
		s := reflect.MakeSlice(reflect.SliceOf(dt.GoType()), 3, 3).Interface()
		if got, n, err := kernels.SliceDType(s); got != dt || n != 3 || err != nil {
			t.Errorf("SliceDType(%T) = %v, %d, %v", s, got, n, err)
		}
	}
	// Every valid DType is in the table: a DType added later must be too.
	for dt := kernels.DType(0); dt < 255; dt++ {
		if dt.Valid() != seen[dt] {
			t.Errorf("DType %d (%q): valid %v, in the table %v", dt, dt.String(), dt.Valid(), seen[dt])
		}
	}
	if d := kernels.DType(0); d.Size() != 0 || d.String() != "" || d.GoType() != nil {
		t.Errorf("the zero DType has size %d, name %q", d.Size(), d.String())
	}
}

// le is the little-endian bytes of each of vs, of the given byte widths:
// the bytes a CUDA array holds, computed without Go's layout of the type.
func le(width int, vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		for i := range width {
			b = append(b, byte(v>>(8*i)))
		}
	}
	return b
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// TestHostBytes compares the bytes the backends copy to and from the device
// (kernels.HostBytes, which the CUDA backend hands cuMemcpy) with bytes
// computed by hand from CUDA's layout: components in order, each
// little-endian, no padding (a float4 is 16 bytes, an int3 12, a __half 2).
// It then writes the bytes into a zeroed slice through HostBytes and reads
// the values back: the unpacking a device-to-host copy does.
func TestHostBytes(t *testing.T) {
	one, minusTwo, half, three := uint64(0x3f800000), uint64(0xc0000000), uint64(0x3f000000), uint64(0x40400000)
	tests := []struct {
		name string
		s    any
		want []byte
	}{
		{"int8", []int8{-1, 2}, []byte{0xff, 0x02}},
		{"int16", []int16{-2, 0x1234}, []byte{0xfe, 0xff, 0x34, 0x12}},
		{"uint16", []uint16{0xbeef}, []byte{0xef, 0xbe}},
		{"int32", []int32{-2}, []byte{0xfe, 0xff, 0xff, 0xff}},
		{"float32", []float32{1, -2}, le(4, one, minusTwo)},
		{"float64", []float64{1}, le(8, 0x3ff0000000000000)},
		{"half", []sim.Half{sim.Float2Half(1), sim.Float2Half(-2), sim.Float2Half(65504)}, []byte{0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b}},
		{"bfloat16", []sim.BFloat16{sim.Float2BFloat16(1), sim.Float2BFloat16(-2)}, []byte{0x80, 0x3f, 0x00, 0xc0}},
		{"char4", []sim.Char4{sim.MakeChar4(1, -1, 2, -2)}, []byte{0x01, 0xff, 0x02, 0xfe}},
		{"uchar4", []sim.Uchar4{sim.MakeUchar4(1, 2, 3, 0xff), sim.MakeUchar4(4, 5, 6, 7)}, []byte{1, 2, 3, 0xff, 4, 5, 6, 7}},
		{"short2", []sim.Short2{sim.MakeShort2(0x0102, -1)}, []byte{0x02, 0x01, 0xff, 0xff}},
		{"short4", []sim.Short4{sim.MakeShort4(1, 2, 3, -4)}, le(2, 1, 2, 3, 0xfffc)},
		{"int2", []sim.Int2{sim.MakeInt2(1, -1)}, le(4, 1, 0xffffffff)},
		{"int3", []sim.Int3{sim.MakeInt3(1, 2, 3), sim.MakeInt3(4, 5, -6)}, le(4, 1, 2, 3, 4, 5, 0xfffffffa)},
		{"int4", []sim.Int4{sim.MakeInt4(1, 2, 3, 4)}, le(4, 1, 2, 3, 4)},
		{"uint2", []sim.Uint2{sim.MakeUint2(0xdeadbeef, 7)}, le(4, 0xdeadbeef, 7)},
		{"uint4", []sim.Uint4{sim.MakeUint4(1, 2, 3, 0xffffffff)}, le(4, 1, 2, 3, 0xffffffff)},
		{"float2", []sim.Float2{sim.MakeFloat2(1, -2)}, le(4, one, minusTwo)},
		{"float3", []sim.Float3{sim.MakeFloat3(1, -2, 0.5), sim.MakeFloat3(3, 1, 1)}, le(4, one, minusTwo, half, three, one, one)},
		{"float4", []sim.Float4{sim.MakeFloat4(1, -2, 0.5, 3), sim.MakeFloat4(3, 0.5, -2, 1)}, le(4, one, minusTwo, half, three, three, half, minusTwo, one)},
		{"double2", []sim.Double2{sim.MakeDouble2(1, math.Copysign(0, -1))}, cat(le(8, 0x3ff0000000000000), le(8, 0x8000000000000000))},
		{"longlong2", []sim.Longlong2{sim.MakeLonglong2(1, -1)}, le(8, 1, math.MaxUint64)},
		{"empty", []sim.Float4{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dt, got, err := kernels.HostBytes(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("HostBytes(%v) = % x, want % x", tt.s, got, tt.want)
			}
			n := reflect.ValueOf(tt.s).Len()
			if len(got) != n*dt.Size() {
				t.Errorf("%d bytes for %d elements of %v", len(got), n, dt)
			}
			back := reflect.MakeSlice(reflect.TypeOf(tt.s), n, n).Interface()
			_, view, err := kernels.HostBytes(back)
			if err != nil {
				t.Fatal(err)
			}
			copy(view, tt.want)
			if !reflect.DeepEqual(back, tt.s) {
				t.Errorf("bytes % x read back as %v, want %v", tt.want, back, tt.s)
			}
		})
	}
}

func TestSliceDTypeRefuses(t *testing.T) {
	type named []float32
	type celsius float32
	for _, s := range []any{nil, "x", 1.5, []int{1}, []uint{1}, []bool{true}, named{1}, []celsius{1}, []*float32{nil}, [2]float32{}, []sim.Dim3{}} {
		if _, _, err := kernels.SliceDType(s); err == nil || !strings.Contains(err.Error(), "not a host slice") {
			t.Errorf("SliceDType(%T) = %v, want a refusal", s, err)
		}
		if _, _, err := kernels.HostBytes(s); err == nil {
			t.Errorf("HostBytes(%T) accepted it", s)
		}
	}
}

// pattern is a slice of n elements of dt whose bytes are 1, 2, 3, ...:
// every byte distinct within an element, so a copy that moved bytes within
// or between elements would show.
func pattern(dt kernels.DType, n int) any {
	s := reflect.MakeSlice(reflect.SliceOf(dt.GoType()), n, n).Interface()
	_, b, _ := kernels.HostBytes(s)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return s
}

// TestUploadDownloadEveryType round-trips a slice of every element type
// through a simulator buffer, untyped (UploadSlice, DownloadSlice) and
// typed (Upload, Download), and checks Memset and the refusal of a
// mistyped read.
func TestUploadDownloadEveryType(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	for _, c := range cudaLayout {
		src := pattern(c.dt, 5)
		m, err := kernels.UploadSlice(b, src)
		if err != nil {
			t.Fatalf("%v: %v", c.dt, err)
		}
		if m.DType() != c.dt || m.Len() != 5 {
			t.Errorf("%v: uploaded a %v buffer of %d", c.dt, m.DType(), m.Len())
		}
		got, err := kernels.DownloadSlice(b, m)
		if err != nil {
			t.Fatalf("%v: %v", c.dt, err)
		}
		_, want, _ := kernels.HostBytes(src)
		if _, gb, _ := kernels.HostBytes(got); !bytes.Equal(gb, want) {
			t.Errorf("%v: read back % x, wrote % x", c.dt, gb, want)
		}
		if err := b.Memset(m, 0xab); err != nil {
			t.Fatalf("%v: %v", c.dt, err)
		}
		got, _ = kernels.DownloadSlice(b, m)
		if _, gb, _ := kernels.HostBytes(got); !bytes.Equal(gb, bytes.Repeat([]byte{0xab}, 5*c.size)) {
			t.Errorf("%v: after Memset(0xab): % x", c.dt, gb)
		}
		wrong := kernels.Int32
		if c.dt == kernels.Int32 {
			wrong = kernels.Float32
		}
		if err := b.Read(m, pattern(wrong, 5)); err == nil {
			t.Errorf("%v buffer read into a []%v", c.dt, wrong.GoType())
		}
		b.Free(m)
	}

	m, err := kernels.Upload(b, []sim.Float4{sim.MakeFloat4(1, 2, 3, 4), sim.MakeFloat4(5, 6, 7, 8)})
	if err != nil {
		t.Fatal(err)
	}
	f4, err := kernels.Download[sim.Float4](b, m)
	if err != nil || !reflect.DeepEqual(f4, []sim.Float4{sim.MakeFloat4(1, 2, 3, 4), sim.MakeFloat4(5, 6, 7, 8)}) {
		t.Errorf("Download[sim.Float4] = %v, %v", f4, err)
	}
	if _, err := kernels.Download[sim.Int4](b, m); err == nil {
		t.Error("a float4 buffer downloaded as int4")
	}
	if _, err := b.Alloc(kernels.DType(200), 1); err == nil {
		t.Error("Alloc of an unknown dtype")
	}
}

// TestLaunchVectorBuffers launches a kernel with float4 and half buffers
// through the Backend interface: SimBackend matches each Mem's element type
// with its parameter's.
func TestLaunchVectorBuffers(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	in, err := kernels.Upload(b, []sim.Float4{sim.MakeFloat4(1, 2, 3, 4), sim.MakeFloat4(-1, 0.5, 0, 8)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Alloc(kernels.Half, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Launch(float4ToHalf, sim.Dim(1), sim.Dim(32), 0, in, out, 2); err != nil {
		t.Fatal(err)
	}
	got, err := kernels.Download[sim.Half](b, out)
	if err != nil {
		t.Fatal(err)
	}
	var vals []float32
	for _, h := range got {
		vals = append(vals, sim.Half2Float(h))
	}
	if want := []float32{1, 2, 3, 4, -1, 0.5, 0, 8}; !reflect.DeepEqual(vals, want) {
		t.Errorf("halves %v, want %v", vals, want)
	}
	if err := b.Launch(float4ToHalf, sim.Dim(1), sim.Dim(32), 0, out, in, 2); err == nil || !strings.Contains(err.Error(), "sim.Half buffer") {
		t.Errorf("swapped buffers: %v, want a type error naming the sim.Half buffer", err)
	}
}

func float4ToHalf(in *sim.Buffer[sim.Float4], out *sim.Buffer[sim.Half], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			v := in.Load(t, i)
			out.Store(t, 4*i, sim.Float2Half(v.X))
			out.Store(t, 4*i+1, sim.Float2Half(v.Y))
			out.Store(t, 4*i+2, sim.Float2Half(v.Z))
			out.Store(t, 4*i+3, sim.Float2Half(v.W))
		}
	}
}

// The rules for halves and vectors follow Agree32's: NaNs agree, bits
// agree, an exact rule takes nothing else, and a tolerance counts ulps of
// the element's own type (binary16's for a half) or of each component.
func TestAgreeHalfAndVectors(t *testing.T) {
	h := sim.UshortAsHalf
	bf := sim.UshortAsBFloat16
	for _, tt := range []struct {
		label     string
		got, want sim.Half
		rule      kernels.Rule
		agree     bool
	}{
		{"same", h(0x3c00), h(0x3c00), exact, true},
		{"next exact", h(0x3c01), h(0x3c00), exact, false},
		{"next ulp2", h(0x3c01), h(0x3c00), ulp2, true},
		{"three ulp", h(0x3c03), h(0x3c00), ulp2, false},
		{"zero sign exact", h(0x8000), h(0x0000), exact, false},
		{"zero sign ulp", h(0x8000), h(0x0000), ulp2, true},
		{"nan payloads", h(0x7fff), h(0xfe00), exact, true},
		{"nan number", h(0x7e00), h(0x3c00), rel, false},
		{"inf max", h(0x7c00), h(0x7bff), ulp2, false},
		{"across zero", h(0x0001), h(0x8001), ulp2, true},
		{"rel near", sim.Float2Half(1000), sim.Float2Half(1000.5), rel, true},
		{"rel far", sim.Float2Half(1000), sim.Float2Half(1004), rel, false},
	} {
		if got := tt.rule.AgreeHalf(tt.got, tt.want); got != tt.agree {
			t.Errorf("%s: %v.AgreeHalf(%#x, %#x) = %v", tt.label, tt.rule, sim.HalfAsUshort(tt.got), sim.HalfAsUshort(tt.want), got)
		}
		if got := tt.rule.AgreeHalf(tt.want, tt.got); got != tt.agree {
			t.Errorf("%s: not symmetric", tt.label)
		}
	}
	if kernels.ULPHalf(h(0x3c00), h(0x3c02)) != 2 || kernels.ULPHalf(h(0x0001), h(0x8001)) != 2 || kernels.ULPHalf(h(0x7e00), h(0)) != math.MaxUint64 {
		t.Error("ULPHalf")
	}
	if !exact.AgreeBFloat16(bf(0x7fc0), bf(0xffff)) || exact.AgreeBFloat16(bf(0x3f81), bf(0x3f80)) || !ulp2.AgreeBFloat16(bf(0x3f81), bf(0x3f80)) ||
		exact.AgreeBFloat16(bf(0x7f80), bf(0x7fc0)) || kernels.ULPBFloat16(bf(0x3f80), bf(0x3f83)) != 3 {
		t.Error("AgreeBFloat16 does not follow AgreeHalf's rules")
	}

	err := exact.Check(kernels.Result{[]sim.Half{h(0x3c00), h(0x4001)}}, kernels.Result{[]sim.Half{h(0x3c00), h(0x4000)}})
	var m *kernels.Mismatch
	if !errors.As(err, &m) || m.Index != 1 || m.ULP != 1 || !strings.Contains(err.Error(), "want 2 (0x4000)") || !strings.Contains(err.Error(), "(1 ulp)") {
		t.Errorf("half mismatch: %v", err)
	}
	next := math.Nextafter32(3, 4)
	f4 := kernels.Result{[]sim.Float4{sim.MakeFloat4(1, 2, 3, 4)}}
	f4next := kernels.Result{[]sim.Float4{sim.MakeFloat4(1, 2, next, 4)}}
	if err := exact.Check(f4next, f4); !errors.As(err, &m) || m.ULP != 1 {
		t.Errorf("a float4 one ulp off in Z under an exact rule: %v", err)
	}
	if err := ulp2.Check(f4next, f4); err != nil {
		t.Errorf("a float4 one ulp off in Z under 2 ulp: %v", err)
	}
	if got := kernels.MaxULP(f4, f4next); got != 1 {
		t.Errorf("MaxULP of float4s = %d", got)
	}
	if err := ulp2.Check(kernels.Result{[]sim.Double2{sim.MakeDouble2(1, math.NaN())}}, kernels.Result{[]sim.Double2{sim.MakeDouble2(1, -math.NaN())}}); err != nil {
		t.Errorf("double2 NaN components: %v", err)
	}
	if err := ulp2.Check(kernels.Result{[]sim.Int3{sim.MakeInt3(1, 2, 4)}}, kernels.Result{[]sim.Int3{sim.MakeInt3(1, 2, 3)}}); err == nil {
		t.Error("integer vectors are exact under any rule")
	}
	if err := exact.Check(kernels.Result{[]sim.Float4{sim.MakeFloat4(1, 2, 3, 4)}}, kernels.Result{[]sim.Float3{sim.MakeFloat3(1, 2, 3)}}); err == nil || errors.As(err, &m) {
		t.Errorf("float4 against float3: %v, want a type error", err)
	}
	// Every element type is comparable, each with itself.
	for _, c := range cudaLayout {
		s := pattern(c.dt, 3)
		if err := exact.Check(kernels.Result{s}, kernels.Result{s}); err != nil {
			t.Errorf("%v: %v", c.dt, err)
		}
	}
}
