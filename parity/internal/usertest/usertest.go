// Package usertest holds user kernels for parity's own tests: kernels
// whose buffers hold every element type a sim.Buffer can (int16 and
// uint16, sim.Half and sim.BFloat16, each vector type), kernels that
// read __constant__ memory and kernels that call grid.sync(), with their
// generated twins (gpusim_cuda.go), so that parity.Check runs them on the
// GPU as it would a user's.
//
// Each kernel writes every output element from its own input element,
// through every component, so a wrong element size or component order on
// either backend shows in the outputs.
package usertest

//go:generate go run ../../../cmd/gpusim cuda -go .

import "github.com/gpusim/gpusim/sim"

// ScaleFloat4 is out[i] = (in.x*s, in.y*s, in.z*s + 1, in.w) and
// halves[4i..4i+3] = the four components as halves (round to nearest, the
// second towards zero).
func ScaleFloat4(in, out *sim.Buffer[sim.Float4], halves *sim.Buffer[sim.Half], s float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			v := in.Load(t, i)
			w := sim.MakeFloat4(v.X*s, v.Y*s, float32(v.Z*s)+1, v.W)
			out.Store(t, i, w)
			halves.Store(t, 4*i, sim.Float2Half(w.X))
			halves.Store(t, 4*i+1, sim.Float2HalfRZ(w.Y))
			halves.Store(t, 4*i+2, sim.Float2Half(w.Z))
			halves.Store(t, 4*i+3, sim.Float2Half(w.W))
		}
	}
}

// HalfAxpy is y[i] = a*x[i] + y[i] computed in float32 on halves, and
// b[i] = the same sum rounded to bfloat16 plus b[i].
func HalfAxpy(x, y *sim.Buffer[sim.Half], b *sim.Buffer[sim.BFloat16], a float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			s := float32(a*sim.Half2Float(x.Load(t, i))) + sim.Half2Float(y.Load(t, i))
			y.Store(t, i, sim.Float2Half(s))
			b.Store(t, i, sim.Float2BFloat16(s+sim.BFloat162Float(b.Load(t, i))))
		}
	}
}

// Shorts is x[i] = x[i]*3 - 7 (wrapping as int16) and u[i] = u[i] ^ 0xa5a5
// plus i.
func Shorts(x *sim.Buffer[int16], u *sim.Buffer[uint16], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, x.Load(t, i)*3-7)
			u.Store(t, i, u.Load(t, i)^0xa5a5+uint16(i))
		}
	}
}

// SmallVectors rotates the components of each element of every 1- to
// 8-byte-component vector buffer by one place and adds 1 to the new first
// component.
func SmallVectors(c4 *sim.Buffer[sim.Char4], uc4 *sim.Buffer[sim.Uchar4], s2 *sim.Buffer[sim.Short2],
	s4 *sim.Buffer[sim.Short4], i2 *sim.Buffer[sim.Int2], i3 *sim.Buffer[sim.Int3], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			a := c4.Load(t, i)
			c4.Store(t, i, sim.MakeChar4(a.Y+1, a.Z, a.W, a.X))
			b := uc4.Load(t, i)
			uc4.Store(t, i, sim.MakeUchar4(b.Y+1, b.Z, b.W, b.X))
			c := s2.Load(t, i)
			s2.Store(t, i, sim.MakeShort2(c.Y+1, c.X))
			d := s4.Load(t, i)
			s4.Store(t, i, sim.MakeShort4(d.Y+1, d.Z, d.W, d.X))
			e := i2.Load(t, i)
			i2.Store(t, i, sim.MakeInt2(e.Y+1, e.X))
			f := i3.Load(t, i)
			i3.Store(t, i, sim.MakeInt3(f.Y+1, f.Z, f.X))
		}
	}
}

