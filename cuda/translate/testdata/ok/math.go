package ok

import (
	"math"
	"math/bits"

	"github.com/gpusim/gpusim/sim"
)

// Sigmoid is 1/(1+e^-x) in float32 through float64's Exp.
func Sigmoid(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x := in.Load(t, i)
			out.Store(t, i, 1/(1+float32(math.Exp(float64(-x)))))
		}
	}
}

// MathExact uses every function the translator maps bit-exactly.
func MathExact(d *sim.Buffer[float64], f *sim.Buffer[float32], u *sim.Buffer[uint64], w *sim.Buffer[uint32], b *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := d.Load(t, 0), d.Load(t, 1)
		d.Store(t, 2, math.Sqrt(x)+math.Abs(y)+math.Floor(x)+math.Ceil(y)+math.Trunc(x)+math.Round(y)+math.RoundToEven(x))
		d.Store(t, 3, math.Copysign(x, y)+math.FMA(x, y, 1)+math.Mod(x, y)+math.Remainder(x, y))
		d.Store(t, 4, math.Max(x, y)+math.Min(x, y)+math.Dim(x, y)+math.Nextafter(x, y)+math.Inf(1)+math.NaN())
		if math.Signbit(x) || math.IsNaN(y) || math.IsInf(x, -1) {
			u.Store(t, 0, math.Float64bits(x))
		}
		d.Store(t, 5, math.Float64frombits(u.Load(t, 1)))
		fx := f.Load(t, 0)
		w.Store(t, 0, math.Float32bits(fx))
		f.Store(t, 1, math.Float32frombits(w.Load(t, 1))+math.Nextafter32(fx, 0))
		v := w.Load(t, 2)
		b.Store(t, 0, int32(bits.OnesCount32(v)+bits.LeadingZeros32(v)+bits.TrailingZeros32(v)+bits.Len32(v)))
		u.Store(t, 2, bits.Reverse64(u.Load(t, 3))+uint64(bits.OnesCount64(u.Load(t, 4))+bits.TrailingZeros64(u.Load(t, 5))))
	}
}

// MathApprox uses the functions with a ulp bound.
func MathApprox(d *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := d.Load(t, 0), d.Load(t, 1)
		d.Store(t, 2, math.Exp(x)+math.Exp2(x)+math.Expm1(x)+math.Log(x)+math.Log2(x)+math.Log10(x)+math.Log1p(x))
		d.Store(t, 3, math.Pow(x, y)+math.Sin(x)+math.Cos(x)+math.Tan(x)+math.Asin(y)+math.Acos(y)+math.Atan(x)+math.Atan2(x, y))
		d.Store(t, 4, math.Sinh(x)+math.Cosh(x)+math.Tanh(x)+math.Asinh(x)+math.Acosh(x)+math.Atanh(y))
		d.Store(t, 5, math.Erf(x)+math.Erfc(x)+math.Cbrt(x)+math.Hypot(x, y))
	}
}
