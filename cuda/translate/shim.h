// shim.h: the CUDA qualifiers, built-in variables and device functions that
// gpusim's generated code uses, for compiling it with clang's CUDA front end
// without the CUDA toolkit (CI has no GPU and no toolkit):
//
//   clang++-19 -x cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudainc \
//     -nocudalib -Xclang -target-feature -Xclang +ptx80 -include shim.h -S in.cu
//
// The functions are written with clang's NVPTX builtins, so the PTX is
// real. Each has exactly CUDA's overloads, and a deleted catch-all template
// beside them, so that a call with the wrong argument types (which nvcc
// would reject, or convert silently) fails here too. Math functions are
// declarations only: libdevice is not linked, and the PTX calls them.
#ifndef GOSIM_SHIM_H
#define GOSIM_SHIM_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))

// threadIdx, blockIdx, blockDim, gridDim (unsigned int fields) and warpSize.
#include <__clang_cuda_builtin_vars.h>

#define GOSIM_SHIM_ONLY(name) \
	template <typename... A> __device__ void name(A...) = delete;

// ---- control ----
__device__ __forceinline__ void __trap(void) { __asm__ __volatile__("trap;"); }
// __syncthreads is a clang builtin.
__device__ __forceinline__ int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
__device__ __forceinline__ int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
__device__ __forceinline__ int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
__device__ __forceinline__ void __threadfence(void) { __nvvm_membar_gl(); }
__device__ __forceinline__ void __threadfence_block(void) { __nvvm_membar_cta(); }
__device__ __forceinline__ void __threadfence_system(void) { __nvvm_membar_sys(); }
__device__ __forceinline__ void __nanosleep(unsigned int ns) { __asm__ __volatile__("nanosleep.u32 %0;" ::"r"(ns)); }

// ---- warps ----
__device__ __forceinline__ void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
__device__ __forceinline__ unsigned int __activemask(void)
{
	unsigned int r;
	__asm__ __volatile__("activemask.b32 %0;" : "=r"(r));
	return r;
}
__device__ __forceinline__ unsigned int __ballot_sync(unsigned int mask, int p) { return __nvvm_vote_ballot_sync(mask, p); }
__device__ __forceinline__ int __any_sync(unsigned int mask, int p) { return __nvvm_vote_any_sync(mask, p); }
__device__ __forceinline__ int __all_sync(unsigned int mask, int p) { return __nvvm_vote_all_sync(mask, p); }
GOSIM_SHIM_ONLY(__syncwarp)
// The predicates are int in CUDA and take a bool by promotion, as here.

