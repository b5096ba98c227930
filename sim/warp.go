package sim

import (
	"fmt"
	"math/bits"
	"strings"
)

type collKind uint8

const (
	collShfl collKind = iota
	collShflUp
	collShflDown
	collShflXor
	collBallot
	collAny
	collAll
	collSyncWarp
	collMatchAny
	collMatchAll
	collReduceAdd // the __reduce_*_sync (redux.sync) kinds, computed in redux.go
	collReduceMin
	collReduceMax
	collReduceAnd
	collReduceOr
	collReduceXor
)

var collNames = [...]string{"ShflSync", "ShflUpSync", "ShflDownSync", "ShflXorSync", "BallotSync", "AnySync", "AllSync", "SyncWarp", "MatchAnySync",
	"MatchAllSync", "ReduceAddSync", "ReduceMinSync", "ReduceMaxSync", "ReduceAndSync", "ReduceOrSync", "ReduceXorSync"}

func (k collKind) String() string { return collNames[k] }

// collective is a warp collective in progress: the lanes named in mask
// deposit their operands, and the last to arrive computes every result.
type collective struct {
	kind    collKind
	mask    uint32
	arrived uint32
	width   int
	site    site
	first   *Thread
	vals    [warpSize]uint64
	args    [warpSize]int32
}

// warp is the per-warp state of a block.
type warp struct {
	present uint32 // lanes that exist (the last warp of a block may be partial)
	exited  uint32
	pending []*collective
	spare   []*collective

	// lockstep model
	spinning uint32 // lanes whose last atomic changed nothing
	held     uint32 // lanes held back while warp-mates spin
	meet     uint32 // lanes waiting at an atomic meeting point
	ls       *lockstepLanes

	convOpen  []*meeting // ActiveMask meetings not yet formed, oldest first
	convFreed uint32     // lanes an ActiveMask meeting released that have not run yet
}

func (wp *warp) reset() {
	wp.exited, wp.spinning, wp.held, wp.meet, wp.convFreed = 0, 0, 0, 0, 0
	wp.convOpen = wp.convOpen[:0]
	if wp.ls != nil {
		wp.ls.reset()
	}
	for _, c := range wp.pending {
		wp.spare = append(wp.spare, c)
	}
	wp.pending = wp.pending[:0]
}

func (wp *warp) pendingOf(lane int) *collective {
	for _, c := range wp.pending {
		if c.arrived&(1<<lane) != 0 {
			return c
		}
	}
	return nil
}

func laneList(m uint32) string {
	var parts []string
	for m != 0 {
		lo := bits.TrailingZeros32(m)
		hi := lo
		for hi+1 < 32 && m&(1<<(hi+1)) != 0 {
			hi++
		}
		if lo == hi {
			parts = append(parts, fmt.Sprint(lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lo, hi))
		}
		m &^= uint32((uint64(1)<<(hi+1) - 1) &^ (uint64(1)<<lo - 1))
	}
	return strings.Join(parts, ",")
}

// badCollective reports what is wrong with a collective's mask or width:
// a mask that leaves out the caller ends the launch; a width that is not a
// power of two in [1,32] is reported (CUDA leaves the result undefined)
// and kept: the shuffle then computes what PTX's shfl.sync rule gives for
// the clamp operand CUDA's headers build from it (see shflSource). A mask may name lanes
// that have exited or do not exist (the partial last warp of a block):
// PTX waits only for the mask's lanes that have not exited. The error
// paths live here, out of collective, whose stack frame every suspended
// lane keeps.
//
//go:noinline
func (w *worker) badCollective(t *Thread, kind collKind, mask uint32, width int, s site) int {
	if mask&(1<<t.lane) == 0 {
		w.collectiveFatal(t, kind, s, fmt.Sprintf("lane %d calls %s with mask %#08x that does not include itself", t.lane, kind, mask))
	}
	if width <= 0 || width > warpSize || width&(width-1) != 0 {
		w.l.addFinding(Finding{Kind: InvalidShuffle,
			Detail:  fmt.Sprintf("width %d is not a power of two in [1,32]: undefined in CUDA; the lanes get what PTX's shfl.sync gives for it", width),
			Current: threadAccess(t, kind.String(), s)})
	}
	return width
}

