package twin

import (
	"strings"
	"testing"
)

func scaleA() {}
func scaleB() {}
func scaleC() {}

// Kernels of different packages may share an entry name: each gets its own
// module, and Of finds each by its function.
func TestRegisterSameEntryTwoPackages(t *testing.T) {
	Register(scaleA, Twin{Entry: "Scale_twintest", GoName: "a.Scale", Source: "a"})
	Register(scaleB, Twin{Entry: "Scale_twintest", GoName: "b.Scale", Source: "b"})
	a, err := Of(scaleA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Of(scaleB)
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != "a" || b.Source != "b" || a.Module() == b.Module() || a.Entry != b.Entry {
		t.Errorf("twins %q (module %s) and %q (module %s): want distinct modules of one entry", a.GoName, a.Module(), b.GoName, b.Module())
	}
	n := 0
	for _, tw := range All() {
		if tw.Entry == "Scale_twintest" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("All lists %d twins of entry Scale_twintest, want 2", n)
	}
}

func TestRegisterOneFunctionTwicePanics(t *testing.T) {
	Register(scaleC, Twin{Entry: "Scale_twice", GoName: "c.Scale"})
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "registered twice") {
			t.Errorf("recovered %v, want a panic naming the double registration", r)
		}
	}()
	Register(scaleC, Twin{Entry: "Scale_twice", GoName: "c.Scale"})
}
