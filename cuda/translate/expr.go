package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"
)

// strip removes one pair of parentheses around a whole C expression.
func strip(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s // "(a) + (b)"
			}
		}
	}
	return s[1 : len(s)-1]
}

// valueAs translates e as a value of type t: a constant is written in t.
func (f *fn) valueAs(e ast.Expr, t types.Type) string {
	if tv := f.tr.info.Types[e]; tv.Value != nil && t != nil {
		if b := basic(t); b != nil && b.Info()&types.IsUntyped == 0 {
			return f.constant(e.Pos(), tv.Value, t)
		}
	}
	return f.expr(e)
}

// expr translates a Go expression to a C expression of the same type and
// value. Binary results are parenthesised.
func (f *fn) expr(e ast.Expr) string {
	f.tr.cur = e.Pos()
	if f.mentionsBad(e) {
		return "0" // refused where it was declared
	}
	info := f.tr.info
	tv := info.Types[e]
	if tv.Value != nil {
		t := f.resolve(tv.Type)
		if b := basic(t); b != nil && b.Info()&types.IsUntyped != 0 {
			t = types.Default(t)
		}
		return f.constant(e.Pos(), tv.Value, t)
	}
	if sel, ok := e.(*ast.SelectorExpr); ok && f.isThreadExpr(sel.X) {
		return f.selector(sel) // t.BlockDim alone gets its own message
	}
	if tv.Type != nil && !tv.IsType() {
		t := f.resolve(tv.Type)
		if _, isTuple := t.(*types.Tuple); !isTuple && !f.tr.isThread(t) {
			if b := basic(t); b != nil && b.Kind() == types.UntypedNil {
				f.errorf(e.Pos(), "nil has no meaning in a kernel (buffers are never nil there); remove the comparison")
				return "0"
			}
			if msg := f.tr.typeError(t); msg != "" {
				f.errorf(e.Pos(), "%s", msg)
				return "0"
			}
		}
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return "(" + strip(f.expr(x.X)) + ")"
	case *ast.Ident:
		return f.ident(x)
	case *ast.BinaryExpr:
		return f.binary(x)
	case *ast.UnaryExpr:
		return f.unary(x)
	case *ast.CallExpr:
		return f.call(x, false)
	case *ast.SelectorExpr:
		return f.selector(x)
	case *ast.IndexExpr:
		if _, ok := f.typeOf(x.X).Underlying().(*types.Array); ok {
			f.need("array")
			return f.expr(x.X) + "[" + f.index(x.Index) + "]"
		}
		if _, ok := f.typeOf(x.X).Underlying().(*types.Signature); ok {
			f.errorf(x.Pos(), "function values cannot run on the GPU; call the function directly")
			return "0"
		}
		if msg := f.tr.typeError(f.typeOf(x.X)); msg != "" {
			f.errorf(x.Pos(), "%s", msg)
			return "0"
		}
		f.errorf(x.Pos(), "this index expression is not translated; index a local array, or Load from a buffer")
		return "0"
	case *ast.CompositeLit:
		return f.compositeLit(x)
	case *ast.FuncLit:
		f.errorf(x.Pos(), "closures inside a kernel cannot run on the GPU; write a package-level function and call it")
		return "0"
	case *ast.SliceExpr:
		f.errorf(x.Pos(), "slices cannot be used on the GPU; index the buffer or array directly")
		return "0"
	case *ast.TypeAssertExpr:
		f.errorf(x.Pos(), "type assertions cannot run on the GPU (no interfaces); use a concrete type or a type parameter")
		return "0"
	case *ast.StarExpr:
		f.errorf(x.Pos(), "pointers other than *sim.Buffer cannot be used in a kernel; keep the value in a variable or a buffer")
		return "0"
	case *ast.BasicLit:
		f.errorf(x.Pos(), "strings cannot be used on the GPU; pass the bytes in a *sim.Buffer[uint8]")
		return "0"
	}
	f.errorf(e.Pos(), "this expression is not translated")
	return "0"
}

// readPackageVar is the refusal of a package-level variable read in a
// kernel. Go has no constant arrays: a lookup table or filter becomes a
// sim.Constant (__constant__ memory), which the simulator checks too.
const readPackageVar = "kernels cannot read package-level variables (host state, not copied to the GPU); use a const, a sim.Constant for a read-only table (a filter, a lookup table), or pass a buffer"

