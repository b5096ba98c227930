package translate

import (
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cValue reads back a literal intConst or floatConst wrote, as C reads it.
func cValue(t *testing.T, s string) constant.Value {
	t.Helper()
	s = strip(s)
	if m := regexp.MustCompile(`^\((signed char|unsigned char|short|unsigned short)\)(-?\d+)$`).FindStringSubmatch(s); m != nil {
		s = m[2]
	}
	switch s {
	case "-2147483647-1":
		return constant.MakeInt64(math.MinInt32)
	case "-9223372036854775807LL-1":
		return constant.MakeInt64(math.MinInt64)
	}
	if strings.HasSuffix(s, "f") && !strings.HasPrefix(s, "0x") {
		x, err := strconv.ParseFloat(strings.TrimSuffix(s, "f"), 32)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return constant.MakeFloat64(float64(float32(x)))
	}
	if strings.ContainsAny(s, ".e") && !strings.HasPrefix(s, "0x") {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return constant.MakeFloat64(x)
	}
	s = strings.TrimRight(s, "UL")
	neg := strings.HasPrefix(s, "-")
	v := constant.MakeFromLiteral(strings.TrimPrefix(s, "-"), token.INT, 0)
	if neg {
		v = constant.UnaryOp(token.SUB, v, 0)
	}
	if v.Kind() == constant.Unknown {
		t.Fatalf("cannot read %q", s)
	}
	return v
}

// TestConstantLiterals writes random typed constants as C literals and reads
// them back: every value must survive exactly, floats to the bit.
func TestConstantLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 4000 {
		b32 := r.Uint32()
		if i < 8 {
			b32 = []uint32{0, 1, 0x7f7fffff, 0x00800000, 0x3dcccccd, 0x80000001, 0x4b000000, 0x33800000}[i]
		}
		f32 := math.Float32frombits(b32)
		if !math.IsInf(float64(f32), 0) && !math.IsNaN(float64(f32)) && !(f32 == 0 && math.Signbit(float64(f32))) {
			got := cValue(t, floatConst(constant.MakeFloat64(float64(f32)), true))
			if x, _ := constant.Float32Val(got); math.Float32bits(x) != b32 {
				t.Fatalf("float32 %v (%#x) reads back as %v", f32, b32, x)
			}
		}
		f64 := math.Float64frombits(r.Uint64())
		if !math.IsInf(f64, 0) && !math.IsNaN(f64) {
			got := cValue(t, floatConst(constant.MakeFloat64(f64), false))
			if x, _ := constant.Float64Val(got); x != f64 {
				t.Fatalf("float64 %v reads back as %v", f64, x)
			}
		}
		for _, c := range []struct {
			k types.BasicKind
			v constant.Value
		}{
			{types.Int8, constant.MakeInt64(int64(int8(r.Uint32())))},
			{types.Uint16, constant.MakeInt64(int64(uint16(r.Uint32())))},
			{types.Int32, constant.MakeInt64(int64(int32(r.Uint32())))},
			{types.Int32, constant.MakeInt64(math.MinInt32)},
			{types.Uint32, constant.MakeUint64(uint64(r.Uint32()))},
			{types.Int64, constant.MakeInt64(int64(r.Uint64()))},
			{types.Int64, constant.MakeInt64(math.MinInt64)},
			{types.Uint64, constant.MakeUint64(r.Uint64())},
		} {
			lit := intConst(c.v, c.k)
			if got := cValue(t, lit); constant.Compare(got, token.NEQ, c.v) {
				t.Fatalf("%v constant %v written %s reads back as %v", c.k, c.v, lit, got)
			}
		}
	}
}

