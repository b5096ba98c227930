package sim

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ConstantSpace is __constant__ memory: written by the host, read by
// kernels (see Constant).
const ConstantSpace Space = 2

// ConstantLimit is CUDA's limit on a device's __constant__ memory: 64 KiB.
const ConstantLimit = 64 << 10

// Constant is a __constant__ array, `__constant__ T name[n];` at file
// scope: declare it as a package-level variable with NewConstant, write it
// from the host with CopyFromHost (cudaMemcpyToSymbol) and read it in
// kernels with Load. Each Device has its own copy, zero-filled until the
// host writes it (static storage, as CUDA's), made when the host first
// writes it or a kernel first reads it. The constants a Device holds may
// total at most ConstantLimit bytes.
//
// A kernel's Store is a ConstantWrite finding (nvcc refuses the write at
// compile time; the translator refuses Store). Loads are checked like a
// buffer's: bounds, and with detection on counted and sited (constant
// memory cannot race, and is never uninitialised).
//
// The copies belong to the Devices (a package-level Constant keeps none of
// them alive, but the last one used until that Device is closed).
type Constant[T Storable] struct {
	name string
	n    int
	cur  atomic.Pointer[Buffer[T]] // the copy last used: a launch's loads look it up once
}

// NewConstant declares the constant array name of n elements. It panics if
// n is negative or its bytes exceed ConstantLimit: a declaration nvcc
// would refuse.
func NewConstant[T Storable](name string, n int) *Constant[T] {
	var z T
	if n < 0 || int64(n)*int64(unsafe.Sizeof(z)) > ConstantLimit {
		panic(&MisuseError{Code: ErrInvalidValue, Op: "NewConstant", What: fmt.Sprintf("constant %q of %d elements of %d bytes: constant memory holds %d bytes", name, n, unsafe.Sizeof(z), ConstantLimit)})
	}
	return &Constant[T]{name: name, n: n}
}

// Name is the constant's name, its symbol in CUDA.
func (c *Constant[T]) Name() string { return c.name }

// Len is the number of elements.
func (c *Constant[T]) Len() int { return c.n }

// deviceConstants are the copies of the constants a Device holds, by
// *Constant[T], and their bytes.
type deviceConstants struct {
	mu     sync.Mutex
	copies map[any]any // *Constant[T] -> *Buffer[T]
	bytes  int64
}

// constant is a *Constant[T] of any T.
type constant interface {
	forget(d *Device)
}

// forget drops the constant's hold on d's copy (Device.Close).
func (c *Constant[T]) forget(d *Device) {
	if b := c.cur.Load(); b != nil && b.dev == d {
		c.cur.CompareAndSwap(b, nil)
	}
}

// on returns d's copy of the constant, making it (zero-filled) if d has
// none, or an error if d's constants would exceed ConstantLimit.
func (c *Constant[T]) on(d *Device) (*Buffer[T], error) {
	if b := c.cur.Load(); b != nil && b.dev == d {
		return b, nil
	}
	dc := &d.consts
	dc.mu.Lock()
	defer dc.mu.Unlock()
	b, _ := dc.copies[c].(*Buffer[T])
	if b == nil {
		var z T
		size := int64(unsafe.Sizeof(z))
		if used := dc.bytes + int64(c.n)*size; used > ConstantLimit {
			return nil, &LaunchError{Code: ErrInvalidValue, Limit: "constant memory",
				Detail: fmt.Sprintf("constant %q (%d bytes) does not fit the %d bytes of constant memory beside the device's other constants (%d bytes)", c.name, int64(c.n)*size, ConstantLimit, dc.bytes)}
		}
		dc.bytes += int64(c.n) * size
		b = &Buffer[T]{data: makeStorage[T](c.n)}
		b.mem = mem{name: c.name, space: ConstantSpace, elemSize: int(size), n: c.n, dev: d, initAll: true}
		b.initRoot(false)
		b.shadow = make([]cell, b.units())
		if dc.copies == nil {
			dc.copies = map[any]any{}
		}
		dc.copies[c] = b
	}
	c.cur.Store(b)
	return b, nil
}

// CopyFromHost writes src to the start of d's copy of the constant:
// cudaMemcpyToSymbol(name, src, bytes).
func (c *Constant[T]) CopyFromHost(d *Device, src []T) error {
	return c.CopyFromHostAt(d, 0, src)
}

