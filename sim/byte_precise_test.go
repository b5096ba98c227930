package sim_test

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// Detection decided on the bytes each access touches: parts of a word
// through views of smaller elements, wide elements covering several
// words, atomics through views, and the host's byte-counted memset. Each
// correct form sits beside the form with its barrier removed or its bytes
// overlapping.

// bytesOfWords: thread k of 4 stores byte k+shift (mod 4) of word 0 of a
// uint32 buffer through a uint8 view; then, after a barrier if barrier,
// thread 0 loads the word.
func bytesOfWords(w *sim.Buffer[uint32], out *sim.Buffer[uint32], shift int, barrier bool) sim.Kernel {
	b := sim.Reinterpret[uint8](w)
	return func(t *sim.Thread) {
		k := t.ThreadIdx.X
		b.Store(t, (k+shift)%2, uint8(k+1)) //@bowStore
		if barrier {
			t.SyncThreads()
		}
		if k == 0 {
			out.Store(t, 0, w.Load(t, 0)) //@bowLoad
		}
	}
}

func TestNoRaceDifferentBytesOfOneWord(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	w := zeroed[uint32](t, dev, "w", 1)
	out := mustAlloc[uint32](t, dev, "out", 1)
	// Threads 0 and 1 store bytes 0 and 1 of one word: different bytes.
	wantClean(t, exec(t, dev, lin(1, 2), bytesOfWords(w, out, 0, true)))
	if got := out.ToHost()[0]; got != 0x0201 {
		t.Errorf("word = %#x, want 0x0201", got)
	}
}

func TestRaceSameByteOfOneWord(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	w := zeroed[uint32](t, dev, "w", 1)
	out := mustAlloc[uint32](t, dev, "out", 1)
	// Threads 0..3 store bytes 0,1,0,1: threads 0 and 2 store one byte.
	r := exec(t, dev, lin(1, 4), bytesOfWords(w, out, 0, true))
	f := wantRace(t, r, sim.GlobalSpace, "w", at(t, "bowStore"), at(t, "bowStore"))
	if f.Index != 0 && f.Index != 1 {
		t.Errorf("race on byte %d, want 0 or 1 (the uint8 view's index)", f.Index)
	}
}

func TestRaceByteStoreThenWordLoadOfWordBuffer(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	w := zeroed[uint32](t, dev, "w", 1)
	out := mustAlloc[uint32](t, dev, "out", 1)
	// Thread 1's byte store and thread 0's word load overlap with no
	// barrier between.
	r := exec(t, dev, lin(1, 2), bytesOfWords(w, out, 0, false))
	wantRace(t, r, sim.GlobalSpace, "w", at(t, "bowStore"), at(t, "bowLoad"))
}

// partWritten: thread 0 stores bytes [0, k) of an uninitialised word one by
// one; after a barrier thread 1 loads the word.
func partWritten(w, out *sim.Buffer[uint32], k int) sim.Kernel {
	b := sim.Reinterpret[uint8](w)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			for i := 0; i < k; i++ {
				b.Store(t, i, 1)
			}
		}
		t.SyncThreads()
		if t.ThreadIdx.X == 1 {
			out.Store(t, 0, w.Load(t, 0)) //@pwLoad
		}
	}
}

func TestUninitWordLoadOfPartlyStoredWord(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	w := mustAlloc[uint32](t, dev, "w", 1)
	out := mustAlloc[uint32](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), partWritten(w, out, 3))
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "w" || f.Index != 0 || f.Current.Site != at(t, "pwLoad") {
		t.Errorf("want the word load of w[0] reported, got:\n%v", f)
	}
}

func TestNoRaceWordLoadOfWordStoredByteByByte(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	w := mustAlloc[uint32](t, dev, "w", 1)
	out := mustAlloc[uint32](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 2), partWritten(w, out, 4)))
	if got := out.ToHost()[0]; got != 0x01010101 {
		t.Errorf("word = %#x", got)
	}
}

// halfOfDouble: thread 0 stores the high float32 half of a float64
// through a float32 view; thread 1 loads the whole float64 (after a
// barrier if barrier).
func halfOfDouble(d *sim.Buffer[float64], out *sim.Buffer[float64], barrier bool) sim.Kernel {
	f := sim.Reinterpret[float32](d)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			f.Store(t, 1, 2) //@hodStore
		}
		if barrier {
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 1 {
			out.Store(t, 0, d.Load(t, 0)) //@hodLoad
		}
	}
}

