package sim

import (
	"maps"
	"testing"
)

// The happens-before test, the vector clocks and the fence halves, tested
// on their own, without a launch. RATIONALE.md ("Race detection") states
// the rules the rows below pin.

// recorded builds a recorded access of thread gid at barrier phase and warp-sync
// clock wclk, with fence clock clock.
func recorded(gid uint32, phase, wclk uint16, clock uint32) *access {
	return &access{gid: gid, when: uint32(wclk)<<16 | uint32(phase), clock: clock}
}

// A block of 64 threads whose thread 0 has gid 101: warps 101-132 and
// 133-164. The current thread is tid 5 (gid 106), in warp 0, in barrier
// phase 3; it knows lane 9's warp-sync clock as 7.
func testView() *hbView {
	known := new([warpSize]uint32)
	known[9] = 7
	known[10] = 1 // lane 10's clock wrapped: 65537 mod 2^16
	return &hbView{floor: 100, base: 101, n: 64, tid: 5, warp: 0, phase: 3, known: known}
}

func TestOrderedInBlock(t *testing.T) {
	tests := []struct {
		label  string
		a      *access
		want   bool
		reason string
	}{
		{"own", recorded(106, 3, 0, 0), true, "program order"},
		{"ownLaterPhase", recorded(106, 4, 9, 0), true, "program order, whatever the record's clocks"},
		{"earlierPhase", recorded(140, 2, 0, 0), true, "a __syncthreads lies between"},
		{"anyOtherPhase", recorded(140, 65535, 0, 0), true, "phases compare by equality mod 2^16"},
		{"samePhaseOtherWarp", recorded(140, 3, 0, 0), false, "nothing orders two warps within a phase"},
		{"samePhaseOwnWarpBeforeSync", recorded(110, 3, 6, 0), true, "lane 9's record is older than the clock the thread knows (7)"},
		{"samePhaseOwnWarpAtSync", recorded(110, 3, 7, 0), false, "a record at the known clock came after the last warp sync"},
		{"samePhaseOwnWarpUnknownLane", recorded(108, 3, 0, 0), false, "lane 7's clock is unknown (0): not newer than the record's"},
		{"warpClockWrap", recorded(111, 3, 65535, 0), true, "clocks compare as signed 16-bit differences: 1 is after 65535"},
		{"warpClockHalfRange", recorded(111, 3, 32769, 0), false, "32768 apart is no longer after"},
		{"otherBlock", recorded(40, 2, 0, 0), false, "the phase says nothing about another block"},
		{"blockAfter", recorded(165, 2, 0, 0), false, "gid 165 is the next block's thread 0"},
		{"host", recorded(0, 0, 0, 0), false, "the host is the floor's business, not the block's"},
	}
	for _, tt := range tests {
		v := testView()
		if got := v.orderedInBlock(tt.a); got != tt.want {
			t.Errorf("%s: orderedInBlock(gid %d, phase %d, wclk %d) = %v, want %v: %s",
				tt.label, tt.a.gid, tt.a.phase(), tt.a.wclk(), got, tt.want, tt.reason)
		}
	}
}

func TestOrderedOtherwise(t *testing.T) {
	// A launch whose first gid is 101 with 64 threads a block: gids 101-164
	// are block 0, 165-228 block 1, 229-292 block 2.
	thread := func(vc *vclock) *Thread {
		th := &Thread{w: &worker{workerState: workerState{l: &launch{gidBase: 101, tpb: 64}}}, x: new(threadExtra)}
		th.x.hb.vc = vc
		return th
	}
	vc := newVClock()
	vc.threads[170] = 4 // thread 170 released its accesses before its 4th fence
	vc.blocks[2] = 6    // block 2 released everything before its phase 6
	tests := []struct {
		label   string
		a       *access
		atomics bool
		want    bool
		reason  string
	}{
		{"host", recorded(0, 0, 0, 0), false, true, "id 0 is the host, before every launch"},
		{"earlierLaunch", recorded(99, 0, 0, 0), false, true, "below the floor: an earlier launch, ordered by the kernel boundary"},
		{"floor", recorded(100, 0, 0, 0), false, false, "the floor itself is of this epoch"},
		{"noAtomics", recorded(170, 0, 0, 3), false, false, "without acquired knowledge nothing else orders"},
		{"releasedClock", recorded(170, 0, 0, 3), true, true, "recorded at fence clock 3, released up to 4"},
		{"atReleasedClock", recorded(170, 0, 0, 4), true, false, "the release covers clocks below it only"},
		{"otherThread", recorded(171, 0, 0, 0), true, false, "thread 171 released nothing"},
		{"releasedPhase", recorded(240, 5, 0, 0), true, true, "block 2's phase 5 is below the released 6"},
		{"atReleasedPhase", recorded(240, 6, 0, 0), true, false, "phase 6 is not below 6"},
		{"releasedPhaseWrap", recorded(240, 65535, 0, 0), true, true, "phases compare mod 2^16: 65535 is just before 6"},
	}
	for _, tt := range tests {
		v := testView()
		v.atomics = tt.atomics
		v.t = thread(vc)
		if got := v.orderedOtherwise(tt.a); got != tt.want {
			t.Errorf("%s: orderedOtherwise(gid %d, phase %d, clock %d) = %v, want %v: %s",
				tt.label, tt.a.gid, tt.a.phase(), tt.a.clock, got, tt.want, tt.reason)
		}
	}
}

