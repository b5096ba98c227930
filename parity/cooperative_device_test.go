//go:build cuda

package parity

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
)

// On the GPU, TestCheckGridSyncKernel and TestCheckCooperationExplicit
// (cooperative_test.go) compare grid.sync() kernels launched with
// cuLaunchCooperativeKernel against the simulator. The tests below check
// the device side where the simulator would be slow or cannot say what
// the driver does: a grid over every SM, the driver's co-residency limit,
// and grid.is_valid() in a plain launch.

// TestDeviceGridSyncEverySM runs GridSweeps over one block per SM, far
// more elements than threads, and many sweeps: the blocks read what other
// blocks wrote in the sweep before, so only a real grid-wide barrier gives
// the CPU's answer.
func TestDeviceGridSyncEverySM(t *testing.T) {
	sms := dev.Info().SMs
	l := sweepsLaunch(sms*256*3+17, 40, sms, 256)
	got, err := RunLaunch(dev, usertest.GridSweeps, l)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(kernels.Rule{}, kernels.Result(sweepsRef(l)), got); d != "" {
		t.Errorf("GPU differs from the CPU reference (-ref +gpu):\n%s", d)
	}
}

// TestDeviceCooperativeLimit: the largest cooperative grid the driver
// takes is SMs x cuOccupancyMaxActiveBlocksPerMultiprocessor; it runs,
// and one block more is refused with the simulator's error code, the
// limit and why the launch is cooperative in the message.
func TestDeviceCooperativeLimit(t *testing.T) {
	const block = 1024
	occ, err := dev.Occupancy(usertest.GridSweeps, block, 0)
	if err != nil {
		t.Fatal(err)
	}
	limit := dev.Info().SMs * occ.BlocksPerSM
	t.Logf("%s: %d SMs x %d blocks of %d threads (%d registers, %d bytes of static shared memory)",
		dev.Info().Name, dev.Info().SMs, occ.BlocksPerSM, block, occ.NumRegs, occ.StaticShared)

	l := sweepsLaunch(3*limit*block, 3, limit, block)
	got, err := RunLaunch(dev, usertest.GridSweeps, l)
	if err != nil {
		t.Fatalf("a cooperative grid of %d blocks, the limit: %v", limit, err)
	}
	if d := Diff(kernels.Rule{}, kernels.Result(sweepsRef(l)), got); d != "" {
		t.Errorf("GPU differs from the CPU reference at the limit (-ref +gpu):\n%s", d)
	}

	_, err = RunLaunch(dev, usertest.GridSweeps, sweepsLaunch(100, 3, limit+1, block))
	var le *sim.LaunchError
	if !errors.As(err, &le) || le.Code != sim.ErrCooperativeLaunchTooLarge {
		t.Fatalf("%d blocks: %v, want cudaErrorCooperativeLaunchTooLarge", limit+1, err)
	}
	for _, s := range []string{fmt.Sprintf("%d blocks, at most %d co-resident", limit+1, limit), "it calls grid.sync()", "cuLaunchCooperativeKernel"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("refusal %q lacks %q", err, s)
		}
	}
	// The launch after a refusal works: the refusal left no sticky error.
	if _, err := RunLaunch(dev, usertest.GridSweeps, sweepsLaunch(100, 1, 1, 32)); err != nil {
		t.Errorf("a launch after the refusal: %v", err)
	}
}

// TestDeviceGridIsValidInPlainLaunch: a kernel that grid-syncs only when
// grid.is_valid() takes its grid.sync() path by default; a plain launch of
// it is refused before it reaches the GPU (on the H100 with driver 580,
// grid.is_valid() was true in a plain launch too: PARITY.md's run at
// d01b637 saw mirror = out reversed, where the Programming Guide, and the
// simulator, give the plain path).
func TestDeviceGridIsValidInPlainLaunch(t *testing.T) {
	if _, err := RunLaunch(dev, usertest.MirrorIfCooperative, mirrorLaunch(1000, 128, CooperativeNever)); err == nil {
		t.Fatal("a plain launch of a grid.sync() kernel ran; want a refusal")
	}
	for _, c := range []Cooperation{CooperativeIfGridSync, CooperativeAlways} {
		l := mirrorLaunch(1000, 128, c)
		got, err := RunLaunch(dev, usertest.MirrorIfCooperative, l)
		if err != nil {
			t.Fatalf("Cooperation %d: %v", c, err)
		}
		want := mirrorRef(l)
		if d := Diff(kernels.Rule{}, kernels.Result(want[1:]), got[1:]); d != "" {
			t.Errorf("Cooperation %d: GPU differs from the reference (-ref +gpu):\n%s", c, d)
		}
	}
}
