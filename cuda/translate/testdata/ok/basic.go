// Package ok holds one small kernel per construct the translator supports;
// the golden files in ../golden pin their CUDA.
package ok

import "github.com/gpusim/gpusim/sim"

// VectorAdd is the README's kernel.
func VectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			c.Store(t, i, a.Load(t, i)+b.Load(t, i))
		}
	}
}

// Saxpy: a float32 scalar parameter and a float32 constant.
func Saxpy(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			y.Store(t, i, a*x.Load(t, i)+y.Load(t, i)*0.5)
		}
	}
}

// Index3D reads every built-in vector in three dimensions.
func Index3D(out *sim.Buffer[int64]) sim.Kernel {
	return func(t *sim.Thread) {
		x := t.GlobalX()
		y := t.GlobalY()
		z := t.GlobalZ()
		w := x + y*t.BlockDim.X*t.GridDim.X + z*t.BlockDim.X*t.GridDim.X*t.BlockDim.Y*t.GridDim.Y
		out.Store(t, w, int64(t.ThreadIdx.Z+t.BlockIdx.Z+t.GridDim.Z+t.BlockDim.Z))
	}
}

// WarpIDs writes the lane, warp and linear thread index.
func WarpIDs(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		tid := t.LinearThreadIdx()
		out.Store(t, tid, int32(t.LaneID()*1000+t.WarpID()*t.WarpSize()))
	}
}

// GridStride is the grid-stride loop.
func GridStride(out *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			out.Store(t, i, uint64(i)*3)
		}
	}
}

// Celsius is a named type; it is its underlying type in C.
type Celsius float32

// ZeroLocals declares a zero variable of every scalar type.
func ZeroLocals(out *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		var a int8
		var b uint8
		var c int16
		var d uint16
		var e int32
		var f uint32
		var g int64
		var h uint64
		var i int
		var j uint
		var k float32
		var l float64
		var m bool
		var n Celsius
		if !m {
			out.Store(t, 0, float64(a)+float64(b)+float64(c)+float64(d)+float64(e)+float64(f)+
				float64(g)+float64(h)+float64(i)+float64(j)+float64(k)+l+float64(n))
		}
	}
}

// Prelude declares values before the body; the body reads them.
func Prelude(out *sim.Buffer[int32], n int) sim.Kernel {
	half := n / 2
	const scale = 3
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < half {
			out.Store(t, i, int32(i*scale))
		}
	}
}
