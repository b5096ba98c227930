package sim

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// A Device is one simulated GPU: a Spec, the global buffers allocated on it,
// and the launches run on it. Make one with NewDevice; the zero value is
// refused by every method with a *MisuseError.
//
// A Device is safe for concurrent use, and serialises like one CUDA stream:
// launches and the host copies of its buffers (CopyFromHost, CopyToHost,
// ToHost, Memset, Free) made from different goroutines run one at a time,
// each whole. What runs concurrently is only the simulator's own parallel
// workers (Options.WithWorkers) inside one launch.
type Device struct {
	spec Spec
	made bool // set by NewDevice: the zero value is not a device
	// stream serialises launches and host copies.
	stream sync.Mutex
	// hung is set when the watchdog abandoned a launch whose thread never
	// came back (see the package doc's # Watchdog): the device is unusable
	// from then on, as a CUDA context is after cudaErrorLaunchTimeout.
	hung   atomic.Bool
	hungAt string // the abandoned thread and line, for the error

	mu          sync.Mutex
	closed      bool
	buffers     []*mem // every live buffer: their shadows are dropped when thread ids wrap (takeGids)
	allocated   int64
	shadowBytes int64 // host bytes of the live buffers' shadow memory
	nextID      int32
	totals      Counters
	// nextGid is the first thread id of the next launch. Thread ids run on
	// from launch to launch, so that a shadow record whose id is below the
	// current launch's first is known to be older than the launch (ordered
	// before it) without clearing any shadow memory between launches.
	nextGid uint32
	// oneWorker holds the kernels (by code) whose speculation failed, and
	// what failed it: their detected launches run on one worker
	// (speculate.go).
	oneWorker map[uintptr]string
	// undoData and undoInit are the epochs' arenas of saved chunks, kept
	// from launch to launch: memory allocated afresh each epoch costs a
	// page fault per page, and with other workers running, a TLB
	// shootdown each.
	undoData []byte
	undoInit []uint64
	// spareWorkers are the workers of the last launch, for the next (see
	// worker); retired is what the Threads of ended launches point to
	// instead (launch.retireThreads).
	spareWorkers []*worker
	retired      *worker
	// late holds the findings no launch was left to report: a Thread
	// used, from a goroutine a kernel started, after its launch had made
	// its report (launch.sealed). The Device's next launch reports them,
	// or else Close.
	late findingSet
	// consts holds its copies of the package's Constants.
	consts deviceConstants
	// corosMade counts the coroutines its launches made, for the tests
	// that check that launches reuse them (idlePool).
	corosMade atomic.Int64
}

// MisuseError is host code using the simulator in a way CUDA would refuse or
// that has no meaning: a buffer after Free or freed twice, a zero-value,
// closed or hung Device, a buffer of another Device, a Thread after its
// launch. Code is the CUDA error the same mistake gets from the runtime.
type MisuseError struct {
	Code ErrorCode
	Op   string // what was attempted: "Launch", "CopyToHost", "Free", ...
	What string // what is wrong
}

func (e *MisuseError) Error() string {
	return fmt.Sprintf("sim: %s: %s (%v)", e.Op, e.What, e.Code)
}

// usable reports why d cannot be used for op, or nil.
func (d *Device) usable(op string) error {
	switch {
	case d == nil:
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: "nil *Device"}
	case !d.made:
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: "zero-value Device: make one with sim.NewDevice(spec)"}
	case d.hung.Load():
		d.mu.Lock()
		at := d.hungAt
		d.mu.Unlock()
		return &MisuseError{Code: ErrLaunchTimeout, Op: op,
			What: "the Device is unusable: the watchdog abandoned a launch whose thread never came back (" + at + "); make a new Device"}
	}
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: "the Device is closed"}
	}
	return nil
}

