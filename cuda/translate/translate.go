package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/sim"
	"golang.org/x/tools/go/types/typeutil"
)

// Result is what Translate makes of one package: a Kernel for every kernel
// (and every instance of a generic kernel) that translates, and a Diagnostic
// for every construct that does not. A kernel with a diagnostic, in its own
// body or in a helper it calls, has no Kernel: it is never half translated.
type Result struct {
	Kernels     []*Kernel
	Diagnostics []Diagnostic
	// Refused names, in source order, each kernel (each instance of a
	// generic kernel) that has no Kernel because of a diagnostic, as
	// Twin.GoName would ("pkg.Scale[float32]"). After a bug of the
	// translator, which translates nothing, it names every kernel function.
	Refused []string
	// Notes name what looks like a kernel but is not translated, with
	// what to write instead: a func(*sim.Thread) used as a value (the
	// translator takes functions returning sim.Kernel), a generic kernel
	// that no non-test file instantiates. They are not refusals.
	Notes []Diagnostic
}

// Diagnostic is one refusal: where, why in one sentence, then what to write
// instead.
type Diagnostic struct {
	Pos     token.Position
	Message string
}

func (d Diagnostic) String() string { return fmt.Sprintf("%s: %s", d.Pos, d.Message) }

// Kernel is one translated kernel entry point.
type Kernel struct {
	Func     *types.Func  // the Go kernel function (generic for an instance)
	TypeArgs []types.Type // the instance's type arguments; nil if not generic
	Twin     twin.Twin
}

// simPkgPath is the import path of package sim, read from the type itself so
// that a fork that renames the module needs no change here.
var simPkgPath = reflect.TypeOf(sim.Thread{}).PkgPath()

// translator holds one Translate call's state, shared by its kernels: the
// helpers it has translated (each once, whatever number of kernels call it).
type translator struct {
	fset    *token.FileSet
	pkg     *types.Package
	info    *types.Info
	simPath string

	decls     map[*types.Func]*ast.FuncDecl
	instances map[*types.Func][][]types.Type
	global    map[string]bool // C names of the package's functions
	generic   map[string]bool // C names of its generic functions, whose instances add _typeargs
	cnames    map[string]bool // file-scope C names handed out: entry points and helpers
	entries   map[instKey]string
	fnNames   map[*types.Func]string // C names of the non-generic functions kernels call
	effects   map[*types.Func]bool
	helpers   map[instKey]*helper
	consts    map[*types.Var]*constDecl // the package's sim.Constant variables
	typeIDs   typeutil.Map              // type arguments seen, by identity: instKey's numbers

	diags    []Diagnostic
	diagSeen map[string]bool

	// cur is the position of the statement or expression being translated,
	// which a translator bug (a panic) is reported at.
	cur token.Pos
}

// instKey identifies a function, or one instance of a generic function.
type instKey struct {
	fn    *types.Func
	targs string // the type arguments' numbers in typeIDs
}

