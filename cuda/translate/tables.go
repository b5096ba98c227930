package translate

import (
	"fmt"
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// simCall is the translation of one kernel-facing sim function or method.
type simCall struct {
	c     string // the CUDA it becomes, for the reader (and the name reserved)
	class callClass
	emit  func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string
}

// simCalls maps every sim function and method a kernel may call to its
// CUDA. It is filled in init because the emitters call back into the
// translator. TestSimAPICovered fails when sim gains a function that takes a
// *sim.Thread, or a Buffer or Thread method, that is in neither this table
// nor simHostOnly.
var simCalls map[string]simCall

// simHostOnly are the sim functions and methods that touch a Thread or a
// Buffer but belong to the host, with what to write in a kernel instead.
var simHostOnly = map[string]string{
	"Buffer.Len":          "a buffer's length is host state; pass the length as a kernel parameter",
	"Buffer.Name":         "names are for reports; kernels cannot use strings",
	"Buffer.SetName":      "names are for reports; set them on the host",
	"Buffer.Space":        "the space is known where the buffer is made; pass what the kernel needs as a parameter",
	"Buffer.Free":         "free buffers on the host after the launch",
	"Buffer.CopyFromHost": "copy on the host before the launch",
	"Buffer.CopyToHost":   "copy on the host after the launch",
	"Buffer.ToHost":       "copy on the host after the launch",
	"Buffer.Memset":       "memset on the host before the launch, or Store zeros in the kernel",
	"Buffer.MemsetBytes":  "memset on the host before the launch, or Store zeros in the kernel",
	"Copy":                "copy on the host between launches, or Load and Store in the kernel",

	"Constant.Name":           "names are for the host (the CUDA symbol); kernels cannot use strings",
	"Constant.CopyFromHost":   "the host writes a constant before the launch (cudaMemcpyToSymbol; kernels.CopyToSymbol on any backend)",
	"Constant.CopyFromHostAt": "the host writes a constant before the launch (cudaMemcpyToSymbol; kernels.CopyToSymbol on any backend)",
}

func init() {
	u32, b, i := types.Uint32, types.Bool, types.Int
	simCalls = map[string]simCall{
		"Thread.SyncThreads":      {"__syncthreads()", classEffect, fixed("__syncthreads()")},
		"Thread.SyncThreadsCount": {"__syncthreads_count(pred)", classEffect, fixed("((long long)__syncthreads_count(%0))", b)},
		"Thread.SyncThreadsAnd":   {"__syncthreads_and(pred) != 0", classEffect, fixed("(__syncthreads_and(%0) != 0)", b)},
		"Thread.SyncThreadsOr":    {"__syncthreads_or(pred) != 0", classEffect, fixed("(__syncthreads_or(%0) != 0)", b)},
		"Thread.ThreadFence":      {"__threadfence()", classEffect, fixed("__threadfence()")},
		"Thread.ThreadFenceBlock": {"__threadfence_block()", classEffect, fixed("__threadfence_block()")},
		"Thread.SyncWarp":         {"__syncwarp(mask)", classEffect, fixed("__syncwarp(%0)", u32)},
		"Thread.BallotSync":       {"__ballot_sync(mask, pred)", classLoad, fixed("__ballot_sync(%0, %1)", u32, b)},
		"Thread.AnySync":          {"__any_sync(mask, pred) != 0", classLoad, fixed("(__any_sync(%0, %1) != 0)", u32, b)},
		"Thread.AllSync":          {"__all_sync(mask, pred) != 0", classLoad, fixed("(__all_sync(%0, %1) != 0)", u32, b)},
		"Thread.ActiveMask":       {"__activemask()", classNone, fixed("__activemask()")},
		"Thread.LaneID":           {"gosim_tid() % 32", classNone, fixed("(gosim_tid() % 32)")},
		"Thread.WarpID":           {"gosim_tid() / 32", classNone, fixed("(gosim_tid() / 32)")},
		"Thread.LinearThreadIdx":  {"gosim_tid()", classNone, fixed("gosim_tid()")},
		"Thread.GlobalX":          {"blockIdx.x*blockDim.x + threadIdx.x", classNone, fixed("((long long)blockIdx.x * blockDim.x + threadIdx.x)")},
		"Thread.GlobalY":          {"blockIdx.y*blockDim.y + threadIdx.y", classNone, fixed("((long long)blockIdx.y * blockDim.y + threadIdx.y)")},
		"Thread.GlobalZ":          {"blockIdx.z*blockDim.z + threadIdx.z", classNone, fixed("((long long)blockIdx.z * blockDim.z + threadIdx.z)")},
		"Thread.GridStrideX":      {"blockDim.x*gridDim.x", classNone, fixed("((long long)blockDim.x * gridDim.x)")},
		"Thread.WarpSize":         {"warpSize", classNone, fixed("((long long)warpSize)")},

		"Buffer.Load":  {"b[i]", classLoad, emitLoad},
		"Buffer.Store": {"b[i] = v", classEffect, emitStore},

		// Constant memory cannot change during a launch: its loads are
		// ordered with nothing.
		"Constant.Load":  {"name[i]", classNone, emitConstLoad},
		"Constant.Len":   {"n", classNone, emitConstLen},
		"Constant.Store": {"refused", classEffect, emitConstStore},

		"Shared":        {"__shared__ T name[n]", classNone, emitSharedMisplaced},
		"Shared2D":      {"__shared__ T name[rows][cols]", classNone, emitSharedMisplaced},
		"SharedVar":     {"__shared__ T name", classNone, emitSharedMisplaced},
		"Buffer.View":   {"(b + off)", classNone, emitView},
		"Buffer.Offset": {"(b + off)", classNone, emitView},
		"Ldg":           {"__ldg(&b[i])", classLoad, emitLdg},
		"DynamicShared": {"extern __shared__ ... T *name", classNone, emitSharedMisplaced},

		"AtomicAdd":  {"atomicAdd", classEffect, atomicEmit("atomicAdd")},
		"AtomicSub":  {"atomicSub", classEffect, atomicEmit("atomicSub")},
		"AtomicExch": {"atomicExch", classEffect, atomicEmit("atomicExch")},
		"AtomicMin":  {"atomicMin", classEffect, atomicEmit("atomicMin")},
		"AtomicMax":  {"atomicMax", classEffect, atomicEmit("atomicMax")},
		"AtomicInc":  {"atomicInc", classEffect, atomicEmit("atomicInc")},
		"AtomicDec":  {"atomicDec", classEffect, atomicEmit("atomicDec")},
		"AtomicCAS":  {"atomicCAS", classEffect, atomicEmit("atomicCAS")},
		"AtomicAnd":  {"atomicAnd", classEffect, atomicEmit("atomicAnd")},
		"AtomicOr":   {"atomicOr", classEffect, atomicEmit("atomicOr")},
		"AtomicXor":  {"atomicXor", classEffect, atomicEmit("atomicXor")},

		"ShflSync":     {"__shfl_sync", classLoad, shflEmit("__shfl_sync")},
		"ShflUpSync":   {"__shfl_up_sync", classLoad, shflEmit("__shfl_up_sync")},
		"ShflDownSync": {"__shfl_down_sync", classLoad, shflEmit("__shfl_down_sync")},
		"ShflXorSync":  {"__shfl_xor_sync", classLoad, shflEmit("__shfl_xor_sync")},
		"MatchAnySync": {"__match_any_sync", classLoad, emitMatchAny},
		"MatchAllSync": {"__match_all_sync", classLoad, emitMatchAll},

		"ReduceAddSync": {"__reduce_add_sync", classLoad, reduceEmit("__reduce_add_sync")},
		"ReduceMinSync": {"__reduce_min_sync", classLoad, reduceEmit("__reduce_min_sync")},
		"ReduceMaxSync": {"__reduce_max_sync", classLoad, reduceEmit("__reduce_max_sync")},
		"ReduceAndSync": {"__reduce_and_sync", classLoad, reduceEmit("__reduce_and_sync")},
		"ReduceOrSync":  {"__reduce_or_sync", classLoad, reduceEmit("__reduce_or_sync")},
		"ReduceXorSync": {"__reduce_xor_sync", classLoad, reduceEmit("__reduce_xor_sync")},

		"Fmaf": {"fmaf", classNone, emitFmaf},
	}
	_ = i
}

func emitLoad(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
	return f.expr(recv) + "[" + f.index(c.Args[1]) + "]"
}

func emitStore(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	e, _ := f.tr.isBuffer(f.typeOf(recv))
	if !stmt {
		f.errorf(c.Pos(), "Store has no value")
		return "0"
	}
	return f.expr(recv) + "[" + f.index(c.Args[1]) + "] = " + strip(f.valueAs(c.Args[2], e))
}

// emitView is b.View(off, n) and b.Offset(off): the pointer b + off (the
// length is the simulator's bounds check).
func emitView(f *fn, c *ast.CallExpr, recv ast.Expr, _ bool) string {
	return "(" + f.expr(recv) + " + " + f.index(c.Args[0]) + ")"
}

// emitLdg is sim.Ldg(t, b, i): a read-only load, __ldg(&b[i]). CUDA has
// __ldg for every element type sim.Ldg takes but the 12-byte vectors,
// float3 and int3, which the prelude's gosim_ldg loads one field at a time.
func emitLdg(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	e, _ := f.tr.isBuffer(f.typeOf(c.Args[1]))
	if n, ok := types.Unalias(e).(*types.Named); ok && f.tr.isVec(e) && (n.Obj().Name() == "Float3" || n.Obj().Name() == "Int3") {
		f.need("ldg3")
		return "gosim_ldg(&" + f.expr(c.Args[1]) + "[" + f.index(c.Args[2]) + "])"
	}
	return "__ldg(&" + f.expr(c.Args[1]) + "[" + f.index(c.Args[2]) + "])"
}

func emitSharedMisplaced(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	f.errorf(c.Pos(), "a shared array is declared by assigning the call to a new variable, which names the array in CUDA; write x := sim.Shared[T](t, \"x\", n) (anywhere in the body); to choose between arrays, declare each and choose a pointer: a := sim.Shared...; b := sim.Shared...; x := a; if cond { x = b }")
	return "0"
}

func emitMatchAny(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	t := f.typeOf(c.Args[2])
	mask := strip(f.valueAs(c.Args[1], types.Typ[types.Uint32]))
	v := f.valueAs(c.Args[2], t)
	if small(t) {
		return "__match_any_sync(" + mask + ", (int)" + v + ")"
	}
	return "__match_any_sync(" + mask + ", " + strip(v) + ")"
}

// emitMatchAll is m, ok := sim.MatchAllSync(t, mask, v): CUDA returns the
// predicate through a pointer, which the prelude's gosim_match_all turns
// into a second result.
func emitMatchAll(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	t := f.typeOf(c.Args[2])
	mask := strip(f.valueAs(c.Args[1], types.Typ[types.Uint32]))
	v := strip(f.valueAs(c.Args[2], t))
	if small(t) {
		v = "(int)" + f.valueAs(c.Args[2], t)
	}
	f.need("matchall")
	f.lastRes = "gosim_match_all_res"
	return "gosim_match_all(" + mask + ", " + v + ")"
}

// reduceEmit translates the warp reductions (int32 and uint32 only, as CUDA's).
func reduceEmit(cname string) func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		t := f.typeOf(c)
		return cname + "(" + strip(f.valueAs(c.Args[1], types.Typ[types.Uint32])) + ", " + strip(f.valueAs(c.Args[2], t)) + ")"
	}
}