// takeGids reserves n thread ids for a launch and returns the first. When
// the 32-bit ids would wrap, every buffer's shadow records are dropped (they
// belong to earlier launches) and numbering starts again at 1; id 0 stands
// for the host.
func (d *Device) takeGids(n int) uint32 {
	if d.nextGid == 0 || uint64(d.nextGid)+uint64(n) >= 1<<32 {
		d.mu.Lock()
		for _, m := range d.buffers {
			d.dropShadow(m)
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
	return &Device{spec: spec, made: true}
}

// Close frees every buffer of the device and stops the simulator's idle
// coroutines, so that no goroutine of the simulator is left behind (a
// goroutine-leak check after Close passes). Later use of the device or its
// buffers is a *MisuseError. Closing a closed device does nothing.
//
// Close returns a *MisuseError listing the findings no launch reported:
// a goroutine a kernel started that used its Thread after the launch
// returned, when no launch on the device came after (see the package
// doc's # Misuse). The device is closed all the same.
//
// The idle coroutines are shared by every Device of the process (creating
// them is what a launch would otherwise spend most on); another Device's
// next launch makes new ones. Close cannot stop the goroutines of a launch
// the watchdog abandoned: they end when the stray thread next calls into
// sim, or never (see the package doc's # Watchdog).
func (d *Device) Close() error {
	if d == nil || !d.made {
		return d.usable("Close")
	}
	d.inKernel("Close")
	if !d.hung.Load() {
		// Wait for a launch in progress; an abandoned one never returns
		// the stream.
		d.stream.Lock()
		defer d.stream.Unlock()
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	for _, m := range d.buffers {
		m.freed = true
		d.dropShadow(m)
		m.release()
		hostReserved.Add(-m.bytes)
	}
	d.buffers = nil
	d.allocated = 0
	late := d.late
	d.late = findingSet{}
	d.mu.Unlock()
	d.consts.mu.Lock()
	for c := range d.consts.copies {
		c.(constant).forget(d)
	}
	d.consts.mu.Unlock()
	drainIdle()
	return late.closeError()
}

// addLate keeps f, which no launch was left to report (Device.late).
func (d *Device) addLate(f Finding) {
	d.mu.Lock()
	d.late.add(f)
	d.mu.Unlock()
}

// takeLate returns the findings no launch was left to report, and forgets
// them.
func (d *Device) takeLate() findingSet {
	d.mu.Lock()
	defer d.mu.Unlock()
	late := d.late
	d.late = findingSet{}
	return late
}

// closeError is Close's error for the findings no launch reported: nil
// if there are none.
func (s *findingSet) closeError() error {
	if len(s.list) == 0 && len(s.dropped) == 0 {
		return nil
	}
	var b strings.Builder
	for i := range s.list {
		fmt.Fprintf(&b, "\n[%d] %s", i+1, s.list[i].String())
	}
	if len(s.dropped) > 0 {
		fmt.Fprintf(&b, "\n(%d more distinct findings dropped)", len(s.dropped))
	}
	return &MisuseError{Code: ErrInvalidValue, Op: "Close",
		What: "the Device's launches left findings no launch reported (a goroutine a kernel started used its Thread after the launch had returned):" + b.String()}
}

// Counters returns what every launch on the device so far did, summed.
// Loads and Stores count only checked accesses (detection or profiling on).
// A nil *Device panics with a *MisuseError.
func (d *Device) Counters() Counters {
	d.mustNotBeNil("Counters")
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.totals
}

// Spec returns the device's model. A nil *Device panics with a
// *MisuseError.
func (d *Device) Spec() Spec {
	d.mustNotBeNil("Spec")
	return d.spec
}

// mustNotBeNil panics with a *MisuseError naming op if d is nil: for the
// methods that return no error.
func (d *Device) mustNotBeNil(op string) {
	if d == nil {
		panic(d.usable(op))
	}
}

// reserve checks an allocation of bytes against the device's memory, and
// the host's, before any host memory is touched, and accounts for it.
func (d *Device) reserve(name string, bytes int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.allocated+bytes > d.spec.GlobalMemory {
		return &LaunchError{Code: ErrMemoryAllocation, Limit: "global memory",
			Detail: fmt.Sprintf("buffer %q: %d bytes requested, %d of %d in use", name, bytes, d.allocated, d.spec.GlobalMemory)}
	}
	if err := hostCanHold(bytes); err != nil {
		return &LaunchError{Code: ErrMemoryAllocation, Limit: "host memory",
			Detail: fmt.Sprintf("buffer %q: %v; the simulator keeps device memory in host memory", name, err)}
	}
	d.allocated += bytes
	hostReserved.Add(bytes)
	return nil
}

func (d *Device) register(m *mem) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nextID++
	m.id = d.nextID
	d.buffers = append(d.buffers, m)
}

func (d *Device) unregister(m *mem) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, b := range d.buffers {
		if b == m {
			d.buffers = append(d.buffers[:i], d.buffers[i+1:]...)
			d.allocated -= m.bytes
			hostReserved.Add(-m.bytes)
			d.dropShadow(m)
			return
		}
	}
}

// dropShadow releases m's shadow memory; d.mu is held.
func (d *Device) dropShadow(m *mem) {
	if m.shadow != nil {
		b := int64(len(m.shadow)) * cellBytes
		d.shadowBytes -= b
		hostReserved.Add(-b)
		for k, c := range m.shadow[:min(len(m.shadow), len(m.splits)*len(m.shadow))] {
			if c.w.gid == tagGid && !m.unitInit(k) {
				// Keep what the split unit knew of its bytes.
				if m.partInit == nil {
					m.partInit = map[int]uint8{}
				}
				m.partInit[k] = m.splits[c.w.ctx].init
			}
		}
		m.shadow = nil
		m.pairs, m.freePairs, m.splits = nil, nil, nil
	}
}

// allocShadow gives global buffer m its shadow memory, if the launch's
// shadow budget and the host allow it, and reports how much was asked for
// otherwise.
func (d *Device) allocShadow(m *mem, budget int64) error {
	need := int64(m.units()) * cellBytes
	d.mu.Lock()
	defer d.mu.Unlock()
	if budget > 0 && d.shadowBytes+need > budget {
		return fmt.Errorf("detection needs %d bytes of shadow memory for it (%d units of %d bytes x %d bytes), and the device's buffers already hold %d of the budget of %d bytes (Options.WithShadowBudget); run it with detection off, or raise the budget",
			need, m.units(), m.unit, cellBytes, d.shadowBytes, budget)
	}
	if err := hostCanHold(need); err != nil {
		return fmt.Errorf("detection needs %d bytes of shadow memory for it, more than the host can hold: %v; run it with detection off", need, err)
	}
	m.shadow = make([]cell, m.units())
	m.applyPartInit()
	d.shadowBytes += need
	hostReserved.Add(need)
	return nil
}