// keyOf keys fn's instance by the identity of its type arguments: their
// printed names do not tell a local type from a package-level one of the
// same name, and the two need instances of their own.
func (tr *translator) keyOf(fn *types.Func, targs []types.Type) instKey {
	var b strings.Builder
	for _, t := range targs {
		id, ok := tr.typeIDs.At(t).(int)
		if !ok {
			id = tr.typeIDs.Len()
			tr.typeIDs.Set(t, id)
		}
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return instKey{fn.Origin(), b.String()}
}

// helper is one __device__ function: a package-level Go function, or one
// instance of a generic one.
type helper struct {
	name   string
	fn     *types.Func
	targs  []types.Type
	decl   *ast.FuncDecl
	proto  string // forward declaration
	text   string // definition
	res    string // result struct, for more than one result
	needs  map[string]bool
	calls  []*helper
	consts map[*constDecl]token.Pos // the constants it reads, each at its first read
	shared bool                     // declares a static shared array itself
	grid   bool                     // calls grid.sync() itself
	failed bool
	state  int // 0 new, 1 translating, 2 done
}

// Translate translates every kernel of one type-checked package. files are
// the package's non-test files; info must hold Types, Defs, Uses,
// Selections and Instances.
func Translate(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info) (res *Result) {
	tr := &translator{
		fset: fset, pkg: pkg, info: info, simPath: simPkgPath,
		decls:     map[*types.Func]*ast.FuncDecl{},
		instances: map[*types.Func][][]types.Type{},
		global:    map[string]bool{},
		generic:   map[string]bool{},
		cnames:    map[string]bool{},
		entries:   map[instKey]string{},
		fnNames:   map[*types.Func]string{},
		helpers:   map[instKey]*helper{},
		diagSeen:  map[string]bool{},
	}
	res = &Result{}
	var kernels []*ast.FuncDecl
	defer func() {
		// A panic is a bug of the translator, never of the input: report it
		// at the Go source it was translating, and translate nothing.
		if r := recover(); r != nil {
			tr.bug(tr.cur, files, r)
			res.Kernels = nil
			res.Diagnostics = tr.sortedDiags()
			res.Refused = nil
			for _, fd := range kernels {
				res.Refused = append(res.Refused, pkg.Name()+"."+fd.Name.Name)
			}
		}
	}()
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil {
				continue
			}
			obj, _ := info.Defs[fd.Name].(*types.Func)
			if obj == nil {
				continue
			}
			tr.decls[obj] = fd
			if tr.isKernelFunc(obj) {
				kernels = append(kernels, fd)
			}
		}
	}
	tr.collectConstants(files)
	tr.collectInstances()
	res.Notes = tr.untranslatedKernels(files, kernels)
	tr.nameEntries(kernels)
	tr.reserveCalled(kernels)
	tr.computeEffects()
	for _, fd := range kernels {
		obj := info.Defs[fd.Name].(*types.Func)
		sig := obj.Type().(*types.Signature)
		if sig.TypeParams().Len() == 0 {
			if k := tr.kernel(fd, obj, nil); k != nil {
				res.Kernels = append(res.Kernels, k)
			} else {
				res.Refused = append(res.Refused, tr.goName(fd, nil))
			}
			continue
		}
		for _, targs := range tr.instances[obj] {
			if k := tr.kernel(fd, obj, targs); k != nil {
				res.Kernels = append(res.Kernels, k)
			} else {
				res.Refused = append(res.Refused, tr.goName(fd, targs))
			}
		}
	}
	sort.Slice(res.Kernels, func(i, j int) bool { return res.Kernels[i].Twin.Entry < res.Kernels[j].Twin.Entry })
	res.Diagnostics = tr.sortedDiags()
	return res
}

// goName is a kernel's (an instance's) Go name, as Twin.GoName has it:
// "pkg.Scale[float32]".
func (tr *translator) goName(fd *ast.FuncDecl, targs []types.Type) string {
	return tr.pkg.Name() + "." + fd.Name.Name + typeArgString(targs, tr.qualifier)
}

