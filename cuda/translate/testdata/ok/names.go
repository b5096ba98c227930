package ok

import (
	"math"

	"github.com/gpusim/gpusim/sim"
)

// Helpers named like CUDA's math functions and the C library's macros
// would redefine them under nvcc: they are renamed (rsqrt_, assert_).
func rsqrt(x float64) float64  { return 1 / math.Sqrt(x) }
func erfinv(x float64) float64 { return x }
func rsqrtf(x float32) float32 { return float32(rsqrt(float64(x))) }
func assert(ok bool) {
	if !ok {
		panic("assertion failed")
	}
}

// σ: a name outside ASCII, which a PTX symbol cannot hold.
func σ(x float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x)))) }

// CudaNames: locals named like CUDA's types, helpers like its functions,
// names outside ASCII.
func CudaNames(x *sim.Buffer[float32], out *sim.Buffer[sim.Float2], α float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			half := x.Load(t, i) / 2
			float2 := sim.MakeFloat2(half, half)
			var float4 sim.Float4
			float4.X = half
			dim3, int2, nv_bfloat16 := 1, 2, 3
			assert(half == half)
			Δ := α * float32(rsqrt(float64(half))+erfinv(2)) * rsqrtf(half)
			out.Store(t, i, float2)
			out.Store(t, i, sim.Float2{X: float4.X + σ(Δ) + float32(dim3+int2+nv_bfloat16)})
		}
	}
}

// sin: a kernel named like a CUDA function is the entry point sin_.
func sin(x *sim.Buffer[float64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			x.Store(t, i, math.Sin(x.Load(t, i)))
		}
	}
}
