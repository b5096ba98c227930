//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
	"gorgonia.org/cu"
)

// modConst is a __constant__ array of one loaded module: where it is.
type modConst struct {
	c    twin.Constant
	ptr  cu.DevicePtr
	size int64
}

// hostConst is the host's image of one constant (Var of twin.Constant):
// every byte written so far, zero elsewhere.
type hostConst struct {
	name  string
	bytes []byte
}

// matches reports whether k, a constant a twin declares, is the constant c
// the host writes: the same *sim.Constant, or, for a twin registered
// without one, the same symbol.
func matches(k twin.Constant, c any, name string) bool {
	if k.Var != nil {
		return k.Var == c
	}
	return k.Name == name
}

// bindConstants finds, in mod just loaded as key, the constants tw
// declares (cuModuleGetGlobal) and writes those the host has written. A
// replacement source (Config.Source) may declare none of them: a symbol it
// lacks is skipped. It runs on the driver thread.
func (d *Device) bindConstants(key string, mod cu.Module, tw *twin.Twin, replaced bool) ([]modConst, error) {
	var out []modConst
	for _, k := range tw.Constants {
		ptr, size, err := mod.Global(k.Name)
		if err != nil {
			if replaced && errors.Is(err, cu.NotFound) {
				continue
			}
			return nil, fmt.Errorf("cuModuleGetGlobal(%s, %q): %w", key, k.Name, err)
		}
		mc := modConst{c: k, ptr: ptr, size: size}
		for c, h := range d.consts {
			if matches(k, c, h.name) {
				if err := mc.write(key, h); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, mc)
	}
	return out, nil
}

// write copies the host image h into the module's array.
func (mc modConst) write(key string, h *hostConst) error {
	if int64(len(h.bytes)) != mc.size {
		return fmt.Errorf("cuda: constant %q is %d bytes on the host and %d in module %s", h.name, len(h.bytes), mc.size, key)
	}
	if mc.size == 0 {
		return nil
	}
	if err := cu.MemcpyHtoD(mc.ptr, unsafe.Pointer(unsafe.SliceData(h.bytes)), mc.size); err != nil {
		return fmt.Errorf("cuMemcpyHtoD(constant %q of %s, %d bytes): %w", h.name, key, mc.size, err)
	}
	return nil
}

// CopyToSymbol writes src, a []T, to the start of c, a *sim.Constant[T],
// as cudaMemcpyToSymbol does: into every loaded module whose twin declares
// c (cuModuleGetGlobal, then cuMemcpyHtoD), and into each module loaded
// later. It makes *Device a kernels.ConstantWriter.
func (d *Device) CopyToSymbol(c, src any) error {
	name, n, elem, err := kernels.CheckSymbolWrite(c, src)
	if err != nil {
		return err
	}
	sv := reflect.ValueOf(src)
	size := int(elem.Size())
	// Copy the host values now: they are Go memory the caller may change.
	data := make([]byte, sv.Len()*size)
	if len(data) > 0 {
		copy(data, unsafe.Slice((*byte)(sv.UnsafePointer()), len(data)))
	}
	return d.do(func() error {
		h := d.consts[c]
		if h == nil {
			h = &hostConst{name: name, bytes: make([]byte, n*size)}
			d.consts[c] = h
		}
		copy(h.bytes, data)
		for key, mcs := range d.modConsts {
			for _, mc := range mcs {
				if matches(mc.c, c, name) {
					if err := mc.write(key, h); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}