// sortedDiags are the diagnostics in source order.
func (tr *translator) sortedDiags() []Diagnostic {
	sort.SliceStable(tr.diags, func(i, j int) bool {
		a, b := tr.diags[i].Pos, tr.diags[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return tr.diags
}

// bug reports a panic of the translator as a diagnostic at pos, the Go
// source it was translating (the package clause of the first file if it
// was translating none).
func (tr *translator) bug(pos token.Pos, files []*ast.File, r any) {
	if !pos.IsValid() && len(files) > 0 {
		pos = files[0].Package
	}
	tr.errorf(pos, "internal error of the CUDA translator at this construct: %v; this is a translator bug (please report it with this source), and the kernel is not translated", r)
}

// testHook, when set by a test, is called before each statement is
// translated.
var testHook func(ast.Stmt)

// nameEntries gives every kernel (every instance of a generic one) its
// entry point's C name: the Go name through cIdent (a kernel named sin is
// sin_, since sin is CUDA's), with the type arguments appended (ReduceSum_
// float32), unique in the package.
func (tr *translator) nameEntries(kernels []*ast.FuncDecl) {
	for _, fd := range kernels {
		obj := tr.info.Defs[fd.Name].(*types.Func)
		targsList := [][]types.Type{nil}
		if obj.Type().(*types.Signature).TypeParams().Len() > 0 {
			targsList = tr.instances[obj]
		}
		for _, targs := range targsList {
			name := tr.fileScopeName(cIdent(fd.Name.Name) + mangle(targs))
			tr.entries[tr.keyOf(obj, targs)] = name
			tr.global[name] = true
		}
	}
}

// fileScopeName returns base, or base_N if base is taken, as a file-scope C
// name of its own, and takes it.
func (tr *translator) fileScopeName(base string) string {
	s := base
	for i := 1; tr.cnames[s]; i++ {
		s = base + "_" + strconv.Itoa(i)
	}
	tr.cnames[s] = true
	return s
}

// isKernelFunc reports whether f's one result is sim.Kernel.
func (tr *translator) isKernelFunc(f *types.Func) bool {
	sig := f.Type().(*types.Signature)
	return sig.Recv() == nil && sig.Results().Len() == 1 && tr.isNamedSim(sig.Results().At(0).Type(), "Kernel")
}

// untranslatedKernels notes the package's functions that look like
// kernels but that Translate leaves out: a top-level func(*sim.Thread)
// that no function of the package calls (a helper taking the thread is
// called; a kernel is launched as a value), and a generic kernel that no
// non-test file instantiates.
func (tr *translator) untranslatedKernels(files []*ast.File, kernels []*ast.FuncDecl) []Diagnostic {
	called := map[*types.Func]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				fun := ast.Unparen(c.Fun)
				if ix, ok := fun.(*ast.IndexExpr); ok {
					fun = ix.X
				} else if ix, ok := fun.(*ast.IndexListExpr); ok {
					fun = ix.X
				}
				if id, ok := fun.(*ast.Ident); ok {
					if fn, ok := tr.info.Uses[id].(*types.Func); ok {
						called[fn.Origin()] = true
					}
				}
			}
			return true
		})
	}
	var notes []Diagnostic
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil {
				continue
			}
			obj, _ := tr.info.Defs[fd.Name].(*types.Func)
			if obj == nil || called[obj] {
				continue
			}
			sig := obj.Type().(*types.Signature)
			if sig.Params().Len() == 1 && sig.Results().Len() == 0 && sig.TypeParams().Len() == 0 && tr.isThreadPtr(sig.Params().At(0).Type()) {
				notes = append(notes, Diagnostic{tr.fset.Position(fd.Pos()), fmt.Sprintf(
					"%s is a func(*sim.Thread), which is not translated: write it as func %s(buffers and values...) sim.Kernel { return func(t *sim.Thread) { ... } }", fd.Name.Name, fd.Name.Name)})
			}
		}
	}
	for _, fd := range kernels {
		obj := tr.info.Defs[fd.Name].(*types.Func)
		if obj.Type().(*types.Signature).TypeParams().Len() > 0 && len(tr.instances[obj]) == 0 {
			notes = append(notes, Diagnostic{tr.fset.Position(fd.Pos()), fmt.Sprintf(
				"%s is generic and no non-test file of the package instantiates it, so it has no CUDA: name each instance the GPU needs, e.g. var _ = %s[float32]", fd.Name.Name, fd.Name.Name)})
		}
	}
	return notes
}

// isThreadPtr reports whether t is *sim.Thread.
func (tr *translator) isThreadPtr(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	return ok && tr.isNamedSim(p.Elem(), "Thread")
}

