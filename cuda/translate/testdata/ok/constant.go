package ok

import "github.com/gpusim/gpusim/sim"

// Constant memory: package-level sim.Constant variables are __constant__
// arrays at file scope of the twins that read them.
var (
	taps   = sim.NewConstant[float32]("taps", 5)
	lut    = sim.NewConstant[sim.Int4]("lut", 4)
	scales = sim.NewConstant[sim.Half]("halfScales", 2) // the C symbol is the name given
)

// ConstantFilter is a 5-tap filter whose weights are constant memory,
// plus a helper that reads a second constant.
func ConstantFilter(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i >= n {
			return
		}
		var s float32
		for k := range taps.Len() {
			if j := i + k - 2; j >= 0 && j < n {
				s += taps.Load(t, k) * in.Load(t, j)
			}
		}
		out.Store(t, i, s+lutBias(t, i))
	}
}

// lutBias reads a vector and a half constant. Its local named as a
// constant's symbol gets another C name.
func lutBias(t *sim.Thread, i int) float32 {
	halfScales := float32(2)
	v := lut.Load(t, i%lut.Len())
	return float32(v.X+v.W) * sim.Half2Float(scales.Load(t, 1)) * halfScales
}

// ConstantTwice reads one constant in the kernel and in a helper: one
// declaration in the translation unit.
func ConstantTwice(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		v := lut.Load(t, 0)
		out.Store(t, t.GlobalX(), v.Y+lutY(t))
	}
}

func lutY(t *sim.Thread) int32 { return lut.Load(t, 3).Y }

// LdgVectors reads through __ldg every element type sim.Ldg takes that
// CUDA's scalar overloads do not cover: the vectors (float3 and int3 field
// by field: CUDA has no __ldg for them), binary16, bfloat16 and the 16-bit
// integers.
func LdgVectors(c4 *sim.Buffer[sim.Char4], uc4 *sim.Buffer[sim.Uchar4], s2 *sim.Buffer[sim.Short2], s4 *sim.Buffer[sim.Short4],
	i2 *sim.Buffer[sim.Int2], i3 *sim.Buffer[sim.Int3], i4 *sim.Buffer[sim.Int4], u2 *sim.Buffer[sim.Uint2], u4 *sim.Buffer[sim.Uint4],
	f2 *sim.Buffer[sim.Float2], f3 *sim.Buffer[sim.Float3], f4 *sim.Buffer[sim.Float4], d2 *sim.Buffer[sim.Double2], ll2 *sim.Buffer[sim.Longlong2],
	h *sim.Buffer[sim.Half], bf *sim.Buffer[sim.BFloat16], i16 *sim.Buffer[int16], u16 *sim.Buffer[uint16], out *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		var s float64
		s += float64(sim.Ldg(t, c4, i).W)
		s += float64(sim.Ldg(t, uc4, i).Z)
		s += float64(sim.Ldg(t, s2, i).Y)
		s += float64(sim.Ldg(t, s4, i).W)
		s += float64(sim.Ldg(t, i2, i).Y)
		s += float64(sim.Ldg(t, i3, i).Z)
		s += float64(sim.Ldg(t, i4, i).W)
		s += float64(sim.Ldg(t, u2, i).Y)
		s += float64(sim.Ldg(t, u4, i).W)
		s += float64(sim.Ldg(t, f2, i).Y)
		s += float64(sim.Ldg(t, f3, i).Z)
		s += float64(sim.Ldg(t, f4, i).W)
		s += sim.Ldg(t, d2, i).Y
		s += float64(sim.Ldg(t, ll2, i).Y)
		s += float64(sim.Half2Float(sim.Ldg(t, h, i)))
		s += float64(sim.BFloat162Float(sim.Ldg(t, bf, i)))
		s += float64(sim.Ldg(t, i16, i))
		s += float64(sim.Ldg(t, u16, i))
		out.Store(t, i, s)
	}
}

// Gains is read by testdata/bad, which may not use another package's
// constant in a kernel.
var Gains = sim.NewConstant[float32]("gains", 2)

// scaleBy is a helper of HelperNamedLikeConstant; the constant below has
// its name, which clashes in no translation unit: no kernel calls the one
// and reads the other.
var scaleTable = sim.NewConstant[int32]("scaleBy", 4)

func scaleBy(x int32) int32 { return x * 3 }

// ConstantNamedLikeHelper reads a constant named like a helper it does not call.
func ConstantNamedLikeHelper(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, scaleTable.Load(t, 1))
	}
}

// HelperNamedLikeConstant calls that helper and reads no constant.
func HelperNamedLikeConstant(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, scaleBy(out.Load(t, 1)))
	}
}
