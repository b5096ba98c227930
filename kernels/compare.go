package kernels

import (
	"fmt"
	"math"
)

// Agreement between two results is decided here, by Rule.Check and the
// element rules Rule.Agree32 and Rule.Agree64, and nowhere else: the
// kernels' tests, `gpusim run` and `gpusim sweep -gpu`, and the parity
// harness (which prints differences with go-cmp, through the same element
// rules) all call them. RATIONALE.md ("Float agreement") says why signed
// zeros and NaNs are treated as they are.

// Exact reports whether the rule asks for bit-exact floats.
func (r Rule) Exact() bool { return r.MaxULP == 0 && r.RelTol == 0 }

// Agree32 reports whether a float32 result element got agrees with the
// expected want under r. The rules, in the order they apply:
//
//  1. A NaN agrees with any NaN, whatever the sign and payload of either,
//     and with nothing else.
//  2. The same bits agree.
//  3. Under an exact rule nothing else agrees: +0 and -0 differ.
//  4. An infinity agrees with nothing else (it agreed with itself by rule 2).
//  5. Values at most r.MaxULP units in the last place apart agree; +0 and -0
//     are 0 apart.
//  6. If r.RelTol > 0, values with |got-want| <= RelTol*max(|got|, |want|)
//     agree.
func (r Rule) Agree32(got, want float32) bool {
	if got != got || want != want {
		return got != got && want != want
	}
	if math.Float32bits(got) == math.Float32bits(want) {
		return true
	}
	return r.near(float64(got), float64(want), ULP32(got, want))
}

// Agree64 is Agree32 for float64 elements.
func (r Rule) Agree64(got, want float64) bool {
	if got != got || want != want {
		return got != got && want != want
	}
	if math.Float64bits(got) == math.Float64bits(want) {
		return true
	}
	return r.near(got, want, ULP64(got, want))
}

// near is rules 3 to 6 for two non-NaN values whose bits differ.
func (r Rule) near(got, want float64, ulp uint64) bool {
	if r.Exact() || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	if ulp <= r.MaxULP {
		return true
	}
	return r.RelTol > 0 && math.Abs(got-want) <= r.RelTol*math.Max(math.Abs(got), math.Abs(want))
}

// ULP32 is the distance between a and b in units in the last place: the
// number of steps from one float32 to the next between them (0 for the
// same value, +0 and -0 included). Two NaNs are 0 apart, a NaN and anything else
// math.MaxUint64.
func ULP32(a, b float32) uint64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxUint64
	}
	return dist(ordered32(math.Float32bits(a)), ordered32(math.Float32bits(b)))
}

// ULP64 is ULP32 for float64.
func ULP64(a, b float64) uint64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxUint64
	}
	return dist(ordered64(math.Float64bits(a)), ordered64(math.Float64bits(b)))
}

// Mismatch describes the first element where two results disagree under a
// rule, and how many disagree in all.
type Mismatch struct {
	Output   int // index of the output slice
	Index    int
	Got      any
	Want     any
	ULP      uint64 // for floats; math.MaxUint64 where one is NaN
	Mismatch int    // how many elements disagree in all
}

func (m *Mismatch) Error() string {
	s := fmt.Sprintf("output %d: %d element(s) differ; first at [%d]: got %v, want %v",
		m.Output, m.Mismatch, m.Index, m.Got, m.Want)
	switch m.Got.(type) {
	case float32, float64:
		if m.ULP == math.MaxUint64 {
			return s + " (NaN and a number)"
		}
		return fmt.Sprintf("%s (%d ulp)", s, m.ULP)
	}
	return s
}

// Check reports whether got agrees with want under r: integers exactly,
// floats element by element by Agree32 and Agree64. It returns nil, a
// *Mismatch naming the first disagreeing element, or an error for results
// of different shapes or types.
func (r Rule) Check(got, want Result) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %d outputs, want %d", len(got), len(want))
	}
	var first *Mismatch
	for o := range want {
		var m *Mismatch
		var err error
		switch w := want[o].(type) {
		case []float32:
			m, err = check(o, got[o], w, r.Agree32, ULP32)
		case []float64:
			m, err = check(o, got[o], w, r.Agree64, ULP64)
		case []int8:
			m, err = check(o, got[o], w, equal, nil)
		case []uint8:
			m, err = check(o, got[o], w, equal, nil)
		case []int16:
			m, err = check(o, got[o], w, equal, nil)
		case []uint16:
			m, err = check(o, got[o], w, equal, nil)
		case []int32:
			m, err = check(o, got[o], w, equal, nil)
		case []uint32:
			m, err = check(o, got[o], w, equal, nil)
		case []int64:
			m, err = check(o, got[o], w, equal, nil)
		case []uint64:
			m, err = check(o, got[o], w, equal, nil)
		default:
			err = fmt.Errorf("output %d: unsupported type %T", o, want[o])
		}
		if err != nil {
			return err
		}
		if m != nil && first == nil {
			first = m
		}
	}
	if first != nil {
		return first
	}
	return nil
}

// Compare is rule.Check(got, want).
//
// Deprecated: call the rule's Check method.
func Compare(rule Rule, got, want Result) error { return rule.Check(got, want) }

func equal[T comparable](a, b T) bool { return a == b }

// check compares output o of a result, g, with want element by element and
// returns the first disagreement, counting all, or nil; or an error if g is
// not a []T of want's length.
func check[T any](o int, g any, want []T, agree func(got, want T) bool, ulp func(a, b T) uint64) (*Mismatch, error) {
	got, ok := g.([]T)
	if !ok {
		return nil, fmt.Errorf("output %d: got %T, want %T", o, g, want)
	}
	if len(got) != len(want) {
		return nil, fmt.Errorf("output %d: got %d elements, want %d", o, len(got), len(want))
	}
	var m *Mismatch
	for i := range want {
		if agree(got[i], want[i]) {
			continue
		}
		if m == nil {
			m = &Mismatch{Output: o, Index: i, Got: got[i], Want: want[i]}
			if ulp != nil {
				m.ULP = ulp(got[i], want[i])
			}
		}
		m.Mismatch++
	}
	return m, nil
}

// MaxULP is the largest ulp distance between corresponding float elements
// of a and b (0 when there are none); integer elements and outputs whose
// types differ are ignored. A report's measure of how far two results are,
// not a verdict: Check decides.
func MaxULP(a, b Result) uint64 {
	var m uint64
	for i := range min(len(a), len(b)) {
		switch x := a[i].(type) {
		case []float32:
			if y, ok := b[i].([]float32); ok {
				for j := range min(len(x), len(y)) {
					m = max(m, ULP32(x[j], y[j]))
				}
			}
		case []float64:
			if y, ok := b[i].([]float64); ok {
				for j := range min(len(x), len(y)) {
					m = max(m, ULP64(x[j], y[j]))
				}
			}
		}
	}
	return m
}

// ordered maps float bits to integers that sort like the floats, +0 and -0
// both to 0.
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
