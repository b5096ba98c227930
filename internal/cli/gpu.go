package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/kernels"
)

// The -gpu half of `gpusim sweep`: the same host driver (Kernel.Run) on the
// CUDA backend, with the case the simulator ran, timed and compared with
// the simulator's result.

// gpuTiming is one block size's runs on the GPU.
type gpuTiming struct {
	Runs     int `json:"runs"`     // timed runs, after one warm-up run
	Launches int `json:"launches"` // kernel launches per driver run
	// Kernel time is the GPU time of one driver run's launches (CUDA events
	// around each cuLaunchKernel, summed): no copies, no allocation, no
	// launch overhead.
	KernelMedianNano int64 `json:"kernel_median_ns"`
	KernelMinNano    int64 `json:"kernel_min_ns"`
	// Driver time is the host's wall clock around the whole driver:
	// allocations, copies both ways, launches with their synchronisation,
	// frees.
	DriverMedianNano int64 `json:"driver_median_ns"`
	// Check compares every run's result with Against ("sim", or
	// "reference" where the simulator gave none) under the kernel's rule:
	// "same", "differs" or "error" (the driver failed on the GPU).
	Check   string `json:"check"`
	Against string `json:"against"`
	Error   string `json:"error,omitempty"`
}

// gpuDevice is what sweep -gpu needs of the CUDA backend (*cuda.Device,
// with launch timing on).
type gpuDevice interface {
	kernels.Backend
	LaunchTimes() []cuda.LaunchTime
	Info() cuda.Info
	Close() error
}

// openGPU opens the device for -gpu; tests replace it to run the sweep on
// a fake device.
var openGPU = openCUDA

// openCUDA opens the CUDA device and turns launch timing on (the kernel's
// twins load at its first launch). Any of them failing means the sweep cannot start: a usage
// error, exit status 2.
func openCUDA(kernel string) (gpuDevice, error) {
	if !cuda.Available {
		return nil, usagef("-gpu: this gpusim was built without the cuda build tag, so it has no CUDA backend; " +
			"build one with scripts/build-parity.sh (writes .devbin/gpusim; needs no GPU) and run that on the GPU host")
	}
	dev, err := cuda.Open(cuda.Config{})
	if err != nil {
		return nil, usagef("-gpu: cannot open the GPU: %s", firstLine(err.Error()))
	}
	if err := dev.TimeLaunches(true); err != nil {
		dev.Close()
		return nil, usagef("-gpu: %s", firstLine(err.Error()))
	}
	return dev, nil
}

// timeOnGPU runs k's driver on dev with case c once to warm up (module
// load, first-touch allocation, clocks), then runs more times, timing each.
// Every run's result is compared with want under k's rule.
func timeOnGPU(dev gpuDevice, k *kernels.Kernel, c kernels.Case, want kernels.Result, against string, runs int) *gpuTiming {
	g := &gpuTiming{Runs: runs, Check: "same", Against: against}
	var kern, driver []time.Duration
	for i := -1; i < runs; i++ {
		dev.LaunchTimes() // forget whatever an earlier run left
		start := time.Now()
		got, err := k.Run(dev, c)
		wall := time.Since(start)
		lts := dev.LaunchTimes()
		run := "warm-up run"
		if i >= 0 {
			run = fmt.Sprintf("timed run %d", i+1)
		}
		if err != nil {
			g.Check, g.Error = "error", fmt.Sprintf("%s on the GPU: %s", run, firstLine(err.Error()))
			return g
		}
		if cerr := k.Rule.Check(got, want); cerr != nil && g.Check == "same" {
			g.Check, g.Error = "differs", fmt.Sprintf("%s, GPU vs %s: %s", run, against, firstLine(cerr.Error()))
		}
		if i < 0 {
			continue // the warm-up run is checked, not timed
		}
		var sum time.Duration
		for _, lt := range lts {
			sum += lt.GPU
		}
		g.Launches = len(lts)
		kern = append(kern, sum)
		driver = append(driver, wall)
	}
	g.KernelMedianNano, g.KernelMinNano = int64(median(kern)), int64(slices.Min(kern))
	g.DriverMedianNano = int64(median(driver))
	return g
}

// median is the middle of ds (the mean of the two middle ones for an even
// count); ds must not be empty.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fmtGPUDur prints a GPU time with a unit that keeps three digits or so.
func fmtGPUDur(ns int64) string {
	switch d := float64(ns); {
	case d < 1e3:
		return fmt.Sprintf("%dns", ns)
	case d < 1e6:
		return fmt.Sprintf("%.1fµs", d/1e3)
	case d < 1e9:
		return fmt.Sprintf("%.2fms", d/1e6)
	default:
		return fmt.Sprintf("%.2fs", d/1e9)
	}
}
