package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
)

// The simulator keeps device memory (and detection's shadow of it) in host
// memory, so a request the device could grant may still be more than the
// host can hold; Go does not survive running out of memory (the runtime
// aborts the process). Large requests are therefore checked against the
// host's memory first, from /proc/meminfo where there is one; elsewhere,
// and for requests below hostCheckMin, only the device's own limits apply.

// hostReserved is the host memory the live buffers and shadows of every
// Device of the process hold, in bytes.
var hostReserved atomic.Int64

const hostCheckMin = 256 << 20

// hostCanHold reports whether the host can back bytes more: no more than
// it has available now, and, with what the simulator already holds, no
// more than its total memory.
func hostCanHold(bytes int64) error {
	if bytes < hostCheckMin {
		return nil
	}
	total, avail, ok := hostMemory()
	if !ok {
		return nil
	}
	held := hostReserved.Load()
	if bytes > avail || held+bytes > total {
		return fmt.Errorf("%d bytes requested, the host has %d available (%d total, %d held by the simulator)", bytes, avail, total, held)
	}
	return nil
}

// hostMemory reads MemTotal and MemAvailable (plus free swap) in bytes.
func hostMemory() (total, avail int64, ok bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0, false
	}
	var have int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		switch string(f[0]) {
		case "MemTotal:":
			total += kb << 10
			have++
		case "MemAvailable:":
			avail += kb << 10
			have++
		case "SwapFree:":
			avail += kb << 10
			total += kb << 10
		}
	}
	return total, avail, have == 2
}
