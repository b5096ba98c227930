package sim_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// reuseCase is a kernel whose launch leaves a worker in some state (parked
// at a barrier, spinning, unwound by a panic, aborted by a finding) and the
// memory it writes, for TestLaunchesOnOneDeviceMatchFreshDevices.
type reuseCase struct {
	name string
	// launch allocates what the kernel needs on dev, launches it with
	// options o and returns the launch's error and the memory it left.
	launch func(dev *sim.Device, o sim.Options) (error, []int32)
}

func reuseCases() []reuseCase {
	flat := func(dev *sim.Device, name string, n int) *sim.Buffer[int32] {
		b, err := sim.Alloc[int32](dev, name, n)
		if err != nil {
			panic(err)
		}
		if err := b.Memset(0); err != nil {
			panic(err)
		}
		return b
	}
	return []reuseCase{
		{"clean shared reduction", func(dev *sim.Device, o sim.Options) (error, []int32) {
			out := flat(dev, "out", 8)
			err := dev.Launch(sim.Config{Grid: sim.Dim(8), Block: sim.Dim(64), Options: o}, func(t *sim.Thread) {
				s := sim.Shared[int32](t, "s", 64)
				s.Store(t, t.ThreadIdx.X, int32(t.ThreadIdx.X+t.BlockIdx.X))
				t.SyncThreads()
				for k := 32; k > 0; k >>= 1 {
					if t.ThreadIdx.X < k {
						s.Store(t, t.ThreadIdx.X, s.Load(t, t.ThreadIdx.X)+s.Load(t, t.ThreadIdx.X+k))
					}
					t.SyncThreads()
				}
				if t.ThreadIdx.X == 0 {
					out.Store(t, t.BlockIdx.X, s.Load(t, 0))
				}
			})
			return err, out.ToHost()
		}},
		{"shared histogram of the reduction's block size", func(dev *sim.Device, o sim.Options) (error, []int32) {
			// Runs in the reduction's blocks (a device keeps a launch's
			// blocks for the next of the same size): another shared
			// array under the same name, a warp shuffle, atomics.
			out := flat(dev, "out", 16)
			err := dev.Launch(sim.Config{Grid: sim.Dim(4), Block: sim.Dim(64), Options: o}, func(t *sim.Thread) {
				s := sim.Shared[int32](t, "s", 16)
				if t.ThreadIdx.X < 16 {
					s.Store(t, t.ThreadIdx.X, 0)
				}
				t.SyncThreads()
				v := sim.ShflXorSync(t, sim.FullMask, int32(t.ThreadIdx.X), 1)
				sim.AtomicAdd(t, s, int(v)%16, 1)
				t.SyncThreads()
				if t.ThreadIdx.X < 16 {
					sim.AtomicAdd(t, out, t.ThreadIdx.X, s.Load(t, t.ThreadIdx.X))
				}
			})
			return err, out.ToHost()
		}},
		{"panic while others wait at a barrier", func(dev *sim.Device, o sim.Options) (error, []int32) {
			out := flat(dev, "out", 4*32)
			err := dev.Launch(sim.Config{Grid: sim.Dim(4), Block: sim.Dim(32), Options: o}, func(t *sim.Thread) {
				out.Store(t, t.BlockIdx.X*32+t.ThreadIdx.X, 1)
				if t.BlockIdx.X == 2 && t.ThreadIdx.X == 5 {
					panic("boom")
				}
				t.SyncThreads()
				out.Store(t, t.BlockIdx.X*32+t.ThreadIdx.X, 2)
			})
			return err, out.ToHost()
		}},
		{"cross-block race", func(dev *sim.Device, o sim.Options) (error, []int32) {
			out := flat(dev, "out", 1)
			err := dev.Launch(sim.Config{Grid: sim.Dim(3), Block: sim.Dim(8), Options: o}, func(t *sim.Thread) {
				out.Store(t, 0, out.Load(t, 0)+1)
			})
			return err, nil // the value depends on nothing but the schedule; the report is compared
		}},
		{"out of bounds in a late block", func(dev *sim.Device, o sim.Options) (error, []int32) {
			out := flat(dev, "out", 100)
			err := dev.Launch(sim.Config{Grid: sim.Dim(5), Block: sim.Dim(32), Options: o}, func(t *sim.Thread) {
				out.Store(t, t.BlockIdx.X*32+t.ThreadIdx.X, 7)
			})
			return err, out.ToHost()
		}},
		{"spin on a flag no block sets", func(dev *sim.Device, o sim.Options) (error, []int32) {
			flag := flat(dev, "flag", 1)
			err := dev.Launch(sim.Config{Grid: sim.Dim(2), Block: sim.Dim(4), Options: o}, func(t *sim.Thread) {
				for sim.AtomicAdd(t, flag, 0, 0) == 0 {
				}
			})
			return err, flag.ToHost()
		}},
		{"spin until another block sets a flag", func(dev *sim.Device, o sim.Options) (error, []int32) {
			flag := flat(dev, "flag", 2)
			err := dev.Launch(sim.Config{Grid: sim.Dim(2), Block: sim.Dim(1), Options: o}, func(t *sim.Thread) {
				if t.BlockIdx.X == 0 {
					for sim.AtomicAdd(t, flag, 0, 0) == 0 {
					}
					flag.Store(t, 1, 5)
				} else {
					sim.AtomicExch(t, flag, 0, 1)
				}
			})
			return err, flag.ToHost()
		}},
		{"barrier divergence", func(dev *sim.Device, o sim.Options) (error, []int32) {
			out := flat(dev, "out", 2)
			err := dev.Launch(sim.Config{Grid: sim.Dim(2), Block: sim.Dim(64), Options: o}, func(t *sim.Thread) {
				if t.ThreadIdx.X < 32 {
					t.SyncThreads()
				} else {
					t.SyncThreads()
				}
				if t.ThreadIdx.X == 0 {
					out.Store(t, t.BlockIdx.X, 1)
				}
			})
			return err, out.ToHost()
		}},
		{"uninitialised read", func(dev *sim.Device, o sim.Options) (error, []int32) {
			in, _ := sim.Alloc[int32](dev, "in", 64)
			out := flat(dev, "out", 64)
			err := dev.Launch(sim.Config{Grid: sim.Dim(2), Block: sim.Dim(32), Options: o}, func(t *sim.Thread) {
				i := t.BlockIdx.X*32 + t.ThreadIdx.X
				out.Store(t, i, in.Load(t, i)+1)
			})
			return err, nil // what an unwritten buffer holds is not the point
		}},
	}
}

