//go:build !cuda

package cuda_test

import (
	"errors"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// TestOccupancyUnavailable: without the cuda tag the occupancy queries exist
// and say why they cannot answer.
func TestOccupancyUnavailable(t *testing.T) {
	var d *cuda.Device
	if _, err := d.Limits(); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("Limits: %v, want ErrUnavailable", err)
	}
	if _, err := d.FuncAttributes(kernels.ReduceSum); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("FuncAttributes: %v, want ErrUnavailable", err)
	}
	if _, err := d.Occupancy(kernels.ReduceSum, 256, 1024); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("Occupancy: %v, want ErrUnavailable", err)
	}
	if err := kernels.LaunchCooperative(d, kernels.ReduceSum, sim.Dim(1), sim.Dim(32), 0); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("LaunchCooperative: %v, want ErrUnavailable (the method exists, as with the cuda tag)", err)
	}
	if _, err := cuda.Open(cuda.Config{}); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("Open: %v, want ErrUnavailable", err)
	}
}