func TestVClockJoin(t *testing.T) {
	v := newVClock()
	v.threads[1], v.threads[2] = 5, 1
	v.blocks[0] = 3
	o := newVClock()
	o.threads[2], o.threads[3] = 4, 2
	o.blocks[0], o.blocks[1] = 1, 7
	v.join(o)
	v.join(nil)
	if want := map[uint32]uint32{1: 5, 2: 4, 3: 2}; !maps.Equal(v.threads, want) {
		t.Errorf("threads %v, want %v (the larger clock of each)", v.threads, want)
	}
	if want := map[int]uint32{0: 3, 1: 7}; !maps.Equal(v.blocks, want) {
		t.Errorf("blocks %v, want %v (the later phase of each)", v.blocks, want)
	}
	if len(o.threads) != 2 || o.threads[2] != 4 {
		t.Errorf("join changed its argument: %v", o.threads)
	}
}

// A fence is a release (later strong writes publish) and an acquire of
// what strong reads read: all of it at device scope; at block scope only
// what threads of the fencing thread's own block released (pendOwn), whoever
// wrote what they published, the rest staying pending for a later device
// fence.
func TestFenceAcquiresPending(t *testing.T) {
	clock := func(threads map[uint32]uint32, blocks map[int]uint32) *vclock {
		c := newVClock()
		maps.Copy(c.threads, threads)
		maps.Copy(c.blocks, blocks)
		return c
	}
	// Thread 170 (block 1) wrote; a thread of block 0 released it, with
	// its own 110, at device scope; thread 200 (block 1) released at
	// device scope too.
	all := func() *vclock { return clock(map[uint32]uint32{110: 2, 170: 3, 200: 6}, map[int]uint32{0: 4, 1: 5}) }
	own := func() *vclock { return clock(map[uint32]uint32{110: 2, 170: 3}, map[int]uint32{0: 4}) }
	tests := []struct {
		label      string
		blockScope bool
		vcThreads  map[uint32]uint32
		vcBlocks   map[int]uint32
		pendLeft   bool
	}{
		{"device", false, map[uint32]uint32{110: 2, 170: 3, 200: 6}, map[int]uint32{0: 4, 1: 5}, false},
		{"block", true, map[uint32]uint32{110: 2, 170: 3}, map[int]uint32{0: 4}, true},
	}
	for _, tt := range tests {
		var h hbState
		h.pend, h.pendOwn = all(), own()
		h.fence(tt.blockScope, 0)
		if h.clock != 1 || !h.fenced || h.blockFence != tt.blockScope {
			t.Errorf("%s: clock %d fenced %v blockFence %v, want a release pending at the fence's scope",
				tt.label, h.clock, h.fenced, h.blockFence)
		}
		if !maps.Equal(h.vc.threads, tt.vcThreads) || !maps.Equal(h.vc.blocks, tt.vcBlocks) {
			t.Errorf("%s: acquired %v %v, want %v %v", tt.label, h.vc.threads, h.vc.blocks, tt.vcThreads, tt.vcBlocks)
		}
		if (h.pend != nil) != tt.pendLeft || h.pendOwn != nil {
			t.Errorf("%s: pending left %v (own %v), want %v", tt.label, h.pend, h.pendOwn, tt.pendLeft)
		}
		if tt.pendLeft {
			h.fence(false, 0)
			if h.pend != nil || h.vc.threads[200] != 6 || h.vc.blocks[1] != 5 {
				t.Errorf("%s: a device fence after it left %v pending, acquired %v %v", tt.label, h.pend, h.vc.threads, h.vc.blocks)
			}
		}
	}
	var h hbState
	h.fence(true, 0)
	if h.vc != nil {
		t.Errorf("a fence with nothing pending acquired %v", h.vc)
	}
}

// notePast keeps, per function, the highest line a thread ran since its
// last barrier (what tells passing a barrier by from returning before it),
// for at most eight functions.
func TestNotePast(t *testing.T) {
	var h hbState
	for _, op := range []pastOp{{1, 10, 1}, {1, 8, 2}, {2, 5, 3}, {1, 12, 4}, {2, 4, 5}} {
		h.notePast(op.fn, op.line, op.site)
	}
	want := []pastOp{{1, 12, 4}, {2, 5, 3}}
	if len(h.past) != len(want) || h.past[0] != want[0] || h.past[1] != want[1] {
		t.Errorf("past %v, want %v", h.past, want)
	}
	for fn := int32(3); fn <= 12; fn++ {
		h.notePast(fn, 1, 0)
	}
	if len(h.past) != 8 {
		t.Errorf("%d functions remembered, want at most 8", len(h.past))
	}
	h.reset()
	if len(h.past) != 0 || h.vc != nil || h.clock != 0 {
		t.Errorf("reset left %+v", h)
	}
}
