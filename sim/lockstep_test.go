package sim_test

// The lockstep (pre-Volta) warp model on the idioms around spin waits within
// a warp: those a SIMT stack gets through, which must stay clean, and those
// that hang a Pascal GPU, which must be reported as deadlocks. (The spin
// lock in its two forms is in deadlock_test.go.) Every idiom runs with 2, 32
// and 64 threads (one warp partly filled, one full, two), in the natural
// order and RandomOrder seeds 1-4.

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// lockstepIdiom is a kernel over a buffer of four counters (a lock, a flag,
// ...) and a result x of two elements: what their sum must be after a clean
// run, given the launch's thread count.
type lockstepIdiom struct {
	name   string
	kernel func(c, x *sim.Buffer[int32]) sim.Kernel
	want   func(threads int) int32
}

func lockstepRuns(t *testing.T, each func(t *testing.T, threads int, opts sim.Options)) {
	for _, threads := range []int{2, 32, 64} {
		for seed := uint64(0); seed <= 4; seed++ {
			opts := sim.Options{}
			if seed > 0 {
				opts = random(seed)
			}
			each(t, threads, opts)
		}
	}
}

func tryLock(t *sim.Thread, lock *sim.Buffer[int32]) bool {
	return sim.AtomicCAS(t, lock, 0, 0, 1) == 0
}

func unlock(t *sim.Thread, lock *sim.Buffer[int32]) {
	t.ThreadFence()
	sim.AtomicExch(t, lock, 0, 0)
}

func spinLock(t *sim.Thread, lock *sim.Buffer[int32]) {
	for sim.AtomicCAS(t, lock, 0, 0, 1) != 0 {
	}
	t.ThreadFence()
}

func increment(t *sim.Thread, x *sim.Buffer[int32]) { x.Store(t, 0, x.Load(t, 0)+1) }

func incrementAt(t *sim.Thread, x *sim.Buffer[int32], i int) { x.Store(t, i, x.Load(t, i)+1) }

var lockstepClean = []lockstepIdiom{
	{name: "lock released inside the loop, through helpers", want: func(n int) int32 { return int32(n) },
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for done := false; !done; {
					if tryLock(t, c) {
						t.ThreadFence()
						increment(t, x)
						unlock(t, c)
						done = true
					}
				}
			}
		}},
	{name: "lock released, then break", want: func(n int) int32 { return int32(n) },
		// The branch that took the lock leaves the loop: its end is the
		// loop's exit. The model runs the taken side first, as the
		// release-inside idiom needs; a compiler may order it otherwise.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for {
					if sim.AtomicCAS(t, c, 0, 0, 1) == 0 {
						t.ThreadFence()
						increment(t, x)
						unlock(t, c)
						break
					}
				}
			}
		}},
	{name: "two locks taken in turn", want: func(n int) int32 { return int32(2 * n) },
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for k := range 2 {
					for done := false; !done; {
						if sim.AtomicCAS(t, c, k, 0, 1) == 0 {
							t.ThreadFence()
							incrementAt(t, x, k) // x[k], under lock k
							t.ThreadFence()
							sim.AtomicExch(t, c, k, 0)
							done = true
						}
					}
				}
			}
		}},
	{name: "one lane per warp takes the lock the naive way", want: func(n int) int32 { return int32((n + 31) / 32) },
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				if t.LaneID() == 0 {
					spinLock(t, c)
					increment(t, x)
					unlock(t, c)
				}
			}
		}},
	{name: "CAS loop, then another atomic", want: func(n int) int32 { return int32(n) },
		// The Programming Guide's atomicAdd built from atomicCAS: a failed
		// CAS spins, and the lanes that succeeded wait at the loop's exit
		// until the others have.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				old := sim.AtomicAdd(t, c, 0, 0)
				for {
					assumed := old
					if old = sim.AtomicCAS(t, c, 0, assumed, assumed+1); old == assumed {
						break
					}
				}
				sim.AtomicAdd(t, x, 0, 1)
			}
		}},
	{name: "signal in an if before the wait", want: func(int) int32 { return 1 },
		// Thread 0 skips the if and spins after it; on a SIMT stack it
		// waits at the if's end for the lanes inside, which signal.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				if t.ThreadIdx.X != 0 {
					for range 3 {
						sim.AtomicAdd(t, c, 1, 1)
					}
					sim.AtomicAdd(t, c, 0, 1)
				}
				if t.ThreadIdx.X == 0 {
					for sim.AtomicAdd(t, c, 0, 0) < int32(t.BlockDim.X)-1 {
					}
					x.Store(t, 0, 1)
				}
			}
		}},
	{name: "bounded spin that gives up", want: func(int) int32 { return 0 },
		// The spinner leaves (exits); the lane held back for it goes on.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				switch t.LaneID() {
				case 0:
					for i := 0; i < 10 && sim.AtomicAdd(t, c, 0, 0) == 0; i++ {
					}
				case 1:
					sim.AtomicAdd(t, c, 1, 1)
					sim.AtomicAdd(t, c, 1, 1)
				}
			}
		}},
	{name: "bounded spin, then a barrier", want: func(int) int32 { return 0 },
		// The spinner leaves for the barrier; the lane held back for it
		// goes on and reaches the barrier too.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				switch t.LaneID() {
				case 0:
					for i := 0; i < 10 && sim.AtomicAdd(t, c, 0, 0) == 0; i++ {
					}
				case 1:
					sim.AtomicAdd(t, c, 1, 1)
					sim.AtomicAdd(t, c, 1, 1)
				}
				t.SyncThreads()
			}
		}},
}

