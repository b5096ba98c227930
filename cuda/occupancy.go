//go:build cuda

package cuda

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
*/
import "C"

import (
	"fmt"

	"gorgonia.org/cu"
)

// Limits reads the device attributes the occupancy calculator divides.
// Several (MAX_BLOCKS_PER_MULTIPROCESSOR, RESERVED_SHARED_MEMORY_PER_BLOCK,
// MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) are newer than cu v0.9.6's constants
// and are named here from cuda.h.
func (d *Device) Limits() (Limits, error) {
	var l Limits
	err := d.do(func() error {
		for _, a := range []struct {
			attr C.CUdevice_attribute
			name string
			dst  *int
		}{
			{C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT", &l.SMs},
			{C.CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE", &l.WarpSize},
			{C.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK", &l.MaxThreadsPerBlock},
			{C.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "MAX_THREADS_PER_MULTIPROCESSOR", &l.MaxThreadsPerSM},
			{C.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "MAX_BLOCKS_PER_MULTIPROCESSOR", &l.MaxBlocksPerSM},
			{C.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "MAX_REGISTERS_PER_MULTIPROCESSOR", &l.RegsPerSM},
			{C.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "MAX_REGISTERS_PER_BLOCK", &l.RegsPerBlock},
			{C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", &l.SharedPerSM},
			{C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK", &l.SharedPerBlock},
			{C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", &l.SharedPerBlockOptin},
			{C.CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "RESERVED_SHARED_MEMORY_PER_BLOCK", &l.SharedReservedBlock},
		} {
			v, err := d.dev.Attribute(cu.DeviceAttribute(a.attr))
			if err != nil {
				return fmt.Errorf("cuDeviceGetAttribute(%s): %w", a.name, err)
			}
			*a.dst = v
		}
		return nil
	})
	return l, err
}

// funcAttrs reads fn's attributes; it runs on the driver thread.
func funcAttrs(fn cu.Function, kernel, entry string) (FuncAttrs, error) {
	a := FuncAttrs{Kernel: kernel, Entry: entry}
	for _, x := range []struct {
		attr C.CUfunction_attribute
		name string
		dst  *int
	}{
		{C.CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &a.NumRegs},
		{C.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES", &a.StaticShared},
		{C.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES", &a.LocalBytes},
		{C.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK", &a.MaxThreadsPerBlock},
		{C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "MAX_DYNAMIC_SHARED_SIZE_BYTES", &a.MaxDynamicShared},
		{C.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, "PREFERRED_SHARED_MEMORY_CARVEOUT", &a.Carveout},
	} {
		v, err := fn.Attribute(cu.FunctionAttribute(x.attr))
		if err != nil {
			return a, fmt.Errorf("cuFuncGetAttribute(%s.%s, %s): %w", kernel, entry, x.name, err)
		}
		*x.dst = v
	}
	return a, nil
}

// FuncAttributes compiles (or takes from the cache) and loads the CUDA of
// kernel, a kernel function, and reads its entry point's attributes.
func (d *Device) FuncAttributes(kernel any) (FuncAttrs, error) {
	tw, fn, entry, err := d.function(kernel)
	if err != nil {
		return FuncAttrs{}, err
	}
	name := tw.Entry
	var a FuncAttrs
	err = d.do(func() error {
		var err error
		a, err = funcAttrs(fn, name, entry)
		return err
	})
	return a, err
}

// Occupancy asks the driver how many blocks of blockSize threads, each with
// dynamicShared bytes of dynamic shared memory, kernel's entry point can
// keep resident on one SM (cuOccupancyMaxActiveBlocksPerMultiprocessor,
// default flags), beside the function attributes that decide it.
//
// A request above the function's MAX_DYNAMIC_SHARED_SIZE_BYTES (48 KiB less
// its static shared memory, unless raised) is answered as a launch that
// opted in: the limit is raised to dynamicShared for the query and put
// back after it, so the query leaves the function as it found it. On a
// driver error the attributes read so far are returned with it.
func (d *Device) Occupancy(kernel any, blockSize, dynamicShared int) (FuncOccupancy, error) {
	tw, fn, entry, err := d.function(kernel)
	if err != nil {
		return FuncOccupancy{}, err
	}
	name := tw.Entry
	o := FuncOccupancy{BlockSize: blockSize, DynamicShared: dynamicShared}
	err = d.do(func() (err error) {
		if o.FuncAttrs, err = funcAttrs(fn, name, entry); err != nil {
			return err
		}
		if dynamicShared > o.MaxDynamicShared {
			if err := setMaxDynamicShared(fn, dynamicShared); err != nil {
				return fmt.Errorf("cuFuncSetAttribute(%s.%s, max dynamic shared %d): %w", name, entry, dynamicShared, err)
			}
			o.OptIn = true
			defer func() {
				if rerr := setMaxDynamicShared(fn, o.MaxDynamicShared); rerr != nil && err == nil {
					err = fmt.Errorf("cuFuncSetAttribute(%s.%s, max dynamic shared back to %d): %w", name, entry, o.MaxDynamicShared, rerr)
				}
			}()
		}
		o.BlocksPerSM, err = fn.MaxActiveBlocksPerMultiProcessor(blockSize, int64(dynamicShared))
		if err != nil {
			return fmt.Errorf("cuOccupancyMaxActiveBlocksPerMultiprocessor(%s.%s, block %d, dynamic shared %d): %w",
				name, entry, blockSize, dynamicShared, err)
		}
		return nil
	})
	return o, err
}
