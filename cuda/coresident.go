package cuda

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// coResidency is what bounds a cooperative grid on the GPU:
// cuLaunchCooperativeKernel refuses more blocks than SMs x BlocksPerSM,
// BlocksPerSM being cuOccupancyMaxActiveBlocksPerMultiprocessor's answer
// for the kernel's registers and static shared memory, the block's threads
// and the launch's dynamic shared memory.
type coResidency struct {
	SMs, BlocksPerSM            int
	Threads, Registers          int
	StaticShared, DynamicShared int
}

// cooperativeTooLarge is the GPU's refusal of a cooperative grid of blocks
// blocks, as the *sim.LaunchError the simulator returns for the same
// request (code and limit), naming the limit and what decides it. queryErr
// is why the limit could not be read, if it could not.
func cooperativeTooLarge(blocks int, r coResidency, queryErr error) *sim.LaunchError {
	e := &sim.LaunchError{Code: sim.ErrCooperativeLaunchTooLarge, Limit: "cooperative grid"}
	if queryErr != nil {
		e.Detail = fmt.Sprintf("%d blocks of %d threads are more than the device holds co-resident (the limit could not be read: %v)",
			blocks, r.Threads, queryErr)
		return e
	}
	e.Detail = fmt.Sprintf("%d blocks, at most %d co-resident (%d SMs x %d blocks of %d threads, %d registers, %d bytes of static and %d of dynamic shared memory)",
		blocks, r.SMs*r.BlocksPerSM, r.SMs, r.BlocksPerSM, r.Threads, r.Registers, r.StaticShared, r.DynamicShared)
	return e
}
