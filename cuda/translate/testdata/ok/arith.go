package ok

import (
	"math"

	"github.com/gpusim/gpusim/sim"
)

// IntWrap: int32 and int arithmetic wraps.
func IntWrap(a *sim.Buffer[int32], b *sim.Buffer[int64]) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0)
		y := a.Load(t, 1)
		a.Store(t, 2, x+y)
		a.Store(t, 3, x-y)
		a.Store(t, 4, x*y)
		a.Store(t, 5, -x)
		p := int(b.Load(t, 0))
		q := int(b.Load(t, 1))
		b.Store(t, 2, int64(p*q+p-q))
	}
}

// SmallInts: 8- and 16-bit arithmetic is converted back after every operation.
func SmallInts(a *sim.Buffer[int8], b *sim.Buffer[uint8]) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0)
		y := b.Load(t, 0)
		var s int16 = int16(x) * 300
		var u uint16 = uint16(y) * uint16(y) * 2
		x += 100
		y -= 7
		a.Store(t, 1, x*x-int8(s)+int8(u))
		b.Store(t, 1, y<<3|^y)
	}
}

// DivRem: Go's division traps on zero and wraps MinInt / -1.
func DivRem(a *sim.Buffer[int32], u *sim.Buffer[uint32], c *sim.Buffer[int8]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := a.Load(t, 0), a.Load(t, 1)
		a.Store(t, 2, x/y)
		a.Store(t, 3, x%y)
		a.Store(t, 4, x/4+x%8)
		p, q := u.Load(t, 0), u.Load(t, 1)
		u.Store(t, 2, p/q+p%q+p/3)
		c.Store(t, 2, c.Load(t, 0)/c.Load(t, 1))
	}
}

// Shifts: counts of the width or more, variable and negative counts.
func Shifts(a *sim.Buffer[int32], u *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0)
		s := n - 3
		a.Store(t, 1, x<<3)
		a.Store(t, 2, x>>2)
		a.Store(t, 3, x<<s)
		a.Store(t, 4, x>>s)
		v := u.Load(t, 0)
		u.Store(t, 1, v<<uint(s)|v>>40)
	}
}

// Bitwise: &^, ^x, |, &.
func Bitwise(a *sim.Buffer[uint32], b *sim.Buffer[int64]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := a.Load(t, 0), a.Load(t, 1)
		a.Store(t, 2, x&^y|^x&y^0xff)
		z := b.Load(t, 0)
		z &^= 0xf
		b.Store(t, 1, ^z)
	}
}

// Conversions between number types.
func Conversions(f *sim.Buffer[float32], d *sim.Buffer[float64], i *sim.Buffer[int32], u *sim.Buffer[uint64]) sim.Kernel {
	return func(t *sim.Thread) {
		x := f.Load(t, 0)
		y := d.Load(t, 0)
		i.Store(t, 0, int32(x))
		f.Store(t, 1, float32(y))
		d.Store(t, 1, float64(i.Load(t, 1)))
		u.Store(t, 0, uint64(i.Load(t, 2)))
		f.Store(t, 2, float32(u.Load(t, 1)))
		i.Store(t, 3, int32(int8(i.Load(t, 4))))
	}
}

// Constants: typed constants are written in their C type.
func Constants(i *sim.Buffer[int64], u *sim.Buffer[uint64], f *sim.Buffer[float32], d *sim.Buffer[float64], w *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		i.Store(t, 0, math.MinInt64)
		i.Store(t, 1, math.MaxInt64)
		u.Store(t, 0, math.MaxUint64)
		f.Store(t, 0, 0.1)
		f.Store(t, 1, math.Pi)
		f.Store(t, 2, -1e-45)
		d.Store(t, 0, math.Pi)
		d.Store(t, 1, 1e300)
		d.Store(t, 2, math.SmallestNonzeroFloat64)
		w.Store(t, 0, math.MinInt32)
		w.Store(t, 1, -7)
	}
}

// MinMax: the builtins on integers and floats.
func MinMax(f *sim.Buffer[float32], i *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		f.Store(t, 2, min(f.Load(t, 0), f.Load(t, 1)))
		f.Store(t, 3, max(f.Load(t, 0), f.Load(t, 1), 0))
		i.Store(t, 2, min(i.Load(t, 0), i.Load(t, 1), 5))
		i.Store(t, 3, max(i.Load(t, 0), 2))
	}
}

// Float32Ops: a*b+c is a multiply and an add, never an FMA; sim.Fmaf is one.
func Float32Ops(a, b, c, out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		x, y, z := a.Load(t, i), b.Load(t, i), c.Load(t, i)
		out.Store(t, i, x*y+z-sim.Fmaf(x, y, z)/(-x))
	}
}
