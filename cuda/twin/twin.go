// Package twin holds the generated CUDA C twins of Go kernels, keyed by the
// kernel function itself.
//
// A kernel is written once, as a Go function that takes the kernel's
// parameters and returns its per-thread body:
//
//	func VectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel
//
// `gpusim cuda -go` (or go generate) translates it to CUDA C and writes a Go
// file that registers the result here at init, so that a binary built on one
// machine carries the CUDA of its kernels to a GPU host that has neither Go
// nor the source. The CUDA backend and the parity harness find a kernel's
// twin by the function value a driver launches: Of(VectorAdd), or
// Of(ReduceSum[float32]) for one instance of a generic kernel.
//
// The package depends on the standard library only, so that a user's
// package can import it from generated code without pulling in the CUDA
// backend.
package twin

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"sync"
)

// Param is one parameter of a twin's __global__ function.
type Param struct {
	// Name is the Go parameter's name (p<i> for a blank or unnamed i-th
	// parameter). The CUDA parameter is named after it, but renamed as
	// every identifier is where C or CUDA has the name (see Twin.Entry).
	Name   string
	GoType string // the Go type, e.g. "*sim.Buffer[float32]", "int"
	// CType is the CUDA type: "float *" for a buffer, a scalar's C type
	// ("int" for Go's int, which kernels receive as 32 bits; "float",
	// "double", "unsigned int", "long long", ...).
	CType string
	// Elem is a buffer parameter's element type in Go ("float32"); empty for
	// a scalar.
	Elem string
}

// Buffer reports whether p is a buffer (pointer) parameter.
func (p Param) Buffer() bool { return p.Elem != "" }

// Twin is the CUDA C of one kernel entry point.
type Twin struct {
	// Entry is the extern "C" __global__ function's name, which the
	// translator makes from the Go function's as it makes every C name:
	// the Go name, with the type arguments appended for an instance of a
	// generic kernel (ReduceSum[float32] is ReduceSum_float32), an
	// underscore appended where C, C++ or CUDA's headers already use the
	// name (a kernel named sin is sin_), letters outside ASCII written as
	// their code points (σ is u03c3), and _1, _2, ... appended where
	// another name at the file scope of Source has it. Find a kernel's
	// twin with Of, never by spelling its Go name.
	Entry string
	// GoName is the Go function, e.g. "kernels.ReduceSum[float32]".
	GoName string
	// Params are the kernel's parameters in order.
	Params []Param
	// Source is a complete translation unit: the prelude, the __device__
	// helpers the kernel calls, and the entry point. It compiles with nvcc
	// alone, and with clang's CUDA front end given the project's shim header.
	Source string
	// Pos is the Go declaration's position, file:line.
	Pos string
	// Constants are the __constant__ arrays Source declares at file scope
	// (the package-level sim.Constant variables the kernel reads), sorted
	// by name. The host writes them before a launch; a backend writes each
	// into every loaded module whose twin lists it.
	Constants []Constant
	// GridSync is set when the kernel calls grid.sync() (sim.GridGroup.Sync,
	// cg::this_grid().sync()), in its body or in a helper it calls. CUDA
	// defines grid.sync() only in a cooperative launch
	// (cudaLaunchCooperativeKernel), so whatever launches the twin
	// (parity.Check) launches it cooperatively.
	GridSync bool

	// module names the compiled module of Source, unique in the process
	// (Module).
	module string
}

// Module is the name of the twin's compiled module, unique among the
// twins registered in the process: its Entry, with "~" and a number
// appended when another package's kernel has the same entry name (two
// packages may both have a kernel named Scale; each twin is a translation
// unit of its own, so their entry points do not clash on the GPU).
func (t *Twin) Module() string {
	if t.module == "" {
		return t.Entry
	}
	return t.module
}

// Constant is a __constant__ array a twin declares: `__constant__ CType
// Name[Len];`.
type Constant struct {
	Name   string // the CUDA symbol: the name given to sim.NewConstant
	GoName string // the package-level variable, e.g. "kernels.convFilter"
	Elem   string // the element type in Go ("float32")
	CType  string // the element type in C ("float")
	Len    int    // elements
	// Var is the *sim.Constant[T] itself, which the generated registration
	// sets: the identity by which a backend finds the twins that declare
	// the constant a host write is for (nil where a twin was translated
	// but not registered from generated code).
	Var any
}

var (
	mu      sync.RWMutex
	byPC    = map[uintptr]*Twin{}
	modules = map[string]*Twin{}
)

// Register records t as the twin of the kernel function fn. Generated code
// calls it at init. Kernels of different packages may share an entry name
// (each gets its own Module); registering a second twin for the same
// function panics, as generated code never does (its package would have
// two generated files).
func Register(fn any, t Twin) {
	pc := pcOf(fn)
	mu.Lock()
	defer mu.Unlock()
	if old, ok := byPC[pc]; ok {
		panic(fmt.Sprintf("twin: %s registered twice (as %s and %s): does its package have two generated files?", t.GoName, old.Entry, t.Entry))
	}
	tt := t
	tt.module = t.Entry
	for n := 1; modules[tt.module] != nil; n++ {
		tt.module = fmt.Sprintf("%s~%d", t.Entry, n)
	}
	byPC[pc] = &tt
	modules[tt.module] = &tt
}

// Of returns the twin registered for the kernel function fn.
func Of(fn any) (*Twin, error) {
	pc := pcOf(fn)
	mu.RLock()
	t, ok := byPC[pc]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("twin: no CUDA twin for %s: run go generate (gpusim cuda -go) in its package", funcName(fn))
	}
	return t, nil
}

// All returns every registered twin, sorted by module name.
func All() []*Twin {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Twin, 0, len(modules))
	for _, t := range modules {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].module < out[j].module })
	return out
}

// pcOf is the code address of the function value fn. Every use of one
// function, or of one instance of a generic function, yields the same
// address, so it identifies the kernel.
func pcOf(fn any) uintptr {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		panic(fmt.Sprintf("twin: %T is not a kernel function", fn))
	}
	return v.Pointer()
}

func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return fmt.Sprintf("%T", fn)
	}
	if f := runtime.FuncForPC(v.Pointer()); f != nil {
		return f.Name()
	}
	return v.Type().String()
}
