//go:build unix

package cli

import "syscall"

// addressSpaceLimit is the process's RLIMIT_AS (ulimit -v) in bytes; have
// is false where it is unlimited (RLIM_INFINITY, all ones).
func addressSpaceLimit() (limit int64, have bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}
