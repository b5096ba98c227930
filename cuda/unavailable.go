//go:build !cuda

package cuda

import (
	"errors"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// ErrUnavailable is what Open returns in a build without the cuda tag.
var ErrUnavailable = errors.New("cuda: device unavailable: gpusim was built without -tags cuda " +
	"(the CUDA backend needs cgo, cuda.h and libcuda; see scripts/build-parity.sh)")

// Available reports whether this build has the CUDA backend.
const Available = false

// Device is the CUDA backend; in this build it cannot be opened.
type Device struct{}

// Open always fails in a build without the cuda tag.
func Open(Config) (*Device, error) { return nil, ErrUnavailable }

func (*Device) Name() string                                  { return "cuda (unavailable)" }
func (*Device) Alloc(kernels.DType, int) (kernels.Mem, error) { return nil, ErrUnavailable }
func (*Device) Write(kernels.Mem, any) error                  { return ErrUnavailable }
func (*Device) Read(kernels.Mem, any) error                   { return ErrUnavailable }
func (*Device) Memset(kernels.Mem, byte) error                { return ErrUnavailable }
func (*Device) Launch(any, sim.Dim3, sim.Dim3, int, ...any) error {
	return ErrUnavailable
}
func (*Device) LaunchCooperative(any, sim.Dim3, sim.Dim3, int, ...any) error {
	return ErrUnavailable
}
func (*Device) CopyToSymbol(any, any) error { return ErrUnavailable }
func (*Device) Free(kernels.Mem)            {}
func (*Device) Info() Info                  { return Info{} }
func (*Device) Builds() map[string]Build    { return nil }
func (*Device) Close() error                { return nil }

// TimeLaunches and LaunchTimes time launches on the device.
func (*Device) TimeLaunches(bool) error   { return ErrUnavailable }
func (*Device) LaunchTimes() []LaunchTime { return nil }

// Limits, FuncAttributes and Occupancy need the driver.
func (*Device) Limits() (Limits, error)               { return Limits{}, ErrUnavailable }
func (*Device) FuncAttributes(any) (FuncAttrs, error) { return FuncAttrs{}, ErrUnavailable }
func (*Device) Occupancy(any, int, int) (FuncOccupancy, error) {
	return FuncOccupancy{}, ErrUnavailable
}

var _ kernels.ConstantWriter = (*Device)(nil)
