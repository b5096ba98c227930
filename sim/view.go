package sim

import (
	"fmt"
	"unsafe"
)

// Findings of views, constant memory and read-only loads. (Numbered apart
// from report.go's list, which others edit; the names are registered in
// init.)
const (
	MisalignedAddress Kind = 32 + iota // a 2-, 4-, 8- or 16-byte access at an address its size's alignment does not divide (fatal, as CUDA's cudaErrorMisalignedAddress)
	ConstantWrite                      // a kernel wrote constant memory (fatal)
	ReadOnlyWritten                    // a read-only load (Ldg) of memory the same launch wrote
)

func init() {
	kindNames[MisalignedAddress] = "misaligned address"
	kindNames[ConstantWrite] = "write to constant memory"
	kindNames[ReadOnlyWritten] = "read-only load of written memory"
}

// makeStorage allocates n elements of T on 8-byte-aligned memory, so that a
// view of the bytes as any other type is aligned for Go wherever it is for
// CUDA.
func makeStorage[T Storable](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if n == 0 {
		return []T{}
	}
	words := make([]uint64, (n*size+7)/8)
	return unsafe.Slice((*T)(unsafe.Pointer(&words[0])), n)
}

// elems is the buffer's elements, whether or not it is a misaligned view.
func (b *Buffer[T]) elems() []T {
	if b.vdata != nil {
		return b.vdata
	}
	return b.data
}

// View returns the view of n elements of b from element off: what `b + off`
// is in CUDA, with a length. A kernel receives it like any buffer, and the
// host can copy to and from it (a copy at an offset). Its accesses are
// checked on the bytes of b: a race between b[off+i] and the view's i is
// found. Its elements are named in findings by their index in the view,
// with b's name.
//
// A view that would reach past the end of b (or a negative off or n)
// panics with a *MisuseError when it is made; in a kernel that is a
// KernelPanic finding with the line.
func (b *Buffer[T]) View(off, n int) *Buffer[T] {
	if err := b.unmade("View"); err != nil {
		panic(err)
	}
	if off < 0 || n < 0 || off > b.n || n > b.n-off {
		b.freedMisuse("View")
		panic(&MisuseError{Code: ErrInvalidValue, Op: "View", What: fmt.Sprintf("view [%d, %d+%d) of buffer %q of %d elements reaches past its end", off, off, n, b.name, b.n)})
	}
	return viewOf[T, T](b, off, n)
}

// freedMisuse panics, for op on b out of range, with the reason when b is
// freed (Free leaves it no elements): a use after Free, not a bad range.
func (b *Buffer[T]) freedMisuse(op string) {
	if b.freed || b.vroot != nil && b.vroot.freed {
		panic(&MisuseError{Code: ErrInvalidValue, Op: op, What: fmt.Sprintf("buffer %q is freed (use after Free)", b.name)})
	}
}

// Offset returns the view of b from element off to its end: `b + off`.
// Like the pointer it stands for, it reaches all of b: index -1 is b's
// element off-1 (`row[x-w]` through `row = in + y*w` reads the row above),
// and an index past its end reads on into b. An index outside b is out of
// bounds, reported as b's index (i + off). A View, by contrast, is bounded.
func (b *Buffer[T]) Offset(off int) *Buffer[T] {
	if err := b.unmade("Offset"); err != nil {
		panic(err)
	}
	if off < 0 || off > b.n {
		b.freedMisuse("Offset")
		panic(&MisuseError{Code: ErrInvalidValue, Op: "Offset", What: fmt.Sprintf("offset %d is outside buffer %q of %d elements", off, b.name, b.n)})
	}
	v := viewOf[T, T](b, off, b.n-off)
	v.whole, v.lo = b, off
	if b.whole != nil {
		v.whole, v.lo = b.whole, b.lo+off
	}
	return v
}

// outside returns, for index i outside view b made by Offset, the buffer
// b was cut from and the index there: inside it, the access is that
// element's; outside, it is reported out of bounds on that buffer, with
// that index. The cast of an Offset view (Reinterpret) reports an index
// outside that buffer as its own, as the kernel indexed it (a carve's
// counts[8]), not in the terms of the buffer's bytes as its type.
func (b *Buffer[T]) outside(i int) (*Buffer[T], int, bool) {
	if b.whole == nil || uint(i) < uint(b.n) || b.cast && uint(i+b.lo) >= uint(b.whole.n) {
		return nil, 0, false
	}
	return b.whole, i + b.lo, true
}

