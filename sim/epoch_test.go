package sim

import (
	"errors"
	"testing"
)

// Shadow records are never cleared between launches or blocks: thread ids
// run on across launches (Device.nextGid) and records below the current
// epoch's first id count as ordered before the access. These tests pin that
// records of an earlier launch, or of the block that used a shared array
// before, never race with the present, including across the 32-bit wrap of
// the ids, while races within a launch are still found after it.

// runEpochs launches, on d, a kernel in which thread (n-1-i) writes x[i] and
// then, in a second launch, thread i reads and writes x[i]: every element is
// touched by different threads in the two launches, which race only if the
// first launch's records leak into the second.
func runEpochs(t *testing.T, d *Device, x *Buffer[int32], n int) {
	t.Helper()
	cfg := Config{Grid: Dim(n / 32), Block: Dim(32)}
	first := func(th *Thread) {
		i := th.GlobalX()
		x.Store(th, n-1-i, int32(i))
	}
	second := func(th *Thread) {
		i := th.GlobalX()
		x.Store(th, i, x.Load(th, i)+1)
	}
	for _, k := range []Kernel{first, second} {
		if err := d.Launch(cfg, k); err != nil {
			t.Fatalf("nextGid %d: %v", d.nextGid, err)
		}
	}
}

func TestNoRaceAcrossLaunches(t *testing.T) {
	d := NewDevice(H100)
	x, _ := Alloc[int32](d, "x", 256)
	for range 3 {
		runEpochs(t, d, x, 256)
	}
}

func TestNoRaceAcrossGidWrap(t *testing.T) {
	d := NewDevice(H100)
	x, _ := Alloc[int32](d, "x", 256)
	for _, start := range []uint32{1<<32 - 300, 1<<32 - 256, 1<<32 - 257, 1<<32 - 1} {
		d.nextGid = start
		runEpochs(t, d, x, 256)
		if d.nextGid >= start {
			t.Fatalf("nextGid %d did not wrap from %d", d.nextGid, start)
		}
	}
}

func TestRaceAfterGidWrap(t *testing.T) {
	d := NewDevice(H100)
	x, _ := Alloc[int32](d, "x", 64)
	x.Memset(0)
	d.nextGid = 1<<32 - 40 // the launch below wraps
	racy := func(th *Thread) { x.Store(th, 0, int32(th.GlobalX())) }
	err := d.Launch(Config{Grid: Dim(2), Block: Dim(32)}, racy)
	var rep *Report
	if !errors.As(err, &rep) || len(rep.Findings) == 0 || rep.Findings[0].Kind != DataRace {
		t.Fatalf("write-write race on x[0] after the id wrap: got %v", err)
	}
	if f := rep.Findings[0]; f.Previous.Host || f.Current.Block == f.Previous.Block && f.Current.Thread == f.Previous.Thread {
		t.Errorf("race names %+v and %+v, want two distinct threads", f.Current, f.Previous)
	}
}

// A shared array is recycled from block to block on a worker; the records
// of the block before must not race with the next one's accesses.
func TestNoRaceSharedAcrossBlocks(t *testing.T) {
	d := NewDevice(H100)
	out, _ := Alloc[int32](d, "out", 64*32)
	k := func(th *Thread) {
		s := Shared[int32](th, "s", 32)
		// Thread j writes s[31-j]: a different thread per element than
		// the previous block's reader of that element.
		s.Store(th, 31-th.ThreadIdx.X, int32(th.BlockIdx.X))
		th.SyncThreads()
		out.Store(th, th.GlobalX(), s.Load(th, th.ThreadIdx.X))
	}
	if err := d.Launch(Config{Grid: Dim(64), Block: Dim(32)}, k); err != nil {
		t.Fatal(err)
	}
	got := out.ToHost()
	for i, v := range got {
		if v != int32(i/32) {
			t.Fatalf("out[%d] = %d, want %d", i, v, i/32)
		}
	}
}

func TestRaceSharedInLaterBlock(t *testing.T) {
	d := NewDevice(H100)
	k := func(th *Thread) {
		s := Shared[int32](th, "s", 32)
		if th.BlockIdx.X == 5 {
			s.Store(th, 0, 1) // every thread of block 5, unordered
		} else {
			s.Store(th, th.ThreadIdx.X, 1)
		}
	}
	err := d.Launch(Config{Grid: Dim(8), Block: Dim(32)}, k)
	var rep *Report
	if !errors.As(err, &rep) || len(rep.Findings) != 1 || rep.Findings[0].Kind != DataRace {
		t.Fatalf("want one race finding in block 5, got %v", err)
	}
	if f := rep.Findings[0]; f.Current.Block.X != 5 || f.Previous.Block.X != 5 {
		t.Errorf("race names blocks %v and %v, want block 5 twice", f.Current.Block, f.Previous.Block)
	}
}