func emitFmaf(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	var args []string
	for _, a := range c.Args {
		args = append(args, strip(f.valueAs(a, types.Typ[types.Float32])))
	}
	return "fmaf(" + strings.Join(args, ", ") + ")"
}

// mathFunc is the translation of one function of package math.
type mathFunc struct {
	c    string // the CUDA function, or prelude helper, called with the Go arguments
	need string // the prelude helper it is
	ulp  string // how the CUDA result relates to Go's
}

const exact = "exact: bit-identical to Go"

// mathFuncs maps the math package's functions to CUDA. The ulp bounds of
// the inexact ones are the CUDA Programming Guide's maximum errors of the
// double-precision functions (against the correctly rounded result); Go's
// own implementations are within one ulp of it, so the two may differ by
// one more ulp. Special values (±0, ±Inf, NaN) follow C99 Annex F in both.
var mathFuncs = map[string]mathFunc{
	"Sqrt":            {c: "sqrt", ulp: exact + " (IEEE, correctly rounded in both)"},
	"Abs":             {c: "fabs", ulp: exact},
	"Floor":           {c: "floor", ulp: exact},
	"Ceil":            {c: "ceil", ulp: exact},
	"Trunc":           {c: "trunc", ulp: exact},
	"Round":           {c: "round", ulp: exact + " (half away from zero)"},
	"RoundToEven":     {c: "rint", ulp: exact + " (round-to-nearest-even mode)"},
	"Copysign":        {c: "copysign", ulp: exact},
	"FMA":             {c: "fma", ulp: exact + " (one rounding)"},
	"Mod":             {c: "fmod", ulp: exact + " (fmod is exact)"},
	"Remainder":       {c: "remainder", ulp: exact + " (IEEE remainder is exact)"},
	"Signbit":         {c: "gosim_signbit", need: "float", ulp: exact},
	"IsNaN":           {c: "gosim_isnan", need: "float", ulp: exact},
	"IsInf":           {c: "gosim_isinf", need: "float", ulp: exact},
	"Inf":             {c: "gosim_inf", need: "float", ulp: exact},
	"NaN":             {c: "gosim_nan", need: "float", ulp: exact + " (Go's NaN bits, 0x7FF8000000000001)"},
	"Float32bits":     {c: "__float_as_uint", ulp: exact},
	"Float32frombits": {c: "__uint_as_float", ulp: exact},
	"Float64bits":     {c: "gosim_float64bits", need: "float", ulp: exact},
	"Float64frombits": {c: "gosim_float64frombits", need: "float", ulp: exact},
	"Max":             {c: "gosim_math_max", need: "float", ulp: exact + " (Go's rules: +Inf beats NaN, Max(+0, -0) = +0)"},
	"Min":             {c: "gosim_math_min", need: "float", ulp: exact + " (Go's rules: -Inf beats NaN, Min(+0, -0) = -0)"},
	"Dim":             {c: "gosim_dim", need: "float", ulp: exact + " (Go's algorithm)"},
	"Nextafter":       {c: "gosim_nextafter", need: "float", ulp: exact + " (Go's algorithm)"},
	"Nextafter32":     {c: "gosim_nextafter32", need: "float", ulp: exact + " (Go's algorithm)"},
	"Exp":             {c: "exp", ulp: "CUDA within 1 ulp"},
	"Exp2":            {c: "exp2", ulp: "CUDA within 1 ulp"},
	"Expm1":           {c: "expm1", ulp: "CUDA within 1 ulp"},
	"Log":             {c: "log", ulp: "CUDA within 1 ulp"},
	"Log2":            {c: "log2", ulp: "CUDA within 1 ulp"},
	"Log10":           {c: "log10", ulp: "CUDA within 1 ulp"},
	"Log1p":           {c: "log1p", ulp: "CUDA within 1 ulp"},
	"Pow":             {c: "pow", ulp: "CUDA within 2 ulp"},
	"Sin":             {c: "sin", ulp: "CUDA within 2 ulp"},
	"Cos":             {c: "cos", ulp: "CUDA within 2 ulp"},
	"Tan":             {c: "tan", ulp: "CUDA within 2 ulp"},
	"Asin":            {c: "asin", ulp: "CUDA within 2 ulp"},
	"Acos":            {c: "acos", ulp: "CUDA within 2 ulp"},
	"Atan":            {c: "atan", ulp: "CUDA within 2 ulp"},
	"Atan2":           {c: "atan2", ulp: "CUDA within 2 ulp"},
	"Sinh":            {c: "sinh", ulp: "CUDA within 2 ulp"},
	"Cosh":            {c: "cosh", ulp: "CUDA within 1 ulp"},
	"Tanh":            {c: "tanh", ulp: "CUDA within 1 ulp"},
	"Asinh":           {c: "asinh", ulp: "CUDA within 3 ulp"},
	"Acosh":           {c: "acosh", ulp: "CUDA within 3 ulp"},
	"Atanh":           {c: "atanh", ulp: "CUDA within 2 ulp"},
	"Erf":             {c: "erf", ulp: "CUDA within 2 ulp"},
	"Erfc":            {c: "erfc", ulp: "CUDA within 5 ulp"},
	"Cbrt":            {c: "cbrt", ulp: "CUDA within 1 ulp"},
	"Hypot":           {c: "hypot", ulp: "CUDA within 2 ulp"},
}

