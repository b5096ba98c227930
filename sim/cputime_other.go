//go:build !unix

package sim

import "time"

// processCPU reports no CPU clock where getrusage is missing: the watchdog
// then times by the wall clock alone.
func processCPU() (time.Duration, bool) { return 0, false }
