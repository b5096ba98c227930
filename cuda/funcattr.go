//go:build cuda

package cuda

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>

static CUresult setMaxDynShared(void *fn, int n) {
	return cuFuncSetAttribute((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, n);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// setMaxDynamicShared raises fn's dynamic shared memory limit to n bytes.
//
// Workaround: cu v0.9.6 binds cuFuncGetAttribute but not
// cuFuncSetAttribute, and cu.Function keeps its CUfunction handle in an
// unexported field. cu.Function is a struct of that one pointer, so the
// handle is read through unsafe and the attribute set by a direct cgo call.
func setMaxDynamicShared(f cu.Function, n int) error {
	if unsafe.Sizeof(f) != unsafe.Sizeof(uintptr(0)) {
		return fmt.Errorf("cuda: cu.Function is not a single handle (cu changed?)")
	}
	h := *(*unsafe.Pointer)(unsafe.Pointer(&f))
	if r := C.setMaxDynShared(h, C.int(n)); r != C.CUDA_SUCCESS {
		return fmt.Errorf("CUresult %d", int(r))
	}
	return nil
}