func TestRaceHalfOfDoubleAndDouble(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	d := zeroed[float64](t, dev, "d", 1)
	out := mustAlloc[float64](t, dev, "out", 1)
	r := exec(t, dev, lin(1, 2), halfOfDouble(d, out, false))
	f := wantRace(t, r, sim.GlobalSpace, "d", at(t, "hodStore"), at(t, "hodLoad"))
	if f.Count != 1 {
		t.Errorf("a float64 covering two words is one race, counted %d times", f.Count)
	}
}

func TestNoRaceHalfOfDoubleAndDoubleAfterBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	d := zeroed[float64](t, dev, "d", 1)
	out := mustAlloc[float64](t, dev, "out", 1)
	wantClean(t, exec(t, dev, lin(1, 2), halfOfDouble(d, out, true)))
}

// atomicThroughView: thread 0 adds atomically through a uint32 view of an
// int32 buffer; thread 1 stores the same element plainly through the
// buffer itself (after a barrier if barrier).
func atomicThroughView(b *sim.Buffer[int32], barrier bool) sim.Kernel {
	u := sim.Reinterpret[uint32](b)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			sim.AtomicAdd(t, u, 3, 1) //@atvAtomic
		}
		if barrier {
			t.SyncThreads()
		}
		if t.ThreadIdx.X == 1 {
			b.Store(t, 3, 5) //@atvStore
		}
	}
}

func TestRaceAtomicThroughViewAndPlainStore(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[int32](t, dev, "b", 4)
	r := exec(t, dev, lin(1, 2), atomicThroughView(b, false))
	wantRace(t, r, sim.GlobalSpace, "b", at(t, "atvAtomic"), at(t, "atvStore"))
}

func TestNoRaceAtomicThroughViewAndPlainStoreAfterBarrier(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[int32](t, dev, "b", 4)
	wantClean(t, exec(t, dev, lin(1, 2), atomicThroughView(b, true)))
	if got := b.ToHost()[3]; got != 5 {
		t.Errorf("b[3] = %d, want 5", got)
	}
}

// MemsetBytes initialises the bytes it sets, and no more: a float32 of
// which two bytes were set is read uninitialised.
func TestUninitMemsetBytesPartOfFloat(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := mustAlloc[float32](t, dev, "b", 2)
	if err := b.MemsetBytes(0, 6); err != nil {
		t.Fatal(err)
	}
	out := mustAlloc[float32](t, dev, "out", 2)
	r := exec(t, dev, lin(1, 2), func(t *sim.Thread) {
		out.Store(t, t.ThreadIdx.X, b.Load(t, t.ThreadIdx.X))
	})
	f := wantKind(t, r, sim.UninitializedRead)
	if f.Memory != "b" || f.Index != 1 || f.Count != 1 {
		t.Errorf("want b[1] (two of its bytes set) reported once, got:\n%v", r)
	}
}

func TestNoRaceMemsetBytesWholeFloats(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := mustAlloc[float32](t, dev, "b", 2)
	if err := b.MemsetBytes(0, 8); err != nil {
		t.Fatal(err)
	}
	out := mustAlloc[float32](t, dev, "out", 2)
	wantClean(t, exec(t, dev, lin(1, 2), func(t *sim.Thread) {
		out.Store(t, t.ThreadIdx.X, b.Load(t, t.ThreadIdx.X))
	}))
}

// A float4 load of a buffer whose length is not a multiple of 4 floats:
// the last float4 would reach past the end, half out of bounds, and the
// view, holding the whole float4s only, reports it.
func TestOutOfBoundsFloat4HalfPastEnd(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	b := zeroed[float32](t, dev, "b", 6)
	v := sim.Reinterpret[sim.Float4](b)
	if v.Len() != 1 {
		t.Fatalf("float4 view of 6 floats has %d elements, want 1", v.Len())
	}
	out := mustAlloc[sim.Float4](t, dev, "out", 2)
	r := exec(t, dev, lin(1, 2), func(t *sim.Thread) {
		out.Store(t, t.ThreadIdx.X, v.Load(t, t.ThreadIdx.X))
	})
	f := wantKind(t, r, sim.OutOfBounds)
	if f.Memory != "b" || f.Index != 1 {
		t.Errorf("want b[1] of the float4 view, got:\n%v", f)
	}
}