func (f *fn) ident(x *ast.Ident) string {
	o := f.obj(x)
	switch o := o.(type) {
	case *types.Var:
		if o.Parent() == f.tr.pkg.Scope() || o.Pkg() != f.tr.pkg {
			f.errorf(x.Pos(), "%s", readPackageVar)
			return x.Name
		}
		if f.threads[o] {
			f.errorf(x.Pos(), "the thread can only call its methods or be passed to a function; read its fields (t.ThreadIdx.X) or call its methods")
			return x.Name
		}
		name := f.names.name(o)
		if f.param32[o] {
			if isUnsigned(o.Type()) {
				return "(unsigned long long)" + name
			}
			return "(long long)" + name
		}
		return name
	case *types.Nil:
		f.errorf(x.Pos(), "nil has no meaning in a kernel (buffers are never nil there); remove the comparison")
	case *types.Func:
		f.errorf(x.Pos(), "function values cannot run on the GPU; call the function directly")
	case *types.Builtin:
		f.errorf(x.Pos(), "builtin %s must be called", x.Name)
	default:
		f.errorf(x.Pos(), "%s cannot be used as a value in a kernel", x.Name)
	}
	return x.Name
}

// constant writes a constant of type t: integers with the suffix of their C
// type, floats as the shortest decimal that reads back to the same value.
func (f *fn) constant(pos token.Pos, v constant.Value, t types.Type) string {
	b := basic(t)
	if msg := f.tr.typeError(t); msg != "" || b == nil {
		if msg == "" {
			msg = "constant of type " + t.String() + " is not translated; use a number or bool constant"
		}
		f.errorf(pos, "%s", msg)
		return "0"
	}
	switch {
	case b.Info()&types.IsBoolean != 0:
		if constant.BoolVal(v) {
			return "true"
		}
		return "false"
	case b.Info()&types.IsString != 0:
		f.errorf(pos, "strings cannot be used on the GPU; pass the bytes in a *sim.Buffer[uint8]")
		return "0"
	case b.Info()&types.IsInteger != 0:
		return intConst(constant.ToInt(v), b.Kind())
	case b.Info()&types.IsFloat != 0:
		return floatConst(constant.ToFloat(v), b.Kind() == types.Float32)
	}
	f.errorf(pos, "constant of type %s is not translated", t)
	return "0"
}

func intConst(v constant.Value, k types.BasicKind) string {
	if v.Kind() != constant.Int {
		return "0"
	}
	s := v.ExactString()
	neg := strings.HasPrefix(s, "-")
	switch k {
	case types.Int8:
		return "((signed char)" + s + ")"
	case types.Uint8:
		return "((unsigned char)" + s + ")"
	case types.Int16:
		return "((short)" + s + ")"
	case types.Uint16:
		return "((unsigned short)" + s + ")"
	case types.Int32, types.UntypedRune:
		if s == "-2147483648" {
			return "(-2147483647-1)"
		}
		if neg {
			return "(" + s + ")"
		}
		return s
	case types.Uint32:
		return hexIfLarge(v) + "U"
	case types.Uint64, types.Uint, types.Uintptr:
		return hexIfLarge(v) + "ULL"
	default: // int64, int, untyped int
		if s == "-9223372036854775808" {
			return "(-9223372036854775807LL-1)"
		}
		if neg {
			return "(" + s + "LL)"
		}
		return s + "LL"
	}
}

// hexIfLarge writes unsigned constants of 2^16 and more in hex (masks read
// better so: 0xffffffffU).
func hexIfLarge(v constant.Value) string {
	if u, ok := constant.Uint64Val(v); ok && u >= 1<<16 {
		return "0x" + strconv.FormatUint(u, 16)
	}
	return v.ExactString()
}