// collectInstances records, for every generic function of the package, the
// type argument lists the package instantiates it with (deduplicated, in a
// fixed order).
func (tr *translator) collectInstances() {
	seen := map[string]bool{}
	for id, inst := range tr.info.Instances {
		f, ok := tr.info.Uses[id].(*types.Func)
		if !ok || f.Pkg() != tr.pkg {
			continue
		}
		f = f.Origin()
		var targs []types.Type
		generic := false
		for i := range inst.TypeArgs.Len() {
			a := inst.TypeArgs.At(i)
			if hasTypeParam(a) {
				generic = true // an instance inside generic code: found per caller instance
			}
			targs = append(targs, a)
		}
		if generic {
			continue
		}
		key := f.FullName() + mangle(targs)
		if seen[key] {
			continue
		}
		seen[key] = true
		tr.instances[f] = append(tr.instances[f], targs)
	}
	for f, l := range tr.instances {
		sort.Slice(l, func(i, j int) bool { return mangle(l[i]) < mangle(l[j]) })
		tr.instances[f] = l
	}
}

func hasTypeParam(t types.Type) bool {
	switch t := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Pointer:
		return hasTypeParam(t.Elem())
	case *types.Array:
		return hasTypeParam(t.Elem())
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			if hasTypeParam(t.TypeArgs().At(i)) {
				return true
			}
		}
	}
	return false
}

