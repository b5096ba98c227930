package kernels

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gpusim/gpusim/sim"
)

// DType names an element type of device memory: one for each type a
// sim.Buffer holds (sim.Storable).
type DType uint8

const (
	Int8 DType = iota + 1
	Uint8
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
	Int16
	Uint16
	Half     // sim.Half, CUDA's __half
	BFloat16 // sim.BFloat16, CUDA's __nv_bfloat16
	Char4    // sim.Char4, char4
	Uchar4   // sim.Uchar4, uchar4
	Short2   // sim.Short2, short2
	Short4   // sim.Short4, short4
	Int2     // sim.Int2, int2
	Int3     // sim.Int3, int3
	Int4     // sim.Int4, int4
	Uint2    // sim.Uint2, uint2
	Uint4    // sim.Uint4, uint4
	Float2   // sim.Float2, float2
	Float3   // sim.Float3, float3
	Float4   // sim.Float4, float4
	Double2  // sim.Double2, double2
	Longlong2
	lastDType = Longlong2
)

// dtypeInfo describes one DType. Go lays every sim.Storable type out as
// CUDA lays out its counterpart (the fields in order, no padding: sim's
// vector.go), so Size is also CUDA's sizeof, and a host []T holds, byte for
// byte, what a CUDA array of T holds.
type dtypeInfo struct {
	name  string       // the Go type, as a twin's Param.Elem writes it: "float32", "sim.Float4"
	typ   reflect.Type // T
	size  int          // sizeof(T), in bytes
	align int          // CUDA's alignment of T (sim.Align)
	alloc func(d *sim.Device, name string, n int) (*simMem, error)
}

func infoOf[T sim.Storable]() dtypeInfo {
	var z T
	t := reflect.TypeFor[T]()
	return dtypeInfo{name: t.String(), typ: t, size: int(unsafe.Sizeof(z)), align: sim.Align[T](), alloc: alloc[T]}
}

var dtypes = [lastDType + 1]dtypeInfo{
	Int8: infoOf[int8](), Uint8: infoOf[uint8](), Int32: infoOf[int32](), Uint32: infoOf[uint32](),
	Int64: infoOf[int64](), Uint64: infoOf[uint64](), Float32: infoOf[float32](), Float64: infoOf[float64](),
	Int16: infoOf[int16](), Uint16: infoOf[uint16](), Half: infoOf[sim.Half](), BFloat16: infoOf[sim.BFloat16](),
	Char4: infoOf[sim.Char4](), Uchar4: infoOf[sim.Uchar4](), Short2: infoOf[sim.Short2](), Short4: infoOf[sim.Short4](),
	Int2: infoOf[sim.Int2](), Int3: infoOf[sim.Int3](), Int4: infoOf[sim.Int4](), Uint2: infoOf[sim.Uint2](),
	Uint4: infoOf[sim.Uint4](), Float2: infoOf[sim.Float2](), Float3: infoOf[sim.Float3](), Float4: infoOf[sim.Float4](),
	Double2: infoOf[sim.Double2](), Longlong2: infoOf[sim.Longlong2](),
}

// dtypeByType is the DType of each element type.
var dtypeByType = map[reflect.Type]DType{}

func init() {
	for dt := Int8; dt <= lastDType; dt++ {
		dtypeByType[dtypes[dt].typ] = dt
	}
}

// Valid reports whether d is one of the DTypes above.
func (d DType) Valid() bool { return d >= Int8 && d <= lastDType }

// String is the Go element type, as a twin's buffer parameter names it in
// Param.Elem: "float32", "int16", "sim.Half", "sim.Float4". It is "" for
// an invalid DType.
func (d DType) String() string {
	if !d.Valid() {
		return ""
	}
	return dtypes[d].name
}

// Size is the element size in bytes: Go's unsafe.Sizeof of the element
// type, which is also CUDA's sizeof (float4 16, int3 12, __half 2); 0 for
// an invalid DType.
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypes[d].size
}

// Align is the alignment CUDA gives the element type (sim.Align): float4,
// int4, double2 and longlong2 16, int3 and float3 4, __half 2.
func (d DType) Align() int {
	if !d.Valid() {
		return 0
	}
	return dtypes[d].align
}

// GoType is the Go element type; nil for an invalid DType.
func (d DType) GoType() reflect.Type {
	if !d.Valid() {
		return nil
	}
	return dtypes[d].typ
}

// DTypeOf returns the DType of T.
func DTypeOf[T sim.Storable]() DType {
	return dtypeByType[reflect.TypeFor[T]()]
}

// DTypeFor returns the DType of the element type t, and false if no
// sim.Buffer holds t.
func DTypeFor(t reflect.Type) (DType, bool) {
	dt, ok := dtypeByType[t]
	return dt, ok
}

// SliceDType returns the DType and length of a host slice s, which must be
// a []T of a sim.Storable T (not a named slice type, which the backends'
// typed copies would not take).
func SliceDType(s any) (DType, int, error) {
	t := reflect.TypeOf(s)
	if t != nil && t.Kind() == reflect.Slice {
		if dt, ok := dtypeByType[t.Elem()]; ok && t == reflect.SliceOf(t.Elem()) {
			return dt, reflect.ValueOf(s).Len(), nil
		}
	}
	return 0, 0, fmt.Errorf("%T is not a host slice of a device element type (a []T of a sim.Storable T)", s)
}

// HostBytes returns the DType of a host slice s (as SliceDType) and its
// elements' memory as bytes: the bytes a copy to or from the device moves,
// laid out as the CUDA array of the element type (little-endian, each
// element Size bytes, no padding between elements). The bytes alias s:
// writing them writes s. An empty slice has no bytes (nil).
func HostBytes(s any) (DType, []byte, error) {
	dt, n, err := SliceDType(s)
	if err != nil {
		return 0, nil, err
	}
	if n == 0 {
		return dt, nil, nil
	}
	p := reflect.ValueOf(s).UnsafePointer()
	return dt, unsafe.Slice((*byte)(p), n*dt.Size()), nil
}
