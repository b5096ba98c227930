package kernels

import (
	"fmt"
	"math"
)

// Mismatch describes the first element where two results differ beyond the rule.
type Mismatch struct {
	Output   int // index of the output slice
	Index    int
	Got      any
	Want     any
	ULP      uint64
	Mismatch int // how many elements differ in all
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("output %d: %d element(s) differ; first at [%d]: got %v, want %v (%d ulp)",
		m.Output, m.Mismatch, m.Index, m.Got, m.Want, m.ULP)
}

// ULPStats summarises the float distances of a comparison.
type ULPStats struct {
	Max   uint64
	Exact int // elements equal to the bit (or both NaN)
	Total int
}

// Compare checks got against want under rule: integers exactly, floats
// within rule.MaxULP units in the last place or rule.RelTol. It returns nil,
// a *Mismatch, or an error for differing shapes or types.
func Compare(rule Rule, got, want Result) error {
	_, err := CompareStats(rule, got, want)
	return err
}

// CompareStats is Compare that also reports the ulp distribution.
func CompareStats(rule Rule, got, want Result) (ULPStats, error) {
	var st ULPStats
	if len(got) != len(want) {
		return st, fmt.Errorf("got %d outputs, want %d", len(got), len(want))
	}
	var first *Mismatch
	for o := range got {
		var m *Mismatch
		var err error
		switch w := want[o].(type) {
		case []float32:
			m, err = cmpFloat(rule, o, got[o], w, &st, func(x float32) float64 { return float64(x) }, ulp32)
		case []float64:
			m, err = cmpFloat(rule, o, got[o], w, &st, func(x float64) float64 { return x }, ulp64)
		case []int8:
			m, err = cmpExact(o, got[o], w, &st)
		case []uint8:
			m, err = cmpExact(o, got[o], w, &st)
		case []int32:
			m, err = cmpExact(o, got[o], w, &st)
		case []uint32:
			m, err = cmpExact(o, got[o], w, &st)
		case []int64:
			m, err = cmpExact(o, got[o], w, &st)
		case []uint64:
			m, err = cmpExact(o, got[o], w, &st)
		default:
			err = fmt.Errorf("output %d: unsupported type %T", o, want[o])
		}
		if err != nil {
			return st, err
		}
		if m != nil && first == nil {
			first = m
		}
	}
	if first != nil {
		return st, first
	}
	return st, nil
}

// sameShape returns output o of a result, g, as the []T that want is,
// or an error if it is another type or length.
func sameShape[T any](o int, g any, want []T) ([]T, error) {
	got, ok := g.([]T)
	if !ok {
		return nil, fmt.Errorf("output %d: got %T, want %T", o, g, want)
	}
	if len(got) != len(want) {
		return nil, fmt.Errorf("output %d: got %d elements, want %d", o, len(got), len(want))
	}
	return got, nil
}

func cmpExact[T comparable](o int, g any, want []T, st *ULPStats) (*Mismatch, error) {
	got, err := sameShape(o, g, want)
	if err != nil {
		return nil, err
	}
	return tally(o, got, want, st, func(a, b T) (uint64, bool, bool) { return 0, a == b, false }), nil
}

func cmpFloat[T float32 | float64](rule Rule, o int, g any, want []T, st *ULPStats, f64 func(T) float64, ulp func(a, b T) uint64) (*Mismatch, error) {
	got, err := sameShape(o, g, want)
	if err != nil {
		return nil, err
	}
	return tally(o, got, want, st, func(a, b T) (uint64, bool, bool) {
		d := ulp(a, b)
		if d <= rule.MaxULP {
			return d, d == 0, true
		}
		x, y := f64(a), f64(b)
		return d, false, rule.RelTol > 0 && math.Abs(x-y) <= rule.RelTol*math.Max(math.Abs(x), math.Abs(y))
	}), nil
}

// tally adds want's elements to st and returns the first pair of got and
// want that check rejects, counting all it rejects, or nil. check gives a
// pair's distance in ulp (0 for integers, which st.Max leaves alone),
// whether the two are the same, and whether the rule accepts them.
func tally[T any](o int, got, want []T, st *ULPStats, check func(a, b T) (ulp uint64, same, accept bool)) *Mismatch {
	var m *Mismatch
	for i := range want {
		st.Total++
		d, same, accept := check(got[i], want[i])
		if same {
			st.Exact++
			continue
		}
		st.Max = max(st.Max, d)
		if accept {
			continue
		}
		if m == nil {
			m = &Mismatch{Output: o, Index: i, Got: got[i], Want: want[i], ULP: d}
		}
		m.Mismatch++
	}
	return m
}

// ulp32 is the distance in representable float32 values. NaN equals NaN
// (any payload) and +0 equals -0: both are the same value to a reader.
func ulp32(a, b float32) uint64 {
	if a != a && b != b {
		return 0
	}
	return dist(ordered32(math.Float32bits(a)), ordered32(math.Float32bits(b)))
}

func ulp64(a, b float64) uint64 {
	if a != a && b != b {
		return 0
	}
	return dist(ordered64(math.Float64bits(a)), ordered64(math.Float64bits(b)))
}

// ordered maps float bits to integers that sort like the floats.
func ordered32(u uint32) int64 {
	if u&(1<<31) != 0 {
		return -int64(u &^ (1 << 31))
	}
	return int64(u)
}

func ordered64(u uint64) int64 {
	if u&(1<<63) != 0 {
		return -int64(u &^ (1 << 63))
	}
	return int64(u)
}

func dist(a, b int64) uint64 {
	if a > b {
		return uint64(a - b)
	}
	return uint64(b - a)
}
