//go:build !cuda

package cuda_test

import (
	"errors"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
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
	if _, err := cuda.Open(cuda.Config{}); !errors.Is(err, cuda.ErrUnavailable) {
		t.Errorf("Open: %v, want ErrUnavailable", err)
	}
}