// Reinterpret returns the view of b's bytes as elements of U:
// reinterpret_cast<U *>(b). Its length is the number of whole U that fit.
// uchar data read through a *Buffer[uint32], float data loaded as Float4,
// and dynamic shared memory carved into typed arrays
// (`float *a = (float *)smem; int *c = (int *)&a[n];` is
// `a := sim.Reinterpret[float32](smem); c := sim.Reinterpret[int32](a.Offset(n))`)
// are all views. The view of an Offset view reaches, as the cast pointer
// does, all of the buffer the Offset was cut from: c[-1] above is a[n-1].
//
// If b's start is not a multiple of U's CUDA alignment (Align) from the
// start of the allocation (cudaMalloc's and shared memory's are aligned to
// 256 and 16 bytes or more), every access through the view is a
// MisalignedAddress finding, as it is a misaligned-address error on
// hardware; making it is not.
//
// Detection is byte-precise on the allocation: every access, plain or
// atomic, through a view or not, is checked on the bytes it touches. A
// uint8 store and a uint32 load of the same word race; two threads storing
// different bytes of one word do not; a float4 store initialises 16
// bytes, and a uint32 load of a word one byte of which was stored is an
// uninitialised read. Findings name the element in the accessing view's
// type, with the buffer's name. (Parts of a word accessed through a view
// of smaller elements than the allocation's cost more shadow memory: see
// shadow.go.)
func Reinterpret[U, T Storable](b *Buffer[T]) *Buffer[U] {
	if err := b.unmade("Reinterpret"); err != nil {
		panic(err)
	}
	var t T
	var u U
	n := b.n * int(unsafe.Sizeof(t)) / int(unsafe.Sizeof(u))
	v := viewOf[U, T](b, 0, n)
	if any(t) != any(u) { // (another type: zero values of one type are equal)
		v.view = fmt.Sprintf("%T", u)
	}
	if b.whole != nil {
		// The cast of a pointer reaches what the pointer does: all of
		// the buffer b was cut from by Offset (`(float4 *)(in + 8)` at
		// index -1 is floats 4 to 7 of in). Its whole is that buffer's
		// bytes as U, from the byte whose distance to b's start is a
		// multiple of U's size, so that index i outside v is element
		// i + lo there.
		usize, lo := int(unsafe.Sizeof(u)), b.lo*int(unsafe.Sizeof(t))
		v.whole, v.lo, v.cast = reinterpretFrom[U](b.whole, lo%usize), lo/usize, true
	}
	return v
}

// reinterpretFrom is the view of b's bytes from byte off as elements of U,
// as many as fit.
func reinterpretFrom[U, T Storable](b *Buffer[T], off int) *Buffer[U] {
	var t T
	var u U
	bytes := b.n*int(unsafe.Sizeof(t)) - off
	n := bytes / int(unsafe.Sizeof(u))
	root, byteOff := &b.mem, off
	if b.vroot != nil {
		root, byteOff = b.vroot, b.vbyte+off
	}
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Add(unsafe.Pointer(&b.elems()[0]), off)
	}
	w := newView[U](root, byteOff, p, n, b.name)
	w.view = b.view
	if any(t) != any(u) {
		w.view = fmt.Sprintf("%T", u)
	}
	return w
}

// viewOf makes the view of n elements of U starting off elements of T into b.
func viewOf[U, T Storable](b *Buffer[T], off, n int) *Buffer[U] {
	var t T
	tsize := int(unsafe.Sizeof(t))
	root, byteOff := &b.mem, off*tsize
	if b.vroot != nil {
		root, byteOff = b.vroot, b.vbyte+byteOff
	}
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Add(unsafe.Pointer(&b.elems()[0]), off*tsize)
	}
	v := newView[U](root, byteOff, p, n, b.name)
	v.view = b.view // (an Offset of a view keeps its type's name)
	return v
}

// newView makes the view named name of n elements of U at p, byteOff
// bytes into the allocation root.
func newView[U Storable](root *mem, byteOff int, p unsafe.Pointer, n int, name string) *Buffer[U] {
	var u U
	v := &Buffer[U]{}
	v.mem = mem{name: name, id: root.id, space: root.space, elemSize: int(unsafe.Sizeof(u)), n: n, dev: root.dev,
		freed: root.freed, vroot: root, vbyte: byteOff, unit: root.unit}
	data := []U{}
	if n > 0 {
		data = unsafe.Slice((*U)(p), n)
	}
	if byteOff%Align[U]() != 0 {
		v.vdata = data
		v.data = []U{}
	} else {
		v.data = data
	}
	return v
}