func TestNoDeadlockLockstepIdioms(t *testing.T) {
	t.Parallel()
	for _, tc := range lockstepClean {
		t.Run(tc.name, func(t *testing.T) {
			lockstepRuns(t, func(t *testing.T, threads int, opts sim.Options) {
				dev := sim.NewDevice(sim.H100)
				c := zeroed[int32](t, dev, "c", 4)
				x := zeroed[int32](t, dev, "x", 2)
				if r := exec(t, dev, lin(1, threads, opts.WithWarpModel(sim.Lockstep)), tc.kernel(c, x)); r != nil {
					t.Fatalf("%d threads, %v order, seed %d: want no findings, got:\n%v", threads, opts.Schedule(), opts.Seed(), r)
				}
				if got, want := x.ToHost()[0]+x.ToHost()[1], tc.want(threads); got != want {
					t.Fatalf("%d threads, %v order, seed %d: x[0]+x[1] = %d, want %d", threads, opts.Schedule(), opts.Seed(), got, want)
				}
			})
		})
	}
}

var lockstepDeadlocks = []lockstepIdiom{
	{name: "naive lock in a helper, in a loop",
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for range 2 {
					spinLock(t, c)
					increment(t, x)
					unlock(t, c)
				}
			}
		}},
	{name: "lock released after the done-flag loop",
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for done := false; !done; {
					if tryLock(t, c) {
						t.ThreadFence()
						increment(t, x)
						done = true
					}
				}
				unlock(t, c)
			}
		}},
	{name: "break, then the release",
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for {
					if sim.AtomicCAS(t, c, 0, 0, 1) == 0 {
						break
					}
				}
				t.ThreadFence()
				increment(t, x)
				unlock(t, c)
			}
		}},
	{name: "wait in an if before the signal",
		// Thread 0 spins inside the first if; the others wait at its end.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				if t.ThreadIdx.X == 0 {
					for sim.AtomicAdd(t, c, 0, 0) < int32(t.BlockDim.X)-1 {
					}
					x.Store(t, 0, 1)
				}
				if t.ThreadIdx.X != 0 {
					sim.AtomicAdd(t, c, 1, 1)
					sim.AtomicAdd(t, c, 0, 1)
				}
			}
		}},
	{name: "wait in one branch, signal in the other",
		// Which side of an if a SIMT stack runs first is the compiler's
		// choice: the model runs the spinning side, which hangs.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				if t.ThreadIdx.X == 0 {
					for sim.AtomicAdd(t, c, 0, 0) == 0 {
					}
				} else if t.ThreadIdx.X == 1 {
					sim.AtomicAdd(t, c, 1, 1)
					sim.AtomicExch(t, c, 0, 1)
				}
			}
		}},
	{name: "signal on the next trip round a loop",
		// Thread 0 bumps the flag each trip; the others wait for the
		// second bump, in an if thread 0 skips: it waits at the if's end.
		kernel: func(c, x *sim.Buffer[int32]) sim.Kernel {
			return func(t *sim.Thread) {
				for range 2 {
					if t.ThreadIdx.X == 0 {
						sim.AtomicAdd(t, c, 0, 1)
					}
					if t.ThreadIdx.X != 0 {
						for sim.AtomicAdd(t, c, 0, 0) < 2 {
						}
					}
				}
			}
		}},
}

func TestDeadlockLockstepIdioms(t *testing.T) {
	t.Parallel()
	for _, tc := range lockstepDeadlocks {
		t.Run(tc.name, func(t *testing.T) {
			lockstepRuns(t, func(t *testing.T, threads int, opts sim.Options) {
				dev := sim.NewDevice(sim.H100)
				c := zeroed[int32](t, dev, "c", 4)
				x := zeroed[int32](t, dev, "x", 1)
				r := exec(t, dev, lin(1, threads, opts.WithWarpModel(sim.Lockstep)), tc.kernel(c, x))
				f := wantKind(t, r, sim.Deadlock)
				held := false
				for _, w := range f.Waiting {
					held = held || strings.Contains(w.At, "held back")
				}
				if !held {
					t.Fatalf("%d threads, %v order, seed %d: no lane held back by the lockstep model:\n%v", threads, opts.Schedule(), opts.Seed(), r)
				}
				// Since Volta every one of them completes.
				c.Memset(0)
				wantClean(t, exec(t, dev, lin(1, threads, opts), tc.kernel(c, x)))
			})
		})
	}
}