// Shuffles: CUDA's overloads are int, unsigned int, long long, unsigned
// long long, float and double (and long, unsigned long, half, which gpusim
// never emits). The 64-bit ones shuffle two halves.
#define GOSIM_SHFL(name, b, clampmax)                                                                        \
	__device__ __forceinline__ int name(unsigned int m, int v, int l, int w = 32)                            \
	{ return __nvvm_shfl_sync_##b##_i32(m, v, l, ((32 - w) << 8) | (clampmax)); }                            \
	__device__ __forceinline__ unsigned int name(unsigned int m, unsigned int v, int l, int w = 32)          \
	{ return (unsigned int)__nvvm_shfl_sync_##b##_i32(m, (int)v, l, ((32 - w) << 8) | (clampmax)); }         \
	__device__ __forceinline__ float name(unsigned int m, float v, int l, int w = 32)                        \
	{ return __nvvm_shfl_sync_##b##_f32(m, v, l, ((32 - w) << 8) | (clampmax)); }                            \
	__device__ __forceinline__ long long name(unsigned int m, long long v, int l, int w = 32)                \
	{                                                                                                        \
		int lo = (int)v, hi = (int)(v >> 32);                                                                \
		lo = __nvvm_shfl_sync_##b##_i32(m, lo, l, ((32 - w) << 8) | (clampmax));                             \
		hi = __nvvm_shfl_sync_##b##_i32(m, hi, l, ((32 - w) << 8) | (clampmax));                             \
		return (long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);                 \
	}                                                                                                        \
	__device__ __forceinline__ unsigned long long name(unsigned int m, unsigned long long v, int l, int w = 32) \
	{ return (unsigned long long)name(m, (long long)v, l, w); }                                              \
	__device__ __forceinline__ double name(unsigned int m, double v, int l, int w = 32)                      \
	{ return __nvvm_bitcast_ll2d(name(m, __nvvm_bitcast_d2ll(v), l, w)); }                                   \
	GOSIM_SHIM_ONLY(name)
GOSIM_SHFL(__shfl_sync, idx, 0x1f)
GOSIM_SHFL(__shfl_up_sync, up, 0)
GOSIM_SHFL(__shfl_down_sync, down, 0x1f)
GOSIM_SHFL(__shfl_xor_sync, bfly, 0x1f)

__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, int v) { return __nvvm_match_any_sync_i32(m, v); }
__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, unsigned int v) { return __nvvm_match_any_sync_i32(m, (int)v); }
__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, long long v) { return __nvvm_match_any_sync_i64(m, v); }
__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, unsigned long long v) { return __nvvm_match_any_sync_i64(m, (long long)v); }
__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, float v) { return __nvvm_match_any_sync_i32(m, __nvvm_bitcast_f2i(v)); }
__device__ __forceinline__ unsigned int __match_any_sync(unsigned int m, double v) { return __nvvm_match_any_sync_i64(m, __nvvm_bitcast_d2ll(v)); }
GOSIM_SHIM_ONLY(__match_any_sync)
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, int v, int *pred) { return __nvvm_match_all_sync_i32p(m, v, pred); }
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, unsigned int v, int *pred) { return __nvvm_match_all_sync_i32p(m, (int)v, pred); }
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, long long v, int *pred) { return __nvvm_match_all_sync_i64p(m, v, pred); }
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, unsigned long long v, int *pred) { return __nvvm_match_all_sync_i64p(m, (long long)v, pred); }
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, float v, int *pred) { return __nvvm_match_all_sync_i32p(m, __nvvm_bitcast_f2i(v), pred); }
__device__ __forceinline__ unsigned int __match_all_sync(unsigned int m, double v, int *pred) { return __nvvm_match_all_sync_i64p(m, __nvvm_bitcast_d2ll(v), pred); }
GOSIM_SHIM_ONLY(__match_all_sync)

// Warp reductions (sm_80): add, min and max on int and unsigned int; the
// bitwise ones on unsigned int only.
__device__ __forceinline__ unsigned int __reduce_add_sync(unsigned int m, unsigned int v) { return (unsigned int)__nvvm_redux_sync_add(m, v); }
__device__ __forceinline__ int __reduce_add_sync(unsigned int m, int v) { return __nvvm_redux_sync_add(m, v); }
__device__ __forceinline__ unsigned int __reduce_min_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_umin(m, v); }
__device__ __forceinline__ int __reduce_min_sync(unsigned int m, int v) { return __nvvm_redux_sync_min(m, v); }
__device__ __forceinline__ unsigned int __reduce_max_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_umax(m, v); }
__device__ __forceinline__ int __reduce_max_sync(unsigned int m, int v) { return __nvvm_redux_sync_max(m, v); }
__device__ __forceinline__ unsigned int __reduce_and_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_and(m, v); }
__device__ __forceinline__ unsigned int __reduce_or_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_or(m, v); }
__device__ __forceinline__ unsigned int __reduce_xor_sync(unsigned int m, unsigned int v) { return __nvvm_redux_sync_xor(m, v); }
GOSIM_SHIM_ONLY(__reduce_add_sync)
GOSIM_SHIM_ONLY(__reduce_min_sync)
GOSIM_SHIM_ONLY(__reduce_max_sync)
GOSIM_SHIM_ONLY(__reduce_and_sync)
GOSIM_SHIM_ONLY(__reduce_or_sync)
GOSIM_SHIM_ONLY(__reduce_xor_sync)

