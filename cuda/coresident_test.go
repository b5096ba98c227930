package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// TestCooperativeTooLargeNamesTheLimit: the GPU refuses a cooperative grid
// too large to be co-resident with the simulator's error code and limit,
// and says how many blocks fit and why (the driver's occupancy answer),
// or why it could not read that.
func TestCooperativeTooLargeNamesTheLimit(t *testing.T) {
	d := sim.NewDevice(sim.H100)
	simErr := d.Launch(sim.Config{Grid: sim.Dim(10000), Block: sim.Dim(1024), Options: sim.Options{}.WithCooperative(true)},
		func(*sim.Thread) {})
	var want *sim.LaunchError
	if !errors.As(simErr, &want) || want.Code != sim.ErrCooperativeLaunchTooLarge {
		t.Fatalf("simulator: %v, want a cooperative-grid LaunchError", simErr)
	}

	got := cooperativeTooLarge(10000, coResidency{SMs: 132, BlocksPerSM: 2, Threads: 1024, Registers: 32, StaticShared: 1024, DynamicShared: 512}, nil)
	if got.Code != want.Code || got.Limit != want.Limit {
		t.Errorf("GPU refusal is %v / %q, the simulator's %v / %q", got.Code, got.Limit, want.Code, want.Limit)
	}
	for _, s := range []string{"10000 blocks, at most 264 co-resident", "132 SMs x 2 blocks of 1024 threads", "32 registers", "1024 bytes of static and 512 of dynamic shared memory"} {
		if !strings.Contains(got.Error(), s) {
			t.Errorf("GPU refusal %q lacks %q", got, s)
		}
	}

	unread := cooperativeTooLarge(10000, coResidency{Threads: 1024}, errors.New("cuOccupancyMaxActiveBlocksPerMultiprocessor: boom"))
	if unread.Code != want.Code || !strings.Contains(unread.Detail, "10000 blocks of 1024 threads") || !strings.Contains(unread.Detail, "boom") {
		t.Errorf("refusal without the limit: %v", unread)
	}
}
