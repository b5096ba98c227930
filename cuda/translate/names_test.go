package translate

import (
	"regexp"
	"strings"
	"testing"
)

// TestCUDANamesRenamed: an identifier that nvcc's headers already declare
// keeps no C name of its own, since a local would hide the type or
// function the generated code names after it, a helper would redefine
// CUDA's function (clang's shim declares few of them, so only nvcc would
// say), and a kernel would be a second extern "C" definition.
func TestCUDANamesRenamed(t *testing.T) {
	for _, name := range []string{
		// vector types and their constructors, the 16-bit floats, dim3
		"char1", "uchar4", "short3", "ushort2", "int4", "uint1", "long2", "ulong3",
		"longlong4", "ulonglong1", "float4", "float1", "double3", "make_float4",
		"make_ulonglong2", "half", "half2", "nv_bfloat16", "dim3",
		// the math API, float and double
		"rsqrt", "rsqrtf", "erfinv", "erfinvf", "exp10", "exp10f", "lgamma",
		"lgammaf", "norm", "normf", "norm3d", "rnorm4df", "sincos", "sincosf",
		"sincospi", "saturate", "fdividef", "cyl_bessel_i0f", "normcdfinv",
		"rcbrt", "tgamma", "y1f", "j0", "scalbnf", "frexp", "modff", "sin", "sqrt",
		"umulhi", "mul24", "llmax",
		// intrinsics, macros, the C library
		"__fdividef", "__sinf", "assert", "printf", "malloc", "memcpy", "exit",
		"INFINITY", "M_PI", "CUDART_PI_F", "cudaMalloc", "cg", "std",
	} {
		if c := cIdent(name); c == name {
			t.Errorf("cIdent(%q) = %q: the name is CUDA's", name, c)
		}
	}
	for _, name := range []string{"x", "sum", "rsqrt2", "halfway", "norms", "float5", "Float4", "σ2"} {
		if c := cIdent(name); c != name && !strings.HasPrefix(name, "σ") {
			t.Errorf("cIdent(%q) = %q: the name is free", name, c)
		}
	}
	for name, want := range map[string]string{"σ": "u03c3", "Δx": "u0394x", "αβ": "u03b1u03b2", "𝑥": "U0001d465"} {
		if c := cIdent(name); c != want {
			t.Errorf("cIdent(%q) = %q, want %q", name, c, want)
		}
	}
}

