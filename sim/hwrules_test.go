package sim_test

// The hardware-exact rules, held to the H100's output: scripts/hwrules.cu
// prints one line per case on the GPU; testdata/hwrules.golden is that
// output, and this test prints the simulator's line for each case and
// compares. Until the probe has run on the H100, the golden file holds
// what the PTX ISA's shfl.sync pseudo-code, the CUDA headers' clamp
// operand and the CUDA runtime's shared-memory rule say (written from
// those documents, not from the simulator). Never regenerate it from the
// simulator: replace it with the probe's output.

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

var cudaErrName = regexp.MustCompile(`cudaError\w+`)

// errName is the CUDA error the simulator's outcome stands for, as
// cudaGetErrorName prints it.
func errName(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return "cudaSuccess"
	}
	var le *sim.LaunchError
	if errors.As(err, &le) {
		return cudaErrName.FindString(le.Code.String())
	}
	var r *sim.Report
	if errors.As(err, &r) && len(r.Findings) > 0 {
		if name := cudaErrName.FindString(r.Findings[0].Detail); name != "" {
			return name
		}
	}
	return "unexpected: " + err.Error()
}

func simSmemLine(t *testing.T, static, dynamic, optin int) string {
	dev := sim.NewDevice(sim.H100)
	out, _ := sim.Alloc[float32](dev, "out", 1)
	cfg := sim.Config{Grid: sim.Dim(1), Block: sim.Dim(32), SharedBytes: dynamic,
		Options: sim.Options{}.WithSharedOptIn(optin == 1)}
	err := dev.Launch(cfg, func(th *sim.Thread) {
		var v float32
		if static > 0 {
			s := sim.Shared[float32](th, "s", static/4)
			s.Store(th, th.ThreadIdx.X, 1)
			v += s.Load(th, th.ThreadIdx.X)
		}
		d := sim.DynamicShared[float32](th, "d")
		d.Store(th, th.ThreadIdx.X, 2)
		v += d.Load(th, th.ThreadIdx.X)
		if th.ThreadIdx.X == 0 {
			out.Store(th, 0, v)
		}
	})
	return fmt.Sprintf("smem static=%d dynamic=%d optin=%d: %s", static, dynamic, optin, errName(t, err))
}

func simShflLine(t *testing.T, op string, b, width int) string {
	dev := sim.NewDevice(sim.H100)
	out, _ := sim.Alloc[int32](dev, "out", 32)
	err := dev.Launch(cfg1(1, 32, sim.Options{}.WithDetection(false)), func(th *sim.Thread) {
		lane := int32(th.LaneID())
		var r int32
		switch op {
		case "idx":
			r = sim.ShflSync(th, sim.FullMask, lane, b, width)
		case "up":
			r = sim.ShflUpSync(th, sim.FullMask, lane, b, width)
		case "down":
			r = sim.ShflDownSync(th, sim.FullMask, lane, b, width)
		case "xor":
			r = sim.ShflXorSync(th, sim.FullMask, lane, b, width)
		}
		out.Store(th, int(lane), r)
	})
	var r *sim.Report
	if errors.As(err, &r) {
		// A width CUDA leaves undefined is reported; the values must
		// still be the hardware's.
		for _, f := range r.Findings {
			if f.Kind != sim.InvalidShuffle || !strings.Contains(f.Detail, "width") {
				return fmt.Sprintf("shfl %s b=%d width=%d: unexpected: %v", op, b, width, r)
			}
		}
	} else if err != nil {
		return fmt.Sprintf("shfl %s b=%d width=%d: %s", op, b, width, errName(t, err))
	}
	var vals []string
	for _, v := range out.ToHost() {
		vals = append(vals, fmt.Sprint(v))
	}
	return fmt.Sprintf("shfl %s b=%d width=%d: %s", op, b, width, strings.Join(vals, " "))
}

// simGridLine validates the grid (running 2^31 threads is not the point):
// a grid the simulator cannot number is legal on the GPU, so its
// simulator-only code stands for cudaSuccess, never for a CUDA error.
func simGridLine(t *testing.T, gx, bx int) string {
	err := sim.NewDevice(sim.H100).Validate(sim.Config{Grid: sim.Dim(gx), Block: sim.Dim(bx)})
	var le *sim.LaunchError
	if errors.As(err, &le) && le.Code == sim.ErrSimulatorLimit {
		err = nil
	}
	return fmt.Sprintf("grid %dx%d: %s", gx, bx, errName(t, err))
}

func TestHardwareRulesMatchH100Golden(t *testing.T) {
	data, err := os.ReadFile("testdata/hwrules.golden")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	counts := map[string]int{}
	for _, want := range lines {
		var got string
		switch f := strings.Fields(want); f[0] {
		case "smem":
			var s, d, o int
			if _, err := fmt.Sscanf(want, "smem static=%d dynamic=%d optin=%d:", &s, &d, &o); err != nil {
				t.Fatalf("golden line %q: %v", want, err)
			}
			got = simSmemLine(t, s, d, o)
		case "shfl":
			var b, w int
			if _, err := fmt.Sscanf(strings.Join(f[2:4], " "), "b=%d width=%d:", &b, &w); err != nil {
				t.Fatalf("golden line %q: %v", want, err)
			}
			got = simShflLine(t, f[1], b, w)
		case "grid":
			var gx, bx int
			if _, err := fmt.Sscanf(f[1], "%dx%d:", &gx, &bx); err != nil {
				t.Fatalf("golden line %q: %v", want, err)
			}
			got = simGridLine(t, gx, bx)
		default:
			t.Fatalf("golden line %q of no known case", want)
		}
		counts[strings.Fields(want)[0]]++
		if got != want {
			t.Errorf("simulator and H100 differ:\n sim: %s\n  hw: %s", got, want)
		}
	}
	// The cases the issue names are all in the file.
	for _, c := range []string{
		"smem static=40960 dynamic=10240 optin=0:",
		"shfl down b=-1 width=32:", "shfl down b=32 width=32:", "shfl up b=33 width=32:",
		"shfl idx b=32 width=32:", "shfl idx b=-1 width=32:", "shfl xor b=1 width=12:",
		"grid 4194304x1024:",
	} {
		if !strings.Contains(string(data), c) {
			t.Errorf("the golden file has no case %q", c)
		}
	}
	t.Logf("%v cases", counts)
}