// Launches on one device (which keeps its workers from launch to launch)
// report and leave exactly what the same launches do each on a fresh
// device, whatever state the launches before them left their workers in:
// parked at a barrier, spinning, unwound by a panic, aborted.
func TestLaunchesOnOneDeviceMatchFreshDevices(t *testing.T) {
	outcome := func(err error, mem []int32) string {
		var r *sim.Report
		if err != nil && !errors.As(err, &r) {
			return "refused: " + err.Error()
		}
		return fmt.Sprintf("%v\nmemory %v", err, mem)
	}
	// (Not detection off on two workers: there, what an aborted launch
	// leaves depends on how far the other worker got.)
	opts := map[string]sim.Options{
		"detection":              sim.Options{},
		"detection, two workers": sim.Options{}.WithWorkers(2),
		"off":                    sim.Options{}.WithDetection(false),
	}
	cases := reuseCases()
	for on, o := range opts {
		t.Run(on, func(t *testing.T) {
			fresh := make([]string, len(cases))
			for i, c := range cases {
				dev := sim.NewDevice(sim.H100)
				fresh[i] = outcome(c.launch(dev, o))
				dev.Close()
			}
			shared := sim.NewDevice(sim.H100)
			defer shared.Close()
			// Each case twice, in order and then in reverse: every case
			// follows several others.
			var order []int
			for i := range cases {
				order = append(order, i)
			}
			for i := len(cases) - 1; i >= 0; i-- {
				order = append(order, i)
			}
			for _, i := range order {
				if got := outcome(cases[i].launch(shared, o)); got != fresh[i] {
					t.Errorf("%s on a device that ran other launches:\n%s\nwant (fresh device):\n%s", cases[i].name, got, fresh[i])
				}
			}
		})
	}
}

// Launches reuse the coroutines of the launches before them, under every
// schedule: a coroutine stopped at the end of a launch ends its goroutine,
// and under the race detector every goroutine ever started kept memory (a
// random-schedule test of 100 radix sorts grew to 24 GB and was killed).
// Parallel workers make their own coroutines for speed, except under the
// race detector, where they reuse them too. Not a parallel test: other
// tests' launches would take coroutines from the pool.
func TestLaunchesReuseCoroutines(t *testing.T) {
	opts := map[string]sim.Options{
		"default":                     sim.Options{},
		"random schedule":             sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(3),
		"random schedule, detect off": sim.Options{}.WithDetection(false).WithSchedule(sim.RandomOrder).WithSeed(5),
	}
	if raceBuild {
		opts["two workers, detect off"] = sim.Options{}.WithDetection(false).WithWorkers(2)
	}
	for name, o := range opts {
		dev := sim.NewDevice(sim.H100)
		out := zeroed[int32](t, dev, "out", 4)
		launch := func() {
			t.Helper()
			r := report(t, dev, sim.Config{Grid: sim.Dim(4), Block: sim.Dim(128), Options: o}, func(th *sim.Thread) {
				s := sim.Shared[int32](th, "s", 128)
				s.Store(th, th.ThreadIdx.X, 1)
				th.SyncThreads()
				if th.ThreadIdx.X == 0 {
					var sum int32
					for i := range 128 {
						sum += s.Load(th, i)
					}
					out.Store(th, th.BlockIdx.X, sum)
				}
			})
			wantClean(t, r)
		}
		// The pool grows to what one launch needs at once (a coroutine
		// per thread waiting at the barrier, on each worker) and no
		// further: made afresh, they were that many a launch.
		for range 6 {
			launch()
		}
		need := int64(o.Workers()) * 128
		if need <= 0 {
			need = 128
		}
		if n := sim.CoroutinesMadeForTest(dev); n > need+8 {
			t.Errorf("%s: 6 launches made %d coroutines, want at most about %d (what one needs at once)", name, n, need)
		}
		dev.Close()
	}
}
