package sim

import (
	"fmt"
	"unsafe"
)

// sharedArray is a block's shared array, whatever its element type.
type sharedArray interface {
	reset(detect bool)
	base() *mem
	storage() (unsafe.Pointer, int)
	lapse()
	revive()
}

// A shared array lives while its block runs. The array of a block slot
// (block) is reused by the next block the slot runs, once that block
// declares it: from the end of the block that declared it until then, it
// has lapsed: its elements are parked in vdata, as a misaligned view's
// are, and its length is 0, so that every access to it (through a pointer
// kept past its block, its launch or its Device) takes the slow path,
// which reports it (badIndex). Views of it keep its elements: they are
// checked in Load and Store's slow path (viewCheck) and periodic check
// (checkShared).

// sharedLife is what a shared array knows of its blocks.
type sharedLife struct {
	owner    *block // the block slot that declares it
	lapsedIn Dim3   // the block it belonged to last, for reports
}

// lapse ends the array's life with its block's.
func (b *Buffer[T]) lapse() {
	if b.lapsed {
		return
	}
	b.life.lapsedIn = b.life.owner.idx
	b.vdata, b.data, b.n, b.lapsed = b.data, nil, 0, true
}

// checkShared reports an access (op) of element i of shared array m (or a
// view of one) that the thread's block cannot make: the array has lapsed,
// or is another block's.
func (t *Thread) checkShared(m *mem, i int, op string) {
	r := m
	if m.vroot != nil {
		r = m.vroot
	}
	if r.lapsed {
		t.badAccess(m, i, op)
	}
	if r.life.owner != t.blk {
		t.otherBlockShared(m, i, op)
	}
}

// otherBlockShared reports an access (op) to another block's live shared
// array (a pointer passed through global memory or a Go variable) and ends
// the launch: a block reaches only its own shared memory.
//
//go:noinline
func (t *Thread) otherBlockShared(m *mem, i int, op string) {
	r := m
	if m.vroot != nil {
		r = m.vroot
	}
	t.w.l.addFinding(Finding{Kind: OutOfBounds, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Detail: fmt.Sprintf("shared array %q belongs to block %s: a thread of block %s cannot reach it (on the GPU the address is in its own block's shared memory)",
			m.name, r.life.owner.idx.IndexString(), t.BlockIdx.IndexString()),
		Current: threadAccess(t, op, t.w.sites.callerSite())})
	panic(abortKernel{})
}

// revive makes a lapsed array its slot's new block's.
func (b *Buffer[T]) revive() {
	if !b.lapsed {
		return
	}
	b.data, b.n, b.vdata, b.lapsed = b.vdata, len(b.vdata), nil, false
}

// sharedLen is the array's length, lapsed or not.
func (b *Buffer[T]) sharedLen() int { return max(len(b.data), len(b.vdata)) }

func (b *Buffer[T]) reset(detect bool) {
	clear(b.data)
	clear(b.vdata)
	clear(b.init)
	b.initAll = false
	if detect && b.shadow == nil {
		b.shadow = make([]cell, (b.sharedLen()*b.elemSize+b.unit-1)/b.unit)
	}
	// Records of the block that used the array before are told apart by
	// their gids (hbView.floor), not cleared; side tables are.
	b.resetShadow()
}

func (b *Buffer[T]) base() *mem { return &b.mem }

// storage is the address of the buffer's elements and their size in bytes.
func (b *Buffer[T]) storage() (unsafe.Pointer, int) {
	var zero T
	data := b.elems()
	if len(data) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&data[0]), len(data) * int(unsafe.Sizeof(zero))
}

// Shared returns the block's static shared array `__shared__ T name[n]`.
//
// Every thread of a block that calls Shared gets the same array; a new block
// gets a fresh one, zero-filled but uninitialised for the detector (reading
// it before a write is reported). A call site is a declaration, as a
// __shared__ declaration is in CUDA: one array per block for each source
// line that calls Shared (and each name, element type and length there),
// however often it runs. A helper declaring its array and called in a loop
// or from several places gets the same array each time, as CUDA's one
// static variable per function; threads may reach declarations in any
// order, or not at all.
func Shared[T Storable](t *Thread, name string, n int) *Buffer[T] {
	return sharedAt[T](t, name, n)
}

