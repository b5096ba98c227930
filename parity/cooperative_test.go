package parity

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// Cooperative launches: a kernel that calls grid.sync() is launched with
// cudaLaunchCooperativeKernel on both backends, as its twin tells
// (usertest.GridSweeps, usertest.MirrorIfCooperative), or as
// Launch.Cooperative and Test.Options say. Without a GPU, a SimBackend
// that counts its launches stands in for the GPU side.

// launchRecorder is a backend that counts its plain and cooperative
// launches, running both on the simulator.
type launchRecorder struct {
	*kernels.SimBackend
	plain, coop int
}

func newRecorder() *launchRecorder { return &launchRecorder{SimBackend: newSim()} }

func (r *launchRecorder) Launch(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	r.plain++
	return r.SimBackend.Launch(kernel, grid, block, sharedBytes, args...)
}

func (r *launchRecorder) LaunchCooperative(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	r.coop++
	return r.SimBackend.LaunchCooperative(kernel, grid, block, sharedBytes, args...)
}

// plainOnly is a backend that cannot launch cooperatively: it has the
// Backend methods of the simulator and no LaunchCooperative.
type plainOnly struct{ kernels.Backend }

func sweepsLaunch(n, iters, blocks, block int) Launch {
	a := make([]float32, n)
	for i := range a {
		a[i] = float32(i%13) - 4.5
	}
	b := make([]float32, n)
	for i := range b {
		b[i] = -1
	}
	return Launch{Grid: sim.Dim(blocks), Block: sim.Dim(block), Args: []any{a, b, n, iters}}
}

// sweepsRef is GridSweeps on the CPU.
func sweepsRef(l Launch) []any {
	a, b := slices.Clone(l.Args[0].([]float32)), slices.Clone(l.Args[1].([]float32))
	n, iters := l.Args[2].(int), l.Args[3].(int)
	for it := range iters {
		src, dst := a, b
		if it%2 == 1 {
			src, dst = b, a
		}
		for i := range n {
			if i == 0 || i == n-1 {
				dst[i] = src[i]
			} else {
				dst[i] = (src[i-1] + src[i+1]) * 0.5
			}
		}
	}
	return []any{a, b}
}

// TestCheckGridSyncKernel: Check of a kernel calling grid.sync(), with no
// option set, launches it cooperatively (its twin says it grid-syncs): a
// plain launch would be a KernelPanic finding on the simulator, and
// undefined on the GPU.
func TestCheckGridSyncKernel(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.GridSweeps,
		Draw: func(rt *rapid.T) Launch {
			return sweepsLaunch(rapid.IntRange(1, 300).Draw(rt, "n"), rapid.IntRange(0, 4).Draw(rt, "iters"),
				rapid.IntRange(1, 6).Draw(rt, "blocks"), rapid.SampledFrom([]int{32, 64, 128}).Draw(rt, "block"))
		},
		Reference: sweepsRef,
	})
}

func mirrorLaunch(n, block int, c Cooperation) Launch {
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(7*i - 50)
	}
	out, mirror := make([]int32, n), make([]int32, n)
	for i := range out {
		out[i], mirror[i] = -5, -5
	}
	return Launch{Grid: sim.Dim(max(1, (n+block-1)/block)), Block: sim.Dim(block), Args: []any{in, out, mirror, n}, Cooperative: c}
}

// mirrorRef is MirrorIfCooperative on the CPU, for a launch that is
// cooperative unless it says CooperativeNever (the kernel grid-syncs).
func mirrorRef(l Launch) []any {
	in, n := l.Args[0].([]int32), l.Args[3].(int)
	out, mirror := make([]int32, n), make([]int32, n)
	for i := range n {
		out[i] = 2 * in[i]
	}
	for i := range n {
		if l.Cooperative == CooperativeNever {
			mirror[i] = -1
		} else {
			mirror[i] = out[n-1-i]
		}
	}
	return []any{nil, out, mirror}
}

// TestCheckCooperationExplicit: a kernel testing grid.is_valid() takes its
// grid.sync() path whether the cooperation is inferred or asked for.
// CooperativeNever is refused for it (TestCooperationNeverRefusedForGridSync):
// the H100 takes the grid.sync() path in a plain launch too.
func TestCheckCooperationExplicit(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.MirrorIfCooperative,
		Draw: func(rt *rapid.T) Launch {
			c := rapid.SampledFrom([]Cooperation{CooperativeIfGridSync, CooperativeAlways}).Draw(rt, "cooperative")
			return mirrorLaunch(rapid.IntRange(1, 400).Draw(rt, "n"), rapid.SampledFrom([]int{32, 64, 128}).Draw(rt, "block"), c)
		},
		Reference: mirrorRef,
	})
}

