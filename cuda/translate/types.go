package translate

import (
	"fmt"
	"go/types"
	"strconv"
)

// The C type of every Go type a kernel may use. Go's int and uint are 64
// bits wide (gosim runs on 64-bit hosts only), so they are long long and
// unsigned long long in C; a kernel parameter of type int or uint is the
// exception (see cParamType).
var basicC = map[types.BasicKind]string{
	types.Bool:    "bool",
	types.Int8:    "signed char",
	types.Uint8:   "unsigned char",
	types.Int16:   "short",
	types.Uint16:  "unsigned short",
	types.Int32:   "int",
	types.Uint32:  "unsigned int",
	types.Int64:   "long long",
	types.Uint64:  "unsigned long long",
	types.Int:     "long long",
	types.Uint:    "unsigned long long",
	types.Float32: "float",
	types.Float64: "double",
}

// resolve replaces the type parameters of the function being translated by
// the instance's type arguments, so that every later question about a type
// sees a concrete one.
func (f *fn) resolve(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	t = types.Unalias(t)
	if len(f.subst) == 0 {
		return t
	}
	switch t := t.(type) {
	case *types.TypeParam:
		if r, ok := f.subst[t]; ok {
			return r
		}
	case *types.Pointer:
		if e := f.resolve(t.Elem()); e != t.Elem() {
			return types.NewPointer(e)
		}
	case *types.Array:
		if e := f.resolve(t.Elem()); e != t.Elem() {
			return types.NewArray(e, t.Len())
		}
	case *types.Named:
		args := t.TypeArgs()
		if args.Len() == 0 {
			return t
		}
		var rs []types.Type
		changed := false
		for i := range args.Len() {
			r := f.resolve(args.At(i))
			changed = changed || r != args.At(i)
			rs = append(rs, r)
		}
		if !changed {
			return t
		}
		inst, err := types.Instantiate(nil, t.Origin(), rs, false)
		if err == nil {
			return inst
		}
	}
	return t
}

// basic is t's underlying basic type, or nil.
func basic(t types.Type) *types.Basic {
	if t == nil {
		return nil
	}
	b, _ := t.Underlying().(*types.Basic)
	return b
}

func isInteger(t types.Type) bool {
	b := basic(t)
	return b != nil && b.Info()&types.IsInteger != 0
}

func isUnsigned(t types.Type) bool {
	b := basic(t)
	return b != nil && b.Info()&types.IsUnsigned != 0
}

func isFloat(t types.Type) bool {
	b := basic(t)
	return b != nil && b.Info()&types.IsFloat != 0
}

func isBool(t types.Type) bool {
	b := basic(t)
	return b != nil && b.Info()&types.IsBoolean != 0
}

// intBits is the width of an integer type in bits.
func intBits(t types.Type) int {
	switch basic(t).Kind() {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32, types.UntypedRune:
		return 32
	}
	return 64
}

// small reports whether an integer type is narrower than C's int, so that
// C promotes it to int in every operation and the result must be converted
// back.
func small(t types.Type) bool { return isInteger(t) && intBits(t) < 32 }

// isBuffer reports whether t is *sim.Buffer[E] and returns E.
func (tr *translator) isBuffer(t types.Type) (types.Type, bool) {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return nil, false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || !tr.isSim(n.Obj()) || n.Obj().Name() != "Buffer" || n.TypeArgs().Len() != 1 {
		return nil, false
	}
	return n.TypeArgs().At(0), true
}

// isThread reports whether t is *sim.Thread.
func (tr *translator) isThread(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && tr.isSim(n.Obj()) && n.Obj().Name() == "Thread"
}

// isNamedSim reports whether t is the sim type called name.
func (tr *translator) isNamedSim(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && tr.isSim(n.Obj()) && n.Obj().Name() == name
}

func (tr *translator) isSim(o types.Object) bool {
	return o != nil && o.Pkg() != nil && o.Pkg().Path() == tr.simPath
}

