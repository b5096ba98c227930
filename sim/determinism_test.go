package sim_test

// Determinism: one seed gives one report and one result; bugs that only some
// schedules expose are found by RandomOrder with several seeds.

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// ---------------------------------------------------------------------------
// a schedule-dependent bug: the consumer reads the data only if it sees the
// flag, and forgets the acquire fence. Whether the race happens depends on
// the interleaving; each seed must give the same answer every time.

func oneShot(data, seen *sim.Buffer[int32], flag *sim.Buffer[uint32], acquire bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.ThreadIdx.X == 0 {
			data.Store(t, 0, 42) //@osW
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 1)
			return
		}
		if sim.AtomicOr(t, flag, 0, 0) == 1 {
			if acquire {
				t.ThreadFence()
			}
			seen.Store(t, 0, data.Load(t, 0)) //@osR
		} else {
			seen.Store(t, 0, -1)
		}
	}
}

func runOneShot(t *testing.T, acquire bool, opts sim.Options) (string, int32) {
	dev := sim.NewDevice(sim.H100)
	data := zeroed[int32](t, dev, "data", 1)
	seen := zeroed[int32](t, dev, "seen", 1)
	flag := zeroed[uint32](t, dev, "flag", 1)
	r := exec(t, dev, lin(1, 2, opts), oneShot(data, seen, flag, acquire))
	if r != nil {
		onlyKinds(t, r, sim.DataRace)
		wantRace(t, r, sim.GlobalSpace, "data", at(t, "osW"), at(t, "osR"))
		return r.Error(), seen.ToHost()[0]
	}
	return "", seen.ToHost()[0]
}

func TestRaceScheduleDependentMissingAcquire(t *testing.T) {
	t.Parallel()
	if rep, seen := runOneShot(t, false, sim.Options{}); rep == "" || seen != 42 {
		t.Fatalf("natural order: seen=%d report=%q; want the race", seen, rep)
	}
	raced, missed := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		rep, seen := runOneShot(t, false, random(seed))
		rep2, seen2 := runOneShot(t, false, random(seed))
		if rep != rep2 || seen != seen2 {
			t.Fatalf("seed %d not deterministic: %q/%d vs %q/%d", seed, rep, seen, rep2, seen2)
		}
		switch {
		case seen == 42 && rep != "":
			raced++
		case seen == -1 && rep == "":
			missed++
		default:
			t.Fatalf("seed %d: seen=%d but report=%q", seed, seen, rep)
		}
	}
	if raced == 0 || missed == 0 {
		t.Errorf("40 seeds: %d raced, %d did not see the flag; want both interleavings explored", raced, missed)
	}
}

func TestNoRaceScheduleDependentWithAcquire(t *testing.T) {
	t.Parallel()
	saw := map[int32]bool{}
	for seed := uint64(0); seed <= 40; seed++ {
		opts := random(seed)
		if seed == 0 {
			opts = sim.Options{}
		}
		rep, seen := runOneShot(t, true, opts)
		if rep != "" || (seen != 42 && seen != -1) {
			t.Fatalf("seed %d: seen=%d report:\n%s", seed, seen, rep)
		}
		saw[seen] = true
	}
	if !saw[42] || !saw[-1] {
		t.Errorf("outcomes seen: %v; want both", saw)
	}
}

// ---------------------------------------------------------------------------
// determinism: the same seed gives the same report text and the same bits

func TestRaceReportDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		var texts []string
		var sums []float32
		for k := 0; k < 2; k++ {
			dev := sim.NewDevice(sim.H100)
			acc := zeroed[float32](t, dev, "acc", 1)
			x := zeroed[float32](t, dev, "x", 1)
			r := exec(t, dev, lin(2, 64, random(seed)), func(t *sim.Thread) {
				sim.AtomicAdd(t, acc, 0, 1/float32(1+t.GlobalX()))
				if t.GlobalX()%3 == 0 {
					x.Store(t, 0, float32(t.GlobalX())) //@detW
				}
			})
			wantRace(t, r, sim.GlobalSpace, "x", at(t, "detW"), at(t, "detW"))
			texts = append(texts, r.Error())
			sums = append(sums, acc.ToHost()[0])
		}
		if texts[0] != texts[1] || math.Float32bits(sums[0]) != math.Float32bits(sums[1]) {
			t.Fatalf("seed %d: runs differ:\n%s\n%v\n---\n%s\n%v", seed, texts[0], sums[0], texts[1], sums[1])
		}
	}
}

// ---------------------------------------------------------------------------
// determinism

func messy(out *sim.Buffer[int32], x *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", 64)
		i := t.LinearThreadIdx()
		if i%5 == 0 {
			s.Store(t, (i*7)%64, int32(i)) //@messyW
		}
		v := s.Load(t, i) //@messyR
		sim.AtomicAdd(t, x, 0, v)
		out.Store(t, t.BlockIdx.X*64+i, v)
	}
}

func TestRaceReportTextDeterministic2D(t *testing.T) {
	t.Parallel()
	for _, o := range []sim.Options{{}, random(42)} {
		var texts []string
		var outs []string
		for k := 0; k < 2; k++ {
			dev := sim.NewDevice(sim.H100)
			out := zeroed[int32](t, dev, "out", 2*64)
			x := zeroed[int32](t, dev, "x", 1)
			r := exec(t, dev, sim.Config{Grid: sim.Dim(2), Block: sim.Dim2(16, 4), Options: o}, messy(out, x))
			wantRace(t, r, sim.SharedSpace, "s", at(t, "messyW"), at(t, "messyR"))
			wantKind(t, r, sim.UninitializedRead)
			texts = append(texts, r.Error())
			outs = append(outs, fmt.Sprint(out.ToHost(), x.ToHost()))
		}
		if texts[0] != texts[1] || outs[0] != outs[1] {
			t.Fatalf("seed %d: runs differ:\n%s\n%s\n---\n%s\n%s", o.Seed(), texts[0], outs[0], texts[1], outs[1])
		}
	}
}

func TestNoRaceRandomSeedsSameAnswer(t *testing.T) {
	t.Parallel()
	const B = 128
	h := make([]int32, 4*B)
	var want int64
	for i := range h {
		h[i] = int32((i*2654435761)%1000) - 500
		want += int64(h[i])
	}
	for seed := uint64(1); seed <= 6; seed++ {
		dev := sim.NewDevice(sim.H100)
		in := host(t, dev, "in", h)
		tot := zeroed[int32](t, dev, "tot", 1)
		wantClean(t, exec(t, dev, lin(4, B, random(seed)), func(t *sim.Thread) {
			s := sim.Shared[int32](t, "red", B/32)
			i := t.ThreadIdx.X
			v := in.Load(t, t.GlobalX())
			for d := 16; d > 0; d /= 2 {
				v += sim.ShflDownSync(t, sim.FullMask, v, d)
			}
			if t.LaneID() == 0 {
				s.Store(t, t.WarpID(), v)
			}
			t.SyncThreads()
			if i < 32 {
				w := int32(0)
				if i < B/32 {
					w = s.Load(t, i)
				}
				for d := 16; d > 0; d /= 2 {
					w += sim.ShflXorSync(t, sim.FullMask, w, d)
				}
				if i == 0 {
					sim.AtomicAdd(t, tot, 0, w)
				}
			}
		}))
		if g := tot.ToHost()[0]; int64(g) != want {
			t.Fatalf("seed %d: total %d, want %d", seed, g, want)
		}
	}
}
