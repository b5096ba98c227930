package kernels_test

import (
	"errors"
	"go/token"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// TestKernelFuncs holds every registry Func to the kernel form: a kernel
// function with a generated twin, whose parameters have distinct names that
// are valid identifiers (they are the CUDA twin's, and the names findings
// print), and one Go function per entry point.
func TestKernelFuncs(t *testing.T) {
	byName := map[string]uintptr{}
	for _, k := range kernels.All() {
		for _, f := range k.Funcs {
			tw, err := twin.Of(f)
			if err != nil {
				t.Errorf("%s: %v", k.Name, err)
				continue
			}
			name := kernels.KernelName(f)
			if name != tw.Entry {
				t.Errorf("%s: KernelName = %s, twin entry %s", k.Name, name, tw.Entry)
			}
			if pc := reflect.ValueOf(f).Pointer(); byName[name] != 0 && byName[name] != pc {
				t.Errorf("%s: two functions have the entry point %s", k.Name, name)
			} else {
				byName[name] = pc
			}
			params := kernels.ParamNames(f)
			seen := map[string]bool{}
			for _, p := range params {
				if !token.IsIdentifier(p) || p == "_" || seen[p] {
					t.Errorf("%s: %s: parameter names %q are not distinct identifiers", k.Name, name, params)
					break
				}
				seen[p] = true
			}
			if len(params) != reflect.TypeOf(f).NumIn() {
				t.Errorf("%s: %s: twin has %d parameters, the Go function %d", k.Name, name, len(params), reflect.TypeOf(f).NumIn())
			}
		}
	}
}

// provisional matches the names buffers have before a launch names them
// (and the old generic "buf<n>"): no finding may print one.
var provisional = regexp.MustCompile(`\b(buf|alloc)[0-9]+\b`)

// TestFindingsNameParams runs every kernel's driver on the simulator, under
// the natural and a random order, and checks that each finding on global
// memory names a parameter of one of the kernel's device functions.
func TestFindingsNameParams(t *testing.T) {
	for _, k := range kernels.All() {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			params := map[string]bool{}
			for _, f := range k.Funcs {
				for _, p := range kernels.ParamNames(f) {
					params[p] = true
				}
			}
			var findings int
			for seed := uint64(1); seed <= 2; seed++ {
				c := k.Generate(rand.New(rand.NewPCG(seed, 4)), min(maxSize(k), 1000), 0)
				_, b, err := runSim(k, c, naturalThenRandom(seed))
				var r *sim.Report
				if err != nil && !errors.As(err, &r) {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, r := range b.Reports {
					for _, f := range r.Findings {
						findings++
						if provisional.MatchString(f.String()) {
							t.Errorf("seed %d: finding names a provisional buffer:\n%v", seed, f)
						}
						if f.Memory == "" || f.Space != sim.GlobalSpace {
							continue
						}
						for _, p := range strings.Split(f.Memory, "/") {
							if !params[p] {
								t.Errorf("seed %d: finding on %q, not a parameter of %s:\n%v", seed, f.Memory, k.Name, f)
							}
						}
					}
				}
			}
			if k.Faulty && findings == 0 {
				t.Errorf("faulty kernel reported nothing")
			}
		})
	}
}

// TestRaceAddOneNamesX pins the seed's own example: add_one's race is on
// its parameter x, element 0.
func TestRaceAddOneNamesX(t *testing.T) {
	k, _ := kernels.Lookup("add_one")
	_, b, err := runSim(k, kernels.Case{N: 1, Inputs: []any{[]float64{0}}}, sim.Options{})
	var r *sim.Report
	if !errors.As(err, &r) {
		t.Fatalf("want a report, got %v", err)
	}
	races := r.Of(sim.DataRace)
	if len(races) == 0 || len(b.Reports) != 1 {
		t.Fatalf("want data races in one report, got:\n%v", r)
	}
	for _, f := range races {
		if f.Memory != "x" || f.Index != 0 || !strings.Contains(f.String(), `data race on global "x"[0]`) {
			t.Errorf("race not named x[0]:\n%v", f)
		}
	}
}

// RacyCopy has a twin registered by hand, as generated code registers one
// (test files are not translated), so that these tests name its buffers by
// the twin's parameters; a kernel without a twin is named from its source
// (paramnames_test.go).
func init() {
	twin.Register(RacyCopy, twin.Twin{Entry: "RacyCopy", GoName: "kernels_test.RacyCopy",
		Params: []twin.Param{{Name: "in", GoType: "*sim.Buffer[int32]", CType: "int *", Elem: "int32"},
			{Name: "out", GoType: "*sim.Buffer[int32]", CType: "int *", Elem: "int32"}}})
}

// RacyCopy is a kernel whose every thread writes out[0] after reading
// in[0]: a race on out, and on in when in and out are one buffer.
func RacyCopy(in, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, in.Load(t, 0)+1)
	}
}

func TestLaunchNamesBuffers(t *testing.T) {
	tests := []struct {
		label string
		alias bool   // pass one buffer as both in and out
		fixed string // name it with Named first
		want  string
	}{
		{label: "parameter", want: "out"},
		{label: "aliased", alias: true, want: "in/out"},
		{label: "Named", fixed: "result", want: "result"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			b := kernels.NewSimBackend(sim.H100, sim.Options{})
			in, err := kernels.Upload(b, []int32{1})
			if err != nil {
				t.Fatal(err)
			}
			out := in
			if !tt.alias {
				if out, err = kernels.Upload(b, []int32{0}); err != nil {
					t.Fatal(err)
				}
			}
			if tt.fixed != "" {
				b.Named(tt.fixed, out)
			}
			err = b.Launch(RacyCopy, sim.Dim(1), sim.Dim(64), 0, in, out)
			var r *sim.Report
			if !errors.As(err, &r) || !r.Has(sim.DataRace) {
				t.Fatalf("want a data race, got %v", err)
			}
			for _, f := range r.Of(sim.DataRace) {
				if f.Memory != tt.want {
					t.Errorf("race on %q, want %q:\n%v", f.Memory, tt.want, f)
				}
			}
		})
	}
}

func TestLaunchArgumentCount(t *testing.T) {
	b := kernels.NewSimBackend(sim.H100, sim.Options{})
	in, err := kernels.Upload(b, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Launch(RacyCopy, sim.Dim(1), sim.Dim(1), 0, in)
	if err == nil || !strings.Contains(err.Error(), "launched with 1 arguments for parameters [in, out]") {
		t.Errorf("Launch with a missing argument: %v", err)
	}
}
