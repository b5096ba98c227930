//go:build cuda

package cuda

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdlib.h>

// launchCoop is cuLaunchCooperativeKernel on the default stream, with
// kernel parameter i read from argv[i] (each parameter is at most 8 bytes,
// as the twins' are).
static CUresult launchCoop(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
	unsigned shared, unsigned long long *argv, int n)
{
	void *argp[64];
	if (n > 64) return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < n; i++) argp[i] = &argv[i];
	return cuLaunchCooperativeKernel((CUfunction)fn, gx, gy, gz, bx, by, bz, shared, (CUstream)0, argp);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"gorgonia.org/cu"
)

// launchCooperative launches f cooperatively with params (pointers to
// each parameter's 8-byte slot, as packArgs makes them). It runs on the
// driver thread. A grid too large to be co-resident is a *sim.LaunchError
// naming the limit, which it reads from the driver once refused.
//
// Workaround: cu v0.9.6 does not bind cuLaunchCooperativeKernel, and
// cu.Function keeps its CUfunction handle in an unexported field, read
// through unsafe as setMaxDynamicShared does. The argument values are
// copied into C memory: cgo forbids passing Go pointers to Go pointers.
func (d *Device) launchCooperative(f cu.Function, g, b sim.Dim3, sharedBytes int, params []unsafe.Pointer) error {
	if unsafe.Sizeof(f) != unsafe.Sizeof(uintptr(0)) {
		return fmt.Errorf("cuda: cu.Function is not a single handle (cu changed?)")
	}
	if len(params) > 64 {
		return fmt.Errorf("cuda: %d kernel parameters, at most 64 for a cooperative launch", len(params))
	}
	h := *(*unsafe.Pointer)(unsafe.Pointer(&f))
	n := max(1, len(params))
	argv := (*[64]C.ulonglong)(C.malloc(C.size_t(n * 8)))
	defer C.free(unsafe.Pointer(argv))
	for i, p := range params {
		argv[i] = C.ulonglong(*(*uint64)(p))
	}
	r := C.launchCoop(h, C.uint(g.X), C.uint(g.Y), C.uint(g.Z), C.uint(b.X), C.uint(b.Y), C.uint(b.Z),
		C.uint(sharedBytes), &argv[0], C.int(len(params)))
	switch r {
	case C.CUDA_SUCCESS:
		return nil
	case C.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
		res, err := d.coResidency(f, b.Size(), sharedBytes)
		return cooperativeTooLarge(g.Size(), res, err)
	}
	return fmt.Errorf("CUresult %d", int(r))
}

// coResidency reads from the driver what bounds a cooperative grid of
// blocks of threads threads with sharedBytes of dynamic shared memory
// launching f; it runs on the driver thread.
func (d *Device) coResidency(f cu.Function, threads, sharedBytes int) (coResidency, error) {
	r := coResidency{Threads: threads, DynamicShared: sharedBytes}
	var err error
	if r.SMs, err = d.dev.Attribute(cu.MultiprocessorCount); err != nil {
		return r, fmt.Errorf("cuDeviceGetAttribute(MULTIPROCESSOR_COUNT): %w", err)
	}
	if r.Registers, err = f.Attribute(cu.NumRegs); err != nil {
		return r, fmt.Errorf("cuFuncGetAttribute(NUM_REGS): %w", err)
	}
	if r.StaticShared, err = f.Attribute(cu.SharedSizeBytes); err != nil {
		return r, fmt.Errorf("cuFuncGetAttribute(SHARED_SIZE_BYTES): %w", err)
	}
	if r.BlocksPerSM, err = f.MaxActiveBlocksPerMultiProcessor(threads, int64(sharedBytes)); err != nil {
		return r, fmt.Errorf("cuOccupancyMaxActiveBlocksPerMultiprocessor: %w", err)
	}
	return r, nil
}

// *Device launches cooperatively: kernels.LaunchCooperative (grid_reduce's
// driver) takes this path on the GPU.
var _ kernels.CooperativeLauncher = (*Device)(nil)
