package translate

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostHarness compiles the prelude for the host, with host versions of the
// few CUDA intrinsics it calls, and a driver that applies one helper per
// input line: "op a b" (operands as hex bits) -> result bits, or "trap".
const hostHarness = `
#include <cstdio>
#include <cstring>
#include <cstdlib>
#define __device__
#define __forceinline__ inline
struct gosim_trapped {};
static void __trap() { throw gosim_trapped(); }
static long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
static int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, 4); return r; }
static float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, 4); return r; }
static int __ffs(int x) { return __builtin_ffs(x); }
static int __ffsll(long long x) { return __builtin_ffsll(x); }
%s
static unsigned long long run(const char *op, unsigned long long a, unsigned long long b) {
	int ia = (int)a, ib = (int)b;
	long long la = (long long)a, lb = (long long)b;
	float fa = __uint_as_float((unsigned)a), fb = __uint_as_float((unsigned)b);
	double da = __longlong_as_double(la), db = __longlong_as_double(lb);
	std::string o(op);
	if (o == "add32") return (unsigned)gosim_add(ia, ib);
	if (o == "sub32") return (unsigned)gosim_sub(ia, ib);
	if (o == "mul32") return (unsigned)gosim_mul(ia, ib);
	if (o == "neg32") return (unsigned)gosim_neg(ia);
	if (o == "add64") return gosim_add(la, lb);
	if (o == "mul64") return gosim_mul(la, lb);
	if (o == "neg64") return gosim_neg(la);
	if (o == "div32") return (unsigned)gosim_div(ia, ib);
	if (o == "rem32") return (unsigned)gosim_rem(ia, ib);
	if (o == "div64") return gosim_div(la, lb);
	if (o == "rem64") return gosim_rem(la, lb);
	if (o == "udiv32") return gosim_udiv((unsigned)a, (unsigned)b);
	if (o == "urem64") return gosim_urem(a, b);
	if (o == "shl32") return (unsigned)gosim_shl(ia, gosim_count(lb));
	if (o == "shr32") return (unsigned)gosim_shr(ia, gosim_count(lb));
	if (o == "ushr32") return gosim_shr((unsigned)a, gosim_count(lb));
	if (o == "shl64") return gosim_shl(la, gosim_count(lb));
	if (o == "shr64") return gosim_shr(la, gosim_count(lb));
	if (o == "fmin32") return __float_as_uint(gosim_fmin(fa, fb));
	if (o == "fmax32") return __float_as_uint(gosim_fmax(fa, fb));
	if (o == "fmin64") return __double_as_longlong(gosim_fmin(da, db));
	if (o == "fmax64") return __double_as_longlong(gosim_fmax(da, db));
	if (o == "mathmax") return __double_as_longlong(gosim_math_max(da, db));
	if (o == "mathmin") return __double_as_longlong(gosim_math_min(da, db));
	if (o == "dim") return __double_as_longlong(gosim_dim(da, db));
	if (o == "nextafter") return __double_as_longlong(gosim_nextafter(da, db));
	if (o == "nextafter32") return __float_as_uint(gosim_nextafter32(fa, fb));
	if (o == "isinf") return gosim_isinf(da, lb);
	if (o == "signbit") return gosim_signbit(da);
	if (o == "ctz32") return gosim_ctz32((unsigned)a);
	if (o == "ctz64") return gosim_ctz64(a);
	if (o == "index") { gosim_array<int, 4> x = {}; x[3] = 7; return x[la]; }
	return 0xdead;
}
int main() {
	char op[32];
	unsigned long long a, b;
	while (scanf("%%31s %%llx %%llx", op, &a, &b) == 3) {
		try { printf("%%llx\n", run(op, a, b)); } catch (gosim_trapped &) { printf("trap\n"); }
	}
}
`

type hostCase struct {
	op   string
	a, b uint64
	want string // hex bits, "trap", or "nan32"/"nan64" for any NaN
}

