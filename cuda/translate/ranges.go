package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"math/bits"
	"strconv"
)

// The range analysis proves that a signed operation cannot overflow, so that
// it may be written as plain C (where signed overflow is undefined) instead
// of through the wrapping helpers. It knows the bounds of CUDA's built-in
// variables, of 32-bit kernel parameters widened to 64 bits, of variables
// assigned once, and of counters of loops that only count; everything else
// is unknown, and an unknown operand keeps the helper. It only ever changes
// how the C reads, never what it computes.

type rng struct{ lo, hi int64 }

// Limits of CUDA's built-in variables on every architecture gosim targets.
var builtinRange = map[string]rng{
	"threadIdx.x": {0, 1023}, "threadIdx.y": {0, 1023}, "threadIdx.z": {0, 63},
	"blockDim.x": {1, 1024}, "blockDim.y": {1, 1024}, "blockDim.z": {1, 64},
	"blockIdx.x": {0, math.MaxInt32 - 1}, "blockIdx.y": {0, 65534}, "blockIdx.z": {0, 65534},
	"gridDim.x": {1, math.MaxInt32}, "gridDim.y": {1, 65535}, "gridDim.z": {1, 65535},
}

var threadMethodRange = map[string]rng{
	"LaneID": {0, 31}, "WarpID": {0, 31}, "LinearThreadIdx": {0, 1023}, "WarpSize": {32, 32},
	"GlobalX": {0, (math.MaxInt32-1)*1024 + 1023}, "GlobalY": {0, 65534*1024 + 1023}, "GlobalZ": {0, 65534*64 + 63},
	"GridStrideX": {1, math.MaxInt32 * 1024},
}

// typeRange is the range of an integer type narrower than 64 bits.
func typeRange(t types.Type) (rng, bool) {
	if !isInteger(t) {
		return rng{}, false
	}
	n := intBits(t)
	if n == 64 {
		return rng{}, false
	}
	if isUnsigned(t) {
		return rng{0, 1<<n - 1}, true
	}
	return rng{-1 << (n - 1), 1<<(n-1) - 1}, true
}

// fitsType reports whether r lies within t's values.
func fitsType(r rng, t types.Type) bool {
	if tr, ok := typeRange(t); ok {
		return r.lo >= tr.lo && r.hi <= tr.hi
	}
	if isUnsigned(t) {
		return r.lo >= 0
	}
	return true // int64: r is an int64 range already
}

func (f *fn) rangeOf(e ast.Expr) (int64, int64, bool) {
	r, ok := f.rangeDepth(e, 0)
	return r.lo, r.hi, ok
}

func (f *fn) rangeDepth(e ast.Expr, depth int) (rng, bool) {
	if depth > 16 || e == nil {
		return rng{}, false
	}
	info := f.tr.info
	if v := info.Types[e].Value; v != nil {
		if x, ok := constant.Int64Val(constant.ToInt(v)); ok {
			return rng{x, x}, true
		}
		return rng{}, false
	}
	t := f.typeOf(e)
	r, ok := f.rangeExpr(e, depth)
	if ok && fitsType(r, t) {
		return r, true
	}
	return typeRange(t)
}

func (f *fn) rangeExpr(e ast.Expr, depth int) (rng, bool) {
	info := f.tr.info
	switch x := e.(type) {
	case *ast.ParenExpr:
		return f.rangeDepth(x.X, depth+1)
	case *ast.Ident:
		o := f.obj(x)
		if o == nil {
			return rng{}, false
		}
		if f.param32[o] {
			if isUnsigned(o.Type()) {
				return rng{0, math.MaxUint32}, true
			}
			return rng{math.MinInt32, math.MaxInt32}, true
		}
		if r, ok := f.loopVar[o]; ok {
			return r, true
		}
		if init, ok := f.inits[o]; ok && !f.assigned[o] {
			if types.Identical(f.typeOf(init), f.resolve(o.Type())) {
				return f.rangeDepth(init, depth+1)
			}
		}
	case *ast.SelectorExpr:
		if inner, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && f.isThreadExpr(inner.X) {
			if c, ok := builtinVec[inner.Sel.Name]; ok {
				r, ok := builtinRange[c+"."+map[string]string{"X": "x", "Y": "y", "Z": "z"}[x.Sel.Name]]
				return r, ok
			}
		}
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && f.isThreadExpr(sel.X) {
			r, ok := threadMethodRange[sel.Sel.Name]
			return r, ok
		}
		if tv := info.Types[x.Fun]; tv.IsType() && len(x.Args) == 1 && isInteger(f.typeOf(x.Args[0])) {
			r, ok := f.rangeDepth(x.Args[0], depth+1)
			if ok && fitsType(r, f.typeOf(x)) {
				return r, true
			}
		}
	case *ast.BinaryExpr:
		a, ok1 := f.rangeDepth(x.X, depth+1)
		b, ok2 := f.rangeDepth(x.Y, depth+1)
		switch x.Op {
		case token.ADD, token.SUB, token.MUL:
			if ok1 && ok2 {
				return arith(x.Op, a, b)
			}
		case token.QUO:
			if ok1 && ok2 && (b.lo > 0 || b.hi < 0) {
				return quoRange(a, b)
			}
		case token.REM:
			if ok2 && b.lo == b.hi && b.lo != 0 {
				m := b.lo
				if m < 0 {
					if m == math.MinInt64 {
						return rng{}, false
					}
					m = -m
				}
				if ok1 && a.lo >= 0 {
					return rng{0, min(m-1, a.hi)}, true
				}
				return rng{-(m - 1), m - 1}, true
			}
		case token.SHR:
			if ok1 && ok2 && b.lo == b.hi && b.lo >= 0 && b.lo < 64 {
				return rng{a.lo >> b.lo, a.hi >> b.lo}, true
			}
		case token.AND:
			if ok2 && b.lo == b.hi && b.lo >= 0 {
				return rng{0, b.lo}, true
			}
			if ok1 && a.lo == a.hi && a.lo >= 0 {
				return rng{0, a.lo}, true
			}
		}
	}
	return rng{}, false
}