// typeError says why t cannot be a kernel's type, or "" if it can.
func (tr *translator) typeError(t types.Type) string {
	if msg, ok := tr.coopTypeError(t); ok {
		return msg
	}
	if tr.simValueC(t) != "" {
		return ""
	}
	if _, ok := tr.isConstant(t); ok {
		return "a *sim.Constant names a file-scope __constant__ array in CUDA, not a value; call its methods on the package-level variable itself, not on a copy, parameter or result"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if _, ok := basicC[u.Kind()]; ok {
			return ""
		}
		if u.Info()&types.IsUntyped != 0 && u.Info()&(types.IsBoolean|types.IsNumeric) != 0 && u.Info()&types.IsComplex == 0 {
			return "" // a comparison's result, an untyped constant
		}
		switch {
		case u.Info()&types.IsString != 0:
			return "strings cannot be used on the GPU; pass the bytes in a *sim.Buffer[uint8]"
		case u.Info()&types.IsComplex != 0:
			return "complex numbers are not translated; keep the real and imaginary parts in two float variables"
		case u.Kind() == types.Uintptr || u.Kind() == types.UnsafePointer:
			return "uintptr and unsafe.Pointer have no meaning on the GPU; index a *sim.Buffer instead"
		}
		return fmt.Sprintf("type %s cannot be used on the GPU; use a sized integer or float type", t)
	case *types.Array:
		return tr.typeError(u.Elem())
	case *types.Pointer:
		if _, ok := tr.isBuffer(t); ok {
			return ""
		}
		if tr.isThread(t) {
			return ""
		}
		return "pointers other than *sim.Buffer cannot be used in a kernel; keep the value in a variable or a buffer"
	case *types.Slice:
		return "slices cannot be used on the GPU; use a *sim.Buffer (global or sim.Shared) or a fixed-size array"
	case *types.Map:
		return "maps cannot run on the GPU; use a *sim.Buffer indexed by key"
	case *types.Chan:
		return "channels cannot run on the GPU; threads communicate through buffers, atomics and barriers"
	case *types.Interface:
		return "interfaces cannot run on the GPU (no dynamic dispatch); use a concrete type or a type parameter"
	case *types.Signature:
		return "function values cannot run on the GPU; call a package-level function directly"
	case *types.Struct:
		return "structs are not translated; use separate variables or parallel buffers"
	case *types.Tuple:
		return ""
	}
	return fmt.Sprintf("type %s cannot be used on the GPU", t)
}

// ctype is the C spelling of a kernel type (typeError(t) == "").
func (tr *translator) ctype(t types.Type) string {
	if c, ok := tr.coopCType(t); ok {
		return c
	}
	if e, ok := tr.isBuffer(t); ok {
		return tr.ctype(e) + " *"
	}
	if c := tr.simValueC(t); c != "" {
		return c
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsUntyped != 0 {
			return basicC[types.Default(u).(*types.Basic).Kind()]
		}
		return basicC[u.Kind()]
	case *types.Array:
		return "gosim_array<" + tr.ctype(u.Elem()) + ", " + strconv.FormatInt(u.Len(), 10) + ">"
	}
	return "void"
}

// decl is a C declaration of name with type t: "float x", "float *b".
func (tr *translator) decl(t types.Type, name string) string {
	c := tr.ctype(t)
	if c[len(c)-1] == '*' {
		return c + name
	}
	return c + " " + name
}

// zero is the C initialiser of a zero value of t.
func (tr *translator) zero(t types.Type) string {
	if _, ok := tr.isBuffer(t); ok {
		return "nullptr"
	}
	if c := tr.simValueC(t); c != "" {
		return c + "{}"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsBoolean != 0 {
			return "false"
		}
		return "0"
	case *types.Array:
		return "{}"
	}
	return "0"
}

// usesArray reports whether t contains a Go array (needs gosim_array).
func usesArray(t types.Type) bool {
	_, ok := t.Underlying().(*types.Array)
	return ok
}
