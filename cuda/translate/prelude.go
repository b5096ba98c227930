package translate

import "strings"

// The prelude is the C++ a translation unit needs beyond CUDA's own: each
// snippet where Go's semantics differ from C's. A kernel's source holds only
// the snippets it uses (and those they use), in this order.
var prelude = []struct {
	name, deps, text string
}{
	{"tid", "", `// gosim_tid is threadIdx linearised as CUDA forms warps: x + y*bdx + z*bdx*bdy.
__device__ __forceinline__ long long gosim_tid()
{
	return (long long)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
}
`},
	{"array", "", `// gosim_array is a Go array: a value (assignment and calls copy it) whose
// indexing traps out of range, where Go panics.
template <typename T, long long N> struct gosim_array {
	T v[N];
	__device__ __forceinline__ T &operator[](long long i)
	{
		if ((unsigned long long)i >= (unsigned long long)N) __trap();
		return v[i];
	}
	__device__ __forceinline__ const T &operator[](long long i) const
	{
		if ((unsigned long long)i >= (unsigned long long)N) __trap();
		return v[i];
	}
};
// Go's == on elements: C's, but for the types whose gosim_eq the prelude
// declares before this (vectors, Half and BFloat16).
template <typename T> __device__ __forceinline__ bool gosim_eq(const T &a, const T &b) { return a == b; }
template <typename T, long long N>
__device__ bool operator==(const gosim_array<T, N> &a, const gosim_array<T, N> &b)
{
	for (long long i = 0; i < N; i++)
		if (!gosim_eq(a.v[i], b.v[i])) return false;
	return true;
}
template <typename T, long long N>
__device__ bool operator!=(const gosim_array<T, N> &a, const gosim_array<T, N> &b) { return !(a == b); }
`},
	{"intops", "", `// Go's signed integers wrap where C's overflow is undefined: compute in the
// unsigned type, where C wraps too, and convert back.
template <typename T> struct gosim_uns;
template <> struct gosim_uns<int> { typedef unsigned int type; };
template <> struct gosim_uns<long long> { typedef unsigned long long type; };
template <> struct gosim_uns<unsigned int> { typedef unsigned int type; };
template <> struct gosim_uns<unsigned long long> { typedef unsigned long long type; };
template <typename T> __device__ __forceinline__ T gosim_add(T a, T b) { typedef typename gosim_uns<T>::type U; return (T)((U)a + (U)b); }
template <typename T> __device__ __forceinline__ T gosim_sub(T a, T b) { typedef typename gosim_uns<T>::type U; return (T)((U)a - (U)b); }
template <typename T> __device__ __forceinline__ T gosim_mul(T a, T b) { typedef typename gosim_uns<T>::type U; return (T)((U)a * (U)b); }
template <typename T> __device__ __forceinline__ T gosim_neg(T a) { typedef typename gosim_uns<T>::type U; return (T)((U)0 - (U)a); }
template <typename T> __device__ __forceinline__ void gosim_inc(T &x) { x = gosim_add(x, (T)1); }
template <typename T> __device__ __forceinline__ void gosim_dec(T &x) { x = gosim_sub(x, (T)1); }
`},
	{"div", "intops", `// Go panics on integer division by zero, and MinInt / -1 is MinInt (with
// MinInt % -1 == 0) where C's is undefined.
template <typename T> __device__ __forceinline__ T gosim_div(T a, T b) { if (b == 0) __trap(); if (b == (T)-1) return gosim_neg(a); return a / b; }
template <typename T> __device__ __forceinline__ T gosim_rem(T a, T b) { if (b == 0) __trap(); if (b == (T)-1) return 0; return a % b; }
template <typename T> __device__ __forceinline__ T gosim_udiv(T a, T b) { if (b == 0) __trap(); return a / b; }
template <typename T> __device__ __forceinline__ T gosim_urem(T a, T b) { if (b == 0) __trap(); return a % b; }
`},
	{"shift", "intops", `// Go shifts by any count: a negative count panics, and a count of the width
// or more gives 0 (or the sign, for >> of a signed value) where C's is undefined.
__device__ __forceinline__ unsigned long long gosim_count(long long s) { if (s < 0) __trap(); return (unsigned long long)s; }
template <typename T> __device__ __forceinline__ T gosim_shl(T x, unsigned long long s)
{
	typedef typename gosim_uns<T>::type U;
	return s >= 8 * sizeof(T) ? (T)0 : (T)((U)x << s);
}
template <typename T> __device__ __forceinline__ T gosim_shr(T x, unsigned long long s)
{
	if (s >= 8 * sizeof(T)) return ((T)-1 < (T)0 && x < (T)0) ? (T)-1 : (T)0;
	return x >> s;
}
`},
	{"float", "", `// math's bit-exact functions, with Go's NaN (0x7FF8000000000001) and rules.
__device__ __forceinline__ bool gosim_signbit(double x) { return __double_as_longlong(x) < 0; }
__device__ __forceinline__ bool gosim_signbit(float x) { return __float_as_int(x) < 0; }
__device__ __forceinline__ bool gosim_isnan(double x) { return x != x; }
__device__ __forceinline__ double gosim_inf(long long sign) { return __longlong_as_double(sign >= 0 ? 0x7FF0000000000000LL : (long long)0xFFF0000000000000ULL); }
__device__ __forceinline__ double gosim_nan() { return __longlong_as_double(0x7FF8000000000001LL); }
__device__ __forceinline__ bool gosim_isinf(double f, long long sign) { return (sign >= 0 && f > 1.7976931348623157e308) || (sign <= 0 && f < -1.7976931348623157e308); }
__device__ __forceinline__ unsigned long long gosim_float64bits(double x) { return (unsigned long long)__double_as_longlong(x); }
__device__ __forceinline__ double gosim_float64frombits(unsigned long long b) { return __longlong_as_double((long long)b); }
__device__ __forceinline__ double gosim_math_max(double x, double y)
{
	if (gosim_isinf(x, 1) || gosim_isinf(y, 1)) return gosim_inf(1);
	if (x != x || y != y) return gosim_nan();
	if (x == 0 && x == y) return gosim_signbit(x) ? y : x;
	return x > y ? x : y;
}
__device__ __forceinline__ double gosim_math_min(double x, double y)
{
	if (gosim_isinf(x, -1) || gosim_isinf(y, -1)) return gosim_inf(-1);
	if (x != x || y != y) return gosim_nan();
	if (x == 0 && x == y) return gosim_signbit(x) ? x : y;
	return x < y ? x : y;
}
__device__ __forceinline__ double gosim_dim(double x, double y)
{
	double v = x - y;
	if (v <= 0) return 0;
	return v;
}
__device__ __forceinline__ double gosim_nextafter(double x, double y)
{
	if (x != x || y != y) return gosim_nan();
	if (x == y) return x;
	if (x == 0) return __longlong_as_double(gosim_signbit(y) ? (long long)0x8000000000000001ULL : 1LL);
	long long b = __double_as_longlong(x);
	return __longlong_as_double((y > x) == (x > 0) ? b + 1 : b - 1);
}
__device__ __forceinline__ float gosim_nextafter32(float x, float y)
{
	if (x != x || y != y) return __uint_as_float(0x7FC00000U);
	if (x == y) return x;
	if (x == 0) return __uint_as_float(gosim_signbit(y) ? 0x80000001U : 1U);
	unsigned int b = __float_as_uint(x);
	return __uint_as_float((y > x) == (x > 0) ? b + 1 : b - 1);
}
`},
	{"minmax", "float", `// Go's min and max: on floats a NaN argument wins and min(-0, +0) is -0,
// unlike C's fmin and fmax.
template <typename T> __device__ __forceinline__ T gosim_min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T gosim_max(T a, T b) { return b > a ? b : a; }
template <typename F> __device__ __forceinline__ F gosim_fmin(F x, F y)
{
	if (y != y || y < x) return y;
	if (x != x || x < y || x != 0) return x;
	return gosim_signbit(x) ? x : y;
}
template <typename F> __device__ __forceinline__ F gosim_fmax(F x, F y)
{
	if (y != y || y > x) return y;
	if (x != x || x > y || x != 0) return x;
	return gosim_signbit(x) ? y : x;
}
`},
	{"bits", "", `// math/bits' TrailingZeros: the width for zero.
__device__ __forceinline__ long long gosim_ctz32(unsigned int x) { return x == 0 ? 32 : (long long)__ffs((int)x) - 1; }
__device__ __forceinline__ long long gosim_ctz64(unsigned long long x) { return x == 0 ? 64 : (long long)__ffsll((long long)x) - 1; }
`},
	{"matchall", "", `// sim.MatchAllSync's two results: CUDA returns the predicate through a pointer.
struct gosim_match_all_res {
	unsigned int r0;
	bool r1;
};
template <typename T> __device__ __forceinline__ gosim_match_all_res gosim_match_all(unsigned int mask, T v)
{
	int pred;
	unsigned int m = __match_all_sync(mask, v, &pred);
	return gosim_match_all_res{m, pred != 0};
}
`},
	{"dynsmem", "", `// The launch's dynamic shared memory: every sim.DynamicShared view starts at its base.
extern __shared__ __align__(16) unsigned char gosim_dynamic_smem[];
`},
}

// writePrelude writes the snippets needs names, with their dependencies.
func writePrelude(b *strings.Builder, needs map[string]bool) {
	all := map[string]bool{}
	var add func(n string)
	add = func(n string) {
		if all[n] {
			return
		}
		all[n] = true
		for _, p := range prelude {
			if p.name == n && p.deps != "" {
				for _, d := range strings.Fields(p.deps) {
					add(d)
				}
			}
		}
	}
	for n := range needs {
		add(n)
	}
	wrote := false
	for _, p := range prelude {
		if all[p.name] {
			b.WriteString(p.text)
			b.WriteString("\n")
			wrote = true
		}
	}
	_ = wrote
}
