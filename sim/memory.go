package sim

import (
	"fmt"
	"math"
	"unsafe"
)

// Elem is the set of element types a buffer can hold: CUDA's char, unsigned
// char, int, unsigned, long long, unsigned long long, float and double.
type Elem interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// Space is the memory space a buffer lives in.
type Space uint8

const (
	GlobalSpace Space = iota // device memory, visible to every thread of every launch
	SharedSpace              // per-block shared memory, alive for one block
)

func (s Space) String() string {
	if s == SharedSpace {
		return "shared"
	}
	return "global"
}

// mem is the type-independent half of a buffer: what detection, reports and
// the profiler need to know about it.
type mem struct {
	name     string
	id       int32
	space    Space
	elemSize int
	n        int
	dev      *Device
	freed    bool

	// init has one bit per element, set when the host or a kernel wrote it.
	// initAll short-cuts it after a launch that ran without detection, whose
	// writes were not tracked.
	init    []uint64
	initAll bool

	// shadow holds race records, allocated on first checked access. It is
	// never cleared between launches: records of earlier launches are told
	// apart by their thread ids (see Device.nextGid).
	shadow []cell
}

func (m *mem) setInit(i int) { m.init[i>>6] |= 1 << (uint(i) & 63) }
func (m *mem) isInit(i int) bool {
	return m.initAll || m.init[i>>6]&(1<<(uint(i)&63)) != 0
}
func (m *mem) setAllInit() {
	for i := range m.init {
		m.init[i] = ^uint64(0)
	}
}

// Buffer is an array of T in global or shared memory. Kernels reach its
// elements only through Load, Store and the atomic functions, each of which
// names the calling thread, so that every access is bounds-checked, counted
// and (with detection on) checked for races and uninitialised reads.
//
// Host code uses CopyFromHost, CopyToHost and Memset between launches.
type Buffer[T Elem] struct {
	mem
	data []T
}

// Alloc allocates a global buffer of n elements, uninitialised as with
// cudaMalloc: reading an element before the host or a kernel writes it is
// reported (the simulator itself zeroes the storage, so results stay
// deterministic).
func Alloc[T Elem](d *Device, name string, n int) (*Buffer[T], error) {
	if n < 0 {
		return nil, fmt.Errorf("sim: Alloc %q: negative length %d", name, n)
	}
	var zero T
	b := &Buffer[T]{data: make([]T, n)}
	b.mem = mem{name: name, space: GlobalSpace, elemSize: int(unsafe.Sizeof(zero)), n: n, dev: d,
		init: make([]uint64, (n+63)/64)}
	if err := d.register(&b.mem); err != nil {
		return nil, err
	}
	return b, nil
}

// FromHost allocates a global buffer holding a copy of src.
func FromHost[T Elem](d *Device, name string, src []T) (*Buffer[T], error) {
	b, err := Alloc[T](d, name, len(src))
	if err != nil {
		return nil, err
	}
	return b, b.CopyFromHost(src)
}

// Name is the buffer's name, as findings print it.
func (b *Buffer[T]) Name() string { return b.name }

// Len is the number of elements.
func (b *Buffer[T]) Len() int { return len(b.data) }

// Space says whether the buffer is global or shared.
func (b *Buffer[T]) Space() Space { return b.space }

// Free releases the buffer; later use is an error.
func (b *Buffer[T]) Free() {
	if b.freed || b.space != GlobalSpace {
		return
	}
	b.freed = true
	b.dev.unregister(&b.mem)
	b.data, b.n = nil, 0 // a kernel's access is now out of bounds
	b.shadow = nil
}

func (b *Buffer[T]) hostCheck(op string, n int) error {
	if b.freed {
		return fmt.Errorf("sim: %s on freed buffer %q", op, b.name)
	}
	if b.space != GlobalSpace {
		return fmt.Errorf("sim: %s on shared array %q: only global buffers are visible to the host", op, b.name)
	}
	if n > len(b.data) {
		return fmt.Errorf("sim: %s of %d elements into buffer %q of %d", op, n, b.name, len(b.data))
	}
	return nil
}

// CopyFromHost copies src into the start of the buffer (cudaMemcpy host to
// device) and marks those elements initialised.
func (b *Buffer[T]) CopyFromHost(src []T) error {
	if err := b.hostCheck("CopyFromHost", len(src)); err != nil {
		return err
	}
	copy(b.data, src)
	for i := range src {
		b.setInit(i)
	}
	return nil
}

// CopyToHost copies the start of the buffer into dst (device to host).
func (b *Buffer[T]) CopyToHost(dst []T) error {
	if err := b.hostCheck("CopyToHost", len(dst)); err != nil {
		return err
	}
	copy(dst, b.data)
	return nil
}

// ToHost returns a new host slice holding the buffer's contents.
func (b *Buffer[T]) ToHost() []T {
	out := make([]T, len(b.data))
	copy(out, b.data)
	return out
}

// Memset sets every byte of the buffer to value, as cudaMemset does, and
// marks it initialised.
func (b *Buffer[T]) Memset(value byte) error {
	if err := b.hostCheck("Memset", 0); err != nil {
		return err
	}
	var v T
	p := (*[8]byte)(unsafe.Pointer(&v))
	for i := 0; i < int(unsafe.Sizeof(v)); i++ {
		p[i] = value
	}
	for i := range b.data {
		b.data[i] = v
	}
	b.setAllInit()
	return nil
}

// Load returns element i: `x = b[i]` in CUDA.
//
// What is not the plain access lives in slowAccess, which Load and Store
// call only for an index out of bounds or an exhausted access budget
// (always, with detection on). slowAccess reads Load's return address, the
// kernel's line, off the frame-pointer chain. Load and Store are never
// inlined, so that it always is the kernel's (they were just over the
// inliner's budget anyway; with profile-guided optimisation the inliner
// might take them).
//
//go:noinline
func (b *Buffer[T]) Load(t *Thread, i int) T {
	t.budget--
	if uint(i) >= uint(len(b.data)) || t.budget < 0 {
		t.slowAccess(&b.mem, i, accRead, false)
	}
	return b.data[i]
}

// Store sets element i to v: `b[i] = v` in CUDA.
//
//go:noinline
func (b *Buffer[T]) Store(t *Thread, i int, v T) {
	t.budget--
	if uint(i) >= uint(len(b.data)) || t.budget < 0 {
		t.slowAccess(&b.mem, i, accWrite, uint(i) < uint(len(b.data)) && b.data[i] != v)
	}
	p := &b.data[i]
	if *p != v {
		t.w.progress++ // a change of memory: spinning threads may now move on
	}
	*p = v
}

// bitsOf and fromBits move a value through the uint64 lanes of a warp collective.
func bitsOf[T Elem](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	case float64:
		return math.Float64bits(x)
	case int8:
		return uint64(x)
	case uint8:
		return uint64(x)
	case int32:
		return uint64(x)
	case uint32:
		return uint64(x)
	case int64:
		return uint64(x)
	case uint64:
		return x
	}
	return 0
}

func fromBits[T Elem](u uint64) T {
	var v T
	switch p := any(&v).(type) {
	case *float32:
		*p = math.Float32frombits(uint32(u))
	case *float64:
		*p = math.Float64frombits(u)
	case *int8:
		*p = int8(u)
	case *uint8:
		*p = uint8(u)
	case *int32:
		*p = int32(u)
	case *uint32:
		*p = uint32(u)
	case *int64:
		*p = int64(u)
	case *uint64:
		*p = u
	}
	return v
}

// SetName renames the buffer, as findings print it.
func (b *Buffer[T]) SetName(name string) { b.name = name }
