package ok

import "github.com/gpusim/gpusim/sim"

// VectorFields loads a float4 as one access, builds one from a literal and
// from make_float4, and stores an int2 read through a reinterpreted view.
func VectorFields(in, out *sim.Buffer[sim.Float4], ints *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			v := in.Load(t, i)
			w := sim.Float4{X: v.W, Y: v.Z, W: 1}
			s := v.X + v.Y + w.X + w.Y
			w.Z = s * 3
			out.Store(t, i, sim.MakeFloat4(s, w.Z, w.W, 2))
			pairs := sim.Reinterpret[sim.Int2](ints)
			p := pairs.Load(t, i)
			pairs.Store(t, i, sim.Int2{p.Y, p.X})
		}
	}
}

// HalfConversions converts float32 to binary16 and bfloat16 in every
// rounding mode, back, and through their bits.
func HalfConversions(in *sim.Buffer[float32], h *sim.Buffer[sim.Half], b *sim.Buffer[sim.BFloat16], bits *sim.Buffer[uint16], out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x := in.Load(t, i)
			h.Store(t, i, sim.Float2Half(x))
			r := sim.Half2Float(sim.Float2HalfRZ(x)) + sim.Half2Float(sim.Float2HalfRD(x)) + sim.Half2Float(sim.Float2HalfRU(x))
			bf := sim.Float2BFloat16(x)
			b.Store(t, i, bf)
			r += sim.BFloat162Float(sim.Float2BFloat16RZ(x)) + sim.BFloat162Float(sim.Float2BFloat16RD(x)) + sim.BFloat162Float(sim.Float2BFloat16RU(x))
			bits.Store(t, i, sim.HalfAsUshort(h.Load(t, i))^sim.BFloat16AsUshort(bf))
			var z sim.Half
			z = sim.UshortAsHalf(sim.BFloat16AsUshort(sim.UshortAsBFloat16(1)))
			out.Store(t, i, r+sim.Half2Float(z))
		}
	}
}

// Equality: == on Half and BFloat16 compares the bits, as Go's does (+0 !=
// -0, a NaN equals itself); on vectors every field; on arrays of them every
// element; a switch on a Half compares the same way.
func Equality(h *sim.Buffer[sim.Half], b *sim.Buffer[sim.BFloat16], v *sim.Buffer[sim.Float4], out *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i+1 < n {
			r := int32(0)
			if h.Load(t, i) == h.Load(t, i+1) {
				r |= 1
			}
			x, y := b.Load(t, i), b.Load(t, i+1)
			if x != y {
				r |= 2
			}
			p, q := v.Load(t, i), v.Load(t, i+1)
			if p == q {
				r |= 4
			}
			hs := [2]sim.Half{h.Load(t, i), h.Load(t, i+1)}
			vs := [2][2]sim.Float4{{p, q}, {q, p}}
			if hs == [2]sim.Half{} || vs[0] != vs[1] {
				r |= 8
			}
			switch h.Load(t, i) {
			case sim.Float2Half(0):
				r |= 16
			}
			out.Store(t, i, r)
		}
	}
}