// TestRunLaunchCooperation: RunLaunch launches cooperatively exactly when
// the launch asks, or, by default, when the kernel's twin calls
// grid.sync(); a kernel without a twin is launched plainly by default.
func TestRunLaunchCooperation(t *testing.T) {
	shorts := Launch{Grid: sim.Dim(1), Block: sim.Dim(32), Args: []any{make([]int16, 4), make([]uint16, 4), 4}}
	with := func(l Launch, c Cooperation) Launch { l.Cooperative = c; return l }
	for _, tt := range []struct {
		name   string
		kernel any
		l      Launch
		coop   bool
		ref    func(Launch) []any // nil: outputs not checked
	}{
		{"grid.sync, inferred", usertest.GridSweeps, sweepsLaunch(100, 3, 2, 64), true, sweepsRef},
		{"no grid.sync, inferred", usertest.Shorts, shorts, false, nil},
		{"no grid.sync, always", usertest.Shorts, with(shorts, CooperativeAlways), true, nil},
		{"no grid.sync, never", usertest.Shorts, with(shorts, CooperativeNever), false, nil},
		{"is_valid, inferred", usertest.MirrorIfCooperative, mirrorLaunch(70, 32, CooperativeIfGridSync), true, mirrorRef},
		{"no twin, inferred", saxpy, saxpyLaunch(100, 2), false, saxpyRef},
		{"no twin, always", saxpy, with(saxpyLaunch(100, 2), CooperativeAlways), true, saxpyRef},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			out, err := RunLaunch(r, tt.kernel, tt.l)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool][2]int{false: {1, 0}, true: {0, 1}}[tt.coop]; r.plain != want[0] || r.coop != want[1] {
				t.Errorf("%d plain and %d cooperative launches, want %d and %d", r.plain, r.coop, want[0], want[1])
			}
			if tt.ref == nil {
				return
			}
			for i, want := range tt.ref(tt.l) {
				if want == nil {
					continue
				}
				if d := Diff(kernels.Rule{}, kernels.Result{want}, kernels.Result{out[i]}); d != "" {
					t.Errorf("buffer %d differs from the reference (-ref +got):\n%s", i, d)
				}
			}
		})
	}
	if _, err := RunLaunch(newRecorder(), usertest.Shorts, with(shorts, Cooperation(7))); err == nil || !strings.Contains(err.Error(), "none of CooperativeIfGridSync") {
		t.Errorf("Cooperation(7): %v, want a refusal", err)
	}
	if _, err := RunLaunch(plainOnly{newSim()}, usertest.GridSweeps, sweepsLaunch(10, 1, 1, 32)); err == nil || !strings.Contains(err.Error(), "cannot launch cooperatively") {
		t.Errorf("a grid.sync() kernel on a backend without LaunchCooperative: %v, want a refusal", err)
	}
}

// TestCheckLaunchSameCooperationOnBothSides: Check decides once whether a
// launch is cooperative and launches the simulator and the GPU alike,
// Test.Options.WithCooperative(true) included (it used to make the
// simulator cooperative and leave the GPU plain).
func TestCheckLaunchSameCooperationOnBothSides(t *testing.T) {
	shorts := Launch{Grid: sim.Dim(2), Block: sim.Dim(32), Args: []any{make([]int16, 40), make([]uint16, 40), 40}}
	for _, tt := range []struct {
		name string
		test Test
		l    Launch
		coop bool
	}{
		{"inferred from the twin", Test{Kernel: usertest.GridSweeps}, sweepsLaunch(200, 4, 3, 64), true},
		{"Options ask", Test{Kernel: usertest.Shorts, Options: sim.Options{}.WithCooperative(true)}, shorts, true},
		{"plain", Test{Kernel: usertest.Shorts}, shorts, false},
		{"never", Test{Kernel: usertest.Shorts}, func() Launch { l := shorts; l.Cooperative = CooperativeNever; return l }(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gpu := newRecorder()
			if err := checkLaunch(tt.test, tt.l, gpu); err != nil {
				t.Fatal(err)
			}
			if gpu.coop+gpu.plain != 1 || (gpu.coop == 1) != tt.coop {
				t.Errorf("GPU side: %d plain and %d cooperative launches, want one, cooperative %v", gpu.plain, gpu.coop, tt.coop)
			}
		})
	}

	err := checkLaunch(Test{Kernel: usertest.MirrorIfCooperative, Options: sim.Options{}.WithCooperative(true)},
		mirrorLaunch(10, 32, CooperativeNever), newRecorder())
	if err == nil || !strings.Contains(err.Error(), "CooperativeNever") || !strings.Contains(err.Error(), "WithCooperative(true)") {
		t.Errorf("CooperativeNever with Options asking for a cooperative launch: %v, want a refusal naming both", err)
	}
	err = checkLaunch(Test{Kernel: usertest.GridSweeps}, sweepsLaunch(10, 1, 1, 32), plainOnly{newSim()})
	if err == nil || !strings.HasPrefix(err.Error(), "GPU: ") || !strings.Contains(err.Error(), "cannot launch cooperatively") {
		t.Errorf("a GPU side without LaunchCooperative: %v, want the GPU side refused", err)
	}
}

