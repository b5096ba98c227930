//go:build unix

package sim

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: the
// watchdog's second clock. A thread that loops without calling into sim
// burns a core, so the process's CPU time grows at least as fast as the
// wall clock while it runs; a process starved of CPU by a loaded machine
// (or the race detector) gains little, and is not taken for a hang.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