// mangle is the suffix an instance's C name gets: "_float32", "_int32_uint8".
func mangle(targs []types.Type) string {
	var b strings.Builder
	for _, t := range targs {
		b.WriteByte('_')
		for _, r := range types.TypeString(t, func(*types.Package) string { return "" }) {
			if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// typeArgString is "[float32]" or "[int32, uint8]", as Go writes an instance.
func typeArgString(targs []types.Type, q types.Qualifier) string {
	if len(targs) == 0 {
		return ""
	}
	var parts []string
	for _, t := range targs {
		parts = append(parts, types.TypeString(t, q))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// errorf records a refusal at pos.
func (tr *translator) errorf(pos token.Pos, format string, args ...any) {
	d := Diagnostic{Pos: tr.fset.Position(pos), Message: fmt.Sprintf(format, args...)}
	key := d.String()
	if tr.diagSeen[key] {
		return
	}
	tr.diagSeen[key] = true
	tr.diags = append(tr.diags, d)
}

// shortFile is a position's file as generated code names it: the last
// directory and the file name ("kernels/reduce.go"), the same on every
// machine.
func shortFile(name string) string {
	dir := filepath.Base(filepath.Dir(name))
	if dir == "." || dir == "/" || dir == "" {
		return filepath.Base(name)
	}
	return dir + "/" + filepath.Base(name)
}

func (tr *translator) qualifier(p *types.Package) string { return p.Name() }

// kernel translates one kernel (one instance of a generic one).
func (tr *translator) kernel(fd *ast.FuncDecl, obj *types.Func, targs []types.Type) (k *Kernel) {
	tr.cur = fd.Pos()
	defer func() {
		if r := recover(); r != nil {
			tr.bug(tr.cur, nil, r)
			k = nil
		}
	}()
	f := tr.newFn(fd, targs)
	entry := tr.entries[tr.keyOf(obj, targs)]
	if entry == "" { // an instance only generic code names
		entry = tr.fileScopeName(cIdent(fd.Name.Name) + mangle(targs))
		tr.entries[tr.keyOf(obj, targs)] = entry
	}
	f.names.reserve(entry)
	sig := obj.Type().(*types.Signature)

	// The body is optional prelude statements, then return func(t *sim.Thread) {...}.
	stmts := fd.Body.List
	var lit *ast.FuncLit
	if n := len(stmts); n > 0 {
		if ret, ok := stmts[n-1].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			lit, _ = ast.Unparen(ret.Results[0]).(*ast.FuncLit)
		}
	}
	if lit == nil {
		tr.errorf(fd.Pos(), "kernel %s does not end in return func(t *sim.Thread) { ... }, the only kernel form the translator knows; return the per-thread body as a function literal", fd.Name.Name)
		return nil
	}
	if lit.Type.Params.NumFields() != 1 {
		tr.errorf(lit.Pos(), "a kernel body takes exactly one *sim.Thread; write func(t *sim.Thread)")
		return nil
	}

	var params []twin.Param
	var cparams []string
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		t := f.resolve(p.Type())
		f.readonly[p] = "kernel parameters are shared by every thread in the simulator but private in CUDA"
		if msg := tr.kernelParamError(t); msg != "" {
			tr.errorf(p.Pos(), "kernel parameter %s: %s", p.Name(), msg)
			f.bad[p] = true // its uses add no second diagnostic
			f.failed = true
			continue
		}
		name := p.Name()
		if name == "" || name == "_" {
			name = fmt.Sprintf("p%d", i)
		}
		cname := f.names.fresh(cIdent(name))
		f.names.of[p] = cname
		param := twin.Param{Name: name, GoType: types.TypeString(t, tr.qualifier)}
		if e, ok := tr.isBuffer(t); ok {
			param.CType = tr.ctype(e) + " *"
			param.Elem = types.TypeString(e, tr.qualifier)
			cparams = append(cparams, param.CType+cname)
		} else {
			switch basic(t).Kind() { // kernelParamError: a buffer or a basic type
			case types.Int:
				param.CType = "int"
				f.param32[p] = true
			case types.Uint:
				param.CType = "unsigned int"
				f.param32[p] = true
			default:
				param.CType = tr.ctype(t)
			}
			cparams = append(cparams, param.CType+" "+cname)
		}
		params = append(params, param)
	}
	thread := lit.Type.Params.List[0]
	if len(thread.Names) == 1 {
		if o := tr.info.Defs[thread.Names[0]]; o != nil {
			f.threads[o] = true
		}
	}

	// Prelude statements: declarations whose variables the body reads only.
	f.depth = 1
	for _, s := range stmts[:len(stmts)-1] {
		switch s := s.(type) {
		case *ast.DeclStmt, *ast.AssignStmt:
			if a, ok := s.(*ast.AssignStmt); ok && a.Tok != token.DEFINE {
				tr.errorf(s.Pos(), "only declarations may precede the kernel body (assignments before it run once, on the host); declare the variable with := or move the statement into the body")
				f.failed = true
				continue
			}
			f.stmt(s)
			for _, o := range declaredBy(tr.info, s) {
				f.readonly[o] = "variables declared before the kernel body are shared by every thread in the simulator but private in CUDA"
			}
		default:
			tr.errorf(s.Pos(), "only declarations may precede the kernel body (they run once, on the host, in the simulator); move the statement into the body")
			f.failed = true
		}
	}
	f.inBody = true
	f.collectAssigned(lit.Body)
	f.stmts(lit.Body.List)
	f.depth = 0

	// Gather the helpers the kernel calls, transitively, in first-call order.
	var order []*helper
	seen := map[*helper]bool{}
	var visit func(h *helper)
	visit = func(h *helper) {
		if seen[h] {
			return
		}
		seen[h] = true
		tr.translateHelper(h)
		order = append(order, h)
		for _, c := range h.calls {
			visit(c)
		}
	}
	for _, h := range f.calls {
		visit(h)
	}
	failed := f.failed
	needs := f.needs
	gridSync := f.gridSync
	consts := map[*constDecl]bool{}
	for cd := range f.consts {
		consts[cd] = true
	}
	for _, h := range order {
		failed = failed || h.failed
		gridSync = gridSync || h.grid
		for n := range h.needs {
			needs[n] = true
		}
		for cd := range h.consts {
			consts[cd] = true
		}
	}
	if tr.constClash(f, entry, order) {
		failed = true
	}
	if failed {
		return nil
	}

	// The 16-bit float types need their headers wherever they are spelled.
	constText, constRecs := tr.constDecls(consts)
	all := f.out.String() + strings.Join(cparams, ",") + constText
	for _, h := range order {
		all += h.res + h.proto + h.text
	}
	if strings.Contains(all, "__half") {
		needs["fp16"] = true
	}
	if strings.Contains(all, "bfloat16") {
		needs["bf16"] = true
	}

	var src strings.Builder
	pos := tr.fset.Position(fd.Pos())
	fmt.Fprintf(&src, "// Code generated by gpusim cuda from %s; DO NOT EDIT.\n", shortFile(pos.Filename))
	fmt.Fprintf(&src, "// Go kernel %s.%s%s. Compile with -fmad=false: a*b+c is a multiply and an add,\n"+
		"// as Go computes it on amd64 at GOAMD64=v1 or v2. Go may fuse it into an FMA on arm64\n"+
		"// and at GOAMD64=v3 or v4; an explicit float32(a*b)+c never fuses.\n\n",
		tr.pkg.Name(), fd.Name.Name, typeArgString(targs, tr.qualifier))
	writePrelude(&src, needs)
	if len(order) > 0 {
		for _, h := range order {
			src.WriteString(h.res)
		}
		for _, h := range order {
			src.WriteString(h.proto)
			src.WriteString(";\n")
		}
		src.WriteString("\n")
	}
	src.WriteString(constText)
	if len(order) > 0 {
		for _, h := range order {
			src.WriteString(h.text)
			src.WriteString("\n")
		}
	}
	f.lastLine = 0
	fmt.Fprintf(&src, "#line %d %q\n", pos.Line, shortFile(pos.Filename))
	fmt.Fprintf(&src, "extern \"C\" __global__ void %s(%s)\n{\n", entry, strings.Join(cparams, ", "))
	src.WriteString(f.out.String())
	src.WriteString("}\n")

	return &Kernel{
		Func:     obj,
		TypeArgs: targs,
		Twin: twin.Twin{
			Entry:     entry,
			GoName:    tr.goName(fd, targs),
			Params:    params,
			Source:    src.String(),
			Pos:       fmt.Sprintf("%s:%d", shortFile(pos.Filename), pos.Line),
			Constants: constRecs,
			GridSync:  gridSync,
		},
	}
}

// kernelParamError says why t cannot be a kernel parameter's type, or ""
// if it can: a buffer, or a number or bool, which the CUDA backend passes
// by value (cuda/args.go packs each scalar in an 8-byte slot, so a vector
// or a 16-bit float is not one it can pass).
func (tr *translator) kernelParamError(t types.Type) string {
	if msg := tr.typeError(t); msg != "" {
		return msg
	}
	if msg := tr.coopParamError(t, true, false); msg != "" {
		return msg
	}
	if tr.isThread(t) {
		return "a kernel function does not take the thread; its body does (return func(t *sim.Thread) { ... })"
	}
	if usesArray(t) {
		return "arrays are not passed to kernels; pass the values in a *sim.Buffer"
	}
	if _, ok := tr.isBuffer(t); ok {
		return ""
	}
	if tr.isVec(t) {
		return fmt.Sprintf("a %s is not passed to a kernel by value (the CUDA backend passes buffers, numbers and bools only); pass its fields as separate parameters, or the value in a *sim.Buffer", types.TypeString(t, tr.qualifier))
	}
	if c := tr.simValueC(t); c != "" {
		conv := "sim.UshortAsHalf"
		if c == "__nv_bfloat16" {
			conv = "sim.UshortAsBFloat16"
		}
		return fmt.Sprintf("a %s is not passed to a kernel by value (the CUDA backend passes buffers, numbers and bools only); pass its bits as a uint16 and convert them in the body with %s, or pass the value in a *sim.Buffer", types.TypeString(t, tr.qualifier), conv)
	}
	if basic(t) == nil {
		return fmt.Sprintf("type %s is not passed to kernels; pass buffers, numbers and bools", types.TypeString(t, tr.qualifier))
	}
	return ""
}

// declaredBy lists the variables a declaration statement declares.
func declaredBy(info *types.Info, s ast.Stmt) []types.Object {
	var out []types.Object
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				if o := info.Defs[id]; o != nil {
					out = append(out, o)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						if o := info.Defs[id]; o != nil {
							out = append(out, o)
						}
					}
				}
			}
		}
	}
	return out
}

