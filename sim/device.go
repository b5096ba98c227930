package sim

import (
	"fmt"
	"sync"
)

// A Device is one simulated GPU: a Spec, the global buffers allocated on it,
// and the launches run on it. A Device is not safe for concurrent use: like a
// CUDA stream, it runs one launch at a time, in the order they are made.
type Device struct {
	spec      Spec
	mu        sync.Mutex
	buffers   []*mem // every live buffer: their shadows are dropped when thread ids wrap (takeGids)
	allocated int64
	nextID    int32
	totals    Counters
	// nextGid is the first thread id of the next launch. Thread ids run on
	// from launch to launch, so that a shadow record whose id is below the
	// current launch's first is known to be older than the launch (ordered
	// before it) without clearing any shadow memory between launches.
	nextGid uint32
}

// takeGids reserves n thread ids for a launch and returns the first. When
// the 32-bit ids would wrap, every buffer's shadow records are dropped (they
// belong to earlier launches) and numbering starts again at 1; id 0 stands
// for the host.
func (d *Device) takeGids(n int) uint32 {
	if d.nextGid == 0 || uint64(d.nextGid)+uint64(n) >= 1<<32 {
		d.mu.Lock()
		for _, m := range d.buffers {
			m.shadow = nil
		}
		d.mu.Unlock()
		d.nextGid = 1
	}
	first := d.nextGid
	d.nextGid += uint32(n)
	return first
}

// NewDevice returns a device of the given model with no memory allocated.
func NewDevice(spec Spec) *Device {
	return &Device{spec: spec}
}

// Counters returns what every launch on the device so far did, summed.
// Loads and Stores count only checked accesses (detection or profiling on).
func (d *Device) Counters() Counters {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.totals
}

// Spec returns the device's model.
func (d *Device) Spec() Spec { return d.spec }

func (d *Device) register(m *mem) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	bytes := int64(m.n) * int64(m.elemSize)
	if d.allocated+bytes > d.spec.GlobalMemory {
		return &LaunchError{Code: ErrMemoryAllocation, Limit: "global memory",
			Detail: fmt.Sprintf("%d bytes requested, %d of %d in use", bytes, d.allocated, d.spec.GlobalMemory)}
	}
	d.nextID++
	m.id = d.nextID
	d.allocated += bytes
	d.buffers = append(d.buffers, m)
	return nil
}

func (d *Device) unregister(m *mem) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, b := range d.buffers {
		if b == m {
			d.buffers = append(d.buffers[:i], d.buffers[i+1:]...)
			d.allocated -= int64(m.n) * int64(m.elemSize)
			return
		}
	}
}