func floatConst(v constant.Value, f32 bool) string {
	var s string
	if f32 {
		x, _ := constant.Float32Val(v)
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	} else {
		x, _ := constant.Float64Val(v)
		s = strconv.FormatFloat(x, 'g', -1, 64)
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	if f32 {
		s += "f"
	}
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

func (f *fn) selector(x *ast.SelectorExpr) string {
	info := f.tr.info
	// t.ThreadIdx.X and the other built-in vectors.
	if inner, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && f.isThreadExpr(inner.X) {
		if c, ok := builtinVec[inner.Sel.Name]; ok {
			return "(long long)" + c + "." + strings.ToLower(x.Sel.Name)
		}
	}
	if f.isThreadExpr(x.X) {
		if _, ok := builtinVec[x.Sel.Name]; ok {
			f.errorf(x.Pos(), "%s is a Dim3 value, which kernels do not hold; use its fields: t.%s.X, .Y or .Z", x.Sel.Name, x.Sel.Name)
			return "0"
		}
	}
	if s, ok := info.Selections[x]; ok {
		if s.Kind() == types.FieldVal && f.tr.isVec(f.typeOf(x.X)) {
			return f.expr(x.X) + "." + strings.ToLower(x.Sel.Name)
		}
		switch s.Kind() {
		case types.MethodVal, types.MethodExpr:
			f.errorf(x.Pos(), "method values are not translated; call the method")
		default:
			f.errorf(x.Pos(), "struct fields are not translated; use separate variables")
		}
		return "0"
	}
	// A qualified identifier: constants were folded, so this is a variable
	// or a function of another package.
	switch info.Uses[x.Sel].(type) {
	case *types.Var:
		f.errorf(x.Pos(), "%s", readPackageVar)
	case *types.Func:
		f.errorf(x.Pos(), "function values cannot run on the GPU; call the function directly")
	default:
		f.errorf(x.Pos(), "%s is not translated", x.Sel.Name)
	}
	return "0"
}

// builtinVec are the sim.Thread fields that are CUDA's built-in variables.
var builtinVec = map[string]string{
	"ThreadIdx": "threadIdx", "BlockIdx": "blockIdx", "BlockDim": "blockDim", "GridDim": "gridDim",
}

// isThreadExpr reports whether e is the *sim.Thread variable.
func (f *fn) isThreadExpr(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	o := f.obj(id)
	return o != nil && f.threads[o]
}

func (f *fn) unary(x *ast.UnaryExpr) string {
	t := f.typeOf(x)
	switch x.Op {
	case token.ADD:
		return f.expr(x.X)
	case token.NOT:
		return "(!" + f.expr(x.X) + ")"
	case token.SUB:
		xs := f.expr(x.X)
		if isInteger(t) {
			return f.neg(t, x.X, xs)
		}
		return "(-" + xs + ")"
	case token.XOR:
		xs := f.expr(x.X)
		if small(t) {
			return "((" + f.tr.ctype(t) + ")~" + xs + ")"
		}
		return "(~" + xs + ")"
	case token.AND:
		f.errorf(x.Pos(), "pointers to local variables cannot be translated (a thread's locals are private registers on the GPU); pass the value, or keep it in a buffer")
	case token.ARROW:
		f.errorf(x.Pos(), "channels cannot run on the GPU; communicate through buffers, atomics and barriers")
	default:
		f.errorf(x.Pos(), "operator %s is not translated", x.Op)
	}
	return "0"
}

// neg is -x on an integer type, wrapping as Go does (-MinInt32 is MinInt32).
func (f *fn) neg(t types.Type, xe ast.Expr, xs string) string {
	ct := f.tr.ctype(t)
	switch {
	case small(t):
		return "((" + ct + ")-" + xs + ")"
	case isUnsigned(t):
		return "(-" + xs + ")"
	}
	if lo, _, ok := f.rangeOf(xe); ok && lo > minOf(t) {
		return "(-" + xs + ")"
	}
	f.need("intops")
	return "gosim_neg(" + strip(xs) + ")"
}

func (f *fn) binary(x *ast.BinaryExpr) string {
	switch x.Op {
	case token.LAND, token.LOR:
		return "(" + f.expr(x.X) + " " + x.Op.String() + " " + f.expr(x.Y) + ")"
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		// Operands have one type; an untyped constant side takes the other's.
		xt, yt := f.typeOf(x.X), f.typeOf(x.Y)
		if b := basic(xt); b != nil && b.Info()&types.IsUntyped != 0 {
			xt = yt
		}
		if b := basic(xt); b != nil && b.Info()&types.IsUntyped != 0 {
			xt = types.Default(xt)
		}
		return f.compare(x.Op, xt, f.valueAs(x.X, xt), f.valueAs(x.Y, xt))
	}
	t := f.typeOf(x)
	yt := f.typeOf(x.Y)
	if x.Op != token.SHL && x.Op != token.SHR {
		yt = t
	}
	xs := f.valueAs(x.X, t)
	ys := f.valueAs(x.Y, yt)
	return f.binop(x.Op, t, yt, x.X, x.Y, xs, ys, x.Pos())
}

// compare is x op y for a comparison of operands of type t. == and != are
// Go's: on sim.Half and sim.BFloat16 they compare the bits (+0 != -0, a NaN
// equals itself), where cuda_fp16.h's operators compare as IEEE numbers;
// on a vector every field is compared (CUDA's vector types have no ==),
// and on an array every element, each as its own type compares.
func (f *fn) compare(op token.Token, t types.Type, xs, ys string) string {
	if (op == token.EQL || op == token.NEQ) && f.needEq(t) {
		if usesArray(t) {
			return "(" + xs + " " + op.String() + " " + ys + ")" // gosim_array's, through gosim_eq
		}
		eq := "gosim_eq(" + strip(xs) + ", " + strip(ys) + ")"
		if op == token.NEQ {
			return "(!" + eq + ")"
		}
		return eq
	}
	return "(" + xs + " " + op.String() + " " + ys + ")"
}

// needEq asks for the prelude's gosim_eq for the vector, 16-bit float and
// array types in t, and reports whether t is one of them.
func (f *fn) needEq(t types.Type) bool {
	if a, ok := t.Underlying().(*types.Array); ok {
		f.need("array")
		f.needEq(a.Elem())
		return true
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || f.tr.simValueC(t) == "" {
		return false
	}
	switch n.Obj().Name() {
	case "Half":
		f.need("halfeq")
	case "BFloat16":
		f.need("bf16eq")
	default:
		f.need("veceq")
	}
	return true
}

// binop is x op y for an arithmetic op on operands of type t (the shift
// count has type yt), with Go's semantics: integers wrap, division by zero
// traps, shifts by the width or more give 0 or the sign.
func (f *fn) binop(op token.Token, t, yt types.Type, xe, ye ast.Expr, xs, ys string, pos token.Pos) string {
	ct := f.tr.ctype(t)
	plain := "(" + xs + " " + op.String() + " " + ys + ")"
	if isFloat(t) {
		return plain
	}
	if !isInteger(t) {
		f.errorf(pos, "operator %s on %s is not translated", op, t)
		return "0"
	}
	cast := func(s string) string {
		if small(t) {
			return "((" + ct + ")" + s + ")"
		}
		return s
	}
	// wide is the C type small operands are computed in.
	wide := "int"
	if isUnsigned(t) {
		wide = "unsigned int"
	}
	switch op {
	case token.ADD, token.SUB, token.MUL:
		if small(t) {
			if op == token.MUL && basic(t).Kind() == types.Uint16 {
				// 65535*65535 overflows C's int, which unsigned short promotes to.
				return "((" + ct + ")((unsigned int)" + xs + " * (unsigned int)" + ys + "))"
			}
			return cast(plain)
		}
		if isUnsigned(t) {
			return plain
		}
		if f.fits(op, t, xe, ye) {
			return plain
		}
		f.need("intops")
		name := map[token.Token]string{token.ADD: "gosim_add", token.SUB: "gosim_sub", token.MUL: "gosim_mul"}[op]
		return name + "(" + strip(xs) + ", " + strip(ys) + ")"
	case token.QUO, token.REM:
		if f.safeDivisor(t, xe, ye) {
			return cast(plain)
		}
		f.need("div")
		name := "gosim_div"
		if op == token.REM {
			name = "gosim_rem"
		}
		if isUnsigned(t) {
			name = strings.Replace(name, "gosim_", "gosim_u", 1)
		}
		if small(t) {
			return "((" + ct + ")" + name + "((" + wide + ")" + xs + ", (" + wide + ")" + ys + "))"
		}
		return name + "(" + strip(xs) + ", " + strip(ys) + ")"
	case token.AND, token.OR, token.XOR:
		return cast(plain)
	case token.AND_NOT:
		return cast("(" + xs + " & ~" + ys + ")")
	case token.SHL, token.SHR:
		bits := intBits(t)
		if c, ok := f.constCount(ye); ok && c < uint64(bits) {
			ys = strconv.FormatUint(c, 10)
			if op == token.SHR {
				return cast("(" + xs + " >> " + ys + ")")
			}
			if isUnsigned(t) && !small(t) {
				return "(" + xs + " << " + ys + ")"
			}
			// Shift the bits as unsigned: a signed C shift into or past the
			// sign bit is undefined, Go's wraps.
			u := "unsigned int"
			if bits == 64 {
				u = "unsigned long long"
			}
			return "((" + ct + ")((" + u + ")" + xs + " << " + ys + "))"
		}
		f.need("shift")
		count := "(unsigned long long)" + ys
		if isUnsigned(yt) && intBits(yt) == 64 {
			count = strip(ys)
		}
		if c, ok := f.constCount(ye); ok {
			count = strconv.FormatUint(c, 10) + "ULL" // Go refuses negative constant counts
		} else if !isUnsigned(yt) {
			count = "gosim_count(" + strip(ys) + ")"
		}
		name := "gosim_shl"
		if op == token.SHR {
			name = "gosim_shr"
		}
		if small(t) {
			return "((" + ct + ")" + name + "((" + wide + ")" + xs + ", " + count + "))"
		}
		return name + "(" + strip(xs) + ", " + count + ")"
	}
	f.errorf(pos, "operator %s is not translated", op)
	return "0"
}

// constCount is a constant shift count.
func (f *fn) constCount(e ast.Expr) (uint64, bool) {
	if e == nil {
		return 0, false
	}
	v := f.tr.info.Types[e].Value
	if v == nil {
		return 0, false
	}
	c, ok := constant.Uint64Val(constant.ToInt(v))
	return c, ok
}

// compositeLit is an array literal: gosim_array<T, N>{{e0, e1, ...}}.
func (f *fn) compositeLit(x *ast.CompositeLit) string {
	t := f.typeOf(x)
	arr, ok := t.Underlying().(*types.Array)
	if !ok && f.tr.isVec(t) {
		return f.vecLit(x, t)
	}
	if !ok && f.tr.simValueC(t) != "" && len(x.Elts) == 0 {
		return f.tr.zero(t) // sim.Half{}: its fields are sim's own, so only the zero value
	}
	if !ok {
		if msg := f.tr.typeError(t); msg != "" {
			f.errorf(x.Pos(), "%s", msg)
		} else if f.tr.isCoop(t) {
			f.errorf(x.Pos(), "a %s has no zero value in CUDA; create it with its constructor (sim.ThisThreadBlock(t), ...)", types.TypeString(t, f.tr.qualifier))
		} else {
			f.errorf(x.Pos(), "only array literals are translated")
		}
		return "0"
	}
	f.need("array")
	elems := map[int64]string{}
	var n, max int64
	for _, e := range x.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			k, _ := constant.Int64Val(constant.ToInt(f.tr.info.Types[kv.Key].Value))
			n = k
			e = kv.Value
		}
		elems[n] = strip(f.valueAs(e, arr.Elem()))
		n++
		if n > max {
			max = n
		}
	}
	var parts []string
	for i := range max {
		if s, ok := elems[i]; ok {
			parts = append(parts, s)
		} else {
			parts = append(parts, f.tr.zero(arr.Elem()))
		}
	}
	return f.tr.ctype(t) + "{{" + strings.Join(parts, ", ") + "}}"
}

// minOf is the smallest value of a signed integer type.
func minOf(t types.Type) int64 {
	switch intBits(t) {
	case 8:
		return math.MinInt8
	case 16:
		return math.MinInt16
	case 32:
		return math.MinInt32
	}
	return math.MinInt64
}

// index is an index expression: a constant as a plain literal.
func (f *fn) index(e ast.Expr) string {
	if tmp, ok := f.frozen[e]; ok {
		return tmp
	}
	if v := f.tr.info.Types[e].Value; v != nil {
		if x, ok := constant.Int64Val(constant.ToInt(v)); ok && x >= 0 && x <= math.MaxInt32 {
			return strconv.FormatInt(x, 10)
		}
	}
	return strip(f.expr(e))
}
