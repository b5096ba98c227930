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
// generated twin (package cuda/twin), whose extern "C" entry point is named
// after the function (twin.Twin.Entry says how; KernelName gives it). Args
// are what the host passes, in the parameters' order:
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
// ReduceSum_float32, a kernel named sin is sin_: see twin.Twin.Entry),
// else the Go function's name without its package.
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
	case reflect.Float32, reflect.Float64:
		switch pt.Kind() {
		case reflect.Float32:
			if f := v.Float(); float64(float32(f)) != f && f == f {
				return v, fmt.Errorf("%v does not fit a float32 parameter exactly (write float32(%v) to round it)", a, a)
			}
			return v.Convert(pt), nil
		case reflect.Float64:
			return v.Convert(pt), nil
		}
	case reflect.Bool:
		if v.Kind() == pt.Kind() {
			return v.Convert(pt), nil
		}
	}
	if v.IsValid() && v.Type().ConvertibleTo(pt) && v.Kind() == pt.Kind() {
		return v.Convert(pt), nil // (complex numbers, for a simulator-only kernel)
	}
	if v.IsValid() && (v.CanInt() || v.CanUint()) {
		if pt.Kind() == reflect.Float32 || pt.Kind() == reflect.Float64 {
			// An integer (an untyped constant is an int) for a float
			// parameter: where the float holds it exactly.
			f := reflect.New(pt).Elem()
			if v.CanInt() {
				f.SetFloat(float64(v.Int()))
				if back := f.Float(); back < -(1<<63) || back >= 1<<63 || int64(back) != v.Int() {
					return v, fmt.Errorf("%v does not fit a %v parameter exactly", a, pt)
				}
			} else {
				f.SetFloat(float64(v.Uint()))
				if back := f.Float(); back >= 1<<64 || uint64(back) != v.Uint() {
					return v, fmt.Errorf("%v does not fit a %v parameter exactly", a, pt)
				}
			}
			return f, nil
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
	// Write copies a host slice ([]T of the Mem's type, any sim.Storable
	// T) into m.
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

// Upload allocates a buffer holding a copy of host. T is any element type
// a sim.Buffer holds (sim.Storable): the scalar types, int16 and uint16,
// sim.Half and sim.BFloat16, and the vector types.
func Upload[T sim.Storable](b Backend, host []T) (Mem, error) {
	return UploadSlice(b, host)
}

// UploadSlice is Upload for a host slice whose element type is known only
// at run time: host must be a []T of a sim.Storable T.
func UploadSlice(b Backend, host any) (Mem, error) {
	dt, n, err := SliceDType(host)
	if err != nil {
		return nil, err
	}
	m, err := b.Alloc(dt, n)
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
func Download[T sim.Storable](b Backend, m Mem) ([]T, error) {
	if m.DType() != DTypeOf[T]() {
		return nil, fmt.Errorf("kernels: Download %v buffer as %v", m.DType(), DTypeOf[T]())
	}
	out := make([]T, m.Len())
	return out, b.Read(m, out)
}

// DownloadSlice is Download for an element type known only at run time: it
// reads the whole of m into a new []T of m's DType, returned as any.
func DownloadSlice(b Backend, m Mem) (any, error) {
	dt := m.DType()
	if !dt.Valid() {
		return nil, fmt.Errorf("kernels: Download of a buffer of unknown dtype %d", dt)
	}
	out := reflect.MakeSlice(reflect.SliceOf(dt.GoType()), m.Len(), m.Len()).Interface()
	return out, b.Read(m, out)
}
