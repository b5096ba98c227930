package sim

import "testing"

// The spin watcher on its own, without a launch: a window of accesses that
// revisits a few addresses and changes nothing is a spin; a change, or more
// distinct addresses than the watcher holds (a scan, not a poll), is not.
func TestSpinWatch(t *testing.T) {
	type acc struct {
		m       int32
		i       int
		changed bool
	}
	poll := func(addrs, rounds int) []acc {
		var as []acc
		for r := 0; r < rounds; r++ {
			for k := 0; k < addrs; k++ {
				as = append(as, acc{m: 1, i: k})
			}
		}
		return as
	}
	// markov reads a 4x4 table from row state, as far as a pseudo-random
	// draw, and moves to the column where it stopped.
	markov := func(n int) []acc {
		var as []acc
		state, rng := 0, uint32(1)
		for len(as) < n {
			rng = rng*1664525 + 1013904223
			k := int(rng>>30) & 3
			for c := 0; c <= k && len(as) < n; c++ {
				as = append(as, acc{m: 1, i: state*4 + c})
			}
			state = k
		}
		return as
	}
	var limit = len(spinWatch{}.addrs)
	tests := []struct {
		label  string
		accs   []acc
		stuck  bool
		reason string
	}{
		{"oneFlag", poll(1, watchOps), true, "polling one flag that never changes"},
		{"manyFlags", poll(limit, 2), true, "polling as many flags as the watcher holds (a grid barrier's)"},
		{"sameIndexOtherBuffers", []acc{{1, 0, false}, {2, 0, false}, {3, 0, false}, {1, 0, false}, {2, 0, false}, {3, 0, false}}, true, "an address is a buffer and an index"},
		{"flagAndCounter", []acc{{1, 0, false}, {1, 0, false}, {2, 5, false}, {1, 0, false}, {1, 0, false}, {2, 5, false}, {1, 0, false}}, true, "a loop's reads in the same order each time, one period and a part"},
		{"tableWalk", markov(watchOps), false, "a few addresses in an order that is not periodic: a loop over a read-only table, not a poll"},
		{"scan", poll(limit+1, 1), false, "more distinct addresses than it holds: a scan makes progress"},
		{"changed", append(poll(1, 10), acc{1, 0, true}), false, "a write that changed memory is progress"},
		{"changedEarly", append([]acc{{1, 0, true}}, poll(1, 10)...), false, "progress anywhere in the window counts"},
		{"nothing", nil, true, "an empty window changed nothing (the caller never checks one)"},
	}
	for _, tt := range tests {
		var s spinWatch
		for _, a := range tt.accs {
			s.note(a.m, a.i, a.changed)
		}
		if got := s.looksStuck(); got != tt.stuck {
			t.Errorf("%s: looksStuck = %v, want %v: %s", tt.label, got, tt.stuck, tt.reason)
		}
		s.reset()
		if !s.looksStuck() || s.n != 0 {
			t.Errorf("%s: reset left %+v", tt.label, s)
		}
	}
}