// TestNamesInTheC: helpers, locals, parameters and entry points named like
// CUDA's functions and types are renamed in the C, consistently between a
// definition and its uses; names outside ASCII become ASCII; two Go
// functions never share a C name, whatever their spelling (f[int32] and
// f_int32), nor a local an instance's; the twin's Entry is the entry
// point's C name.
func TestNamesInTheC(t *testing.T) {
	res := translateSrc(t, `package p
import (
	"math"
	"github.com/gpusim/gpusim/sim"
)
func rsqrt(x float64) float64 { return 1 / math.Sqrt(x) }
func lgamma(x float64) float64 { return x }
func assert(ok bool) {
	if !ok {
		panic("assertion failed")
	}
}
func σ(x float32) float32 { return x / 2 }
func f[T int32 | float32](x T) T { return x + 1 }
func f_int32(x int32) int32 { return x - 1 }
func sin(x *sim.Buffer[float64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			float4 := x.Load(t, i)
			assert(float4 == float4)
			x.Store(t, i, rsqrt(float4)+lgamma(float4))
		}
	}
}
func norm(x *sim.Buffer[float32], α float32) sim.Kernel {
	return func(t *sim.Thread) {
		Δ := α * x.Load(t, 0)
		f_int32_2 := f(int32(1)) + f_int32(2) // a local named like an instance
		x.Store(t, 0, σ(Δ)+float32(f_int32_2))
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 2 {
		t.Fatalf("%v, %d kernels", res.Diagnostics, len(res.Kernels))
	}
	if got := strings.Join(entries(res), " "); got != "norm_ sin_" {
		t.Fatalf("entry points %s, want norm_ sin_", got)
	}
	for _, k := range res.Kernels {
		src := k.Twin.Source
		if !strings.Contains(src, `extern "C" __global__ void `+k.Twin.Entry+"(") {
			t.Errorf("%s: no entry point %s in\n%s", k.Twin.GoName, k.Twin.Entry, src)
		}
		for i := 0; i < len(src); i++ {
			if src[i] >= 0x80 {
				t.Fatalf("%s: the C is not ASCII at %q", k.Twin.Entry, src[i:min(i+20, len(src))])
			}
		}
	}
	sin, norm := res.Kernels[1].Twin.Source, res.Kernels[0].Twin.Source
	for _, want := range []string{
		"__device__ double rsqrt_(double x)", "__device__ double lgamma_(double x)",
		"__device__ void assert_(bool ok)", "double float4_ = x[i];", "assert_(float4_ == float4_);",
		"x[i] = rsqrt_(float4_) + lgamma_(float4_);",
	} {
		if !strings.Contains(sin, want) {
			t.Errorf("sin_ lacks %q:\n%s", want, sin)
		}
	}
	for _, want := range []string{
		"extern \"C\" __global__ void norm_(float *x, float u03b1)", "float u0394 = u03b1 * x[0];",
		"__device__ float u03c3(float x)", "__device__ int f_int32(int x)", "__device__ int f_int32_1(int x)",
		"int gosim_v_f_int32_2 = gosim_add(f_int32_1(1), f_int32(2));",
	} {
		if !strings.Contains(norm, want) {
			t.Errorf("norm_ lacks %q:\n%s", want, norm)
		}
	}
	if regexp.MustCompile(`\b(rsqrt|lgamma|assert|float4)\(`).MatchString(sin) {
		t.Errorf("a CUDA name is defined or called unrenamed:\n%s", sin)
	}
}

// TestInstancesOfSameNamedTypes: a generic helper called with a
// package-level type and with a local type of the same name gets an
// instance for each, as types of different packages do; one instance for
// both would call the int32 body with a float.
func TestInstancesOfSameNamedTypes(t *testing.T) {
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
type unit int32
func half[T ~int32 | ~float32](x T) T { return x / 2 }
func clash(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		a := float32(half(unit(5)))
		type unit float32
		b := float32(half(unit(5)))
		out.Store(t, 0, a+b)
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v, %d kernels", res.Diagnostics, len(res.Kernels))
	}
	src := res.Kernels[0].Twin.Source
	for _, want := range []string{
		"__device__ int half__unit(int x)", "__device__ float half__unit_1(float x)",
		"(float)half__unit(5);", "half__unit_1(5.0f);",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the C lacks %q:\n%s", want, src)
		}
	}
}

// What looks like a kernel but is not translated is noted, with the form
// to write; a helper taking the thread, which kernels call, is not.
func TestUntranslatedKernelsAreNoted(t *testing.T) {
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
func Plain(t *sim.Thread) {}
func sync(t *sim.Thread) { t.SyncThreads() }
func Scale[T float32 | float64](x *sim.Buffer[T]) sim.Kernel {
	return func(t *sim.Thread) { x.Store(t, 0, 1) }
}
func Used[T float32 | float64](x *sim.Buffer[T]) sim.Kernel {
	return func(t *sim.Thread) { sync(t); x.Store(t, 0, 1) }
}
var _ = Used[float32]
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v, %d kernels", res.Diagnostics, len(res.Kernels))
	}
	var got []string
	for _, n := range res.Notes {
		got = append(got, n.Message)
	}
	if len(got) != 2 || !strings.Contains(got[0], "Plain is a func(*sim.Thread)") || !strings.Contains(got[0], "func Plain(buffers and values...) sim.Kernel") ||
		!strings.Contains(got[1], "Scale is generic") || !strings.Contains(got[1], "var _ = Scale[float32]") {
		t.Errorf("notes:\n%s", strings.Join(got, "\n"))
	}
}