// arith is the range of a op b, unless it leaves int64.
func arith(op token.Token, a, b rng) (rng, bool) {
	var cands [4]int64
	var n int
	switch op {
	case token.ADD:
		lo, ok1 := add64(a.lo, b.lo)
		hi, ok2 := add64(a.hi, b.hi)
		return rng{lo, hi}, ok1 && ok2
	case token.SUB:
		lo, ok1 := add64(a.lo, -b.hi)
		hi, ok2 := add64(a.hi, -b.lo)
		ok := ok1 && ok2 && b.hi != math.MinInt64 && b.lo != math.MinInt64
		return rng{lo, hi}, ok
	case token.MUL:
		for _, x := range []int64{a.lo, a.hi} {
			for _, y := range []int64{b.lo, b.hi} {
				p, ok := mul64(x, y)
				if !ok {
					return rng{}, false
				}
				cands[n] = p
				n++
			}
		}
	}
	r := rng{cands[0], cands[0]}
	for _, c := range cands[1:n] {
		r.lo, r.hi = min(r.lo, c), max(r.hi, c)
	}
	return r, true
}

// quoRange is the range of a / b for a divisor range without zero.
func quoRange(a, b rng) (rng, bool) {
	r := rng{math.MaxInt64, math.MinInt64}
	for _, x := range []int64{a.lo, a.hi} {
		for _, y := range []int64{b.lo, b.hi} {
			if x == math.MinInt64 && y == -1 {
				return rng{}, false
			}
			q := x / y
			r.lo, r.hi = min(r.lo, q), max(r.hi, q)
		}
	}
	return r, true
}

func add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) != (b >= 0) || (s >= 0) == (a >= 0)
}

