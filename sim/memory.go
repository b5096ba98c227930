package sim

import (
	"fmt"
	"math"
	"sync/atomic"
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
	switch s {
	case SharedSpace:
		return "shared"
	case ConstantSpace:
		return "constant"
	}
	return "global"
}

// MarshalText writes "global" or "shared", so that JSON carries the name.
func (s Space) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (s *Space) UnmarshalText(b []byte) error {
	switch string(b) {
	case "global":
		*s = GlobalSpace
	case "shared":
		*s = SharedSpace
	case "constant":
		*s = ConstantSpace
	default:
		return fmt.Errorf("sim: unknown memory space %q", b)
	}
	return nil
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
	lapsed   bool   // a shared array whose block has ended (shared.go)
	cols     int    // a 2-D shared array's row length (Shared2D), else 0
	view     string // a view's element type where it differs from its buffer's (Reinterpret)
	initAll  bool   // see init
	bytes    int64  // n * elemSize, what the device accounts for
	release  func() // drops the elements (Free, Device.Close)

	// init has one bit per shadow unit (shadow.go), set when the host or
	// a kernel wrote it. initAll short-cuts it after a launch that ran
	// without detection, whose writes were not tracked.
	init []uint64

	// Detection's shadow memory, on allocations only (a view uses its
	// allocation's; see shadow.go). unit is its granule in bytes; oneCell
	// says an element is one unit. The cells are allocated on first
	// checked access and never cleared between launches: records of
	// earlier launches are told apart by their thread ids (see
	// Device.nextGid). pairs, freePairs and splits are the side tables of
	// read pairs and split units.
	unit      int
	oneCell   bool
	shadow    []cell
	pairs     [][2]rec
	freePairs []uint32
	splits    []splitUnit
	partInit  map[int]uint8 // units the host initialised in part before there was shadow: their bytes

	// A view (Buffer.View, Reinterpret) has vroot, the buffer whose bytes
	// it shows, and the byte offset of its element 0 in it; see view.go.
	vroot *mem
	vbyte int

	// raw is a global allocation's bytes (nil if it has none), and undo
	// has a bit per chunk an epoch saved (speculate.go).
	raw  unsafe.Pointer
	undo atomic.Pointer[[]uint32]

	// life is a shared array's block slot and the block it belonged to
	// last (shared.go); nil for a global buffer. (initAll shares freed's
	// word, so that mem stays 256 bytes: a Buffer's data starts a cache
	// line, in a size class of 64-byte multiples.)
	life *sharedLife
}

// setInit marks element i of m (an allocation or a view) initialised.
func (m *mem) setInit(i int) {
	if m.oneCell {
		m.setUnitInit(i)
		return
	}
	r, b0, n := m.span(i)
	r.initBytes(b0, n)
}

// isInit reports whether every byte of element i of m is initialised.
func (m *mem) isInit(i int) bool {
	if m.oneCell {
		return m.unitInit(i)
	}
	r, b0, n := m.span(i)
	return r.bytesInit(b0, n)
}

// initRoot sets up allocation m's initialisation bits and shadow unit.
func (m *mem) initRoot(dynamicShared bool) {
	m.unit = unitBytes(m.elemSize, dynamicShared)
	m.oneCell = m.unit == m.elemSize
	m.init = m.newInit()
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
type Buffer[T Storable] struct {
	mem
	data []T
	// vdata is a misaligned view's elements, or a lapsed shared array's
	// (shared.go): its data is empty, so that every access takes the slow
	// path that reports it.
	vdata []T
	// whole is, for a view made by Offset (pointer arithmetic), the buffer
	// it was cut from, whose element lo is the view's element 0: an index
	// outside the view but inside whole is an access of whole's element
	// i+lo, as row[x-w] is in CUDA.
	whole *Buffer[T]
	lo    int
	cast  bool // whole is the bytes of an Offset's buffer as T (Reinterpret; see outside)
}

// Alloc allocates a global buffer of n elements, uninitialised as with
// cudaMalloc: reading an element before the host or a kernel writes it is
// reported (the simulator itself zeroes the storage, so results stay
// deterministic).
//
// The size is checked against the device's free memory, and a large one
// against the host's, before any host memory is allocated: a request beyond
// either (or whose byte count overflows) is a *LaunchError with
// ErrMemoryAllocation, as cudaMalloc returns cudaErrorMemoryAllocation.
func Alloc[T Storable](d *Device, name string, n int) (*Buffer[T], error) {
	if err := d.usable("Alloc"); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, &LaunchError{Code: ErrInvalidValue, Limit: "buffer length", Detail: fmt.Sprintf("buffer %q: negative length %d", name, n)}
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	if int64(n) > math.MaxInt64/size {
		return nil, &LaunchError{Code: ErrMemoryAllocation, Limit: "global memory",
			Detail: fmt.Sprintf("buffer %q: %d elements of %d bytes overflow a 64-bit byte count", name, n, size)}
	}
	bytes := int64(n) * size
	if err := d.reserve(name, bytes); err != nil {
		return nil, err
	}
	b := &Buffer[T]{data: makeStorage[T](n)}
	b.mem = mem{name: name, space: GlobalSpace, elemSize: int(size), n: n, dev: d, bytes: bytes}
	b.initRoot(false)
	if n > 0 {
		b.raw = unsafe.Pointer(unsafe.SliceData(b.data))
	}
	b.release = func() { b.data, b.n, b.init, b.raw = nil, 0, nil, nil }
	d.register(&b.mem)
	return b, nil
}

// FromHost allocates a global buffer holding a copy of src.
func FromHost[T Storable](d *Device, name string, src []T) (*Buffer[T], error) {
	b, err := Alloc[T](d, name, len(src))
	if err != nil {
		return nil, err
	}
	return b, b.CopyFromHost(src)
}

// Name is the buffer's name, as findings print it ("" for a nil *Buffer).
func (b *Buffer[T]) Name() string {
	if b == nil {
		return ""
	}
	return b.name
}

// Len is the number of elements (0 for a nil *Buffer, as for a nil slice).
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Space says whether the buffer is global or shared.
func (b *Buffer[T]) Space() Space {
	if b == nil {
		return GlobalSpace
	}
	return b.space
}

// unmade reports a nil or zero-value Buffer, which no Alloc, FromHost,
// Shared or view made, for op; nil if b is one of theirs.
func (b *Buffer[T]) unmade(op string) *MisuseError {
	switch {
	case b == nil:
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: "nil *Buffer (never allocated, or an Alloc whose error was dropped?)"}
	case b.dev == nil:
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: "zero-value Buffer: make one with sim.Alloc or sim.FromHost"}
	}
	return nil
}

