package translate

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
	"sync"
)

// reserved are the names a Go identifier may not keep in C: C and C++
// keywords, CUDA's built-in variables and qualifiers, the types, functions
// and macros nvcc's headers declare (CUDA's vector types, the math API for
// float and double, the C library), and every function the generated code
// calls (a local named sqrt would hide sqrt from the code after it; a
// helper named rsqrt would redefine CUDA's; a kernel named sin would give
// the C function sin a second extern "C" definition). The C name of such an
// identifier gets a trailing underscore.
var (
	reservedOnce sync.Once
	reserved     map[string]bool
)

// cudaNames are the names of nvcc's headers (cuda_runtime.h, the math API,
// cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, and the C library they
// include) that a Go identifier could spell.
const cudaNames = `
	alignas alignof and and_eq asm auto bitand bitor bool break case catch char
	char8_t char16_t char32_t class compl concept const consteval constexpr constinit
	const_cast continue co_await co_return co_yield decltype default delete do double
	dynamic_cast else enum explicit export extern false float for friend goto if inline
	int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
	protected public register reinterpret_cast requires restrict return short signed sizeof
	static static_assert static_cast struct switch template this thread_local throw true
	try typedef typeid typename union unsigned using virtual void volatile wchar_t while
	xor xor_eq NULL main
	threadIdx blockIdx blockDim gridDim warpSize dim3 uint3
	cg cuda cooperative_groups std
	half half2 nv_bfloat16 nv_bfloat162 cudaError_t cudaStream_t cudaEvent_t
	size_t ssize_t ptrdiff_t nullptr_t max_align_t intptr_t uintptr_t
	int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
	uint ushort ulong uchar clock_t time_t FILE va_list wint_t div_t ldiv_t lldiv_t

	abs labs llabs min max umin umax llmin llmax ullmin ullmax
	mulhi umulhi mul64hi umul64hi mul24 umul24 saturate
	float_as_int int_as_float float_as_uint uint_as_float float2int float2uint int2float uint2float

	acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi
	cyl_bessel_i0 cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1
	fabs fdim floor fma fmax fmin fmod frexp hypot ilogb isfinite isinf isnan
	j0 j1 jn ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround
	modf nan nearbyint nextafter norm norm3d norm4d normcdf normcdfinv pow
	rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt
	scalbln scalbn signbit sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc
	y0 y1 yn
	acosf acoshf asinf asinhf atan2f atanf atanhf cbrtf ceilf copysignf cosf coshf cospif
	cyl_bessel_i0f cyl_bessel_i1f erfcf erfcinvf erfcxf erff erfinvf exp10f exp2f expf expm1f
	fabsf fdimf fdividef floorf fmaf fmaxf fminf fmodf frexpf hypotf ilogbf
	j0f j1f jnf ldexpf lgammaf llrintf llroundf log10f log1pf log2f logbf logf lrintf lroundf
	modff nanf nearbyintf nextafterf norm3df norm4df normcdff normcdfinvf normf powf
	rcbrtf remainderf remquof rhypotf rintf rnorm3df rnorm4df rnormf roundf rsqrtf
	scalblnf scalbnf sincosf sincospif sinf sinhf sinpif sqrtf tanf tanhf tgammaf truncf
	y0f y1f ynf
	acosl asinl atanl ceill cosl expl fabsl floorl fmodl logl powl sinl sqrtl tanl
	fpclassify isnormal isgreater isgreaterequal isless islessequal islessgreater isunordered
	gamma lgamma_r drem significand finite finitef isinff isnanf exp10l pow10 pow10f

	assert offsetof errno EOF INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL
	FP_NAN FP_INFINITE FP_ZERO FP_SUBNORMAL FP_NORMAL FP_ILOGB0 FP_ILOGBNAN math_errhandling
	MATH_ERRNO MATH_ERREXCEPT
	FLT_MAX FLT_MIN FLT_EPSILON FLT_DIG FLT_MANT_DIG FLT_RADIX DBL_MAX DBL_MIN DBL_EPSILON
	DBL_DIG DBL_MANT_DIG CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX
	SHRT_MAX SHRT_MIN USHRT_MAX INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX
	LLONG_MAX LLONG_MIN ULLONG_MAX INT8_MIN INT8_MAX INT16_MIN INT16_MAX INT32_MIN INT32_MAX
	INT64_MIN INT64_MAX UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX SIZE_MAX PTRDIFF_MAX
	INTPTR_MAX UINTPTR_MAX RAND_MAX EXIT_SUCCESS EXIT_FAILURE BUFSIZ CLOCKS_PER_SEC
	M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI
	M_SQRT2 M_SQRT1_2 CUDA_VERSION CUDART_VERSION
	stdin stdout stderr major minor makedev

	printf fprintf sprintf snprintf vprintf puts putchar getchar fopen fclose
	malloc calloc realloc free memcpy memmove memset memcmp memchr
	strlen strcpy strncpy strcmp strncmp strcat strncat strchr strrchr strstr strdup strtok
	index rindex bzero bcopy ffs ffsl ffsll
	abort exit atexit quick_exit getenv system atoi atol atoll atof strtol strtoll
	strtoul strtoull strtod strtof rand srand random srandom qsort bsearch div ldiv lldiv
	clock clock64 time signal raise setjmp longjmp alloca select`