// sharedAt is Shared for Shared, Shared2D and SharedVar: the declaration is
// the kernel line above the sim frames. Its fast path is the thread's
// declarations in the order of the thread that made them.
//
//go:noinline
func sharedAt[T Storable](t *Thread, name string, n int) *Buffer[T] {
	b := t.blk
	s := t.w.sites.callerSkip(1, 3).site // (the first return address is into sharedAt: never looked up)
	if k := t.shDecl; k < b.declared && b.staticSite[k] == s && t.state == stRunning {
		// The array another thread of the block declared already.
		if arr, ok := b.static[k].(*Buffer[T]); ok && arr.name == name && len(arr.data) == n {
			t.shDecl++
			return arr
		}
	}
	return declareShared[T](t, name, n, s)
}

// declareShared is sharedAt's slow path: a declaration reached out of the
// first thread's order, or its first time in the block, whose limit checks
// would otherwise swell sharedAt's frame.
//
//go:noinline
func declareShared[T Storable](t *Thread, name string, n int, s site) *Buffer[T] {
	t.own()
	b := t.blk
	for j := 0; j < b.declared; j++ {
		if b.staticSite[j] != s {
			continue
		}
		if arr, ok := b.static[j].(*Buffer[T]); ok && arr.name == name {
			if len(arr.data) != n {
				// Each thread would get an array of its own, and the
				// kernel would run on without sharing anything.
				t.sharedError(fmt.Sprintf("shared array %q declared inconsistently: %d elements here, %d where the block declared it first at this line (a __shared__ array has one size for the whole block)", name, n, len(arr.data)))
			}
			t.shDecl = j + 1
			return arr
		}
	}
	k := b.declared
	t.shDecl = k + 1
	// First declaration of array k in this block: reuse the array of an
	// earlier block when it has the same shape.
	var zero T
	size := int(unsafe.Sizeof(zero))
	l := t.w.l
	spec := l.spec
	if n < 0 {
		t.sharedError(fmt.Sprintf("shared array %q has negative length %d", name, n))
	}
	// Sizes are compared before they are multiplied, so that no length
	// overflows into a small or negative byte count.
	if n > spec.SharedPerBlock/size || b.staticB+n*size > spec.SharedPerBlock {
		t.sharedError(fmt.Sprintf("static shared memory of %d bytes (%q: %d x %d bytes, after %d) exceeds the %d-byte limit per block (cudaErrorLaunchOutOfResources)",
			int64(b.staticB)+int64(n)*int64(size), name, n, size, b.staticB, spec.SharedPerBlock))
	}
	if total := b.staticB + n*size + l.dynSh; total > spec.SharedPerBlockOptin {
		t.sharedError(fmt.Sprintf("static %d + dynamic %d bytes of shared memory exceed the %d-byte limit per block (cudaErrorInvalidValue)", b.staticB+n*size, l.dynSh, spec.SharedPerBlockOptin))
	} else if total > spec.SharedPerBlock && !l.opts.sharedOptIn {
		// CUDA caps a kernel's dynamic shared memory at the default
		// per-block limit less its static size, unless the kernel opted
		// in (cudaFuncAttributeMaxDynamicSharedMemorySize); the launch
		// fails before any thread runs.
		t.sharedError(fmt.Sprintf("static %d + dynamic %d bytes of shared memory exceed the default %d-byte limit per block without opt-in (Options.WithSharedOptIn, cudaFuncAttributeMaxDynamicSharedMemorySize): the GPU refuses the launch with cudaErrorInvalidValue",
			b.staticB+n*size, l.dynSh, spec.SharedPerBlock))
	}
	b.declared++
	b.staticB += n * size
	if k < len(b.static) {
		b.staticSite[k] = s
		if arr, ok := b.static[k].(*Buffer[T]); ok && arr.name == name && arr.sharedLen() == n {
			arr.revive()
			arr.mem.cols = 0 // (Shared2D sets the block's shape)
			return arr
		}
		arr := newSharedBuffer[T](t.w.l.dev, b, name, n, t.w.l.detect, false)
		b.static[k] = arr
		return arr
	}
	arr := newSharedBuffer[T](t.w.l.dev, b, name, n, t.w.l.detect, false)
	b.static = append(b.static, arr)
	b.staticSite = append(b.staticSite, s)
	return arr
}

