package sim

import "math"

// Fmaf is CUDA's fmaf(x, y, z): x*y + z rounded once to float32, as the GPU's FFMA.
//
// It is a plain function of its arguments, callable from kernels and host
// code alike; the translator writes it as fmaf.
//
// The product of two float32s is exact in float64, so s = xy + z is the
// exact sum rounded once to float64, and float32(s) rounds again. The double
// rounding can only go wrong when s lies exactly halfway between two float32
// values while the exact sum does not; then the float64 rounding error of
// the addition (TwoSum, exact) says which way the exact sum lies.
func Fmaf(x, y, z float32) float32 {
	xy := float64(x) * float64(y)
	zz := float64(z)
	s := xy + zz
	f := float32(s)
	if math.IsInf(s, 0) || math.IsNaN(s) || float64(f) == s {
		return f
	}
	bb := s - xy
	err := (xy - (s - bb)) + (zz - bb)
	if err == 0 {
		return f
	}
	// g is f's neighbour on the other side of s; mid the halfway point.
	var g float32
	var mid float64
	if math.IsInf(float64(f), 0) {
		g = float32(math.Copysign(math.MaxFloat32, s))
		mid = float64(g) + math.Copysign(0x1p103, s)
	} else {
		g = math.Nextafter32(f, float32(math.Copysign(math.Inf(1), s-float64(f))))
		if math.IsInf(float64(g), 0) {
			mid = float64(f) + math.Copysign(0x1p103, s)
		} else {
			mid = (float64(f) + float64(g)) / 2
		}
	}
	if s != mid {
		return f
	}
	lo, hi := min(f, g), max(f, g)
	if err > 0 {
		return hi
	}
	return lo
}