// A repeated race counts, and costs no report: every thread of the grid
// increments one counter plainly.
func TestRaceRepeatedIsCounted(t *testing.T) {
	t.Parallel()
	dev := sim.NewDevice(sim.H100)
	a := zeroed[int32](t, dev, "a", 1)
	r := exec(t, dev, lin(10, 16), func(t *sim.Thread) {
		a.Store(t, 0, a.Load(t, 0)+1) //@repeated
	})
	races := r.Of(sim.DataRace)
	total := 0
	for _, f := range races {
		total += f.Count
	}
	if len(races) == 0 || len(races) > 3 || total < 159 {
		t.Errorf("want the racy increment reported as at most 3 findings counting every racing access (>= 159), got %d findings counting %d:\n%v", len(races), total, r)
	}
}

// Strong accesses of different widths: PTX calls two strong accesses
// morally strong only if they overlap completely, so a 32-bit atomic on
// half of a word a 64-bit atomic updates races with it, and so do a
// 64-bit volatile store and a 32-bit volatile load of half of it. A
// vector access is one access per element (PTX), so a volatile float4
// load and a volatile float store of one of its floats are morally
// strong. Sizes were not compared: all of these were clean.

// atomicWidths: thread 0 adds to a uint64 atomically; thread 1 adds to
// its low half through a uint32 view (narrow) or to the whole word
// through a uint64 view of that view.
func atomicWidths(q *sim.Buffer[uint64], narrow bool) sim.Kernel {
	u := sim.Reinterpret[uint32](q)
	q2 := sim.Reinterpret[uint64](u)
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			sim.AtomicAdd(t, q, 0, 1<<32) //@awWide
		} else if narrow {
			sim.AtomicAdd(t, u, 0, 1) //@awNarrow
		} else {
			sim.AtomicAdd(t, q2, 0, 1)
		}
	}
}

func TestRaceAtomicOnHalfOfAtomicWord(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		q := zeroed[uint64](t, dev, "q", 1)
		r := exec(t, dev, lin(1, 2, o), atomicWidths(q, true))
		f := wantRace(t, r, sim.GlobalSpace, "q", at(t, "awWide"), at(t, "awNarrow"))
		if !strings.Contains(f.Detail, "different widths") || !strings.Contains(f.Detail, "overlapping completely") {
			t.Errorf("the finding does not say why two atomics race:\n%v", f)
		}
	})
}

func TestNoRaceAtomicsOfOneWidthThroughViews(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		q := zeroed[uint64](t, dev, "q", 1)
		wantClean(t, exec(t, dev, lin(1, 2, o), atomicWidths(q, false)))
		if got := q.ToHost()[0]; got != 1<<32+1 {
			t.Errorf("q = %#x, want 0x100000001", got)
		}
	})
}

// volatileWidths: block 0 stores a uint64 volatile; block 1 loads its
// high half volatile through a uint32 view (narrow), or the whole word.
func volatileWidths(q, out *sim.Buffer[uint64], narrow bool) sim.Kernel {
	u := sim.Reinterpret[uint32](q)
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			q.StoreVolatile(t, 0, 7<<32) //@vwStore
		} else if narrow {
			out.Store(t, 0, uint64(u.LoadVolatile(t, 1))) //@vwNarrow
		} else {
			out.Store(t, 0, q.LoadVolatile(t, 0))
		}
	}
}

func TestRaceVolatileLoadOfHalfOfVolatileWord(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		q := zeroed[uint64](t, dev, "q", 1)
		out := mustAlloc[uint64](t, dev, "out", 1)
		r := exec(t, dev, lin(2, 1, o), volatileWidths(q, out, true))
		f := wantRace(t, r, sim.GlobalSpace, "q", at(t, "vwStore"), at(t, "vwNarrow"))
		if !strings.Contains(f.Detail, "different widths") {
			t.Errorf("the finding does not say why two volatile accesses race:\n%v", f)
		}
	})
}

func TestNoRaceVolatileLoadOfVolatileWord(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		q := zeroed[uint64](t, dev, "q", 1)
		out := mustAlloc[uint64](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(2, 1, o), volatileWidths(q, out, false)))
	})
}

func TestNoRaceVolatileFloat4AndVolatileFloatOfIt(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		f := zeroed[float32](t, dev, "f", 8)
		out := mustAlloc[sim.Float4](t, dev, "out", 1)
		f4 := sim.Reinterpret[sim.Float4](f)
		wantClean(t, exec(t, dev, lin(2, 1, o), func(t *sim.Thread) {
			if t.BlockIdx.X == 0 {
				f.StoreVolatile(t, 6, 1)
			} else {
				out.Store(t, 0, f4.LoadVolatile(t, 1))
			}
		}))
	})
}