// shuffleOutside reports lane reading lane src, which is not in c's mask,
// or is named in it but has exited or does not exist. The reader gets its
// own value and the launch goes on.
//
//go:noinline
func (w *worker) shuffleOutside(t *Thread, c *collective, lane, src int) {
	why := "is not in mask"
	if src < warpSize && c.mask&(1<<src) != 0 {
		why = "has exited or does not exist, though named in mask"
	}
	w.l.addFinding(Finding{Kind: InvalidShuffle,
		Detail:  fmt.Sprintf("lane %d reads lane %d, which %s %#08x: the value is undefined on hardware", lane, src, why, c.mask),
		Current: threadAccess(t, c.kind.String(), c.site)})
}

// collectiveFatal reports a warp divergence that ends the launch and
// unwinds the calling thread.
//
//go:noinline
func (w *worker) collectiveFatal(t *Thread, kind collKind, s site, detail string) {
	w.l.addFinding(Finding{Kind: WarpDivergence, Detail: detail, Current: threadAccess(t, kind.String(), s)})
	w.l.markFatal()
	panic(abortKernel{})
}

func (t *Thread) collective(kind collKind, mask uint32, val uint64, arg int32, width int) uint64 {
	w := t.w
	if w.cur != t || !onStackWithin(w.g, w.stackMax) || w.l.aborted.Load() {
		t.ownSlow() // own, written out, as in barrier
	}
	w.tick()
	w.syncArrival(t)
	w.stats.Collectives++
	wp := &t.blk.warps[t.warp]
	s := w.sites.callerSite()
	bit := uint32(1) << t.lane
	if mask&bit == 0 || width <= 0 || width > warpSize || width&(width-1) != 0 {
		width = w.badCollective(t, kind, mask, width, s)
	}
	var c *collective
	for _, p := range wp.pending {
		if p.mask == mask {
			c = p
			break
		}
	}
	if c == nil {
		if n := len(wp.spare); n > 0 {
			c = wp.spare[n-1]
			wp.spare = wp.spare[:n-1]
		} else {
			c = new(collective)
		}
		c.kind, c.mask, c.arrived, c.width, c.site, c.first = kind, mask, 0, width, s, t
		wp.pending = append(wp.pending, c)
	} else if c.kind != kind || c.width != width {
		w.collectiveFatal(t, kind, s, fmt.Sprintf("lanes of warp %d meet with mask %#08x in different collectives: %s (width %d) at %s and %s (width %d) here",
			t.warp, mask, c.kind, c.width, c.site, kind, width))
	}
	c.vals[t.lane] = val
	c.args[t.lane] = arg
	c.arrived |= bit
	if c.arrived == c.mask&wp.present&^wp.exited {
		w.completeCollective(t.blk, wp, c)
		return t.collRes // the last lane to arrive does not wait
	}
	t.state = stWarp
	t.waitSite = s
	t.suspendOwned()
	t.state = stRunning
	return t.collRes
}

