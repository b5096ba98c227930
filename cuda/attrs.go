package cuda

import "regexp"

// FuncAttrs are a loaded entry point's attributes (cuFuncGetAttribute), as
// ptxas compiled it for the device.
type FuncAttrs struct {
	Kernel, Entry      string
	NumRegs            int // NUM_REGS: registers per thread
	StaticShared       int // SHARED_SIZE_BYTES: static __shared__ bytes
	LocalBytes         int // LOCAL_SIZE_BYTES: local memory per thread (spills, stack)
	MaxThreadsPerBlock int // MAX_THREADS_PER_BLOCK: the largest block that can launch
	MaxDynamicShared   int // MAX_DYNAMIC_SHARED_SIZE_BYTES: the current dynamic limit
	Carveout           int // PREFERRED_SHARED_MEMORY_CARVEOUT: -1 is the default (no preference)
}

// FuncOccupancy is the driver's occupancy of one entry point at one launch
// shape.
type FuncOccupancy struct {
	FuncAttrs
	BlockSize     int
	DynamicShared int // bytes requested at launch, beside StaticShared
	// OptIn: DynamicShared exceeded MaxDynamicShared, so the query raised
	// the function's limit to DynamicShared first (as a launch must, and
	// as sim.Spec.CalcOccupancy assumes) and restored it afterwards.
	OptIn bool
	// BlocksPerSM is cuOccupancyMaxActiveBlocksPerMultiprocessor's answer
	// (the driver API's cudaOccupancyMaxActiveBlocksPerMultiprocessor).
	BlocksPerSM int
}

var externShared = regexp.MustCompile(`\bextern\s+__shared__\b`)

// UsesDynamicShared reports whether a twin's source declares dynamic shared
// memory (extern __shared__), comments ignored: some entry point of the
// twin takes its shared memory size from the launch.
func UsesDynamicShared(src []byte) bool {
	s := blockComment.ReplaceAllString(string(src), "")
	s = lineComment.ReplaceAllString(s, "")
	return externShared.MatchString(s)
}