// viewLoad is Load's slow path for a view: bounds in the view's type, the
// allocation freed, misalignment, then the checks on the allocation's
// bytes (slowAccess).
//
//go:noinline
func (b *Buffer[T]) viewLoad(t *Thread, i int) T {
	if w, j, ok := b.outside(i); ok {
		return w.Load(t, j)
	}
	b.viewCheck(t, i, false)
	t.slowAccess(&b.mem, i, accRead, false)
	return b.data[i]
}

// viewStore is Store's slow path for a view.
//
//go:noinline
func (b *Buffer[T]) viewStore(t *Thread, i int, v T) {
	if w, j, ok := b.outside(i); ok {
		w.Store(t, j, v)
		return
	}
	b.viewCheck(t, i, true)
	changed := b.data[i] != v
	t.slowAccess(&b.mem, i, accWrite, changed)
	if changed {
		t.w.progress++
	}
	b.data[i] = v
}

// viewCheck reports an access through view b that hardware would fault on:
// outside the view, to a freed allocation, or misaligned.
func (b *Buffer[T]) viewCheck(t *Thread, i int, write bool) {
	if t.w.l.aborted.Load() || t.state != stRunning || !onStack(t.w.g) {
		t.ownSlow() // as slowAccess does, before any finding
	}
	if uint(i) >= uint(b.n) || b.vroot.freed || b.vroot.lapsed {
		b.freed = b.vroot.freed
		t.badIndex(&b.mem, i, write)
	}
	if b.vdata != nil {
		t.misaligned(&b.mem, i, write)
	}
}

// misaligned reports a misaligned access and ends the launch, as CUDA's
// misaligned-address error does.
//
//go:noinline
func (t *Thread) misaligned(m *mem, i int, write bool) {
	op := "read"
	if write {
		op = "write"
	}
	addr := m.vbyte + i*m.elemSize
	t.w.l.addFinding(Finding{Kind: MisalignedAddress, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Detail: fmt.Sprintf("a %d-byte access at byte %d of %q, which is not a multiple of its alignment",
			m.elemSize, addr, m.name),
		Current: threadAccess(t, op, t.w.sites.callerSite())})
	panic(abortKernel{})
}

// Copy copies every element of src into the start of dst, device to device
// (cudaMemcpy with cudaMemcpyDeviceToDevice); views copy at offsets. The
// elements keep their initialisation: an uninitialised source element
// leaves its copy uninitialised. Both must be global buffers of one Device.
func Copy[T Storable](dst, src *Buffer[T]) error {
	if err := src.unmade("Copy"); err != nil {
		return err
	}
	if err := dst.unmade("Copy"); err != nil {
		return err
	}
	if src.space != GlobalSpace || src.dev != dst.dev {
		return &MisuseError{Code: ErrInvalidValue, Op: "Copy", What: fmt.Sprintf("buffer %q is not a global buffer of the destination's Device", src.name)}
	}
	if err := dst.hostOp("Copy", src.n); err != nil {
		return err
	}
	defer dst.dev.stream.Unlock()
	if src.freed || src.vroot != nil && src.vroot.freed {
		return &MisuseError{Code: ErrInvalidValue, Op: "Copy", What: fmt.Sprintf("buffer %q is freed (use after Free)", src.name)}
	}
	init := make([]bool, src.n)
	for i := range init {
		init[i] = src.isInit(i)
	}
	copy(dst.elems(), src.elems())
	for i, ok := range init {
		if ok {
			dst.setInit(i)
		}
	}
	return nil
}

// MemsetBytes sets the first n bytes of the buffer to value, as
// cudaMemset(ptr, value, n) does, and marks those bytes initialised: an
// element set in part is read as uninitialised.
func (b *Buffer[T]) MemsetBytes(value byte, n int) error {
	if err := b.unmade("MemsetBytes"); err != nil {
		return err
	}
	var z T
	size := int(unsafe.Sizeof(z))
	if n < 0 || n > b.n*size {
		return &LaunchError{Code: ErrInvalidValue, Limit: "MemsetBytes", Detail: fmt.Sprintf("%d bytes do not fit buffer %q of %d bytes", n, b.name, b.n*size)}
	}
	if err := b.hostOp("MemsetBytes", 0); err != nil {
		return err
	}
	defer b.dev.stream.Unlock()
	data := b.elems()
	if n > 0 {
		bytes := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), n)
		for i := range bytes {
			bytes[i] = value
		}
	}
	r, b0, _ := b.span(0)
	r.initBytes(b0, n)
	return nil
}
