package kernels

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"

	"github.com/gpusim/gpusim/cuda/twin"

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

// A kernel function is how a kernel is written, once, for every backend: a
// Go function that takes the kernel's parameters, buffers as
// *sim.Buffer[T] and scalars, and returns the body one thread runs:
//
//	func VecAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel
//
// Backend.Launch takes the function value itself (VecAdd, or
// ReduceSum[float32] for an instance of a generic kernel). The simulator
// calls it with the launch's buffers and scalars; the CUDA backend runs its
// generated twin (package cuda/twin), whose extern "C" entry point bears the
// function's name. Args are what the host passes, in the parameters' order:
// a Mem for each buffer parameter and a number for each scalar, converted
// to the parameter's type (a value that does not fit is an error).

// kernelFunc checks that fn is a kernel function and returns it as a
// reflect.Value.
func kernelFunc(fn any) (reflect.Value, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return v, fmt.Errorf("kernels: %T is not a kernel function", fn)
	}
	ft := v.Type()
	if ft.NumOut() != 1 || ft.Out(0) != kernelType || ft.IsVariadic() {
		return v, fmt.Errorf("kernels: %s is %v, not a function returning sim.Kernel", KernelName(fn), ft)
	}
	return v, nil
}

var kernelType = reflect.TypeFor[sim.Kernel]()

// KernelName is a kernel function's entry point: its generated twin's
// extern "C" name where one is registered (ReduceSum[float32] is
// ReduceSum_float32), else the Go function's name without its package.
func KernelName(fn any) string {
	if tw, err := twin.Of(fn); err == nil {
		return tw.Entry
	}
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return fmt.Sprintf("%T", fn)
	}
	name := runtime.FuncForPC(v.Pointer()).Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if _, after, ok := strings.Cut(name, "."); ok {
		name = after
	}
	return name
}

// ParamNames are a kernel function's parameter names, from its generated
// twin; without one, arg0, arg1, ... (Go keeps no parameter names at run
// time).
func ParamNames(fn any) []string {
	v, err := kernelFunc(fn)
	if err != nil {
		return nil
	}
	if tw, err := twin.Of(fn); err == nil && len(tw.Params) == v.Type().NumIn() {
		names := make([]string, len(tw.Params))
		for i, p := range tw.Params {
			names[i] = p.Name
		}
		return names
	}
	names := make([]string, v.Type().NumIn())
	for i := range names {
		names[i] = fmt.Sprintf("arg%d", i)
	}
	return names
}

// scalarArg converts a launch's scalar argument to the parameter type pt,
// refusing a value the type cannot hold exactly. A parameter of Go type int
// or uint is a 32-bit int or unsigned int in the kernel's CUDA signature, so
// it takes only values of that range, on every backend alike.
func scalarArg(a any, pt reflect.Type) (reflect.Value, error) {
	v := reflect.ValueOf(a)
	if v.IsValid() && (pt.Kind() == reflect.Int || pt.Kind() == reflect.Uint) {
		narrow, cname := reflect.TypeFor[int32](), "int"
		if pt.Kind() == reflect.Uint {
			narrow, cname = reflect.TypeFor[uint32](), "unsigned int"
		}
		cv, err := scalarArg(a, narrow)
		if err != nil {
			return v, fmt.Errorf("%v does not fit a %v parameter (a 32-bit %s in CUDA)", a, pt, cname)
		}
		return cv.Convert(pt), nil
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := v.Int()
		switch pt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if reflect.New(pt).Elem().OverflowInt(x) {
				return v, fmt.Errorf("%d does not fit a %v parameter", x, pt)
			}
			return reflect.ValueOf(x).Convert(pt), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if x < 0 || reflect.New(pt).Elem().OverflowUint(uint64(x)) {
				return v, fmt.Errorf("%d does not fit a %v parameter", x, pt)
			}
			return reflect.ValueOf(uint64(x)).Convert(pt), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := v.Uint()
		switch pt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if x > math.MaxInt64 || reflect.New(pt).Elem().OverflowInt(int64(x)) {
				return v, fmt.Errorf("%d does not fit a %v parameter", x, pt)
			}
			return reflect.ValueOf(int64(x)).Convert(pt), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if reflect.New(pt).Elem().OverflowUint(x) {
				return v, fmt.Errorf("%d does not fit a %v parameter", x, pt)
			}
			return reflect.ValueOf(x).Convert(pt), nil
		}
	case reflect.Float32, reflect.Float64, reflect.Bool:
		if v.Kind() == pt.Kind() {
			return v.Convert(pt), nil
		}
	}
	return v, fmt.Errorf("%T argument for a %v parameter", a, pt)
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
	// Launch runs kernel<<<grid, block, sharedBytes>>>(args...) to
	// completion; kernel is a kernel function (see KernelName).
	Launch(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error
	// Free releases m.
	Free(m Mem)
}

// CooperativeLauncher is a Backend that can launch a kernel cooperatively,
// as cudaLaunchCooperativeKernel (cuLaunchCooperativeKernel) does: every
// block co-resident, so that grid.sync() (sim.GridGroup.Sync) is legal, and
// a grid larger than the device can hold co-resident refused with
// cudaErrorCooperativeLaunchTooLarge before anything runs.
type CooperativeLauncher interface {
	LaunchCooperative(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error
}

// LaunchCooperative launches kernel cooperatively on b, or fails if b
// cannot launch cooperatively.
func LaunchCooperative(b Backend, kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	c, ok := b.(CooperativeLauncher)
	if !ok {
		return fmt.Errorf("%s: backend %s cannot launch cooperatively (it has no LaunchCooperative)", KernelName(kernel), b.Name())
	}
	return c.LaunchCooperative(kernel, grid, block, sharedBytes, args...)
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
