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
}

func (b *Buffer[T]) reset(detect bool) {
	clear(b.data)
	clear(b.init)
	b.initAll = false
	if detect && b.shadow == nil {
		b.shadow = make([]cell, b.units())
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
// it before a write is reported). Threads must declare their shared arrays
// in the same order, as CUDA's static declarations guarantee: the k-th call
// in each thread names the block's k-th array. Call it at the top of the
// kernel, unconditionally, like a __shared__ declaration; a call whose name,
// type or length differs from the other threads' k-th call is reported.
func Shared[T Storable](t *Thread, name string, n int) *Buffer[T] {
	b := t.blk
	k := t.shDecl
	if k < b.declared {
		// The array another thread of the block declared already.
		if arr, ok := b.static[k].(*Buffer[T]); ok && arr.name == name && len(arr.data) == n {
			t.shDecl++
			return arr
		}
	}
	return declareShared[T](t, name, n)
}

// declareShared is Shared's slow path: the first declaration of an array in
// a block, and mismatched declarations, whose error reports would otherwise
// swell the frame of every Shared call.
//
//go:noinline
func declareShared[T Storable](t *Thread, name string, n int) *Buffer[T] {
	b := t.blk
	k := t.shDecl
	t.shDecl++
	if k < b.declared {
		t.sharedError(fmt.Sprintf("shared declaration #%d is %q [%d]%T here but %q [%d] in the thread that declared it first",
			k+1, name, n, *new(T), b.static[k].base().name, b.static[k].base().n))
	}
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
		if arr, ok := b.static[k].(*Buffer[T]); ok && arr.name == name && len(arr.data) == n {
			return arr
		}
		arr := newSharedBuffer[T](t.w.l.dev, name, n, t.w.l.detect, false)
		b.static[k] = arr
		return arr
	}
	arr := newSharedBuffer[T](t.w.l.dev, name, n, t.w.l.detect, false)
	b.static = append(b.static, arr)
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
	if arr, ok := t.blk.dynamic.(*Buffer[T]); ok && arr.name == name {
		return arr
	}
	return declareDynamic[T](t, name)
}

// declareDynamic is DynamicShared's slow path: the block's first
// declaration, which makes its dynamic shared memory, and the views of it
// under other types or names, made once per block.
//
//go:noinline
func declareDynamic[T Storable](t *Thread, name string) *Buffer[T] {
	b := t.blk
	var zero T
	size := int(unsafe.Sizeof(zero))
	if b.dynamic == nil {
		arr := newSharedBuffer[T](t.w.l.dev, name, t.w.l.dynSh/size, t.w.l.detect, true)
		b.dynamic = arr
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

func newSharedBuffer[T Storable](d *Device, name string, n int, detect, dynamic bool) *Buffer[T] {
	var zero T
	arr := &Buffer[T]{data: makeStorage[T](n)}
	arr.mem = mem{name: name, space: SharedSpace, elemSize: int(unsafe.Sizeof(zero)), n: n, dev: d}
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
	if rows < 0 || cols < 0 || cols > 0 && rows > t.w.l.spec.SharedPerBlock/cols {
		t.sharedError(fmt.Sprintf("shared array %q [%d][%d] has a negative dimension or exceeds the per-block limit", name, rows, cols))
	}
	return Shared[T](t, name, rows*cols)
}

// SharedVar returns the block's scalar shared variable `__shared__ T name;`
// as an array of one element: Load(t, 0) reads it, Store(t, 0, v) writes
// it. It is declared like Shared.
func SharedVar[T Storable](t *Thread, name string) *Buffer[T] {
	return Shared[T](t, name, 1)
}