// helperFor returns the helper for a call of the package function obj with
// type arguments targs (already resolved), creating it on first use.
func (tr *translator) helperFor(obj *types.Func, targs []types.Type) *helper {
	obj = obj.Origin()
	key := tr.keyOf(obj, targs)
	if h, ok := tr.helpers[key]; ok {
		return h
	}
	name := tr.fnNames[obj]
	if name == "" || len(targs) > 0 {
		name = tr.fileScopeName(cIdent(obj.Name()) + mangle(targs))
		tr.global[name] = true
	}
	h := &helper{name: name, fn: obj, targs: targs, decl: tr.decls[obj], needs: map[string]bool{}}
	tr.helpers[key] = h
	return h
}

// translateHelper translates h once.
func (tr *translator) translateHelper(h *helper) {
	if h.state != 0 {
		return
	}
	h.state = 1
	defer func() { h.state = 2 }()
	saved := tr.cur
	tr.cur = h.decl.Pos()
	defer func() {
		if r := recover(); r != nil {
			tr.bug(tr.cur, nil, r)
			h.failed = true
		}
		tr.cur = saved
	}()
	fd := h.decl
	f := tr.newFn(fd, h.targs)
	f.helper = h
	f.names.reserve(h.name)
	sig := h.fn.Type().(*types.Signature)

	var cparams []string
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		t := f.resolve(p.Type())
		if sig.Variadic() && i == sig.Params().Len()-1 {
			tr.errorf(p.Pos(), "%s is variadic, which is not translated (the extra arguments are a slice); take a fixed number of parameters", fd.Name.Name)
			f.bad[p] = true
			f.failed = true
			continue
		}
		if msg := tr.typeError(t); msg != "" || tr.coopParamError(t, false, false) != "" {
			if msg == "" {
				msg = tr.coopParamError(t, false, false)
			}
			tr.errorf(p.Pos(), "parameter %s of %s: %s", p.Name(), fd.Name.Name, msg)
			f.bad[p] = true
			f.failed = true
			continue
		}
		if tr.isThread(t) {
			f.threads[p] = true // CUDA's built-ins are global: the thread is not passed
			continue
		}
		name := p.Name()
		if name == "" || name == "_" {
			name = "gosim_p"
		}
		cname := f.names.fresh(cIdent(name))
		f.names.of[p] = cname
		cparams = append(cparams, tr.decl(t, cname))
		if usesArray(t) {
			f.need("array")
		}
	}
	ret := "void"
	res := sig.Results()
	f.results = res
	switch {
	case res.Len() == 1:
		t := f.resolve(res.At(0).Type())
		if msg := tr.typeError(t); msg != "" || tr.isThread(t) || tr.coopParamError(t, false, true) != "" {
			if msg == "" {
				msg = tr.coopParamError(t, false, true)
			}
			if msg == "" {
				msg = "the thread cannot be returned"
			}
			tr.errorf(fd.Type.Results.Pos(), "result of %s: %s", fd.Name.Name, msg)
			f.failed = true
		} else {
			ret = tr.ctype(t)
		}
	case res.Len() > 1:
		ret = "gosim_res_" + h.name
		var fields strings.Builder
		for i := range res.Len() {
			t := f.resolve(res.At(i).Type())
			if msg := tr.typeError(t); msg != "" || tr.isThread(t) || tr.coopParamError(t, false, true) != "" {
				if msg == "" {
					msg = tr.coopParamError(t, false, true)
				}
				if msg == "" {
					msg = "the thread cannot be returned"
				}
				what := fmt.Sprintf("result %d", i)
				if n := res.At(i).Name(); n != "" && n != "_" {
					what = "result " + n
				}
				tr.errorf(fd.Type.Results.Pos(), "%s of %s: %s", what, fd.Name.Name, msg)
				f.failed = true
				continue
			}
			fmt.Fprintf(&fields, "\t%s;\n", tr.decl(t, fmt.Sprintf("r%d", i)))
		}
		h.res = fmt.Sprintf("struct %s {\n%s};\n", ret, fields.String())
		f.resStruct = ret
	}
	// Named results are zero-initialised locals.
	f.depth = 1
	for i := range res.Len() {
		r := res.At(i)
		if r.Name() == "" {
			continue
		}
		t := f.resolve(r.Type())
		cname := f.names.name(r)
		if r.Name() == "_" {
			cname = f.names.fresh("gosim_r")
			f.names.of[r] = cname
		}
		f.resultNames = append(f.resultNames, cname)
		if tr.typeError(t) == "" {
			f.linef(fd.Type.Results.Pos(), "%s = %s;", tr.decl(t, cname), tr.zero(t))
		}
	}
	f.inBody = true
	f.collectAssigned(fd.Body)
	f.stmts(fd.Body.List)
	if res.Len() > 0 && !terminates(fd.Body) {
		// Go requires a terminating statement; this keeps C compilers quiet.
		f.linef(fd.Body.Rbrace, "__trap();")
	}
	pos := tr.fset.Position(fd.Pos())
	h.proto = fmt.Sprintf("__device__ %s %s(%s)", ret, h.name, strings.Join(cparams, ", "))
	h.text = fmt.Sprintf("#line %d %q\n%s\n{\n%s}\n", pos.Line, shortFile(pos.Filename), h.proto, f.out.String())
	h.needs = f.needs
	h.calls = f.calls
	h.consts = f.consts
	h.grid = f.gridSync
	h.failed = f.failed
	h.shared = f.declShared
}