// completeCollective computes every lane's result and wakes the lanes.
func (w *worker) completeCollective(b *block, wp *warp, c *collective) {
	first := (c.first.warp) * warpSize
	width := c.width
	for m := c.arrived; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		t := &b.threads[first+lane]
		var r uint64
		src := -1
		switch c.kind {
		case collShfl, collShflUp, collShflDown, collShflXor:
			src = shflSource(c.kind, lane, c.args[lane], width)
		case collBallot:
			for mm := c.arrived; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				if c.vals[l] != 0 {
					r |= 1 << l
				}
			}
		case collAny:
			for mm := c.arrived; mm != 0; mm &= mm - 1 {
				if c.vals[bits.TrailingZeros32(mm)] != 0 {
					r = 1
				}
			}
		case collAll:
			r = 1
			for mm := c.arrived; mm != 0; mm &= mm - 1 {
				if c.vals[bits.TrailingZeros32(mm)] == 0 {
					r = 0
				}
			}
		case collMatchAny:
			for mm := c.arrived; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				if c.vals[l] == c.vals[lane] {
					r |= 1 << l
				}
			}
		case collMatchAll, collReduceAdd, collReduceMin, collReduceMax, collReduceAnd, collReduceOr, collReduceXor:
			r = c.reduce(lane)
		}
		if src >= 0 {
			if src >= warpSize || c.arrived&(1<<src) == 0 {
				w.shuffleOutside(t, c, lane, src)
				src = lane
			}
			r = c.vals[src]
		}
		t.collRes = r
		if t.state == stWarp {
			t.state = stRunnable
			w.runq = append(w.runq, t)
		}
	}
	if w.l.prof != nil {
		w.profCollective(b, wp, c)
	}
	if w.l.detect && c.kind == collSyncWarp {
		// Only bar.warp.sync orders memory among the lanes: shfl, vote,
		// match and redux do not (PTX ISA), and compute-sanitizer's
		// racecheck reports hazards that only they separate.
		w.warpSync(b, first, c.arrived)
	}
	for i, p := range wp.pending {
		if p == c {
			wp.pending = append(wp.pending[:i], wp.pending[i+1:]...)
			break
		}
	}
	wp.spare = append(wp.spare, c)
	// Not progress for the spin rounds (see releaseBarrier): a warp that
	// polls with __any_sync completes a collective every time round.
}

// shflSource is the lane that lane reads in a shuffle of kind with operand
// b (srcLane, delta or laneMask) and width, by PTX's shfl.sync rule (PTX
// ISA, "shfl.sync"), with the c operand CUDA's headers pass:
// ((32-width)<<8)|0x1f for idx, down and bfly, (32-width)<<8 for up:
//
//	bval = b[4:0]; cval = c[4:0]; segmask = c[12:8]
//	maxLane = (lane & segmask) | (cval & ~segmask); minLane = lane & segmask
//	up:   j = lane - bval; ok = j >= maxLane
//	down: j = lane + bval; ok = j <= maxLane
//	bfly: j = lane ^ bval; ok = j <= maxLane
//	idx:  j = minLane | (bval & ~segmask); ok = j <= maxLane
//	if !ok { j = lane }
//
// Only b's low five bits count, so a delta of 32 is 0 and 33 is 1, and -1
// is 31; a width that is not a power of two makes a segment mask of
// whatever bits 32-width has. For the widths CUDA defines, this is the
// documented behaviour: srcLane modulo width within the caller's segment,
// and the caller's own value where up or down would leave the segment.
func shflSource(kind collKind, lane int, b int32, width int) int {
	c := int32(uint32(int32(warpSize-width)) << 8)
	if kind != collShflUp {
		c |= 0x1f
	}
	bval := int(uint32(b) & 31)
	cval := int(c & 31)
	segmask := int(c>>8) & 31
	maxLane := lane&segmask | cval&^segmask
	minLane := lane & segmask
	var j int
	var ok bool
	switch kind {
	case collShflUp:
		j = lane - bval
		ok = j >= maxLane
	case collShflDown:
		j = lane + bval
		ok = j <= maxLane
	case collShflXor:
		j = lane ^ bval
		ok = j <= maxLane
	default:
		j = minLane | bval&^segmask
		ok = j <= maxLane
	}
	if !ok {
		j = lane
	}
	return j
}

