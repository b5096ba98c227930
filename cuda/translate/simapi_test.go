package translate

import (
	"go/types"
	"sort"
	"testing"
)

// TestSimAPICovered walks sim's exported API and fails for every function
// that takes a *sim.Thread, and every exported method of Thread, Buffer or
// Constant, that has neither a CUDA translation (simCalls) nor a host-only
// entry (simHostOnly): a sim feature a kernel can call must not lack one; so
// does every exported method of the cooperative groups and AtomicRef, and
// every function that takes or gives one; and every function that takes
// or gives a vector, Half or BFloat16, or takes a buffer but no device. It also
// fails for table entries sim no longer has.
func TestSimAPICovered(t *testing.T) {
	testImporter(t)
	sim := deps[simPkgPath]
	thread := sim.Scope().Lookup("Thread").(*types.TypeName).Type()
	threadPtr := types.NewPointer(thread)
	takesThread := func(sig *types.Signature) bool {
		for i := range sig.Params().Len() {
			if types.Identical(sig.Params().At(i).Type(), threadPtr) {
				return true
			}
		}
		return false
	}
	// The cooperative types: their methods, and functions that take or
	// give one, are kernel-facing too.
	coopTypes := map[string]bool{"ThreadBlock": true, "Tile": true, "ThreadGroup": true, "CoalescedGroup": true, "GridGroup": true, "AtomicRef": true, "Group": true, "WarpGroup": true}
	isCoop := func(t types.Type) bool {
		n, ok := t.(*types.Named)
		return ok && n.Obj().Pkg() == sim && coopTypes[n.Obj().Name()]
	}
	mentionsCoop := func(sig *types.Signature) bool {
		for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
			for i := range tup.Len() {
				if isCoop(tup.At(i).Type()) {
					return true
				}
			}
		}
		return false
	}
	// The value types (vectors, Half, BFloat16): a function that takes or
	// gives one is kernel-facing, and so is one that takes a buffer but no
	// device (Reinterpret, Copy).
	mentionsValue := func(sig *types.Signature) bool {
		buffer, device := false, false
		for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
			for i := range tup.Len() {
				pt := tup.At(i).Type()
				if n, ok := pt.(*types.Named); ok && n.Obj().Pkg() == sim && (vecC[n.Obj().Name()] != "" || halfC[n.Obj().Name()] != "") {
					return true
				}
				if p, ok := pt.(*types.Pointer); ok && tup == sig.Params() {
					if n, ok := p.Elem().(*types.Named); ok && n.Obj().Pkg() == sim {
						buffer = buffer || n.Obj().Name() == "Buffer"
						device = device || n.Obj().Name() == "Device"
					}
				}
			}
		}
		return buffer && !device
	}
	var api []string
	for _, name := range sim.Scope().Names() {
		switch o := sim.Scope().Lookup(name).(type) {
		case *types.Func:
			if sig := o.Type().(*types.Signature); o.Exported() && (takesThread(sig) || mentionsCoop(sig) || mentionsValue(sig)) {
				api = append(api, name)
			}
		case *types.TypeName:
			if name != "Thread" && name != "Buffer" && name != "Constant" && (!coopTypes[name] || name == "Group" || name == "WarpGroup") {
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(o.Type()))
			for i := range ms.Len() {
				if m := ms.At(i).Obj(); m.Exported() {
					api = append(api, name+"."+m.Name())
				}
			}
		}
	}
	sort.Strings(api)
	if len(api) < 30 {
		t.Fatalf("found only %d kernel-facing sim functions: the walk is broken", len(api))
	}
	seen := map[string]bool{}
	for _, k := range api {
		seen[k] = true
		_, tr := simCalls[k]
		_, host := simHostOnly[k]
		switch {
		case !tr && !host:
			t.Errorf("sim.%s has no CUDA translation and no host-only entry: add it to simCalls or simHostOnly", k)
		case tr && host:
			t.Errorf("sim.%s is both translated and host-only", k)
		}
	}
	for k, s := range simCalls {
		if s.emit == nil {
			t.Errorf("simCalls[%q] has no emitter", k)
		}
		if !seen[k] && k != "Fmaf" {
			t.Errorf("simCalls has %q, which sim no longer offers a kernel", k)
		}
	}
	for k := range simHostOnly {
		if !seen[k] {
			t.Errorf("simHostOnly has %q, which sim no longer has", k)
		}
	}
	if sim.Scope().Lookup("Fmaf") == nil {
		t.Error("sim.Fmaf is gone; drop it from simCalls")
	}
}