// terminates reports whether a function body ends in a return or panic, so
// that control cannot fall off its end.
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// computeEffects marks the package functions whose calls have effects
// another thread or a later read can see: stores, atomics, barriers,
// fences, warp collectives, directly or through the functions they call.
// Go fixes the order of calls in an expression and C does not, so two
// calls in one expression where one has effects are refused.
func (tr *translator) computeEffects() {
	tr.effects = map[*types.Func]bool{}
	callees := map[*types.Func][]*types.Func{}
	for obj, fd := range tr.decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch tr.callClass(call) {
			case classEffect:
				tr.effects[obj] = true
			case classHelper:
				if g := tr.calleeFunc(call); g != nil {
					callees[obj] = append(callees[obj], g.Origin())
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for f, cs := range callees {
			for _, g := range cs {
				if tr.effects[g] && !tr.effects[f] {
					tr.effects[f] = true
					changed = true
				}
			}
		}
	}
}

// reserveCalled takes the C names of the package functions the kernels
// call, directly or through other functions, so that no local or parameter
// hides a __device__ function in the C: a function's own name (unique
// among the package's file-scope names), and for a generic one every name
// its instances could take (add_float32). Functions only the host calls (a
// driver's helpers) never reach the C, so a kernel parameter named after
// one keeps its name.
func (tr *translator) reserveCalled(kernels []*ast.FuncDecl) {
	seen := map[*types.Func]bool{}
	var visit func(fd *ast.FuncDecl)
	visit = func(fd *ast.FuncDecl) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			f, ok := tr.info.Uses[id].(*types.Func)
			if !ok {
				return true
			}
			f = f.Origin()
			if d, ok := tr.decls[f]; ok && !seen[f] {
				seen[f] = true
				if f.Type().(*types.Signature).TypeParams().Len() > 0 {
					tr.generic[cIdent(f.Name())] = true
					tr.global[cIdent(f.Name())] = true
				} else if !tr.isKernelFunc(f) {
					name := tr.fileScopeName(cIdent(f.Name()))
					tr.fnNames[f] = name
					tr.global[name] = true
				}
				visit(d)
			}
			return true
		})
	}
	for _, fd := range kernels {
		visit(fd)
	}
}
