package sim_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// fmaBig is fmaf computed exactly with math/big and rounded once.
func fmaBig(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(0).SetMode(big.ToNearestEven)
	p.SetPrec(300)
	p.Mul(big.NewFloat(float64(x)).SetPrec(300), big.NewFloat(float64(y)).SetPrec(300))
	p.Add(p, big.NewFloat(float64(z)).SetPrec(300))
	f, _ := p.Float32()
	return f
}

func TestFmafMatchesExactRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(x, y, z float32) {
		t.Helper()
		got, want := sim.Fmaf(x, y, z), fmaBig(x, y, z)
		if math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0 && math.Signbit(float64(got)) == math.Signbit(float64(want))) {
			t.Fatalf("sim.Fmaf(%g, %g, %g) = %g (%#x), want %g (%#x)", x, y, z, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	// Halfway cases of the double rounding: x*y = 1 + 2^-24 + tiny, z = 0
	// rounds to 1 + 2^-24 in float64 only if tiny is lost.
	check(1+0x1p-12, 1+0x1p-12, 0)
	check(1+0x1p-23, 1+0x1p-23, -1)
	check(0x1p-75, 0x1p-75, 0x1p-149)
	check(-0x1p-75, 0x1p-75, 0x1p-149)
	check(math.MaxFloat32, 2, -math.MaxFloat32)
	for range 200000 {
		x, y, z := fmaOperand(r), fmaOperand(r), fmaOperand(r)
		if r.IntN(4) == 0 { // near-cancellation
			z = -float32(float64(x) * float64(y))
		}
		if r.IntN(4) == 0 { // halfway products: (1+a 2^-12)(1+b 2^-12)
			x = 1 + float32(r.IntN(4096))*0x1p-12
			y = 1 + float32(r.IntN(4096))*0x1p-12
			z = float32(r.IntN(3)-1) * 0x1p-60 * float32(r.IntN(1000))
		}
		check(x, y, z)
	}
}

// fmaOperand draws a float32 of any sign and magnitude, zeros and
// subnormals included.
func fmaOperand(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return float32(r.IntN(9) - 4)
	case 1:
		return math.Float32frombits(uint32(r.IntN(1 << 23))) // subnormal
	case 2:
		return float32(math.Exp2(100*r.Float64() - 50))
	}
	return float32(8*r.Float64() - 4)
}
