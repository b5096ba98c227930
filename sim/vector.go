package sim

// CUDA's vector types, with their field names and make_* constructors. Go
// lays each out as CUDA does (the fields in order, no padding), so a buffer
// of Float4 holds the bytes a float4 array holds. A Load or Store of one
// element is one access of the vector's size, as a vector load is one
// instruction on hardware; its CUDA alignment (Align) is checked on views
// (see Reinterpret). (The 12-byte types, Int3 and Float3, are the
// exception: 4-byte aligned, they are three 4-byte loads on hardware, and
// three requests where the profiler counts one.)

type (
	Char4     struct{ X, Y, Z, W int8 }    // char4: 4 bytes, aligned to 4
	Uchar4    struct{ X, Y, Z, W uint8 }   // uchar4: 4 bytes, aligned to 4
	Short2    struct{ X, Y int16 }         // short2: 4 bytes, aligned to 4
	Short4    struct{ X, Y, Z, W int16 }   // short4: 8 bytes, aligned to 8
	Int2      struct{ X, Y int32 }         // int2: 8 bytes, aligned to 8
	Int3      struct{ X, Y, Z int32 }      // int3: 12 bytes, aligned to 4
	Int4      struct{ X, Y, Z, W int32 }   // int4: 16 bytes, aligned to 16
	Uint2     struct{ X, Y uint32 }        // uint2: 8 bytes, aligned to 8
	Uint4     struct{ X, Y, Z, W uint32 }  // uint4: 16 bytes, aligned to 16
	Float2    struct{ X, Y float32 }       // float2: 8 bytes, aligned to 8
	Float3    struct{ X, Y, Z float32 }    // float3: 12 bytes, aligned to 4
	Float4    struct{ X, Y, Z, W float32 } // float4: 16 bytes, aligned to 16
	Double2   struct{ X, Y float64 }       // double2: 16 bytes, aligned to 16
	Longlong2 struct{ X, Y int64 }         // longlong2: 16 bytes, aligned to 16
)

// MakeChar4 is make_char4.
func MakeChar4(x, y, z, w int8) Char4 { return Char4{x, y, z, w} }

// MakeUchar4 is make_uchar4.
func MakeUchar4(x, y, z, w uint8) Uchar4 { return Uchar4{x, y, z, w} }

// MakeShort2 is make_short2.
func MakeShort2(x, y int16) Short2 { return Short2{x, y} }

// MakeShort4 is make_short4.
func MakeShort4(x, y, z, w int16) Short4 { return Short4{x, y, z, w} }

// MakeInt2 is make_int2.
func MakeInt2(x, y int32) Int2 { return Int2{x, y} }

// MakeInt3 is make_int3.
func MakeInt3(x, y, z int32) Int3 { return Int3{x, y, z} }

// MakeInt4 is make_int4.
func MakeInt4(x, y, z, w int32) Int4 { return Int4{x, y, z, w} }

// MakeUint2 is make_uint2.
func MakeUint2(x, y uint32) Uint2 { return Uint2{x, y} }

// MakeUint4 is make_uint4.
func MakeUint4(x, y, z, w uint32) Uint4 { return Uint4{x, y, z, w} }

// MakeFloat2 is make_float2.
func MakeFloat2(x, y float32) Float2 { return Float2{x, y} }

// MakeFloat3 is make_float3.
func MakeFloat3(x, y, z float32) Float3 { return Float3{x, y, z} }

// MakeFloat4 is make_float4.
func MakeFloat4(x, y, z, w float32) Float4 { return Float4{x, y, z, w} }

// MakeDouble2 is make_double2.
func MakeDouble2(x, y float64) Double2 { return Double2{x, y} }

// MakeLonglong2 is make_longlong2.
func MakeLonglong2(x, y int64) Longlong2 { return Longlong2{x, y} }

// Storable is every element type a buffer can hold: the scalar Elem types
// (which atomics, shuffles and reductions take), the 16-bit integers, Half
// and BFloat16, and the vector types.
type Storable interface {
	Elem | int16 | uint16 | Half | BFloat16 |
		Char4 | Uchar4 | Short2 | Short4 | Int2 | Int3 | Int4 | Uint2 | Uint4 |
		Float2 | Float3 | Float4 | Double2 | Longlong2
}

// Align is the alignment CUDA gives T, in bytes: a 2-, 4-, 8- or 16-byte
// access at an address that is not a multiple of it is a misaligned
// address on hardware.
func Align[T Storable]() int {
	var z T
	switch any(z).(type) {
	case int8, uint8:
		return 1
	case int16, uint16, Half, BFloat16:
		return 2
	case int32, uint32, float32, Char4, Uchar4, Short2, Int3, Float3:
		return 4
	case int64, uint64, float64, Short4, Int2, Uint2, Float2:
		return 8
	}
	return 16 // Int4, Uint4, Float4, Double2, Longlong2
}

// scalarSize is T's scalar size as a strong access's sizeBits: a
// vector's element size, as PTX models a vector access as one access
// per element.
func scalarSize[T Storable]() uint32 {
	var z T
	switch any(z).(type) {
	case int8, uint8, Char4, Uchar4:
		return 0
	case int16, uint16, Half, BFloat16, Short2, Short4:
		return 1 << sizeShift
	case int64, uint64, float64, Double2, Longlong2:
		return 3 << sizeShift
	}
	return 2 << sizeShift // 4-byte scalars and their vectors
}
