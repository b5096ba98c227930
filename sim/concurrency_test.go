package sim_test

// One Device used from many goroutines, and what Close leaves behind.

import (
	"sync"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// Launches and copies on one Device from many goroutines are serialised,
// as one CUDA stream serialises them: each launch sees a whole copy and
// each copy a whole launch's writes. Run under -race this is also the
// check that nothing of the device is shared unsynchronised.
func TestConcurrentLaunchesAndCopiesOnOneDevice(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	const n, workers, rounds = 256, 8, 20
	sum, _ := sim.Alloc[int32](dev, "sum", 1)
	sum.Memset(0)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			own, err := sim.Alloc[int32](dev, "own", n)
			if err != nil {
				t.Error(err)
				return
			}
			host := make([]int32, n)
			for r := 0; r < rounds; r++ {
				for i := range host {
					host[i] = int32(g*1000 + r)
				}
				if err := own.CopyFromHost(host); err != nil {
					t.Error(err)
					return
				}
				o := sim.Options{}
				if r%2 == 1 {
					o = o.WithDetection(false).WithWorkers(2)
				}
				err := dev.Launch(sim.Config{Grid: sim.Dim(n / 64), Block: sim.Dim(64), Options: o}, func(th *sim.Thread) {
					i := th.GlobalX()
					own.Store(th, i, own.Load(th, i)+1)
					sim.AtomicAdd(th, sum, 0, 1)
				})
				if err != nil {
					t.Error(err)
					return
				}
				got := own.ToHost()
				for i, v := range got {
					if v != int32(g*1000+r+1) {
						t.Errorf("goroutine %d round %d: own[%d] = %d, want %d", g, r, i, v, g*1000+r+1)
						return
					}
				}
			}
			own.Free()
		}(g)
	}
	wg.Wait()
	if got := sum.ToHost()[0]; got != workers*rounds*n {
		t.Errorf("sum = %d, want %d", got, workers*rounds*n)
	}
}

// Close leaves no goroutine of the simulator behind, also after launches
// that suspended threads at barriers and collectives (each suspended thread
// had a coroutine of its own) and a launch aborted by a deadlock.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := baseline()
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 1024)
	x.Memset(0)
	if r := report(t, dev, cfg1(4, 256, sim.Options{}), func(th *sim.Thread) {
		i := th.GlobalX()
		x.Store(th, i, 1)
		th.SyncThreads()
		v := sim.ShflDownSync(th, sim.FullMask, x.Load(th, i), 1)
		th.SyncThreads()
		x.Store(th, i, v)
	}); r != nil {
		t.Fatal(r)
	}
	only(t, report(t, dev, cfg1(1, 64, sim.Options{}), func(th *sim.Thread) {
		if th.ThreadIdx.X > 0 {
			th.SyncThreads()
		}
		for x.Load(th, 0) != 7 {
		}
	}), sim.Deadlock)
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, before)
}

// TestCooperativeGroupsOnParallelWorkers runs coalesced_threads,
// __activemask and a 64-thread tile's sync in blocks spread over parallel
// workers (detection off), which meet in launch-wide maps: under -race it
// catches unguarded access to them. Every block must count its own warps'
// groups exactly.
func TestCooperativeGroupsOnParallelWorkers(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	const blocks, block = 64, 128
	groups, _ := sim.Alloc[uint32](dev, "groups", blocks)
	groups.Memset(0)
	opts := sim.Options{}.WithDetection(false).WithWorkers(4)
	err := dev.Launch(sim.Config{Grid: sim.Dim(blocks), Block: sim.Dim(block), Options: opts}, func(th *sim.Thread) {
		if th.ThreadIdx.X%2 == 0 {
			g := sim.CoalescedThreads(th)
			if g.ThreadRank() == 0 {
				sim.AtomicAdd(th, groups, th.BlockIdx.X, 1)
			}
		}
		_ = th.ActiveMask()
		sim.TiledPartitionOf[sim.Size64](sim.ThisThreadBlock(th)).Sync()
	})
	if err != nil {
		t.Fatal(err)
	}
	for b, n := range groups.ToHost() {
		if n != block/32 {
			t.Errorf("block %d: %d coalesced groups, want one per warp (%d)", b, n, block/32)
		}
	}
}
