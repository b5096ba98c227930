package kernels_test

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// TestParamsMatchTwins holds every Func's Params to its CUDA twin's
// signature: the names findings print are the ones in the .cu source.
func TestParamsMatchTwins(t *testing.T) {
	for _, k := range kernels.All() {
		src, err := cuda.Twin(k.Name)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		for _, f := range k.Funcs {
			want, err := cuda.ParamNames(src, f.Name)
			if err != nil {
				t.Errorf("%s: %v", k.Name, err)
				continue
			}
			if !slices.Equal(f.Params, want) {
				t.Errorf("%s: %s.Params = %q, twin's signature has %q", k.Name, f.Name, f.Params, want)
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
				for _, p := range f.Params {
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

// racyCopy is a device function whose every thread writes out[0] after
// reading in[0]: a race on out, and on in when in and out are one buffer.
var racyCopy = &kernels.Func{Name: "racy_copy", Params: []string{"in", "out"}, Body: func(args []any) sim.Kernel {
	in, out := kernels.Buf[int32](args[0]), kernels.Buf[int32](args[1])
	return func(t *sim.Thread) {
		out.Store(t, 0, in.Load(t, 0)+1)
	}
}}

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
			err = b.Launch(racyCopy, sim.Dim(1), sim.Dim(64), 0, in, out)
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
	err = b.Launch(racyCopy, sim.Dim(1), sim.Dim(1), 0, in)
	if err == nil || !strings.Contains(err.Error(), "launched with 1 arguments for parameters [in out]") {
		t.Errorf("Launch with a missing argument: %v", err)
	}
}
