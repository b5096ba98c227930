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
	buffers   []*mem // every live buffer, for per-launch shadow resets
	allocated int64
	nextID    int32
	launches  uint64 // launch generation, starts at 1 for the first launch
	totals    Counters
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
