package kernels

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// DType names an element type of device memory.
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
)

var dtypeNames = map[DType]string{Int8: "int8", Uint8: "uint8", Int32: "int32", Uint32: "uint32",
	Int64: "int64", Uint64: "uint64", Float32: "float32", Float64: "float64"}

func (d DType) String() string { return dtypeNames[d] }

// Size is the element size in bytes.
func (d DType) Size() int {
	switch d {
	case Int8, Uint8:
		return 1
	case Int32, Uint32, Float32:
		return 4
	}
	return 8
}

// DTypeOf returns the DType of T.
func DTypeOf[T sim.Elem]() DType {
	var z T
	switch any(z).(type) {
	case int8:
		return Int8
	case uint8:
		return Uint8
	case int32:
		return Int32
	case uint32:
		return Uint32
	case int64:
		return Int64
	case uint64:
		return Uint64
	case float32:
		return Float32
	}
	return Float64
}

// Mem is a device buffer owned by a Backend.
type Mem interface {
	Len() int
	DType() DType
}

// Func is one device entry point (a __global__ function): the name of its
// CUDA twin's extern "C" symbol, its parameter names and the Go SIMT body.
// Args are what the host passes to the launch, in the CUDA signature's
// order: a Mem for each pointer parameter and an int32, uint32, int64,
// uint64, float32 or float64 for each scalar. For the simulator, Body
// receives the same list with each Mem replaced by its *sim.Buffer[T].
type Func struct {
	Name string
	// Params names every parameter, scalars included, as the twin's
	// signature does (a test holds them equal): a launch passes exactly
	// len(Params) arguments, and the simulator names each buffer argument
	// after its parameter, so findings read x[0] rather than a generic
	// buffer name.
	Params []string
	Body   func(args []any) sim.Kernel
}

// Backend runs host drivers: the simulator (SimBackend) or a real GPU
// (package cuda). A driver written against Backend runs unchanged on both.
type Backend interface {
	// Name identifies the backend and device, e.g. "sim (NVIDIA H100 SXM)".
	Name() string
	// Alloc allocates n uninitialised elements.
	Alloc(dt DType, n int) (Mem, error)
	// Write copies a host slice ([]T of the Mem's type) into m.
	Write(m Mem, src any) error
	// Read copies m into a host slice ([]T of the Mem's type).
	Read(m Mem, dst any) error
	// Memset sets every byte of m to v.
	Memset(m Mem, v byte) error
	// Launch runs fn<<<grid, block, sharedBytes>>>(args...) to completion.
	Launch(fn *Func, grid, block sim.Dim3, sharedBytes int, args ...any) error
	// Free releases m.
	Free(m Mem)
}

// Upload allocates a buffer holding a copy of host.
func Upload[T sim.Elem](b Backend, host []T) (Mem, error) {
	m, err := b.Alloc(DTypeOf[T](), len(host))
	if err != nil {
		return nil, err
	}
	if err := b.Write(m, host); err != nil {
		b.Free(m)
		return nil, err
	}
	return m, nil
}

// Download reads the whole of m into a new host slice.
func Download[T sim.Elem](b Backend, m Mem) ([]T, error) {
	if m.DType() != DTypeOf[T]() {
		return nil, fmt.Errorf("kernels: Download %v buffer as %v", m.DType(), DTypeOf[T]())
	}
	out := make([]T, m.Len())
	return out, b.Read(m, out)
}

// Buf is how a Func body takes a buffer argument: Buf[float32](args[0]).
// It panics (a kernel panic the simulator reports) on a type mismatch.
func Buf[T sim.Elem](arg any) *sim.Buffer[T] {
	b, ok := arg.(*sim.Buffer[T])
	if !ok {
		panic(fmt.Sprintf("kernels: argument is %T, not *sim.Buffer[%v]", arg, DTypeOf[T]()))
	}
	return b
}

// Int is how a Func body takes an integer scalar argument of any integer type.
func Int(arg any) int {
	switch v := arg.(type) {
	case int:
		return v
	case int32:
		return int(v)
	case uint32:
		return int(v)
	case int64:
		return int(v)
	case uint64:
		return int(v)
	}
	panic(fmt.Sprintf("kernels: argument %v (%T) is not an integer", arg, arg))
}