// bitsFunc is the translation of one function of math/bits; %s is the
// argument.
type bitsFunc struct {
	c    string
	need string
}

var bitsFuncs = map[string]bitsFunc{
	"OnesCount32":     {c: "((long long)__popc(%s))"},
	"OnesCount64":     {c: "((long long)__popcll(%s))"},
	"OnesCount":       {c: "((long long)__popcll(%s))"},
	"LeadingZeros32":  {c: "((long long)__clz((int)%s))"},
	"LeadingZeros64":  {c: "((long long)__clzll((long long)%s))"},
	"LeadingZeros":    {c: "((long long)__clzll((long long)%s))"},
	"Len32":           {c: "(32LL - (long long)__clz((int)%s))"},
	"Len64":           {c: "(64LL - (long long)__clzll((long long)%s))"},
	"Len":             {c: "(64LL - (long long)__clzll((long long)%s))"},
	"TrailingZeros32": {c: "gosim_ctz32(%s)", need: "bits"},
	"TrailingZeros64": {c: "gosim_ctz64(%s)", need: "bits"},
	"TrailingZeros":   {c: "gosim_ctz64(%s)", need: "bits"},
	"Reverse32":       {c: "__brev(%s)"},
	"Reverse64":       {c: "__brevll(%s)"},
	"Reverse":         {c: "__brevll(%s)"},
}

