package sim

import (
	"errors"
	"math/rand/v2"
	"reflect"
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
		err := d.Launch(cfg, k)
		ExpectByName(t, err)
		if err != nil {
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
	ExpectByName(t, err)
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
	err := d.Launch(Config{Grid: Dim(64), Block: Dim(32)}, k)
	ExpectByName(t, err)
	if err != nil {
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
	ExpectByName(t, err)
	var rep *Report
	if !errors.As(err, &rep) || len(rep.Findings) != 1 || rep.Findings[0].Kind != DataRace {
		t.Fatalf("want one race finding in block 5, got %v", err)
	}
	if f := rep.Findings[0]; f.Current.Block.X != 5 || f.Previous.Block.X != 5 {
		t.Errorf("race names blocks %v and %v, want block 5 twice", f.Current.Block, f.Previous.Block)
	}
}

// A launch's findings must not depend on what earlier launches left in the
// shadow: randomly generated access patterns are run once on a device whose
// buffers earlier launches used (sometimes across the id wrap) and once on a
// fresh device, and the reports must be identical.
func TestEpochsDoNotLeak(t *testing.T) {
	const tpb = 32
	const n = 2 * tpb
	type op struct {
		write, shared, sync bool
		idx                 int // -1: the thread's own element
	}
	rng := rand.New(rand.NewPCG(3, 7))
	gen := func() [][]op {
		prog := make([][]op, 2*tpb)                            // per thread of a 2-block grid
		syncAt := rng.IntN(4)                                  // every thread syncs before op syncAt
		stray := []float64{0, 0, 0.01, 0.05, 0.3}[rng.IntN(5)] // odds of touching another's element
		for k := range prog {
			for j := range 4 {
				o := op{write: rng.IntN(3) == 0, shared: rng.IntN(2) == 0, sync: j == syncAt, idx: -1}
				if rng.Float64() < stray {
					o.idx = rng.IntN(n) // taken mod tpb for shared memory
				}
				prog[k] = append(prog[k], o)
			}
		}
		return prog
	}
	kernel := func(x *Buffer[int32], prog [][]op) Kernel {
		return func(th *Thread) {
			s := Shared[int32](th, "s", tpb)
			s.Store(th, th.ThreadIdx.X, 0) // no uninitialised reads: races only
			th.SyncThreads()
			for _, o := range prog[th.GlobalX()] {
				if o.sync {
					th.SyncThreads()
				}
				i := o.idx
				switch {
				case i < 0 && o.shared:
					i = th.ThreadIdx.X
				case i < 0:
					i = th.GlobalX()
				case o.shared:
					i %= tpb
				}
				switch {
				case o.shared && o.write:
					s.Store(th, i, 1)
				case o.shared:
					s.Load(th, i)
				case o.write:
					x.Store(th, i, 1)
				default:
					x.Load(th, i)
				}
			}
		}
	}
	report := func(err error) []Finding {
		if err == nil {
			return nil
		}
		var rep *Report
		if !errors.As(err, &rep) {
			t.Fatalf("launch: %v", err)
		}
		return rep.Findings
	}
	cfg := Config{Grid: Dim(2), Block: Dim(tpb)}
	used := NewDevice(H100)
	ux, _ := Alloc[int32](used, "x", n)
	nonEmpty := 0
	for iter := range 200 {
		if iter%50 == 49 {
			used.nextGid = 1<<32 - 3*tpb // the next launches wrap
		}
		// Earlier launches on the used device's buffer.
		ux.Memset(0)
		for range 1 + rng.IntN(2) {
			used.Launch(cfg, kernel(ux, gen()))
		}
		prog := gen()
		ux.Memset(0)
		got := report(used.Launch(cfg, kernel(ux, prog)))
		fresh := NewDevice(H100)
		fx, _ := Alloc[int32](fresh, "x", n)
		fx.Memset(0)
		want := report(fresh.Launch(cfg, kernel(fx, prog)))
		nonEmpty += min(len(want), 1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d: findings after earlier launches differ from a fresh device's:\n got %v\nwant %v", iter, got, want)
		}
	}
	// The generator must make both racy and race-free launches.
	if nonEmpty < 20 || nonEmpty > 180 {
		t.Fatalf("%d of 200 launches had findings: the generator no longer mixes racy and clean ones", nonEmpty)
	}
	t.Logf("%d of 200 launches had findings", nonEmpty)
}