// Free releases the buffer, as cudaFree does. Host copies of a freed
// buffer return a *MisuseError, and a kernel's access to it is a
// UseAfterFree finding.
//
// Freeing a freed buffer (or a shared array, which the host never owns)
// panics with a *MisuseError, as closing a closed channel panics: it is a
// bug in the host code, never a condition to handle. (CUDA returns
// cudaErrorInvalidValue for it.) A buffer of a closed Device was freed by
// Close: Free does nothing, so that deferred Frees may run in any order
// with a deferred Close.
func (b *Buffer[T]) Free() {
	if err := b.unmade("Free"); err != nil {
		panic(err)
	}
	if b.space != GlobalSpace {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Free", What: fmt.Sprintf("shared array %q is not the host's to free", b.name)})
	}
	if b.vroot != nil {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Free", What: fmt.Sprintf("a view of buffer %q is not an allocation; free the buffer", b.name)})
	}
	d := b.dev
	d.inKernel("Free")
	d.stream.Lock()
	defer d.stream.Unlock()
	if b.freed {
		d.mu.Lock()
		closed := d.closed
		d.mu.Unlock()
		if closed {
			return // freed by Close
		}
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Free", What: fmt.Sprintf("buffer %q is already freed (double free)", b.name)})
	}
	b.freed = true
	d.unregister(&b.mem)
	b.release() // a kernel's access is now out of bounds, then named as use after Free
}

// hostOp checks that the host may use the buffer for op and takes the
// device's stream, which the caller must release with b.dev.stream.Unlock.
func (b *Buffer[T]) hostOp(op string, n int) error {
	if err := b.unmade(op); err != nil {
		return err
	}
	if b.space != GlobalSpace {
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: fmt.Sprintf("shared array %q: only global buffers are visible to the host", b.name)}
	}
	if err := b.dev.usable(op); err != nil {
		return err
	}
	b.dev.inKernel(op)
	b.dev.stream.Lock()
	switch {
	case b.freed || b.vroot != nil && b.vroot.freed:
		b.dev.stream.Unlock()
		return &MisuseError{Code: ErrInvalidValue, Op: op, What: fmt.Sprintf("buffer %q is freed (use after Free)", b.name)}
	case n > b.n:
		b.dev.stream.Unlock()
		return &LaunchError{Code: ErrInvalidValue, Limit: op, Detail: fmt.Sprintf("%d elements do not fit buffer %q of %d", n, b.name, b.n)}
	}
	return nil
}

// CopyFromHost copies src into the start of the buffer (cudaMemcpy host to
// device) and marks those elements initialised.
func (b *Buffer[T]) CopyFromHost(src []T) error {
	if err := b.hostOp("CopyFromHost", len(src)); err != nil {
		return err
	}
	defer b.dev.stream.Unlock()
	copy(b.elems(), src)
	for i := range src {
		b.setInit(i)
	}
	return nil
}

// CopyToHost copies the start of the buffer into dst (device to host).
func (b *Buffer[T]) CopyToHost(dst []T) error {
	if err := b.hostOp("CopyToHost", len(dst)); err != nil {
		return err
	}
	defer b.dev.stream.Unlock()
	copy(dst, b.elems())
	return nil
}

// ToHost returns a new host slice holding the buffer's contents. It
// returns nil where CopyToHost would return an error: a freed buffer, a
// shared array, a closed or unusable Device.
func (b *Buffer[T]) ToHost() []T {
	if b.hostOp("ToHost", 0) != nil {
		return nil
	}
	defer b.dev.stream.Unlock()
	out := make([]T, b.n)
	copy(out, b.elems())
	return out
}

// Memset sets every byte of the buffer to value, as cudaMemset does, and
// marks it initialised.
func (b *Buffer[T]) Memset(value byte) error {
	if err := b.hostOp("Memset", 0); err != nil {
		return err
	}
	defer b.dev.stream.Unlock()
	var v T
	p := unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v))
	for i := range p {
		p[i] = value
	}
	data := b.elems()
	for i := range data {
		data[i] = v
	}
	if b.vroot != nil {
		for i := range data {
			b.setInit(i)
		}
	} else {
		b.setAllInit()
	}
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
		if b.vroot != nil {
			return b.viewLoad(t, i)
		}
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
		if b.vroot != nil {
			b.viewStore(t, i, v)
			return
		}
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

// SetName renames the buffer, as findings print it. A nil *Buffer panics
// with a *MisuseError.
func (b *Buffer[T]) SetName(name string) {
	if b == nil {
		panic(b.unmade("SetName"))
	}
	b.name = name
}