func isReserved(name string) bool {
	reservedOnce.Do(func() {
		reserved = map[string]bool{}
		for _, w := range strings.Fields(cudaNames) {
			reserved[w] = true
		}
		// CUDA's vector types and their make_ functions: char1 ... double4.
		for _, b := range []string{"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
			"longlong", "ulonglong", "float", "double"} {
			for n := 1; n <= 4; n++ {
				v := b + strconv.Itoa(n)
				reserved[v] = true
				reserved["make_"+v] = true
			}
		}
		for _, c := range vecC {
			reserved[c] = true
			reserved["make_"+c] = true
		}
		var texts []string
		for _, s := range simCalls {
			texts = append(texts, s.c)
		}
		for _, m := range mathFuncs {
			texts = append(texts, m.c)
		}
		for _, m := range bitsFuncs {
			texts = append(texts, m.c)
		}
		for _, t := range texts {
			for _, w := range strings.FieldsFunc(t, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			}) {
				// Function names only: the texts also hold placeholders (b[i] = v).
				if strings.HasPrefix(w, "__") || strings.HasPrefix(w, "atomic") || len(w) > 2 && isMathName(w) {
					reserved[w] = true
				}
			}
		}
	})
	return reserved[name] || strings.HasPrefix(name, "CUDART_") || strings.HasPrefix(name, "cuda") ||
		strings.HasPrefix(name, "make_")
}

func isMathName(w string) bool {
	if w == "fmaf" {
		return true
	}
	for _, m := range mathFuncs {
		if m.c == w {
			return true
		}
	}
	return false
}

// cIdent is the C spelling of a Go identifier before uniquing: ASCII (a
// letter outside ASCII, which Go allows and nvcc's and clang's PTX
// symbols do not, is written u and its code point in hex: σ is u03c3),
// with an underscore appended where the name is reserved (see reserved) or
// is spelled like the generated code's own (gosim_...) or like the
// implementation's (__x, _X).
func cIdent(name string) string {
	name = asciiIdent(name)
	if isReserved(name) || strings.HasPrefix(name, "gosim") || strings.HasPrefix(name, "__") ||
		(strings.HasPrefix(name, "_") && len(name) > 1 && name[1] >= 'A' && name[1] <= 'Z') {
		return name + "_"
	}
	return name
}

// asciiIdent writes each rune of a Go identifier outside ASCII as u and
// its code point in four hex digits (U and eight beyond the BMP).
func asciiIdent(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, "u%04x", r)
		default:
			fmt.Fprintf(&b, "U%08x", r)
		}
	}
	return b.String()
}

// names gives each Go object of one C function a C name of its own: the Go
// name where it is free, else the Go name with a numeric suffix. Go's
// shadowing (x := x + 1 in an inner block) then never changes which
// variable a C name means.
type names struct {
	of     map[types.Object]string
	used   map[string]bool
	global map[string]bool // the C names of the package's functions
	// generic are the C names of the package's generic functions, whose
	// instances are named name_typeargs: a local never takes such a name.
	generic map[string]bool
}

func newNames(global, generic map[string]bool) *names {
	return &names{of: map[types.Object]string{}, used: map[string]bool{}, global: global, generic: generic}
}

// reserve keeps name from being handed out (a helper's or the entry's own
// name, a label).
func (n *names) reserve(name string) { n.used[name] = true }

// name returns o's C name, assigning one on first use.
func (n *names) name(o types.Object) string {
	if s, ok := n.of[o]; ok {
		return s
	}
	s := n.fresh(cIdent(o.Name()))
	n.of[o] = s
	return s
}

// fresh returns base or base_N, unused so far, and marks it used.
func (n *names) fresh(base string) string {
	if n.instanceLike(base) {
		// Every suffix of it would be instance-like too: the generated
		// code's prefix, which no Go name gets (see cIdent), frees it.
		base = "gosim_v_" + base
	}
	s := base
	for i := 1; n.used[s] || n.global[s] || n.instanceLike(s); i++ {
		s = base + "_" + strconv.Itoa(i)
	}
	n.used[s] = true
	return s
}

// instanceLike reports whether s could be the C name of an instance of a
// generic function of the package (add_float32 for add[float32]).
func (n *names) instanceLike(s string) bool {
	for g := range n.generic {
		if len(s) > len(g) && strings.HasPrefix(s, g) && s[len(g)] == '_' {
			return true
		}
	}
	return false
}