// DynamicShared returns the block's dynamic shared memory (`extern
// __shared__ T name[]`), sized by the launch's SharedBytes: its length is
// SharedBytes / sizeof(T).
//
// Every declaration names the same bytes, as in CUDA, whatever its type
// and name: `extern __shared__ float sf[]; extern __shared__ int si[];`
// are DynamicShared[float32](t, "sf") and DynamicShared[int32](t, "si"),
// two views of one memory (sf[0] and si[0] are the same four bytes). The
// first declaration in a block makes the memory, and each other type or
// name is a view of it, as Reinterpret makes one: accesses through any of
// them are checked on the bytes they touch, so a store to sf[0] and a load
// of si[0] race like any two accesses of those bytes, and a finding names
// the element by the declaration it went through. (Where SharedBytes is
// not a multiple of the first declaration's element size, the views cover
// the whole elements of that type only.)
func DynamicShared[T Storable](t *Thread, name string) *Buffer[T] {
	if arr, ok := t.blk.dynamic.(*Buffer[T]); ok && arr.name == name && !arr.lapsed && t.state == stRunning {
		return arr
	}
	return declareDynamic[T](t, name)
}

// declareDynamic is DynamicShared's slow path: the block's first
// declaration, which makes its dynamic shared memory or revives its slot's,
// and the views of it under other types or names, made once per block slot.
//
//go:noinline
func declareDynamic[T Storable](t *Thread, name string) *Buffer[T] {
	t.own()
	b := t.blk
	var zero T
	size := int(unsafe.Sizeof(zero))
	if b.dynamic == nil {
		arr := newSharedBuffer[T](t.w.l.dev, b, name, t.w.l.dynSh/size, t.w.l.detect, true)
		b.dynamic = arr
		return arr
	}
	b.dynamic.revive() // (at the block's first call)
	if arr, ok := b.dynamic.(*Buffer[T]); ok && arr.name == name {
		return arr
	}
	for _, v := range b.dynViews {
		if arr, ok := v.(*Buffer[T]); ok && arr.name == name {
			return arr
		}
	}
	p, bytes := b.dynamic.storage()
	arr := newView[T](b.dynamic.base(), 0, p, bytes/size, name)
	b.dynViews = append(b.dynViews, arr)
	return arr
}

// newSharedBuffer makes a shared array of block slot owner.
func newSharedBuffer[T Storable](d *Device, owner *block, name string, n int, detect, dynamic bool) *Buffer[T] {
	var zero T
	arr := &Buffer[T]{data: makeStorage[T](n)}
	arr.mem = mem{name: name, space: SharedSpace, elemSize: int(unsafe.Sizeof(zero)), n: n, dev: d, life: &sharedLife{owner: owner}}
	arr.initRoot(dynamic)
	if detect {
		arr.shadow = make([]cell, arr.units())
	}
	return arr
}

func (t *Thread) sharedError(msg string) {
	t.w.l.addFinding(Finding{Kind: InvalidShared, Detail: msg,
		Current: threadAccess(t, "declare", t.w.sites.callerSite())})
	panic(abortKernel{})
}

// Shared2D returns the block's 2-D static shared array
// `__shared__ T name[rows][cols]`, laid out row-major as CUDA's: element
// [r][c] is index r*cols + c. It is declared like Shared.
func Shared2D[T Storable](t *Thread, name string, rows, cols int) *Buffer[T] {
	t.own()
	if rows < 0 || cols < 0 || cols > 0 && rows > t.w.l.spec.SharedPerBlock/cols {
		t.sharedError(fmt.Sprintf("shared array %q [%d][%d] has a negative dimension or exceeds the per-block limit", name, rows, cols))
	}
	arr := sharedAt[T](t, name, rows*cols)
	if c := arr.mem.cols; c != cols && c != 0 {
		// One length, another shape: rows and elements would be named
		// by whichever thread declared last.
		t.sharedError(fmt.Sprintf("shared array %q declared inconsistently: [%d][%d] here, [%d][%d] where the block declared it first at this line (a __shared__ array has one shape for the whole block)", name, rows, cols, rows*cols/c, c))
	}
	arr.mem.cols = cols
	return arr
}

// SharedVar returns the block's scalar shared variable `__shared__ T name;`
// as an array of one element: Load(t, 0) reads it, Store(t, 0, v) writes
// it. It is declared like Shared.
func SharedVar[T Storable](t *Thread, name string) *Buffer[T] {
	return sharedAt[T](t, name, 1)
}