// TestCooperativeGridTooLarge: a cooperative grid with more blocks than
// the device holds co-resident is refused before it runs, with the
// simulator's limit and why the launch is cooperative in the message; the
// same grid launched plainly runs.
func TestCooperativeGridTooLarge(t *testing.T) {
	const block = 1024
	limit, err := sim.NewDevice(sim.H100).CooperativeLimit(sim.Config{Block: sim.Dim(block)}, 0)
	if err != nil || limit < 1 {
		t.Fatalf("H100 cooperative limit for %d threads: %d, %v", block, limit, err)
	}
	blocks := limit + 1
	atMost := fmt.Sprintf("%d blocks, at most %d co-resident", blocks, limit)

	for _, tt := range []struct {
		kernel any
		l      Launch
		why    string
	}{
		{usertest.GridSweeps, sweepsLaunch(100, 2, blocks, block), "it calls grid.sync()"},
		{usertest.Shorts, Launch{Grid: sim.Dim(blocks), Block: sim.Dim(block), Args: []any{make([]int16, 4), make([]uint16, 4), 4}, Cooperative: CooperativeAlways},
			"Launch.Cooperative is CooperativeAlways"},
	} {
		_, err := RunLaunch(newSim(), tt.kernel, tt.l)
		var le *sim.LaunchError
		if !errors.As(err, &le) || le.Code != sim.ErrCooperativeLaunchTooLarge {
			t.Errorf("%s: %v, want cudaErrorCooperativeLaunchTooLarge", kernels.KernelName(tt.kernel), err)
			continue
		}
		for _, s := range []string{atMost, tt.why, "co-resident on sim"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q lacks %q", kernels.KernelName(tt.kernel), err, s)
			}
		}
	}

	err = checkLaunch(Test{Kernel: usertest.GridSweeps}, sweepsLaunch(100, 2, blocks, block), newRecorder())
	if err == nil || !strings.HasPrefix(err.Error(), "simulator: ") || !strings.Contains(err.Error(), atMost) {
		t.Errorf("Check's launch of %d blocks: %v, want the simulator's refusal naming the limit", blocks, err)
	}

	plain := Launch{Grid: sim.Dim(blocks), Block: sim.Dim(block), Args: []any{make([]int16, 4), make([]uint16, 4), 4}}
	if _, err := RunLaunch(newSim(), usertest.Shorts, plain); err != nil {
		t.Errorf("the same grid launched plainly: %v", err)
	}
}

// TestCooperationNeverRefusedForGridSync: a plain launch of a kernel whose
// twin calls grid.sync() cannot be compared (the H100 says grid.is_valid()
// in a plain launch, the simulator does not), and is refused with why; a
// kernel that does not grid-sync may be launched plainly.
func TestCooperationNeverRefusedForGridSync(t *testing.T) {
	_, err := cooperation(usertest.MirrorIfCooperative, CooperativeNever, false)
	if err == nil || !strings.Contains(err.Error(), "grid.is_valid() is true in a plain launch") {
		t.Fatalf("CooperativeNever on a grid.sync() kernel: %v, want a refusal naming grid.is_valid()", err)
	}
	if c, err := cooperation(usertest.Shorts, CooperativeNever, false); err != nil || c.on {
		t.Fatalf("CooperativeNever on a kernel without grid.sync(): %+v, %v; want a plain launch", c, err)
	}
}
