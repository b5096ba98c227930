package sim

import "math/bits"

// The warp reductions and __match_all_sync: collectives like the shuffles
// (see collective), with CUDA's semantics for lanes that have exited or do
// not exist: they take no part, and the result is over the lanes that
// arrived. Like every collective but SyncWarp they order no memory.

// ReduceAddSync is __reduce_add_sync(mask, v): the sum, wrapping, of v over
// the lanes of mask (redux.sync.add).
func ReduceAddSync[T int32 | uint32](t *Thread, mask uint32, v T) T {
	return T(t.collective(collReduceAdd, mask, uint64(uint32(v)), 0, warpSize))
}

// ReduceMinSync is __reduce_min_sync(mask, v): the least v over the lanes
// of mask, compared as signed for int32 and unsigned for uint32.
func ReduceMinSync[T int32 | uint32](t *Thread, mask uint32, v T) T {
	return T(t.collective(collReduceMin, mask, uint64(uint32(v)), signedArg[T](), warpSize))
}

// ReduceMaxSync is __reduce_max_sync(mask, v): the greatest v over the
// lanes of mask.
func ReduceMaxSync[T int32 | uint32](t *Thread, mask uint32, v T) T {
	return T(t.collective(collReduceMax, mask, uint64(uint32(v)), signedArg[T](), warpSize))
}

// ReduceAndSync is __reduce_and_sync(mask, v): the bitwise AND of v over
// the lanes of mask.
func ReduceAndSync(t *Thread, mask uint32, v uint32) uint32 {
	return uint32(t.collective(collReduceAnd, mask, uint64(v), 0, warpSize))
}

// ReduceOrSync is __reduce_or_sync(mask, v).
func ReduceOrSync(t *Thread, mask uint32, v uint32) uint32 {
	return uint32(t.collective(collReduceOr, mask, uint64(v), 0, warpSize))
}

// ReduceXorSync is __reduce_xor_sync(mask, v).
func ReduceXorSync(t *Thread, mask uint32, v uint32) uint32 {
	return uint32(t.collective(collReduceXor, mask, uint64(v), 0, warpSize))
}

// MatchAllSync is __match_all_sync(mask, v, &pred): mask (the lanes of mask
// that take part) and true if every one holds the same v, else 0 and false.
func MatchAllSync[T Elem](t *Thread, mask uint32, v T) (uint32, bool) {
	r := uint32(t.collective(collMatchAll, mask, bitsOf(v), 0, warpSize))
	return r, r != 0
}

func signedArg[T int32 | uint32]() int32 {
	var z T
	if _, ok := any(z).(int32); ok {
		return 1
	}
	return 0
}

// reduce is the result of a redux or match.all collective c for lane: the
// same for every lane, over the lanes that arrived.
func (c *collective) reduce(lane int) uint64 {
	first := bits.TrailingZeros32(c.arrived)
	acc := uint32(c.vals[first])
	signed := c.args[lane] != 0
	for m := c.arrived & (c.arrived - 1); m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		v := uint32(c.vals[l])
		switch c.kind {
		case collReduceAdd:
			acc += v
		case collReduceMin:
			if signed && int32(v) < int32(acc) || !signed && v < acc {
				acc = v
			}
		case collReduceMax:
			if signed && int32(v) > int32(acc) || !signed && v > acc {
				acc = v
			}
		case collReduceAnd:
			acc &= v
		case collReduceOr:
			acc |= v
		case collReduceXor:
			acc ^= v
		case collMatchAll:
			if c.vals[l] != c.vals[first] {
				return 0
			}
		}
	}
	if c.kind == collMatchAll {
		return uint64(c.arrived)
	}
	return uint64(acc)
}