// CopyFromHostAt writes src at element off of d's copy:
// cudaMemcpyToSymbol(name, src, bytes, off * sizeof(T)).
func (c *Constant[T]) CopyFromHostAt(d *Device, off int, src []T) error {
	if err := d.usable("CopyToSymbol"); err != nil {
		return err
	}
	d.inKernel("CopyToSymbol")
	if off < 0 || off > c.n || len(src) > c.n-off {
		return &LaunchError{Code: ErrInvalidValue, Limit: "CopyToSymbol", Detail: fmt.Sprintf("%d elements at %d do not fit constant %q of %d", len(src), off, c.name, c.n)}
	}
	b, err := c.on(d)
	if err != nil {
		return err
	}
	d.stream.Lock()
	defer d.stream.Unlock()
	copy(b.data[off:], src)
	return nil
}

// Load returns element i of the launch Device's copy: `x = name[i]`.
//
//go:noinline
func (c *Constant[T]) Load(t *Thread, i int) T {
	b := c.cur.Load()
	if b == nil || b.dev != t.w.l.dev {
		b = c.slowOn(t)
	}
	t.budget--
	if uint(i) >= uint(len(b.data)) || t.budget < 0 {
		t.slowAccess(&b.mem, i, accRead, false)
	}
	return b.data[i]
}

//go:noinline
func (c *Constant[T]) slowOn(t *Thread) *Buffer[T] {
	b, err := c.on(t.w.l.dev)
	if err != nil {
		panic(err) // a KernelPanic finding with the line
	}
	return b
}

// Store reports a kernel's write to constant memory, a ConstantWrite
// finding that ends the launch. CUDA refuses it at compile time.
//
//go:noinline
func (c *Constant[T]) Store(t *Thread, i int, v T) {
	t.own()
	t.w.l.addFinding(Finding{Kind: ConstantWrite, Space: ConstantSpace, Memory: c.name, Index: i,
		Detail:  fmt.Sprintf("constant %q is read-only in kernels; the host writes it (CopyFromHost, cudaMemcpyToSymbol)", c.name),
		Current: threadAccess(t, "write", t.w.sites.callerSite())})
	panic(abortKernel{})
}

// Ldg is a read-only load through the non-coherent data cache,
// __ldg(&b[i]): the memory must not change during the launch. With
// detection on, a read-only load of an element the same launch wrote
// before it (by any thread) is a ReadOnlyWritten finding; a write after
// it, unordered, is a data race as for any read (a write ordered after it
// is not reported).
//
//go:noinline
func Ldg[T Storable](t *Thread, b *Buffer[T], i int) T {
	t.budget--
	if uint(i) >= uint(len(b.data)) || t.budget < 0 {
		if w, j, ok := b.outside(i); ok {
			return Ldg(t, w, j)
		}
		if b.vroot != nil {
			b.viewCheck(t, i, false)
		}
		t.slowAccess(&b.mem, i, accRead, false)
		t.ldgCheck(&b.mem, i)
	}
	return b.data[i]
}

// ldgCheck reports a read-only load of element i of m if this launch wrote
// any of its bytes.
func (t *Thread) ldgCheck(m *mem, i int) {
	l := t.w.l
	r, b0, size := m.span(i)
	if !l.detect || r.shadow == nil {
		return
	}
	floor := l.gidBase
	if m.space == SharedSpace {
		floor = t.blk.gidBase
	}
	u := r.unit
	for b := b0; b < b0+size; {
		k := b / u
		lo, hi := b-k*u, min(b0+size-k*u, u)
		c := &r.shadow[k]
		if c.w.gid == tagGid {
			for y := lo; y < hi; y++ {
				if w := r.splits[c.w.ctx].bytes[y].w; w.gid >= floor {
					t.readOnlyWritten(m, i, w)
					return
				}
			}
		} else if c.w.gid >= floor {
			t.readOnlyWritten(m, i, c.w)
			return
		}
		b = (k + 1) * u
	}
}

//go:noinline
func (t *Thread) readOnlyWritten(m *mem, i int, w rec) {
	t.w.l.addFinding(Finding{Kind: ReadOnlyWritten, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Detail:  fmt.Sprintf("__ldg of %q[%d], which this launch wrote (at %v): the read-only cache may return the old value", m.name, i, site(t.w.ctxView[w.ctx].site&siteMask)),
		Current: threadAccess(t, "read-only load", t.w.sites.callerSite())})
}
