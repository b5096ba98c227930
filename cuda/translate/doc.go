// Package translate writes the CUDA C twin of a Go SIMT kernel: the same
// kernel the simulator (package sim) runs, for a real NVIDIA GPU.
//
// Translate takes one type-checked package and returns a Kernel for every
// kernel in it, each with a complete CUDA translation unit (Twin.Source),
// and a Diagnostic for every construct it refuses. Load does the same from
// package patterns, through golang.org/x/tools/go/packages. WriteGo writes
// the Go file that registers the twins with package twin at init, so that
// a binary carries its kernels' CUDA. Shim is the header that lets clang
// compile the CUDA without the toolkit.
//
// The translation keeps Go's meaning exactly: where C's operator means
// something else (overflow, division by zero, large shifts, NaN in min),
// the generated code calls a small helper of its prelude instead; where it
// cannot keep the meaning, it refuses. It never writes CUDA that compiles
// but computes something else.
//
// # Kernels
//
// A kernel is a package-level function whose only result is sim.Kernel and
// whose body is optional declarations, then return of the per-thread body:
//
//	func VectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
//		return func(t *sim.Thread) {
//			if i := t.GlobalX(); i < n {
//				c.Store(t, i, a.Load(t, i)+b.Load(t, i))
//			}
//		}
//	}
//
// becomes
//
//	extern "C" __global__ void VectorAdd(float *a, float *b, float *c, int n)
//
// The entry point's name is the Go name, through the same renaming as every
// identifier (see Statements: a kernel named sin is sin_), and Twin.Entry
// records it for the host. A generic kernel, ReduceSum[T float32 | int32],
// is translated once for each instance the package uses (ReduceSum[float32]
// anywhere in the package), with the entry point ReduceSum_float32; an
// instance nothing names is not translated. Parameters are buffers
// (*sim.Buffer[T] is T *) and scalars of number and bool types; a vector,
// Half or BFloat16 parameter is refused (the CUDA backend passes neither by
// value: pass the fields, or the bits, or a buffer).
// Parameters and the declarations before the body are read-only in the body:
// in the simulator every thread shares them, in CUDA each has its own copy,
// so a write would mean two different things.
//
// Package-level functions a kernel calls become __device__ functions,
// instances of generic ones per type arguments (add[float32] is
// add_float32), declared ahead of their definitions so that recursion works.
// A helper's *sim.Thread parameter is dropped (CUDA's built-in variables
// are global); several results come back in a struct. Methods are refused:
// write a function that takes the value.
//
// # Types
//
//	bool                      bool
//	int8, uint8               signed char, unsigned char
//	int16, uint16             short, unsigned short
//	int32, uint32             int, unsigned int
//	int64, uint64             long long, unsigned long long
//	int, uint                 long long, unsigned long long (Go's are 64 bits)
//	float32, float64          float, double
//	[N]T                      gosim_array<T, N>
//	*sim.Buffer[T]            T *
//
// A named type is its underlying type. A kernel parameter of type int or uint
// is the exception: it is int or unsigned int in the entry point's signature
// (the CUDA backend refuses a value that does not fit) and is widened where
// the body reads it, (long long)n, so that n*n is computed in 64 bits as in
// Go. Every variable starts at zero, as in Go.
//
// Arrays are values: gosim_array is a struct, so assignment, parameters and
// results copy it; indexing traps out of range (Go panics); == compares every
// element, each as == compares its type (gosim_eq, below for vectors and
// 16-bit floats). range over an array reads a copy, as Go's does.
//
// # Arithmetic
//
// Integers wrap as Go's do. Signed +, -, * and negation go through the
// unsigned type (gosim_add, gosim_sub, gosim_mul, gosim_neg; ++ and -- are
// gosim_inc and gosim_dec), because signed overflow is undefined in C. A
// small range analysis writes plain C instead where the operands' bounds
// prove that no overflow can happen: CUDA's built-in variables, int
// parameters, constants, variables assigned once, and counters of loops that
// only count. It changes how the C reads, never what it computes. 8- and
// 16-bit results are converted back to their type after every operation
// (C computes them in int, and unsigned short multiplication in unsigned
// int, where int could overflow).
//
// Division and remainder truncate in both languages, but a zero divisor
// traps (gosim_div, gosim_rem; Go panics), and MinInt / -1 is MinInt with
// remainder 0 (undefined in C). A constant divisor other than 0 and -1 is
// plain C. Shifts: a shift by a constant in range is plain C (a left shift
// of a signed value through the unsigned type, a right shift of a signed
// value arithmetic, as nvcc and clang define it); any other count goes
// through gosim_shl and gosim_shr, which give 0 (or the sign, for >> of a
// signed value) for a count of the width or more, and a negative signed
// count traps (gosim_count). &^ is & ~, and ^x is ~x converted to x's type.
//
// Floating point is IEEE in both. The CUDA is compiled without contraction,
// -fmad=false (every Source says so at the top; the CUDA backend passes
// it), so x*y + z is a multiply and an add, each rounded. Go's
// specification allows an implementation to fuse x*y + z into one FMA, and
// gc does so, in the simulator's kernel bodies too, on arm64 (and the other
// ports with an FMA instruction: ppc64le, s390x, riscv64, loong64) and on
// amd64 built with GOAMD64=v3 or v4; at amd64's default GOAMD64=v1, or v2,
// it never fuses. So the twin's x*y + z is bit-exact with the simulator's
// on amd64 at v1 or v2 only. Elsewhere, build the simulator with
// GOAMD64=v1 (on amd64), or write the product with an explicit conversion,
// float32(x*y) + z: the specification says a conversion rounds to its type,
// which no fusion may skip, so Go never fuses it on any target, and the
// twin computes the same. sim.Fmaf and math.FMA fuse on purpose, on every
// target: fmaf and fma, one rounding. Go's min and max on floats return a
// NaN argument and take -0 below +0 (gosim_fmin, gosim_fmax; C's fminf
// does not). Conversions between number types are C casts and round the
// same way; a float converted to an integer it does not fit is undefined in
// Go (implementation-specific) and in CUDA (which saturates) alike. NaN
// payloads may differ: the GPU makes canonical NaNs, so compare NaN results
// as NaN.
//
// Constants are folded by the type checker and written in their C type:
// 7LL, 7U, 0xffffffffU, (-9223372036854775807LL-1), floats as the shortest
// decimal that reads back to the same value (0.1f, 3.141592653589793).
//
// # Statements
//
// if/else with init statements; for in all three forms, range over an
// integer (for i := range n, for range n) and over a local array; switch with
// and without a tag, several values per case, default anywhere, init
// statements and fallthrough; break, continue (labeled or not), goto and
// return. A switch becomes an if chain (or, with fallthrough, gotos between
// case blocks), so that break leaves the switch and continue the loop around
// it, as in Go. Parallel assignment (a, b = b, a, and a, b = f(x) of a
// helper's results) goes through temporaries, in Go's two phases: the index
// operands of the targets are evaluated, with the values, before any target
// is assigned, so i, a[i] = 1, 2 stores to a[old i] (an index that reads a
// variable assigned before it in the statement, or calls a function, goes
// into a temporary, gosim_ix, first); op= and ++ follow the arithmetic
// rules; _ = x evaluates x. Every Go variable gets a C name of its own (x_1
// for an inner x := x + 1). A name that C, C++ or nvcc's headers already
// use gets an underscore, for locals, helpers and entry points alike: the
// keywords and CUDA's built-ins (new_, threadIdx_), its types (float4_,
// half_, dim3_), the math API's functions for float and double (rsqrt_,
// erfinv_, sincos_; a helper named so would redefine CUDA's) and the C
// library's functions and macros (assert_, printf_). Letters outside ASCII,
// which PTX symbols cannot hold, are written u and their code point (σ is
// u03c3).
//
// Go evaluates the calls of an expression left to right; C leaves the order
// of operands unspecified. A statement with two calls of which one has an
// effect (a store, an atomic, a barrier, or a helper that does one) is
// refused: assign the results in separate statements.
//
// # The sim API
//
// Every function and method of sim a kernel can call has a translation, or
// an entry saying it belongs to the host (TestSimAPICovered keeps this true
// as sim grows):
//
//	t.ThreadIdx.X, BlockIdx, BlockDim, GridDim   (long long)threadIdx.x, ...
//	t.LinearThreadIdx, LaneID, WarpID            gosim_tid(), % 32, / 32
//	t.GlobalX/Y/Z, GridStrideX, WarpSize         blockIdx.x*blockDim.x + threadIdx.x, ...
//	b.Load(t, i), b.Store(t, i, v)               b[i], b[i] = v
//	sim.Shared[T](t, "s", N)                     __shared__ T s[N];  (N constant)
//	sim.DynamicShared[T](t, "s")                 T *s = (T *)gosim_dynamic_smem;
//	t.SyncThreads, SyncThreadsCount/And/Or       __syncthreads, __syncthreads_count/and/or
//	t.ThreadFence, ThreadFenceBlock              __threadfence, __threadfence_block
//	sim.AtomicAdd ... AtomicXor (t, b, i, v)     atomicAdd(&b[i], v) ..., CUDA's overload of the type
//	t.SyncWarp, BallotSync, AnySync, AllSync     __syncwarp, __ballot_sync, __any_sync, __all_sync
//	t.ActiveMask                                 __activemask()
//	sim.ShflSync/Up/Down/Xor (width optional)    __shfl_sync, ...; 8- and 16-bit values through int
//	sim.MatchAnySync, MatchAllSync               __match_any_sync, __match_all_sync
//	sim.ReduceAddSync ... ReduceXorSync          __reduce_add_sync, ... (sm_80)
//	sim.Fmaf                                     fmaf
//	c.Load(t, i), c.Len() (c a sim.Constant)     name[i], n  (see Constant memory)
//
// A static shared array is named after the variable it is assigned to. A
// declaration in a loop or a branch, or in a helper called from several
// places and in loops, is one array: CUDA has one per declaration, and so
// does the simulator (one per sim.Shared call site). Every
// sim.DynamicShared declaration, of any type, is a pointer to the base of
// the one dynamic shared memory, as every extern __shared__ array is in
// CUDA: a float view and an int view of it alias, in the simulator too.
// Buffer accesses
// are not bounds-checked on the GPU (the length is not passed): an
// out-of-range index is a finding in the simulator and undefined on the
// device, where compute-sanitizer reports it. t.ActiveMask is the lanes not
// yet exited in the simulator and the lanes converged at the call on the
// hardware, which may be fewer. panic(msg) is __trap(): the kernel stops
// with an error, as in the simulator.
//
// # Vectors, Half and BFloat16, Reinterpret
//
// sim's vector types are CUDA's: sim.Float4 is float4 (and Char4, Uchar4,
// Short2, Short4, Int2, Int3, Int4, Uint2, Uint4, Float2, Float3, Double2,
// Longlong2 likewise); the fields X, Y, Z, W are x, y, z, w; a composite
// literal (missing fields zero) and sim.MakeFloat4(x, y, z, w) are
// make_float4(...). A *sim.Buffer[sim.Float4] is a float4 *, and its Load
// and Store one 16-byte access. Other struct types stay refused.
// sim.Half is __half and sim.BFloat16 __nv_bfloat16, storage types whose
// arithmetic goes through float32; the twin includes cuda_fp16.h or
// cuda_bf16.h (inside #ifndef GOSIM_SHIM_H). The conversions map one to one:
//
//	sim.Float2Half, Float2HalfRZ, RD, RU      __float2half_rn, _rz, _rd, _ru
//	sim.Half2Float                            __half2float
//	sim.HalfAsUshort, UshortAsHalf            __half_as_ushort, __ushort_as_half
//	sim.Float2BFloat16, RZ, RD, RU            __float2bfloat16_rn, _rz, _rd, _ru
//	sim.BFloat162Float                        __bfloat162float
//	sim.BFloat16AsUshort, UshortAsBFloat16    __bfloat16_as_ushort, __ushort_as_bfloat16
//	sim.Reinterpret[U](b)                     ((U *)b)
//
// Go's == on these structs is CUDA's gosim_eq from the prelude: on a vector
// every field equal (CUDA's vector types have no ==), on Half and BFloat16
// the bits equal (__half_as_ushort, __bfloat16_as_ushort), so +0 != -0 and
// a NaN equals itself, as in Go, where cuda_fp16.h's == compares IEEE
// numbers. Arrays of them compare element by element the same way.
//
// sim.Ldg on these types is __ldg, whose overloads CUDA declares for every
// vector type but the 12-byte ones: sim.Ldg of a Float3 or Int3 is the
// prelude's gosim_ldg, a read-only load of each field.
//
// # Constant memory
//
// A package-level variable made by sim.NewConstant with a constant name
// and length is a __constant__ array at file scope, declared once in each
// translation unit whose kernel (or a helper it calls) reads it:
//
//	var filter = sim.NewConstant[float32]("filter", 2*R+1)
//
//	__constant__ float filter[9];     // before the helpers and the entry point
//	filter.Load(t, i)                 filter[i]
//	filter.Len()                      9LL
//
// The name given to NewConstant is the CUDA symbol (the variable's Go
// name may differ), by which the host writes the array: Constant's
// CopyFromHost on the simulator, cudaMemcpyToSymbol in CUDA, and
// kernels.CopyToSymbol on either backend. Each twin records the constants
// it declares (twin.Twin.Constants), so that the CUDA backend writes a
// symbol into every module that declares it. The element type is any
// Storable one: numbers, vectors, Half and BFloat16. Constant memory
// cannot change during a launch, so a Load is ordered with nothing (see
// Statements). Store is refused: nvcc refuses a kernel's write to a
// __constant__ array, and the simulator reports it as ConstantWrite.
// Refused too: a constant's declaration other than var x =
// sim.NewConstant[T]("name", n) with constants (an alias of another
// constant variable, a computed name or length), a name that is not a C
// identifier or is one C, CUDA or the generated code already uses (or the
// name of the kernel, or of a helper it calls: a package function no
// kernel reading the constant calls is no clash), two
// constants of one name in a package, no elements, a constant variable
// assigned after its declaration, a constant held in a local, parameter or
// result (it is a file-scope symbol in CUDA, not a value), and a constant
// of another package.
//
// # Cooperative groups and atomic_ref
//
// Group variables are cg objects; the twin includes cooperative_groups.h
// (reduce.h, scan.h when used) and declares namespace cg =
// cooperative_groups; an AtomicRef is a cuda::atomic_ref from cuda/atomic.
// The includes stand inside #ifndef GOSIM_SHIM_H, where the shim models
// them for clang.
//
//	sim.ThisThreadBlock(t)                cg::thread_block b = cg::this_thread_block();
//	sim.TiledPartitionOf[sim.Size16](p)   cg::thread_block_tile<16> g = cg::tiled_partition<16>(p);  (p a block or tile; N <= 32)
//	sim.TiledPartition(p, 4)              cg::thread_group g = cg::tiled_partition(p, 4U);  (constant size, power of two <= 32)
//	sim.CoalescedThreads(t)               cg::coalesced_group g = cg::coalesced_threads();
//	sim.LabeledPartition, BinaryPartition cg::labeled_partition(g, label), cg::binary_partition(g, pred)
//	sim.ThisGrid(t).Sync()                cg::this_grid().sync()  (needs a cooperative launch)
//	g.Sync, ThreadRank, NumThreads, Size  g.sync(), (long long)g.thread_rank(), ...
//	g.MetaGroupRank/Size, Any, All, Ballot  g.meta_group_rank(), g.any(p) != 0, ... (tiles, coalesced groups)
//	sim.TileShfl/Up/Down/Xor(g, v, x)     g.shfl(v, x), g.shfl_up(v, x), ...
//	sim.CoalescedShfl/Up/Down(g, v, x)    g.shfl(v, x), ...
//	sim.TileMatchAny, CoalescedMatchAny   g.match_any(v)
//	sim.TileMatchAll, CoalescedMatchAll   g.match_all(v, pred), through gosim_cg_match_all
//	sim.Reduce(g, v, sim.Plus[T]{})       cg::reduce(g, v, cg::plus<T>()); Less, Greater, BitAnd, BitOr, BitXor likewise
//	sim.InclusiveScan, ExclusiveScan      cg::inclusive_scan, cg::exclusive_scan
//	grid.BlockRank, NumBlocks, IsValid    grid.block_rank(), grid.num_blocks(), grid.is_valid()
//	r := sim.NewAtomicRef(b, i, scope)    cuda::atomic_ref<T, cuda::thread_scope_X> r(b[i]);  (constant scope)
//	r.Load(t, o), Store, Exchange         r.load(cuda::memory_order_X), r.store(v, o), r.exchange(v, o)
//	r.FetchAdd ... FetchXor               r.fetch_add(v, o) ...  (Min, Max and the bit operations on integers)
//	r.CompareExchangeStrong/Weak          through gosim_cas_strong/weak: (old value, ok)
//
// A group is declared from an expression of its type; a group variable
// without one (var g sim.ThreadBlock), a composite literal, an array of
// groups, a kernel parameter of group type, a helper's group result and an
// AtomicRef passed to a helper are refused, since CUDA's have no zero value
// (or, for atomic_ref, carry the scope in the type). Collectives take 32-
// and 64-bit integers and floats; the operation of reduce and the scans is
// a literal. Refused too: tiles of more than 32 threads, a dynamic tile of
// non-constant size, ThreadGroup.MetaGroupRank/Size (cg::thread_group has
// none), CoalescedGroup.Mask, the Dim3 methods (GroupIndex, ThreadIndex,
// DimThreads, BlockIndex, DimBlocks: use t.BlockIdx and the other built-in
// vectors), loads with a release order and stores with an acquire order
// (undefined in C++), and a non-constant order or scope.
//
// # Package math
//
// math's constants fold. Its functions map to CUDA's double-precision ones;
// a kernel that computes in float32 converts, as Go makes it write
// (float32(math.Exp(float64(x)))). Exact means bit-identical to Go for every
// input; "within N ulp" is CUDA's maximum error against the correctly
// rounded result from the CUDA Programming Guide's table of double-precision
// functions (Go's own implementations are within 1 ulp of it, so the two
// may differ by one more); after rounding to float32 the results usually
// agree exactly. Special values (±0, ±Inf, NaN) follow C99 Annex F in both.
//
//	Abs              fabs                   exact
//	Ceil             ceil                   exact
//	Copysign         copysign               exact
//	Dim              gosim_dim              exact (Go's algorithm)
//	FMA              fma                    exact (one rounding)
//	Float32bits      __float_as_uint        exact
//	Float32frombits  __uint_as_float        exact
//	Float64bits      gosim_float64bits      exact
//	Float64frombits  gosim_float64frombits  exact
//	Floor            floor                  exact
//	Inf              gosim_inf              exact
//	IsInf            gosim_isinf            exact
//	IsNaN            gosim_isnan            exact
//	Max              gosim_math_max         exact (+Inf beats NaN, Max(+0, -0) = +0)
//	Min              gosim_math_min         exact (-Inf beats NaN, Min(+0, -0) = -0)
//	Mod              fmod                   exact (fmod is exact)
//	NaN              gosim_nan              exact (Go's NaN bits, 0x7FF8000000000001)
//	Nextafter        gosim_nextafter        exact (Go's algorithm)
//	Nextafter32      gosim_nextafter32      exact (Go's algorithm)
//	Remainder        remainder              exact
//	Round            round                  exact (half away from zero)
//	RoundToEven      rint                   exact
//	Signbit          gosim_signbit          exact
//	Sqrt             sqrt                   exact (correctly rounded in both)
//	Trunc            trunc                  exact
//	Cbrt             cbrt                   within 1 ulp
//	Cosh             cosh                   within 1 ulp
//	Exp              exp                    within 1 ulp
//	Exp2             exp2                   within 1 ulp
//	Expm1            expm1                  within 1 ulp
//	Log              log                    within 1 ulp
//	Log10            log10                  within 1 ulp
//	Log1p            log1p                  within 1 ulp
//	Log2             log2                   within 1 ulp
//	Tanh             tanh                   within 1 ulp
//	Acos             acos                   within 2 ulp
//	Asin             asin                   within 2 ulp
//	Atan             atan                   within 2 ulp
//	Atan2            atan2                  within 2 ulp
//	Atanh            atanh                  within 2 ulp
//	Cos              cos                    within 2 ulp
//	Erf              erf                    within 2 ulp
//	Hypot            hypot                  within 2 ulp
//	Pow              pow                    within 2 ulp
//	Sin              sin                    within 2 ulp
//	Sinh             sinh                   within 2 ulp
//	Tan              tan                    within 2 ulp
//	Acosh            acosh                  within 3 ulp
//	Asinh            asinh                  within 3 ulp
//	Erfc             erfc                   within 5 ulp
//
// math/bits: OnesCount, LeadingZeros, TrailingZeros, Len and Reverse in
// their 32-bit, 64-bit and uint forms (__popc, __clz, __ffs, __brev and
// their 64-bit forms), all exact. Other functions of math are refused;
// the refusal of a rotation or byte reversal names the shifts to write, and
// that of an 8- or 16-bit form the 32-bit one (LeadingZeros8(x) is
// LeadingZeros32(uint32(x)) - 24).
//
// # Refused
//
// Each refusal gives file:line, why in one sentence, and what to write
// instead, once per construct; a kernel with any refusal (in its body or a
// helper it calls) gets no translation. (A panic of the translator itself
// is a bug: it becomes a diagnostic at the construct being translated, and
// that kernel gets no translation.) Refused are:
//
//   - package-level variables other than sim.Constant ones, read or
//     written (host state not copied to the GPU; a write is a race the
//     simulator cannot see): use a const, a sim.Constant, or pass a buffer;
//   - writes to kernel parameters and to the declarations before the body;
//   - closures and function values, method values, methods, variadic
//     functions;
//   - kernel parameters of vector, Half and BFloat16 types (the CUDA
//     backend passes numbers, bools and buffers): pass the fields or bits;
//   - maps, slices, strings, interfaces, structs, complex numbers, uintptr,
//     pointers other than *sim.Buffer (and &x of a local);
//   - goroutines, channels, select, defer, recover, type switches and
//     assertions;
//   - allocation (new, make, append) and copy, delete, clear, print;
//   - calls into packages other than sim, math and math/bits (fmt among
//     them), and sim's host-side API (Buffer.Len: pass the length);
//   - sim.Shared with a non-constant length;
//   - several results passed straight into another call (g(f(x))), and
//     several results from a call into math/bits (bits.Mul32): assign them
//     from a helper of the kernel's package;
//   - volatile accesses of vector elements (LoadVolatile of a
//     Buffer[sim.Float4]): CUDA's vector types have no volatile copy;
//     volatile Half and BFloat16 accesses load and store their bits;
//   - two calls in one statement whose order matters (see Statements).
//
// # Output
//
// Each Source is one translation unit that nvcc compiles alone: a header
// comment naming the Go kernel and the -fmad=false requirement (with the Go
// targets whose arithmetic it matches), the prelude helpers the kernel uses
// (and only those), the helpers' result structs and forward declarations,
// the helpers, and the entry point. Go names are kept, but for the renaming
// Statements describes.
// #line directives before each statement name the Go file and line
// ("kernels/reduce.go"), so that nvcc's errors and compute-sanitizer's
// reports (with -lineinfo) point at the Go source.
package translate