// TestFoldedConstants translates Go constant expressions and checks each
// literal the C gets against the value Go computes for the same expression.
func TestFoldedConstants(t *testing.T) {
	res := translateSrc(t, `package p
import (
	"math"
	"github.com/gpusim/gpusim/sim"
)
const third = float32(1) / 3
func K(i *sim.Buffer[int64], u *sim.Buffer[uint32], f *sim.Buffer[float32], d *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		i.Store(t, 0, -7/2)
		i.Store(t, 1, -7%3)
		i.Store(t, 2, 1<<62 + 1<<61)
		i.Store(t, 3, math.MinInt64/2)
		u.Store(t, 0, math.MaxUint32 ^ 0xff)
		u.Store(t, 1, 1<<31 | 7)
		f.Store(t, 0, third)
		f.Store(t, 1, 0.1+0.2)
		f.Store(t, 2, math.MaxFloat32)
		d.Store(t, 0, 0.1+0.2)
		d.Store(t, 1, math.E*math.Pi)
		d.Store(t, 2, float64(third))
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v", res.Diagnostics)
	}
	var third float32 = float32(1) / 3
	want := map[string]constant.Value{
		"i[0]": constant.MakeInt64(-7 / 2), "i[1]": constant.MakeInt64(-7 % 3),
		"i[2]": constant.MakeInt64(1<<62 + 1<<61), "i[3]": constant.MakeInt64(math.MinInt64 / 2),
		"u[0]": constant.MakeUint64(math.MaxUint32 ^ 0xff), "u[1]": constant.MakeUint64(1<<31 | 7),
		"f[0]": constant.MakeFloat64(float64(third)), "f[1]": constant.MakeFloat64(float64(float32(0.1 + 0.2))),
		"f[2]": constant.MakeFloat64(math.MaxFloat32),
		"d[0]": constant.MakeFloat64(0.1 + 0.2), "d[1]": constant.MakeFloat64(math.E * math.Pi),
		"d[2]": constant.MakeFloat64(float64(third)),
	}
	src := res.Kernels[0].Twin.Source
	for lhs, v := range want {
		m := regexp.MustCompile(regexp.QuoteMeta(lhs) + ` = (.*);`).FindStringSubmatch(src)
		if m == nil {
			t.Errorf("no store to %s in\n%s", lhs, src)
			continue
		}
		got := cValue(t, m[1])
		if v.Kind() == constant.Float {
			g, _ := constant.Float64Val(got)
			w, _ := constant.Float64Val(v)
			if g != w {
				t.Errorf("%s = %s: %v, want %v", lhs, m[1], g, w)
			}
			continue
		}
		if constant.Compare(got, token.NEQ, v) {
			t.Errorf("%s = %s, want %v", lhs, m[1], v)
		}
	}
}

// TestGoSemanticsInC checks that the C of each operation is the one that
// computes Go's result: wrapping and trapping helpers where C's operator
// would be undefined or differ, and plain C where the operands' ranges
// prove it the same.
func TestGoSemanticsInC(t *testing.T) {
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
func K(a *sim.Buffer[int32], f *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := a.Load(t, 0), a.Load(t, 1)
		s := n - 3
		a.Store(t, 2, x*y)         // mul wraps
		a.Store(t, 3, -x)          // neg wraps: -MinInt32
		a.Store(t, 4, x/y)         // traps on 0, MinInt/-1
		a.Store(t, 5, x%y)
		a.Store(t, 6, x/4)         // constant divisor: plain
		a.Store(t, 7, x/-1)        // -1: MinInt/-1
		a.Store(t, 8, x<<s)        // variable signed count: traps if negative, 0 past the width
		a.Store(t, 9, x>>uint(s))  // unsigned count
		a.Store(t, 10, x<<33)      // constant count past the width
		a.Store(t, 11, x<<3)       // in range: through unsigned
		i := t.GlobalX()
		a.Store(t, i*2+1, int32(t.ThreadIdx.X*t.BlockDim.X)) // ranges known: plain
		p, q := uint16(x), uint16(y)
		a.Store(t, 12, int32(p*q))                             // unsigned short * promotes to int
		f.Store(t, 0, min(f.Load(t, 0), f.Load(t, 1)))         // NaN wins
		f.Store(t, 1, f.Load(t, 0)*f.Load(t, 1)+f.Load(t, 2))  // no contraction: separate ops
		for k := 1; k < n; k *= 2 {                            // counted: plain
			a.Store(t, k, 0)
		}
		for k := 0; k < n; k++ {                               // the body writes k: wraps
			k += int(x)
		}
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v", res.Diagnostics)
	}
	src := res.Kernels[0].Twin.Source
	for _, want := range []string{
		"a[2] = gosim_mul(x, y);",
		"a[3] = gosim_neg(x);",
		"a[4] = gosim_div(x, y);",
		"a[5] = gosim_rem(x, y);",
		"a[6] = x / 4;",
		"a[7] = gosim_div(x, -1);",
		"a[8] = gosim_shl(x, gosim_count(s));",
		"a[9] = gosim_shr(x, (unsigned long long)s);",
		"a[10] = gosim_shl(x, 33ULL);",
		"a[11] = (int)((unsigned int)x << 3);",
		"a[(i * 2LL) + 1LL] = (int)((long long)threadIdx.x * (long long)blockDim.x);",
		"a[12] = (int)((unsigned short)((unsigned int)p * (unsigned int)q));",
		"f[0] = gosim_fmin(f[0], f[1]);",
		"f[1] = (f[0] * f[1]) + f[2];",
		"long long s = (long long)n - 3LL;",
		"Compile with -fmad=false",
		"for (long long k = 1LL; k < (long long)n; k *= 2LL) {",
		"for (long long k_1 = 0LL; k_1 < (long long)n; gosim_inc(k_1)) {",
		"k_1 = gosim_add(k_1, (long long)x);",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the C lacks %q:\n%s", want, src[strings.Index(src, "extern \"C\""):])
		}
	}
}

// TestTwoPhaseAssignment: Go evaluates the index operands of an
// assignment's targets, and its values, before assigning any target
// (i, a[i] = 1, 2 stores to a[old i]), in the parallel form, the tuple form
// of a helper's results and a range clause alike; an index that calls a
// function is evaluated before the values, as Go's order of calls has it;
// a range clause that assigns to the array it ranges over reads a copy.
func TestTwoPhaseAssignment(t *testing.T) {
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
func two(x int32) (int, int32) { return int(x) & 3, x * 2 }
func pick(t *sim.Thread, c *sim.Buffer[int32]) int { return int(c.Load(t, 0)) & 3 }
func K(in, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var a [4]int32
		var vs [4]sim.Int2
		i := 0
		i, a[i] = 1, 2
		k := 0
		k, a[k] = two(in.Load(t, 0))
		a[0], a[a[0]&3] = 3, 4
		i, vs[i].X = 2, 5
		a[pick(t, in)], k = 7, pick(t, out)
		var b [4]int32
		for k, b[k] = range a {
		}
		a[i], i = 6, 3
		for _, b[0] = range b {
		}
		out.Store(t, 0, a[0]+b[0]+vs[1].X+int32(i+k))
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v", res.Diagnostics)
	}
	src := res.Kernels[0].Twin.Source
	body := src[strings.Index(src, "extern \"C\""):]
	for _, want := range []string{
		// i, a[i] = 1, 2
		"long long gosim_ix = i;\n\t\tlong long gosim_t = 1LL;\n\t\tint gosim_t_1 = 2;\n\t\ti = gosim_t;\n\t\ta[gosim_ix] = gosim_t_1;",
		// k, a[k] = two(...)
		"long long gosim_ix_1 = k;\n\t\tgosim_res_two gosim_r = two(in[0]);\n\t\tk = gosim_r.r0;\n\t\ta[gosim_ix_1] = gosim_r.r1;",
		// a[0], a[a[0]&3] = 3, 4
		"int gosim_ix_2 = a[0] & 3;",
		"a[gosim_ix_2] = gosim_t_3;",
		// i, vs[i].X = 2, 5
		"long long gosim_ix_3 = i;",
		"vs[gosim_ix_3].x = gosim_t_5;",
		// a[pick(t, in)], k = 7, pick(t, out): the target's call first
		"long long gosim_ix_4 = pick(in);\n\t\tint gosim_t_6 = 7;\n\t\tlong long gosim_t_7 = pick(out);",
		// for k, b[k] = range a
		"long long gosim_ix_5 = k;\n\t\tk = gosim_i;\n\t\tb[gosim_ix_5] = a[gosim_i];",
		// a[i], i = 6, 3: a[i] is assigned first, with i unchanged
		"a[i] = gosim_t_8;\n\t\ti = gosim_t_9;",
		// for _, b[0] = range b: the clause writes b, so the loop reads a copy
		"gosim_array<int, 4> gosim_a = b;",
		"b[0] = gosim_a[gosim_i_1];",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the C lacks %q:\n%s", want, body)
		}
	}
}

// TestEqualityIsGos: == and != on sim.Half and sim.BFloat16 compare the
// bits, as Go's == on these structs does (+0 != -0, a NaN equals itself),
// not as cuda_fp16.h's IEEE operators; on vectors, which have no == in
// CUDA, every field; on arrays of them, every element through the same
// gosim_eq; a switch on a Half compares the same way.
func TestEqualityIsGos(t *testing.T) {
	res := translateSrc(t, `package p
import "github.com/gpusim/gpusim/sim"
func K(h *sim.Buffer[sim.Half], b *sim.Buffer[sim.BFloat16], v *sim.Buffer[sim.Float4], out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := h.Load(t, 0), h.Load(t, 1)
		if x == y {
			out.Store(t, 0, 1)
		}
		if b.Load(t, 0) != b.Load(t, 1) {
			out.Store(t, 1, 1)
		}
		if v.Load(t, 0) == v.Load(t, 1) {
			out.Store(t, 2, 1)
		}
		if [2]sim.Float4{} != [2]sim.Float4{v.Load(t, 0)} {
			out.Store(t, 3, 1)
		}
		switch x {
		case y:
			out.Store(t, 4, 1)
		}
	}
}
`)
	if len(res.Diagnostics) > 0 || len(res.Kernels) != 1 {
		t.Fatalf("%v", res.Diagnostics)
	}
	src := res.Kernels[0].Twin.Source
	for _, want := range []string{
		"bool gosim_eq(__half a, __half b) { return __half_as_ushort(a) == __half_as_ushort(b); }",
		"bool gosim_eq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat16_as_ushort(a) == __bfloat16_as_ushort(b); }",
		"bool gosim_eq(const float4 &a, const float4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }",
		"if (!gosim_eq(a.v[i], b.v[i])) return false;",
		"if (gosim_eq(x, y)) {",
		"if (!gosim_eq(b[0], b[1])) {",
		"if (gosim_eq(v[0], v[1])) {",
		"if (gosim_array<float4, 2>{{}} != gosim_array<float4, 2>{{v[0]}}) {",
		"if (gosim_eq(x, y)) {\n",
		"#include <cuda_fp16.h>",
		"#include <cuda_bf16.h>",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the C lacks %q:\n%s", want, src)
		}
	}
	if regexp.MustCompile(`\b[xy] [!=]= [xy]\b|\]\) [!=]= `).MatchString(src[strings.Index(src, "extern \"C\""):]) {
		t.Errorf("a 16-bit float or vector is compared with C's ==:\n%s", src)
	}
}
