//go:build linux

package sim

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault a range in,
// writable, in one call.
const madvPopulateWrite = 23

// populate faults the pages of a new shadow in before the launch touches
// them. A checked access reads its cell before writing it, so an untouched
// page costs two faults (the zero page, then a copy on write, which with
// another worker running is a TLB shootdown too); one madvise instead
// costs what zeroing the memory costs. It is a hint: on kernels without
// MADV_POPULATE_WRITE the pages fault in as before.
func populate(cells []cell) {
	if len(cells) == 0 {
		return
	}
	const page = 4096
	base := unsafe.Pointer(unsafe.SliceData(cells))
	size := uintptr(len(cells)) * uintptr(cellBytes)
	off := (page - uintptr(base)%page) % page // to the first whole page
	if size <= off {
		return
	}
	n := (size - off) &^ (page - 1)
	if n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(base, off)), n)
	_ = syscall.Madvise(b, madvPopulateWrite)
}
