// Package clean holds correct, translatable kernels in the forms the
// registry uses: the analyzer must report nothing here.
package clean

import (
	"math"

	"github.com/gpusim/gpusim/sim"
)

const (
	block = 256
	scale = float32(2)
)

var launches int // host state: written by host code only

func VectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			c.Store(t, i, a.Load(t, i)+b.Load(t, i))
		}
	}
}

// A grid-stride loop: loop variables and accumulators are the thread's.
func Saxpy(alpha float32, x, y *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			v := alpha*x.Load(t, i) + y.Load(t, i)
			v *= scale
			y.Store(t, i, v)
		}
	}
}

// Shared memory, barriers, a local array and an atomic.
func ReduceSum(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		sh := sim.Shared[float32](t, "partial", block)
		tid := t.ThreadIdx.X
		var acc [2]float32
		if i := t.GlobalX(); i < n {
			acc[0] = in.Load(t, i)
		}
		acc[1] += acc[0]
		sh.Store(t, tid, acc[1])
		t.SyncThreads()
		for s := block / 2; s > 0; s >>= 1 {
			if tid < s {
				sh.Store(t, tid, sh.Load(t, tid)+sh.Load(t, tid+s))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			sim.AtomicAdd(t, out, 0, sh.Load(t, 0))
		}
	}
}

// Helpers: a pure function and a device function writing their own
// parameters and locals.
func clamp(x, lo, hi int) int {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

func storeScaled(t *sim.Thread, b *sim.Buffer[float32], i int, v float32) {
	v *= scale
	b.Store(t, i, v)
}

func Stencil(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i >= n {
			return
		}
		l, r := in.Load(t, clamp(i-1, 0, n-1)), in.Load(t, clamp(i+1, 0, n-1))
		storeScaled(t, out, i, float32(math.Sqrt(float64(l*l+r*r))))
	}
}

// A generic kernel over a lookup table that it only reads.
func Lookup[T int32 | float32](idx *sim.Buffer[int32], lut, out *sim.Buffer[T], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i < n {
			out.Store(t, i, lut.Load(t, int(idx.Load(t, i))))
		}
	}
}

var _ = Lookup[float32] // the instance translated

// Host code writing its own variables around a launch.
func Run(d *sim.Device, host []float32) ([]float32, error) {
	a, err := sim.FromHost(d, "a", host)
	if err != nil {
		return nil, err
	}
	c, err := sim.Alloc[float32](d, "c", len(host))
	if err != nil {
		return nil, err
	}
	cfg := sim.Config{Grid: sim.Dim((len(host) + block - 1) / block), Block: sim.Dim(block)}
	if err := d.Launch(cfg, VectorAdd(a, a, c, len(host))); err != nil {
		return nil, err
	}
	launches++
	host = c.ToHost()
	host[0]++
	return host, nil
}