// TestPreludeSemantics runs the prelude's helpers, compiled for the host,
// against Go's own operators and math functions on edge and random
// operands: the C the translator leans on must compute what Go computes.
func TestPreludeSemantics(t *testing.T) {
	cc := clang(t)
	var body strings.Builder
	for _, p := range prelude {
		if p.name != "tid" && p.name != "dynsmem" && !devicePrelude[p.name] {
			body.WriteString(p.text)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "h.cc")
	bin := filepath.Join(dir, "h")
	if err := os.WriteFile(src, []byte("#include <string>\n"+fmt.Sprintf(hostHarness, body.String())), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-std=c++17", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("compiling the prelude for the host: %v\n%s", err, out)
	}
	cases := preludeCases()
	var in strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&in, "%s %x %x\n", c.op, c.a, c.b)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for i, c := range cases {
		if !sc.Scan() {
			t.Fatalf("the harness stopped after %d of %d cases", i, len(cases))
		}
		got := sc.Text()
		switch c.want {
		case "nan32":
			u, _ := strconv.ParseUint(got, 16, 64)
			if f := math.Float32frombits(uint32(u)); f == f {
				t.Errorf("%s(%#x, %#x) = %s, want a NaN", c.op, c.a, c.b, got)
			}
		case "nan64":
			u, _ := strconv.ParseUint(got, 16, 64)
			if f := math.Float64frombits(u); f == f {
				t.Errorf("%s(%#x, %#x) = %s, want a NaN", c.op, c.a, c.b, got)
			}
		default:
			if got != c.want {
				t.Errorf("%s(%#x, %#x) = %s, want %s (Go)", c.op, c.a, c.b, got, c.want)
			}
		}
	}
}

func hx(u uint64) string { return strconv.FormatUint(u, 16) }

