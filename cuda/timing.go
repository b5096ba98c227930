package cuda

import "time"

// LaunchTime is how long one launch took, recorded while launch timing is
// on (Device.TimeLaunches).
type LaunchTime struct {
	Func string // the entry point launched
	// GPU is the kernel's execution time on the device: cuEventElapsedTime
	// between two events recorded on the launch's stream right before and
	// right after cuLaunchKernel (resolution about half a microsecond). It
	// leaves out the host's launch overhead and every copy.
	GPU time.Duration
	// Host is the host's wall-clock time from cuLaunchKernel until the
	// cuCtxSynchronize after it returned: GPU plus launch and
	// synchronisation overhead.
	Host time.Duration
}