// ---- atomics: CUDA's overloads exactly ----
__device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__device__ __forceinline__ unsigned int atomicAdd(unsigned int *p, unsigned int v) { return (unsigned int)__nvvm_atom_add_gen_i((int *)p, (int)v); }
__device__ __forceinline__ unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v); }
__device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ __forceinline__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
GOSIM_SHIM_ONLY(atomicAdd)
__device__ __forceinline__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__device__ __forceinline__ unsigned int atomicSub(unsigned int *p, unsigned int v) { return (unsigned int)__nvvm_atom_add_gen_i((int *)p, (int)(0u - v)); }
GOSIM_SHIM_ONLY(atomicSub)
__device__ __forceinline__ int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__device__ __forceinline__ unsigned int atomicExch(unsigned int *p, unsigned int v) { return (unsigned int)__nvvm_atom_xchg_gen_i((int *)p, (int)v); }
__device__ __forceinline__ unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { return (unsigned long long)__nvvm_atom_xchg_gen_ll((long long *)p, (long long)v); }
__device__ __forceinline__ float atomicExch(float *p, float v) { return __nvvm_bitcast_i2f(__nvvm_atom_xchg_gen_i((int *)p, __nvvm_bitcast_f2i(v))); }
GOSIM_SHIM_ONLY(atomicExch)
__device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__device__ __forceinline__ unsigned int atomicMin(unsigned int *p, unsigned int v) { return __nvvm_atom_min_gen_ui(p, v); }
__device__ __forceinline__ long long atomicMin(long long *p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
__device__ __forceinline__ unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { return __nvvm_atom_min_gen_ull(p, v); }
GOSIM_SHIM_ONLY(atomicMin)
__device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ __forceinline__ unsigned int atomicMax(unsigned int *p, unsigned int v) { return __nvvm_atom_max_gen_ui(p, v); }
__device__ __forceinline__ long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
__device__ __forceinline__ unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { return __nvvm_atom_max_gen_ull(p, v); }
GOSIM_SHIM_ONLY(atomicMax)
__device__ __forceinline__ unsigned int atomicInc(unsigned int *p, unsigned int v) { return __nvvm_atom_inc_gen_ui(p, v); }
__device__ __forceinline__ unsigned int atomicDec(unsigned int *p, unsigned int v) { return __nvvm_atom_dec_gen_ui(p, v); }
GOSIM_SHIM_ONLY(atomicInc)
GOSIM_SHIM_ONLY(atomicDec)
__device__ __forceinline__ int atomicCAS(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
__device__ __forceinline__ unsigned int atomicCAS(unsigned int *p, unsigned int c, unsigned int v) { return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)c, (int)v); }
__device__ __forceinline__ unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v) { return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)c, (long long)v); }
GOSIM_SHIM_ONLY(atomicCAS)
#define GOSIM_ATOMIC_BITS(name, op)                                                                                \
	__device__ __forceinline__ int name(int *p, int v) { return __nvvm_atom_##op##_gen_i(p, v); }                  \
	__device__ __forceinline__ unsigned int name(unsigned int *p, unsigned int v)                                  \
	{ return (unsigned int)__nvvm_atom_##op##_gen_i((int *)p, (int)v); }                                           \
	__device__ __forceinline__ unsigned long long name(unsigned long long *p, unsigned long long v)                \
	{ return (unsigned long long)__nvvm_atom_##op##_gen_ll((long long *)p, (long long)v); }                        \
	GOSIM_SHIM_ONLY(name)
GOSIM_ATOMIC_BITS(atomicAnd, and)
GOSIM_ATOMIC_BITS(atomicOr, or)
GOSIM_ATOMIC_BITS(atomicXor, xor)

// ---- bits ----
__device__ __forceinline__ unsigned int __float_as_uint(float x) { return (unsigned int)__nvvm_bitcast_f2i(x); }
__device__ __forceinline__ int __float_as_int(float x) { return __nvvm_bitcast_f2i(x); }
__device__ __forceinline__ float __uint_as_float(unsigned int x) { return __nvvm_bitcast_i2f((int)x); }
__device__ __forceinline__ float __int_as_float(int x) { return __nvvm_bitcast_i2f(x); }
__device__ __forceinline__ long long __double_as_longlong(double x) { return __nvvm_bitcast_d2ll(x); }
__device__ __forceinline__ double __longlong_as_double(long long x) { return __nvvm_bitcast_ll2d(x); }
GOSIM_SHIM_ONLY(__float_as_uint)
GOSIM_SHIM_ONLY(__float_as_int)
GOSIM_SHIM_ONLY(__uint_as_float)
GOSIM_SHIM_ONLY(__int_as_float)
GOSIM_SHIM_ONLY(__double_as_longlong)
GOSIM_SHIM_ONLY(__longlong_as_double)
__device__ __forceinline__ int __popc(unsigned int x) { return __builtin_popcount(x); }
__device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
__device__ __forceinline__ int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__device__ __forceinline__ int __ffs(int x) { return __builtin_ffs(x); }
__device__ __forceinline__ int __ffsll(long long x) { return __builtin_ffsll(x); }
__device__ __forceinline__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__device__ __forceinline__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
GOSIM_SHIM_ONLY(__popc)
GOSIM_SHIM_ONLY(__popcll)
GOSIM_SHIM_ONLY(__clz)
GOSIM_SHIM_ONLY(__clzll)
GOSIM_SHIM_ONLY(__ffs)
GOSIM_SHIM_ONLY(__ffsll)
GOSIM_SHIM_ONLY(__brev)
GOSIM_SHIM_ONLY(__brevll)

// ---- math: the functions the translator maps package math to ----
#define GOSIM_MATH1(name) extern "C" __device__ double name(double); GOSIM_SHIM_ONLY(name)
#define GOSIM_MATH2(name) extern "C" __device__ double name(double, double); GOSIM_SHIM_ONLY(name)
GOSIM_MATH1(sqrt)
GOSIM_MATH1(fabs)
GOSIM_MATH1(floor)
GOSIM_MATH1(ceil)
GOSIM_MATH1(trunc)
GOSIM_MATH1(round)
GOSIM_MATH1(rint)
GOSIM_MATH2(copysign)
GOSIM_MATH2(fmod)
GOSIM_MATH2(remainder)
GOSIM_MATH1(exp)
GOSIM_MATH1(exp2)
GOSIM_MATH1(expm1)
GOSIM_MATH1(log)
GOSIM_MATH1(log2)
GOSIM_MATH1(log10)
GOSIM_MATH1(log1p)
GOSIM_MATH2(pow)
GOSIM_MATH1(sin)
GOSIM_MATH1(cos)
GOSIM_MATH1(tan)
GOSIM_MATH1(asin)
GOSIM_MATH1(acos)
GOSIM_MATH1(atan)
GOSIM_MATH2(atan2)
GOSIM_MATH1(sinh)
GOSIM_MATH1(cosh)
GOSIM_MATH1(tanh)
GOSIM_MATH1(asinh)
GOSIM_MATH1(acosh)
GOSIM_MATH1(atanh)
GOSIM_MATH1(erf)
GOSIM_MATH1(erfc)
GOSIM_MATH1(cbrt)
GOSIM_MATH2(hypot)
// ---- read-only loads: CUDA's scalar overloads of __ldg ----
__device__ __forceinline__ signed char __ldg(const signed char *p) { return __nvvm_ldg_sc(p); }
__device__ __forceinline__ unsigned char __ldg(const unsigned char *p) { return __nvvm_ldg_uc(p); }
__device__ __forceinline__ short __ldg(const short *p) { return __nvvm_ldg_s(p); }
__device__ __forceinline__ unsigned short __ldg(const unsigned short *p) { return __nvvm_ldg_us(p); }
__device__ __forceinline__ int __ldg(const int *p) { return __nvvm_ldg_i(p); }
__device__ __forceinline__ unsigned int __ldg(const unsigned int *p) { return __nvvm_ldg_ui(p); }
__device__ __forceinline__ long long __ldg(const long long *p) { return __nvvm_ldg_ll(p); }
__device__ __forceinline__ unsigned long long __ldg(const unsigned long long *p) { return __nvvm_ldg_ull(p); }
__device__ __forceinline__ float __ldg(const float *p) { return __nvvm_ldg_f(p); }
__device__ __forceinline__ double __ldg(const double *p) { return __nvvm_ldg_d(p); }
// (No deleted catch-all: it would beat the const conversion of a T *.)

extern "C" __device__ double fma(double, double, double);
GOSIM_SHIM_ONLY(fma)
extern "C" __device__ float fmaf(float, float, float);
GOSIM_SHIM_ONLY(fmaf)


// ---- vector types (vector_types.h): CUDA's sizes and alignments, make_* ----
struct __align__(4) char4 { signed char x, y, z, w; };
__device__ __forceinline__ char4 make_char4(signed char x, signed char y, signed char z, signed char w) { return char4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_char4)
static_assert(sizeof(char4) == 4*sizeof(signed char) && alignof(char4) == 4, "char4");
struct __align__(4) uchar4 { unsigned char x, y, z, w; };
__device__ __forceinline__ uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { return uchar4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_uchar4)
static_assert(sizeof(uchar4) == 4*sizeof(unsigned char) && alignof(uchar4) == 4, "uchar4");
struct __align__(4) short2 { short x, y; };
__device__ __forceinline__ short2 make_short2(short x, short y) { return short2{x, y}; }
GOSIM_SHIM_ONLY(make_short2)
static_assert(sizeof(short2) == 2*sizeof(short) && alignof(short2) == 4, "short2");
struct __align__(8) short4 { short x, y, z, w; };
__device__ __forceinline__ short4 make_short4(short x, short y, short z, short w) { return short4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_short4)
static_assert(sizeof(short4) == 4*sizeof(short) && alignof(short4) == 8, "short4");
struct __align__(8) int2 { int x, y; };
__device__ __forceinline__ int2 make_int2(int x, int y) { return int2{x, y}; }
GOSIM_SHIM_ONLY(make_int2)
static_assert(sizeof(int2) == 2*sizeof(int) && alignof(int2) == 8, "int2");
struct __align__(4) int3 { int x, y, z; };
__device__ __forceinline__ int3 make_int3(int x, int y, int z) { return int3{x, y, z}; }
GOSIM_SHIM_ONLY(make_int3)
static_assert(sizeof(int3) == 3*sizeof(int) && alignof(int3) == 4, "int3");
struct __align__(16) int4 { int x, y, z, w; };
__device__ __forceinline__ int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_int4)
static_assert(sizeof(int4) == 4*sizeof(int) && alignof(int4) == 16, "int4");
struct __align__(8) uint2 { unsigned int x, y; };
__device__ __forceinline__ uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
GOSIM_SHIM_ONLY(make_uint2)
static_assert(sizeof(uint2) == 2*sizeof(unsigned int) && alignof(uint2) == 8, "uint2");
struct __align__(16) uint4 { unsigned int x, y, z, w; };
__device__ __forceinline__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_uint4)
static_assert(sizeof(uint4) == 4*sizeof(unsigned int) && alignof(uint4) == 16, "uint4");
struct __align__(8) float2 { float x, y; };
__device__ __forceinline__ float2 make_float2(float x, float y) { return float2{x, y}; }
GOSIM_SHIM_ONLY(make_float2)
static_assert(sizeof(float2) == 2*sizeof(float) && alignof(float2) == 8, "float2");
struct __align__(4) float3 { float x, y, z; };
__device__ __forceinline__ float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
GOSIM_SHIM_ONLY(make_float3)
static_assert(sizeof(float3) == 3*sizeof(float) && alignof(float3) == 4, "float3");
struct __align__(16) float4 { float x, y, z, w; };
__device__ __forceinline__ float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
GOSIM_SHIM_ONLY(make_float4)
static_assert(sizeof(float4) == 4*sizeof(float) && alignof(float4) == 16, "float4");
struct __align__(16) double2 { double x, y; };
__device__ __forceinline__ double2 make_double2(double x, double y) { return double2{x, y}; }
GOSIM_SHIM_ONLY(make_double2)
static_assert(sizeof(double2) == 2*sizeof(double) && alignof(double2) == 16, "double2");
struct __align__(16) longlong2 { long long x, y; };
__device__ __forceinline__ longlong2 make_longlong2(long long x, long long y) { return longlong2{x, y}; }
GOSIM_SHIM_ONLY(make_longlong2)
static_assert(sizeof(longlong2) == 2*sizeof(long long) && alignof(longlong2) == 16, "longlong2");

// __ldg of the vector types sim.Ldg takes, as sm_32_intrinsics.h declares
// them (CUDA has none for int3 and float3; the prelude's gosim_ldg loads
// their fields): one vector load through the non-coherent cache, written
// as clang's own __clang_cuda_intrinsics.h writes it.
#define GOSIM_LDG_VEC2(T, E, b)                                                 \
	__device__ __forceinline__ T __ldg(const T *p)                              \
	{                                                                           \
		typedef E v2 __attribute__((ext_vector_type(2)));                       \
		v2 r = __nvvm_ldg_##b(reinterpret_cast<const v2 *>(p));                 \
		T t;                                                                    \
		t.x = r[0];                                                             \
		t.y = r[1];                                                             \
		return t;                                                               \
	}
#define GOSIM_LDG_VEC4(T, E, b)                                                 \
	__device__ __forceinline__ T __ldg(const T *p)                              \
	{                                                                           \
		typedef E v4 __attribute__((ext_vector_type(4)));                       \
		v4 r = __nvvm_ldg_##b(reinterpret_cast<const v4 *>(p));                 \
		T t;                                                                    \
		t.x = r[0];                                                             \
		t.y = r[1];                                                             \
		t.z = r[2];                                                             \
		t.w = r[3];                                                             \
		return t;                                                               \
	}
GOSIM_LDG_VEC4(char4, char, c4)
GOSIM_LDG_VEC4(uchar4, unsigned char, uc4)
GOSIM_LDG_VEC2(short2, short, s2)
GOSIM_LDG_VEC4(short4, short, s4)
GOSIM_LDG_VEC2(int2, int, i2)
GOSIM_LDG_VEC4(int4, int, i4)
GOSIM_LDG_VEC2(uint2, unsigned int, ui2)
GOSIM_LDG_VEC4(uint4, unsigned int, ui4)
GOSIM_LDG_VEC2(float2, float, f2)
GOSIM_LDG_VEC4(float4, float, f4)
GOSIM_LDG_VEC2(double2, double, d2)
GOSIM_LDG_VEC2(longlong2, long long, ll2)

// ---- cuda_fp16.h and cuda_bf16.h: the storage types and the conversions
// gpusim emits. binary16 goes through cvt; bfloat16 by cuda_bf16.hpp's bit
// manipulation (truncate, then add one unit by the rounding mode).
struct __align__(2) __half { unsigned short __x; };
struct __align__(2) __nv_bfloat16 { unsigned short __x; };
static_assert(sizeof(__half) == 2 && sizeof(__nv_bfloat16) == 2, "16-bit floats");
#define GOSIM_F2H(name, mode)                                                    \
	__device__ __forceinline__ __half name(float f)                              \
	{                                                                            \
		unsigned short r;                                                        \
		__asm__("cvt." mode ".f16.f32 %0, %1;" : "=h"(r) : "f"(f));              \
		return __half{r};                                                        \
	}                                                                            \
	GOSIM_SHIM_ONLY(name)
GOSIM_F2H(__float2half_rn, "rn")
GOSIM_F2H(__float2half_rz, "rz")
GOSIM_F2H(__float2half_rd, "rm")
GOSIM_F2H(__float2half_ru, "rp")
__device__ __forceinline__ float __half2float(__half h)
{
	float f;
	__asm__("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.__x));
	return f;
}
GOSIM_SHIM_ONLY(__half2float)
__device__ __forceinline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
GOSIM_SHIM_ONLY(__half_as_ushort)
__device__ __forceinline__ __half __ushort_as_half(unsigned short u) { return __half{u}; }
GOSIM_SHIM_ONLY(__ushort_as_half)
// mode: 0 nearest even, 1 towards zero, 2 down, 3 up.
__device__ __forceinline__ __nv_bfloat16 gosim_shim_f2bf(float f, int mode)
{
	unsigned int x = __builtin_bit_cast(unsigned int, f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return __nv_bfloat16{0x7fff};
	unsigned short r = (unsigned short)(x >> 16);
	unsigned int rem = x << 16, sign = x >> 31;
	bool up = mode == 0 ? (rem > 0x80000000u || (rem == 0x80000000u && (r & 1)))
		: mode == 2 ? (rem != 0 && sign != 0)
		: mode == 3 ? (rem != 0 && sign == 0) : false;
	return __nv_bfloat16{(unsigned short)(r + (up ? 1 : 0))};
}
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rn(float f) { return gosim_shim_f2bf(f, 0); }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rz(float f) { return gosim_shim_f2bf(f, 1); }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rd(float f) { return gosim_shim_f2bf(f, 2); }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_ru(float f) { return gosim_shim_f2bf(f, 3); }
GOSIM_SHIM_ONLY(__float2bfloat16_rn)
GOSIM_SHIM_ONLY(__float2bfloat16_rz)
GOSIM_SHIM_ONLY(__float2bfloat16_rd)
GOSIM_SHIM_ONLY(__float2bfloat16_ru)
__device__ __forceinline__ float __bfloat162float(__nv_bfloat16 b) { return __builtin_bit_cast(float, (unsigned int)b.__x << 16); }
GOSIM_SHIM_ONLY(__bfloat162float)
__device__ __forceinline__ unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
GOSIM_SHIM_ONLY(__bfloat16_as_ushort)
__device__ __forceinline__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16{u}; }
GOSIM_SHIM_ONLY(__ushort_as_bfloat16)
// cuda_fp16.hpp's and cuda_bf16.hpp's __ldg: a 16-bit read-only load.
__device__ __forceinline__ __half __ldg(const __half *p) { return __half{__nvvm_ldg_us(&p->__x)}; }
__device__ __forceinline__ __nv_bfloat16 __ldg(const __nv_bfloat16 *p) { return __nv_bfloat16{__nvvm_ldg_us(&p->__x)}; }

#endif
