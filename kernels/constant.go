package kernels

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

// ConstantWriter is a Backend that can write __constant__ memory from the
// host, as cudaMemcpyToSymbol does: SimBackend through Constant's
// CopyFromHost, the CUDA backend into every loaded module whose twin
// declares the symbol (and into each module loaded later).
type ConstantWriter interface {
	// CopyToSymbol writes src, a []T, to the start of c, a *sim.Constant[T]
	// (declared at package level, as the translator requires). What src
	// does not cover keeps its value; a constant the host never wrote is
	// zero, as CUDA's static storage is.
	CopyToSymbol(c, src any) error
}

// CopyToSymbol writes src to the start of the constant c on b:
// cudaMemcpyToSymbol(c, src, len(src)*sizeof(T)). It fails if src is
// longer than c or b cannot write constants.
func CopyToSymbol[T sim.Storable](b Backend, c *sim.Constant[T], src []T) error {
	w, ok := b.(ConstantWriter)
	if !ok {
		return fmt.Errorf("kernels: backend %s cannot write constant %q (it has no CopyToSymbol)", b.Name(), c.Name())
	}
	if len(src) > c.Len() {
		return fmt.Errorf("kernels: CopyToSymbol of %d elements into constant %q of %d", len(src), c.Name(), c.Len())
	}
	return w.CopyToSymbol(c, src)
}

// CheckSymbolWrite checks CopyToSymbol's arguments for a backend that
// takes them untyped: c must be a *sim.Constant[T] and src a []T no longer
// than it. It returns the constant's symbol, its length and T's type.
func CheckSymbolWrite(c, src any) (name string, n int, elem reflect.Type, err error) {
	ct := reflect.TypeOf(c)
	if ct == nil || ct.Kind() != reflect.Pointer || ct.Elem().PkgPath() != simPath || !strings.HasPrefix(ct.Elem().Name(), "Constant[") || reflect.ValueOf(c).IsNil() {
		return "", 0, nil, fmt.Errorf("kernels: CopyToSymbol of %T, not a *sim.Constant", c)
	}
	load, _ := ct.MethodByName("Load")
	elem = load.Type.Out(0)
	sym := c.(interface {
		Name() string
		Len() int
	})
	name, n = sym.Name(), sym.Len()
	if st := reflect.TypeOf(src); st == nil || st.Kind() != reflect.Slice || st.Elem() != elem {
		return name, n, elem, fmt.Errorf("kernels: CopyToSymbol of a %T into constant %q of %v", src, name, elem)
	}
	if l := reflect.ValueOf(src).Len(); l > n {
		return name, n, elem, fmt.Errorf("kernels: CopyToSymbol of %d elements into constant %q of %d", l, name, n)
	}
	return name, n, elem, nil
}

var simPath = reflect.TypeFor[sim.Thread]().PkgPath()

// CopyToSymbol is Constant.CopyFromHost on the backend's device.
func (s *SimBackend) CopyToSymbol(c, src any) error {
	if _, _, _, err := CheckSymbolWrite(c, src); err != nil {
		return err
	}
	out := reflect.ValueOf(c).MethodByName("CopyFromHost").Call([]reflect.Value{reflect.ValueOf(s.Dev), reflect.ValueOf(src)})
	if err, _ := out[0].Interface().(error); err != nil {
		return err
	}
	return nil
}

var _ ConstantWriter = (*SimBackend)(nil)