// bitsRewrite says what to write instead of the function name of
// math/bits, which has no translation: a rotation or a byte reversal with
// shifts, an 8- or 16-bit form through the 32-bit one (TestBitsRewrites
// checks each formula against math/bits).
func bitsRewrite(name string) string {
	base := strings.TrimRight(name, "0123456789")
	width := name[len(base):]
	switch {
	case base == "RotateLeft":
		if width == "" {
			width = "64" // uint is 64 bits in the twin
		}
		w, _ := strconv.Atoi(width)
		return fmt.Sprintf("write the rotation with shifts, x<<s | x>>(%d-s) with s := uint(k) & %d (a shift by %d gives 0 in Go, and in the twin)", w, w-1, w)
	case base == "ReverseBytes":
		return "write it with shifts and masks (x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24 for a uint32, x>>8 | x<<8 for a uint16)"
	case width == "8" || width == "16":
		w, _ := strconv.Atoi(width)
		switch base {
		case "OnesCount", "Len":
			return fmt.Sprintf("use the 32-bit form, bits.%s32(uint32(x))", base)
		case "LeadingZeros":
			return fmt.Sprintf("use the 32-bit form, bits.LeadingZeros32(uint32(x)) - %d", 32-w)
		case "TrailingZeros":
			return fmt.Sprintf("use the 32-bit form, min(bits.TrailingZeros32(uint32(x)), %d)", w)
		case "Reverse":
			return fmt.Sprintf("use the 32-bit form, uint%d(bits.Reverse32(uint32(x)) >> %d)", w, 32-w)
		}
	}
	return "use OnesCount, LeadingZeros, TrailingZeros, Len or Reverse (their 32-bit, 64-bit and uint forms), or write the computation out"
}
