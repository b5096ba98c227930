package sim_test

import (
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// A consumer that acquires with __threadfence_block does not synchronise
// with a producer in another block (PTX: a fence.cta is not morally strong
// with another CTA's release); __threadfence does, and so does
// __threadfence_block when producer and consumer share a block.

// flagHandoff: thread 0 of block prod writes data, fences (device scope)
// and sets the flag with an atomic; thread 0 of block cons polls the flag
// with an atomic, fences with blockFence's scope, and reads data.
func flagHandoff(data *sim.Buffer[int32], flag *sim.Buffer[uint32], out *sim.Buffer[int32], prod, cons int, blockFence bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X != 0 {
			return
		}
		switch t.BlockIdx.X {
		case prod:
			data.Store(t, 0, 42)
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
		case cons:
			for sim.AtomicAdd(t, flag, 0, 0) == 0 {
			}
			if blockFence {
				t.ThreadFenceBlock()
			} else {
				t.ThreadFence()
			}
			out.Store(t, 0, data.Load(t, 0))
		}
	}
}

func runHandoff(t *testing.T, grid, prod, cons int, blockFence bool) (*sim.Report, int32) {
	t.Helper()
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(grid, 32), flagHandoff(data, flag, out, prod, cons, blockFence))
	return r, out.ToHost()[0]
}

func TestRaceAcquireWithBlockFenceAcrossBlocks(t *testing.T) {
	r, _ := runHandoff(t, 2, 0, 1, true)
	f := wantKind(t, r, sim.DataRace)
	if f.Memory != "data" {
		t.Errorf("race on %q, want data:\n%v", f.Memory, r)
	}
}

func TestNoRaceAcquireWithDeviceFenceAcrossBlocks(t *testing.T) {
	r, got := runHandoff(t, 2, 0, 1, false)
	wantClean(t, r)
	if got != 42 {
		t.Fatalf("out = %d, want 42", got)
	}
}

// Within one block a block-scope fence is enough to acquire: producer and
// consumer are threads of different warps of block 0.
func TestNoRaceAcquireWithBlockFenceSameBlock(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	out := zeroed[int32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 64), func(t *sim.Thread) {
		switch t.ThreadIdx.X {
		case 0: // producer, warp 0
			data.Store(t, 0, 42)
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
		case 32: // consumer, warp 1
			for sim.AtomicAdd(t, flag, 0, 0) == 0 {
			}
			t.ThreadFenceBlock()
			out.Store(t, 0, data.Load(t, 0))
		}
	})
	wantClean(t, r)
	if got := out.ToHost()[0]; got != 42 {
		t.Fatalf("out = %d, want 42", got)
	}
}