func preludeCases() []hostCase {
	r := rand.New(rand.NewPCG(1, 2))
	i32s := []int32{0, 1, -1, 2, -2, 7, -7, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1}
	i64s := []int64{0, 1, -1, 3, -3, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 40}
	for range 40 {
		i32s = append(i32s, int32(r.Uint32()))
		i64s = append(i64s, int64(r.Uint64()))
	}
	var cs []hostCase
	u32 := func(x int32) uint64 { return uint64(uint32(x)) }
	for _, a := range i32s {
		cs = append(cs, hostCase{"neg32", u32(a), 0, hx(u32(-a))})
		for _, b := range i32s {
			cs = append(cs,
				hostCase{"add32", u32(a), u32(b), hx(u32(a + b))},
				hostCase{"sub32", u32(a), u32(b), hx(u32(a - b))},
				hostCase{"mul32", u32(a), u32(b), hx(u32(a * b))})
			if b == 0 {
				cs = append(cs, hostCase{"div32", u32(a), 0, "trap"}, hostCase{"rem32", u32(a), 0, "trap"},
					hostCase{"udiv32", u32(a), 0, "trap"})
			} else {
				cs = append(cs, hostCase{"div32", u32(a), u32(b), hx(u32(a / b))},
					hostCase{"rem32", u32(a), u32(b), hx(u32(a % b))},
					hostCase{"udiv32", u32(a), u32(b), hx(uint64(uint32(a) / uint32(b)))})
			}
		}
	}
	for _, a := range i64s {
		cs = append(cs, hostCase{"neg64", uint64(a), 0, hx(uint64(-a))})
		for _, b := range i64s {
			cs = append(cs, hostCase{"add64", uint64(a), uint64(b), hx(uint64(a + b))},
				hostCase{"mul64", uint64(a), uint64(b), hx(uint64(a * b))})
			if b == 0 {
				cs = append(cs, hostCase{"div64", uint64(a), 0, "trap"}, hostCase{"rem64", uint64(a), 0, "trap"},
					hostCase{"urem64", uint64(a), 0, "trap"})
			} else {
				cs = append(cs, hostCase{"div64", uint64(a), uint64(b), hx(uint64(a / b))},
					hostCase{"rem64", uint64(a), uint64(b), hx(uint64(a % b))},
					hostCase{"urem64", uint64(a), uint64(b), hx(uint64(a) % uint64(b))})
			}
		}
	}
	for _, a := range i32s[:12] {
		for s := int64(-2); s <= 70; s++ {
			if s < 0 {
				cs = append(cs, hostCase{"shl32", u32(a), uint64(s), "trap"}, hostCase{"shr64", uint64(a), uint64(s), "trap"})
				continue
			}
			cs = append(cs,
				hostCase{"shl32", u32(a), uint64(s), hx(u32(a << s))},
				hostCase{"shr32", u32(a), uint64(s), hx(u32(a >> s))},
				hostCase{"ushr32", u32(a), uint64(s), hx(uint64(uint32(a) >> s))},
				hostCase{"shl64", uint64(int64(a)), uint64(s), hx(uint64(int64(a) << s))},
				hostCase{"shr64", uint64(int64(a)), uint64(s), hx(uint64(int64(a) >> s))})
		}
	}
	f64s := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-310, 3}
	for range 20 {
		f64s = append(f64s, math.Float64frombits(r.Uint64()))
	}
	nan64 := func(x float64, exact bool) string {
		if x != x && !exact {
			return "nan64"
		}
		return hx(math.Float64bits(x))
	}
	for _, a := range f64s {
		cs = append(cs, hostCase{"signbit", math.Float64bits(a), 0, b2s(math.Signbit(a))})
		for _, s := range []int64{-1, 0, 1} {
			cs = append(cs, hostCase{"isinf", math.Float64bits(a), uint64(s), b2s(math.IsInf(a, int(s)))})
		}
		for _, b := range f64s {
			ab, bb := math.Float64bits(a), math.Float64bits(b)
			cs = append(cs,
				hostCase{"fmin64", ab, bb, nan64(min(a, b), false)},
				hostCase{"fmax64", ab, bb, nan64(max(a, b), false)},
				hostCase{"mathmax", ab, bb, nan64(math.Max(a, b), true)},
				hostCase{"mathmin", ab, bb, nan64(math.Min(a, b), true)},
				hostCase{"dim", ab, bb, nan64(math.Dim(a, b), false)},
				hostCase{"nextafter", ab, bb, nan64(math.Nextafter(a, b), true)})
		}
	}
	f32s := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.MaxFloat32, math.SmallestNonzeroFloat32, 2.5}
	for range 20 {
		f32s = append(f32s, math.Float32frombits(r.Uint32()))
	}
	nan32 := func(x float32, exact bool) string {
		if x != x && !exact {
			return "nan32"
		}
		return hx(uint64(math.Float32bits(x)))
	}
	for _, a := range f32s {
		for _, b := range f32s {
			ab, bb := uint64(math.Float32bits(a)), uint64(math.Float32bits(b))
			cs = append(cs,
				hostCase{"fmin32", ab, bb, nan32(min(a, b), false)},
				hostCase{"fmax32", ab, bb, nan32(max(a, b), false)},
				hostCase{"nextafter32", ab, bb, nan32(math.Nextafter32(a, b), true)})
		}
	}
	for _, x := range []uint64{0, 1, 2, 1 << 31, 1 << 63, 0xf0, r.Uint64()} {
		cs = append(cs, hostCase{"ctz32", uint64(uint32(x)), 0, hx(uint64(bits.TrailingZeros32(uint32(x))))},
			hostCase{"ctz64", x, 0, hx(uint64(bits.TrailingZeros64(x)))})
	}
	for i := int64(-2); i <= 5; i++ {
		want := "trap"
		if i >= 0 && i < 4 {
			want = "0"
			if i == 3 {
				want = "7"
			}
		}
		cs = append(cs, hostCase{"index", uint64(i), 0, want})
	}
	return cs
}

func b2s(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
