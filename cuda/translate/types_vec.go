package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"sort"
	"strings"
)

// vecC maps sim's vector types to CUDA's (sim/vector.go): the fields X, Y,
// Z, W are CUDA's x, y, z, w, and a composite literal or sim.MakeT call is
// make_t. A buffer of them is a T *, and a Load or Store one access.
var vecC = map[string]string{
	"Char4": "char4", "Uchar4": "uchar4", "Short2": "short2", "Short4": "short4",
	"Int2": "int2", "Int3": "int3", "Int4": "int4", "Uint2": "uint2", "Uint4": "uint4",
	"Float2": "float2", "Float3": "float3", "Float4": "float4",
	"Double2": "double2", "Longlong2": "longlong2",
}

// halfC maps sim.Half and sim.BFloat16 to cuda_fp16.h's and cuda_bf16.h's
// storage types.
var halfC = map[string]string{"Half": "__half", "BFloat16": "__nv_bfloat16"}

// simValueC is the C type of a sim vector or 16-bit float type, or "".
func (tr *translator) simValueC(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || !tr.isSim(n.Obj()) {
		return ""
	}
	if c, ok := vecC[n.Obj().Name()]; ok {
		return c
	}
	return halfC[n.Obj().Name()]
}

// isVec reports whether t is a sim vector type.
func (tr *translator) isVec(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && tr.isSim(n.Obj()) && vecC[n.Obj().Name()] != ""
}

// vecLit is a vector composite literal: make_t with every field, the
// missing ones zero.
func (f *fn) vecLit(x *ast.CompositeLit, t types.Type) string {
	st := t.Underlying().(*types.Struct)
	vals := make([]string, st.NumFields())
	for i := range vals {
		vals[i] = f.constant(x.Pos(), constant.MakeInt64(0), st.Field(i).Type())
	}
	for i, e := range x.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			name := kv.Key.(*ast.Ident).Name
			for j := range st.NumFields() {
				if st.Field(j).Name() == name {
					vals[j] = strip(f.valueAs(kv.Value, st.Field(j).Type()))
				}
			}
			continue
		}
		vals[i] = strip(f.valueAs(e, st.Field(i).Type()))
	}
	return "make_" + f.tr.simValueC(t) + "(" + strings.Join(vals, ", ") + ")"
}

// emitMake is sim.MakeT(x, y, ...): make_t(x, y, ...).
func emitMake(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	t := f.typeOf(c)
	st := t.Underlying().(*types.Struct)
	var vals []string
	for i, a := range c.Args {
		vals = append(vals, strip(f.valueAs(a, st.Field(i).Type())))
	}
	return "make_" + f.tr.simValueC(t) + "(" + strings.Join(vals, ", ") + ")"
}

// pureCall is a sim function of one value, without a thread: cname(v).
func pureCall(cname string) func(f *fn, c *ast.CallExpr, recv ast.Expr, stmt bool) string {
	return func(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
		sig := f.typeOf(c.Fun).(*types.Signature)
		return cname + "(" + strip(f.valueAs(c.Args[0], sig.Params().At(0).Type())) + ")"
	}
}

// emitReinterpret is sim.Reinterpret[U](b): the pointer cast (U *)b.
func emitReinterpret(f *fn, c *ast.CallExpr, _ ast.Expr, _ bool) string {
	return "((" + f.tr.ctype(f.typeOf(c)) + ")" + f.expr(c.Args[0]) + ")"
}

// vecEqText is the prelude's gosim_eq for every vector type: Go's == on a
// struct, every field equal as its type compares (floats as IEEE numbers).
func vecEqText() string {
	var names []string
	for g := range vecC {
		names = append(names, g)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// Go's == on sim's vector types: every field equal (floats as IEEE numbers).\n")
	for _, g := range names {
		c := vecC[g]
		n := int(g[len(g)-1] - '0')
		var parts []string
		for _, fld := range []string{"x", "y", "z", "w"}[:n] {
			parts = append(parts, "a."+fld+" == b."+fld)
		}
		fmt.Fprintf(&b, "__device__ __forceinline__ bool gosim_eq(const %s &a, const %s &b) { return %s; }\n", c, c, strings.Join(parts, " && "))
	}
	return b.String()
}

func init() {
	for g, c := range vecC {
		simCalls["Make"+g] = simCall{"make_" + c, classNone, emitMake}
	}
	for g, c := range map[string]string{
		"Float2Half": "__float2half_rn", "Float2HalfRZ": "__float2half_rz", "Float2HalfRD": "__float2half_rd", "Float2HalfRU": "__float2half_ru",
		"Half2Float": "__half2float", "HalfAsUshort": "__half_as_ushort", "UshortAsHalf": "__ushort_as_half",
		"Float2BFloat16": "__float2bfloat16_rn", "Float2BFloat16RZ": "__float2bfloat16_rz", "Float2BFloat16RD": "__float2bfloat16_rd", "Float2BFloat16RU": "__float2bfloat16_ru",
		"BFloat162Float": "__bfloat162float", "BFloat16AsUshort": "__bfloat16_as_ushort", "UshortAsBFloat16": "__ushort_as_bfloat16",
	} {
		simCalls[g] = simCall{c, classNone, pureCall(c)}
	}
	simCalls["Reinterpret"] = simCall{"(U *)b", classNone, emitReinterpret}
	prelude = append([]struct{ name, deps, text string }{
		{"fp16", "", "#ifndef GOSIM_SHIM_H\n#include <cuda_fp16.h>\n#endif\n"},
		{"bf16", "", "#ifndef GOSIM_SHIM_H\n#include <cuda_bf16.h>\n#endif\n"},
		{"veceq", "", vecEqText()},
		{"halfeq", "fp16", `// Go's == on sim.Half compares the bits: +0 != -0, and a NaN equals itself
// (cuda_fp16.h's == compares as IEEE numbers).
__device__ __forceinline__ bool gosim_eq(__half a, __half b) { return __half_as_ushort(a) == __half_as_ushort(b); }
`},
		{"bf16eq", "bf16", `// Go's == on sim.BFloat16 compares the bits: +0 != -0, and a NaN equals
// itself (cuda_bf16.h's == compares as IEEE numbers).
__device__ __forceinline__ bool gosim_eq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat16_as_ushort(a) == __bfloat16_as_ushort(b); }
`},
	}, prelude...)
	prelude = append(prelude, struct{ name, deps, text string }{"ldg3", "", `// CUDA has no __ldg for the 12-byte vectors: a read-only load of each field.
__device__ __forceinline__ float3 gosim_ldg(const float3 *p) { return make_float3(__ldg(&p->x), __ldg(&p->y), __ldg(&p->z)); }
__device__ __forceinline__ int3 gosim_ldg(const int3 *p) { return make_int3(__ldg(&p->x), __ldg(&p->y), __ldg(&p->z)); }
`})
	devicePrelude["ldg3"] = true
	devicePrelude["veceq"] = true
	devicePrelude["halfeq"] = true
	devicePrelude["bf16eq"] = true
	devicePrelude["fp16"] = true // headers of the toolkit, not host C++
	devicePrelude["bf16"] = true
}