// WideVectors is SmallVectors for the 8- and 16-byte vector types, the
// float ones scaled by s after the rotation.
func WideVectors(i4 *sim.Buffer[sim.Int4], u2 *sim.Buffer[sim.Uint2], u4 *sim.Buffer[sim.Uint4],
	f2 *sim.Buffer[sim.Float2], f3 *sim.Buffer[sim.Float3], d2 *sim.Buffer[sim.Double2],
	l2 *sim.Buffer[sim.Longlong2], s float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			a := i4.Load(t, i)
			i4.Store(t, i, sim.MakeInt4(a.Y+1, a.Z, a.W, a.X))
			b := u2.Load(t, i)
			u2.Store(t, i, sim.MakeUint2(b.Y+1, b.X))
			c := u4.Load(t, i)
			u4.Store(t, i, sim.MakeUint4(c.Y+1, c.Z, c.W, c.X))
			d := f2.Load(t, i)
			f2.Store(t, i, sim.MakeFloat2((d.Y+1)*s, d.X*s))
			e := f3.Load(t, i)
			f3.Store(t, i, sim.MakeFloat3((e.Y+1)*s, e.Z*s, e.X*s))
			f := d2.Load(t, i)
			d2.Store(t, i, sim.MakeDouble2((f.Y+1)*float64(s), f.X*float64(s)))
			g := l2.Load(t, i)
			l2.Store(t, i, sim.MakeLonglong2(g.Y+1, g.X))
		}
	}
}

// Radius is the stencil's radius: Taps holds 2*Radius+1 weights.
const Radius = 2

// Taps are the stencil's weights, Offset a float4 added to each output
// element and HalfBias a half added to the first: __constant__ arrays the
// host writes before a launch.
var (
	Taps     = sim.NewConstant[float32]("usertest_taps", 2*Radius+1)
	Offset   = sim.NewConstant[sim.Float4]("usertest_offset", 2)
	HalfBias = sim.NewConstant[sim.Half]("usertest_half_bias", 1)
)

// Stencil is out[i] = sum over j of Taps[j]*in[i+j-Radius] (zero outside
// the input), plus the four components of Offset[i%2] and HalfBias[0],
// summed in that order.
func Stencil(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i >= n {
			return
		}
		var s float32
		for j := 0; j < 2*Radius+1; j++ {
			if k := i + j - Radius; k >= 0 && k < n {
				s += float32(Taps.Load(t, j) * in.Load(t, k))
			}
		}
		o := Offset.Load(t, i%2)
		s += o.X
		s += o.Y
		s += o.Z
		s += o.W
		s += sim.Half2Float(HalfBias.Load(t, 0))
		out.Store(t, i, s)
	}
}

// GridSweeps does iters Jacobi sweeps over n elements, from a into b and
// back in turn (even sweeps read a and write b), each element the mean of
// its neighbours and the two ends kept, with grid.sync() between sweeps.
// The loop is grid-stride, so any co-resident grid covers n; it needs a
// cooperative launch.
func GridSweeps(a, b *sim.Buffer[float32], n, iters int) sim.Kernel {
	return func(t *sim.Thread) {
		grid := sim.ThisGrid(t)
		for it := 0; it < iters; it++ {
			src, dst := a, b
			if it%2 == 1 {
				src, dst = b, a
			}
			for i := t.GlobalX(); i < n; i += t.GridStrideX() {
				if i == 0 || i == n-1 {
					dst.Store(t, i, src.Load(t, i))
				} else {
					dst.Store(t, i, (src.Load(t, i-1)+src.Load(t, i+1))*0.5)
				}
			}
			grid.Sync()
		}
	}
}

// MirrorIfCooperative is out[i] = 2*in[i]; then, in a cooperative launch
// (grid.is_valid()), grid.sync() and mirror[i] = out[n-1-i], which another
// block may have written; in a plain launch mirror[i] = -1. One thread per
// element.
func MirrorIfCooperative(in, out, mirror *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i < n {
			out.Store(t, i, 2*in.Load(t, i))
		}
		grid := sim.ThisGrid(t)
		if !grid.IsValid() {
			if i < n {
				mirror.Store(t, i, -1)
			}
			return
		}
		grid.Sync()
		if i < n {
			mirror.Store(t, i, out.Load(t, n-1-i))
		}
	}
}