// warpExit marks t's lane exited and completes any collective that waited
// only for it.
func (w *worker) warpExit(t *Thread) {
	wp := &t.blk.warps[t.warp]
	bit := uint32(1) << t.lane
	wp.exited |= bit
	if len(wp.pending) == 0 && w.l.opts.warpModel != Lockstep {
		return
	}
	if w.l.opts.warpModel == Lockstep {
		wp.spinning &^= bit
		w.lockstepCheck(t.blk, t.warp)
	}
	if w.l.aborted.Load() {
		return // the lane is being unwound by a fatal finding
	}
	// PTX waits only for the mask's lanes that have not exited: a
	// collective that waited for this lane alone completes now.
	for k := 0; k < len(wp.pending); {
		if c := wp.pending[k]; c.mask&bit != 0 && c.arrived == c.mask&wp.present&^wp.exited {
			w.completeCollective(t.blk, wp, c) // removes c from pending
			continue
		}
		k++
	}
}

func boolBits(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// SyncWarp is __syncwarp(mask): the lanes in mask wait for each other, and
// their memory accesses before it are ordered before those after it.
func (t *Thread) SyncWarp(mask uint32) { t.collective(collSyncWarp, mask, 0, 0, warpSize) }

// BallotSync is __ballot_sync(mask, pred): bit i is set if lane i is in mask
// and its pred is true.
func (t *Thread) BallotSync(mask uint32, pred bool) uint32 {
	return uint32(t.collective(collBallot, mask, boolBits(pred), 0, warpSize))
}

// AnySync is __any_sync(mask, pred).
func (t *Thread) AnySync(mask uint32, pred bool) bool {
	return t.collective(collAny, mask, boolBits(pred), 0, warpSize) != 0
}

// AllSync is __all_sync(mask, pred).
func (t *Thread) AllSync(mask uint32, pred bool) bool {
	return t.collective(collAll, mask, boolBits(pred), 0, warpSize) != 0
}

func widthOf(width []int) int {
	switch len(width) {
	case 0:
		return warpSize
	case 1:
		return width[0]
	}
	panic(&MisuseError{Code: ErrInvalidValue, Op: "shuffle", What: fmt.Sprintf("%d widths %v: a shuffle takes one", len(width), width)})
}

// ShflSync is __shfl_sync(mask, v, srcLane, width=32): lane srcLane's v,
// within segments of width lanes. width is optional.
func ShflSync[T Elem](t *Thread, mask uint32, v T, srcLane int, width ...int) T {
	return fromBits[T](t.collective(collShfl, mask, bitsOf(v), int32(srcLane), widthOf(width)))
}

// ShflUpSync is __shfl_up_sync(mask, v, delta, width=32): the v of the lane
// delta below, or the caller's own v in the segment's first delta lanes.
func ShflUpSync[T Elem](t *Thread, mask uint32, v T, delta int, width ...int) T {
	return fromBits[T](t.collective(collShflUp, mask, bitsOf(v), int32(delta), widthOf(width)))
}

// ShflDownSync is __shfl_down_sync(mask, v, delta, width=32): the v of the
// lane delta above, or the caller's own v in the segment's last delta lanes.
func ShflDownSync[T Elem](t *Thread, mask uint32, v T, delta int, width ...int) T {
	return fromBits[T](t.collective(collShflDown, mask, bitsOf(v), int32(delta), widthOf(width)))
}

// ShflXorSync is __shfl_xor_sync(mask, v, laneMask, width=32): the v of lane
// (lane ^ laneMask); reaching into a later segment returns the caller's own v.
func ShflXorSync[T Elem](t *Thread, mask uint32, v T, laneMask int, width ...int) T {
	return fromBits[T](t.collective(collShflXor, mask, bitsOf(v), int32(laneMask), widthOf(width)))
}

// MatchAnySync is __match_any_sync(mask, v): the lanes of mask whose v
// equals the caller's.
func MatchAnySync[T Elem](t *Thread, mask uint32, v T) uint32 {
	return uint32(t.collective(collMatchAny, mask, bitsOf(v), 0, warpSize))
}

// FullMask names all 32 lanes (0xffffffff).
const FullMask uint32 = 0xffffffff
