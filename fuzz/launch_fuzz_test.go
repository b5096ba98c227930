package fuzz

import (
	"errors"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// FuzzLaunchShape launches a kernel with arbitrary shapes and indices: the
// launch must either be refused with a *LaunchError or run to a *Report or
// nil, never panic or hang.
func FuzzLaunchShape(f *testing.F) {
	f.Add(1, 1, 1, 32, 1, 1, 0, 0, 3)
	f.Add(2, 1, 1, 1024, 1, 1, 100, -1, 40)
	f.Add(0, 1, 1, 2048, 1, 1, 1<<20, 5, 7)
	f.Fuzz(func(t *testing.T, gx, gy, gz, bx, by, bz, shared, offset, n int) {
		if gx*gy*gz > 64 || gx*gy*gz*bx*by*bz > 1<<14 || n < 0 || n > 1<<12 {
			t.Skip()
		}
		dev := sim.NewDevice(sim.H100)
		buf, err := sim.Alloc[int32](dev, "buf", n)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Config{Grid: sim.Dim3{X: gx, Y: gy, Z: gz}, Block: sim.Dim3{X: bx, Y: by, Z: bz}, SharedBytes: shared}
		err = dev.Launch(cfg, func(th *sim.Thread) {
			i := th.LinearThreadIdx() + offset
			if i%3 == 0 {
				th.SyncThreads()
			}
			sim.AtomicAdd(th, buf, i, 1)
		})
		var le *sim.LaunchError
		var r *sim.Report
		if err != nil && !errors.As(err, &le) && !errors.As(err, &r) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	})
}