func mul64(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := abs64(a), abs64(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > math.MaxInt64 && !(neg && lo == 1<<63) {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // MinInt64 stays 1<<63 as uint64
	}
	return uint64(a)
}

// fits reports whether x op y provably stays within t (signed 32/64 bit).
func (f *fn) fits(op token.Token, t types.Type, xe, ye ast.Expr) bool {
	a, ok1 := f.rangeDepth(xe, 0)
	b, ok2 := f.rangeDepth(ye, 0)
	if !ok1 || !ok2 {
		return false
	}
	r, ok := arith(op, a, b)
	if !ok {
		return false
	}
	if intBits(t) == 32 {
		return r.lo >= math.MinInt32 && r.hi <= math.MaxInt32
	}
	return true
}

// safeDivisor reports whether x / y and x % y need neither the zero check
// nor the MinInt / -1 case.
func (f *fn) safeDivisor(t types.Type, xe, ye ast.Expr) bool {
	b, ok := f.rangeDepth(ye, 0)
	if !ok {
		if v := f.tr.info.Types[ye].Value; v != nil && isUnsigned(t) {
			return constant.Sign(v) != 0
		}
		return false
	}
	if b.lo <= 0 && b.hi >= 0 {
		return false
	}
	if isUnsigned(t) || small(t) {
		return true
	}
	if b.lo <= -1 && b.hi >= -1 {
		a, ok := f.rangeDepth(xe, 0)
		return ok && a.lo > minOf(t)
	}
	return true
}

// countedLoop recognises for i := a; i < b; i += c (and the downward forms)
// where the body never writes i: i then stays within the bounds the
// condition gives, the post statement cannot overflow and is written as
// plain C, and the body's expressions of i get its range.
func (f *fn) countedLoop(s *ast.ForStmt) (types.Object, rng, string) {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 || s.Cond == nil || s.Post == nil {
		return nil, rng{}, ""
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, rng{}, ""
	}
	o := f.tr.info.Defs[id]
	if o == nil || !isInteger(o.Type()) || isUnsigned(o.Type()) || assignsIn(f.tr.info, s.Body, o) {
		return nil, rng{}, ""
	}
	t := f.resolve(o.Type())
	cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !ok {
		return nil, rng{}, ""
	}
	cx, ok := ast.Unparen(cond.X).(*ast.Ident)
	if !ok || f.obj(cx) != o {
		return nil, rng{}, ""
	}
	start, ok1 := f.rangeDepth(init.Rhs[0], 0)
	bound, ok2 := f.rangeDepth(cond.Y, 0)
	if !ok1 || !ok2 {
		return nil, rng{}, ""
	}
	tmin, tmax := minOf(t), int64(math.MaxInt64)
	if tr, ok := typeRange(t); ok {
		tmax = tr.hi
	}
	name := f.names.name(o)
	var body rng
	switch cond.Op {
	case token.LSS, token.LEQ:
		hi := bound.hi
		if cond.Op == token.LSS {
			hi--
		}
		body = rng{start.lo, hi}
		step, mul, post := f.upStep(s.Post, o, name)
		if post == "" || body.lo > body.hi {
			return nil, rng{}, ""
		}
		next, ok := add64(body.hi, step)
		if mul {
			if body.lo < 0 {
				return nil, rng{}, "" // i *= c moves a negative i down
			}
			next, ok = mul64(body.hi, step)
		}
		if !ok || next > tmax {
			return nil, rng{}, ""
		}
		return o, body, post
	case token.GTR, token.GEQ:
		lo := bound.lo
		if cond.Op == token.GTR {
			if lo == math.MaxInt64 {
				return nil, rng{}, ""
			}
			lo++
		}
		body = rng{lo, start.hi}
		step, post := f.downStep(s.Post, o, name)
		if post == "" || body.lo > body.hi {
			return nil, rng{}, ""
		}
		if step == 0 && body.lo < 0 {
			return nil, rng{}, "" // i >>= c and i /= c move a negative i up
		}
		if next, ok := add64(body.lo, -step); !ok || next < tmin {
			return nil, rng{}, ""
		}
		return o, body, post
	}
	return nil, rng{}, ""
}

// upStep recognises i++, i += c (c >= 0) and i *= c (c >= 1), c with a
// known bound, and returns the largest step (or factor, with mul set) and
// the post statement as plain C.
func (f *fn) upStep(post ast.Stmt, o types.Object, name string) (int64, bool, string) {
	switch p := post.(type) {
	case *ast.IncDecStmt:
		if f.isObj(p.X, o) && p.Tok == token.INC {
			return 1, false, name + "++"
		}
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || !f.isObj(p.Lhs[0], o) || f.orderOf(p.Rhs[0]).ord {
			return 0, false, ""
		}
		r, ok := f.rangeDepth(p.Rhs[0], 0)
		if !ok {
			return 0, false, ""
		}
		v := strip(f.valueAs(p.Rhs[0], f.resolve(o.Type())))
		switch {
		case p.Tok == token.ADD_ASSIGN && r.lo >= 0:
			return r.hi, false, name + " += " + v
		case p.Tok == token.MUL_ASSIGN && r.lo >= 1:
			return r.hi, true, name + " *= " + v
		}
	}
	return 0, false, ""
}

// downStep recognises i--, i -= c, i >>= c and i /= c (c > 0).
func (f *fn) downStep(post ast.Stmt, o types.Object, name string) (int64, string) {
	switch p := post.(type) {
	case *ast.IncDecStmt:
		if f.isObj(p.X, o) && p.Tok == token.DEC {
			return 1, name + "--"
		}
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || !f.isObj(p.Lhs[0], o) || f.orderOf(p.Rhs[0]).ord {
			return 0, ""
		}
		r, ok := f.rangeDepth(p.Rhs[0], 0)
		if !ok {
			return 0, ""
		}
		v := strip(f.valueAs(p.Rhs[0], f.resolve(o.Type())))
		switch p.Tok {
		case token.SUB_ASSIGN:
			if r.lo >= 0 {
				return r.hi, name + " -= " + v
			}
		case token.SHR_ASSIGN:
			if r.lo >= 0 && r.hi < 64 && r.lo == r.hi {
				return 0, name + " >>= " + strconv.FormatInt(r.lo, 10)
			}
		case token.QUO_ASSIGN:
			if r.lo > 0 {
				return 0, name + " /= " + v
			}
		}
	}
	return 0, ""
}

func (f *fn) isObj(e ast.Expr, o types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && f.obj(id) == o
}
