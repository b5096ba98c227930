package sim

import (
	"fmt"
	"unsafe"
)

// sharedArray is a block's shared array, whatever its element type.
type sharedArray interface {
	reset(detect bool)
	base() *mem
	lapse()
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
	t.w.l.addFinding(Finding{Kind: OutOfBounds, Space: m.space, Memory: m.name, Index: i,
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
	if k < b.declared && t.state == stRunning {
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
	t.own()
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
		if arr, ok := b.static[k].(*Buffer[T]); ok && arr.name == name && arr.sharedLen() == n {
			arr.revive()
			return arr
		}
		arr := newSharedBuffer[T](t.w.l.dev, b, name, n, t.w.l.detect, false)
		b.static[k] = arr
		return arr
	}
	arr := newSharedBuffer[T](t.w.l.dev, b, name, n, t.w.l.detect, false)
	b.static = append(b.static, arr)
	return arr
}

// DynamicShared returns the block's dynamic shared memory (`extern
// __shared__ T name[]`), sized by the launch's SharedBytes: its length is
// SharedBytes / sizeof(T). Every call in a launch must use one element type.
func DynamicShared[T Storable](t *Thread, name string) *Buffer[T] {
	t.own()
	b := t.blk
	if b.dynamic != nil {
		if arr, ok := b.dynamic.(*Buffer[T]); ok {
			arr.revive() // (at the block's first call)
			arr.name = name
			return arr
		}
		t.sharedError(fmt.Sprintf("dynamic shared memory viewed as %T here but as another type elsewhere", *new(T)))
	}
	var zero T
	arr := newSharedBuffer[T](t.w.l.dev, b, name, t.w.l.dynSh/int(unsafe.Sizeof(zero)), t.w.l.detect, true)
	b.dynamic = arr
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
	return Shared[T](t, name, rows*cols)
}

// SharedVar returns the block's scalar shared variable `__shared__ T name;`
// as an array of one element: Load(t, 0) reads it, Store(t, 0, v) writes
// it. It is declared like Shared.
func SharedVar[T Storable](t *Thread, name string) *Buffer[T] {
	return Shared[T](t, name, 1)
}
