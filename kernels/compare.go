package kernels

import (
	"fmt"
	"math"

	"github.com/gpusim/gpusim/sim"
)

// Agreement between two results is decided here, by Rule.Check and the
// element rules Rule.Agree32, Rule.Agree64, Rule.AgreeHalf and
// Rule.AgreeBFloat16, and nowhere else: the
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

// AgreeHalf is Agree32 for sim.Half elements, its rules applied to the
// binary16 values: a NaN agrees with any NaN, the same bits agree, an exact
// rule accepts nothing else (+0 and -0 differ), and a tolerance counts
// units in the last place of binary16 (ULPHalf), RelTol comparing the
// values.
func (r Rule) AgreeHalf(got, want sim.Half) bool {
	g, w := sim.HalfAsUshort(got), sim.HalfAsUshort(want)
	if nanHalf(g) || nanHalf(w) {
		return nanHalf(g) && nanHalf(w)
	}
	if g == w {
		return true
	}
	return r.near(float64(sim.Half2Float(got)), float64(sim.Half2Float(want)), ULPHalf(got, want))
}

// AgreeBFloat16 is AgreeHalf for sim.BFloat16 elements, in units in the
// last place of bfloat16 (ULPBFloat16).
func (r Rule) AgreeBFloat16(got, want sim.BFloat16) bool {
	g, w := sim.BFloat16AsUshort(got), sim.BFloat16AsUshort(want)
	if nanBF16(g) || nanBF16(w) {
		return nanBF16(g) && nanBF16(w)
	}
	if g == w {
		return true
	}
	return r.near(float64(sim.BFloat162Float(got)), float64(sim.BFloat162Float(want)), ULPBFloat16(got, want))
}

// ULPHalf is ULP32 for sim.Half: the number of binary16 values from a to
// b.
func ULPHalf(a, b sim.Half) uint64 {
	return ulp16(sim.HalfAsUshort(a), sim.HalfAsUshort(b), nanHalf)
}

// ULPBFloat16 is ULP32 for sim.BFloat16.
func ULPBFloat16(a, b sim.BFloat16) uint64 {
	return ulp16(sim.BFloat16AsUshort(a), sim.BFloat16AsUshort(b), nanBF16)
}

func nanHalf(u uint16) bool { return u&0x7fff > 0x7c00 }
func nanBF16(u uint16) bool { return u&0x7fff > 0x7f80 }

func ulp16(a, b uint16, nan func(uint16) bool) uint64 {
	if nan(a) || nan(b) {
		if nan(a) && nan(b) {
			return 0
		}
		return math.MaxUint64
	}
	return dist(ordered16(a), ordered16(b))
}

// The vector types' rules: a float vector agrees when every component
// agrees by Agree32 (Agree64 for Double2), and is as many ulp off as its
// farthest component; integer vectors are compared exactly.

func (r Rule) agreeFloat2(g, w sim.Float2) bool { return r.Agree32(g.X, w.X) && r.Agree32(g.Y, w.Y) }
func (r Rule) agreeFloat3(g, w sim.Float3) bool {
	return r.Agree32(g.X, w.X) && r.Agree32(g.Y, w.Y) && r.Agree32(g.Z, w.Z)
}
func (r Rule) agreeFloat4(g, w sim.Float4) bool {
	return r.Agree32(g.X, w.X) && r.Agree32(g.Y, w.Y) && r.Agree32(g.Z, w.Z) && r.Agree32(g.W, w.W)
}
func (r Rule) agreeDouble2(g, w sim.Double2) bool { return r.Agree64(g.X, w.X) && r.Agree64(g.Y, w.Y) }

func ulpFloat2(a, b sim.Float2) uint64 { return max(ULP32(a.X, b.X), ULP32(a.Y, b.Y)) }
func ulpFloat3(a, b sim.Float3) uint64 {
	return max(ULP32(a.X, b.X), ULP32(a.Y, b.Y), ULP32(a.Z, b.Z))
}
func ulpFloat4(a, b sim.Float4) uint64 {
	return max(ULP32(a.X, b.X), ULP32(a.Y, b.Y), ULP32(a.Z, b.Z), ULP32(a.W, b.W))
}
func ulpDouble2(a, b sim.Double2) uint64 { return max(ULP64(a.X, b.X), ULP64(a.Y, b.Y)) }

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
	s := fmt.Sprintf("output %d: %d element(s) differ; first at [%d]: got %s, want %s",
		m.Output, m.Mismatch, m.Index, elemString(m.Got), elemString(m.Want))
	switch m.Got.(type) {
	case float32, float64, sim.Half, sim.BFloat16, sim.Float2, sim.Float3, sim.Float4, sim.Double2:
		if m.ULP == math.MaxUint64 {
			return s + " (NaN and a number)"
		}
		return fmt.Sprintf("%s (%d ulp)", s, m.ULP)
	}
	return s
}

// elemString formats a result element for a Mismatch: a half or bfloat16
// as its value and bits, anything else as %v.
func elemString(v any) string {
	switch x := v.(type) {
	case sim.Half:
		return fmt.Sprintf("%v (%#04x)", sim.Half2Float(x), sim.HalfAsUshort(x))
	case sim.BFloat16:
		return fmt.Sprintf("%v (%#04x)", sim.BFloat162Float(x), sim.BFloat16AsUshort(x))
	}
	return fmt.Sprint(v)
}

// Check reports whether got agrees with want under r: output by output,
// element by element, integers (and integer vectors) exactly, floats by
// Agree32 and Agree64, halves by AgreeHalf and AgreeBFloat16, and float
// vectors component by component. Every element type a sim.Buffer holds
// (sim.Storable) is taken. It returns nil, a *Mismatch naming the first
// disagreeing element, or an error for results of different shapes or
// types.
func (r Rule) Check(got, want Result) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %d outputs, want %d", len(got), len(want))
	}
	var first *Mismatch
	for o := range want {
		m, err := r.checkOutput(o, got[o], want[o])
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

// checkOutput compares output o, got against want, under r.
func (r Rule) checkOutput(o int, got, want any) (*Mismatch, error) {
	switch w := want.(type) {
	case []float32:
		return check(o, got, w, r.Agree32, ULP32)
	case []float64:
		return check(o, got, w, r.Agree64, ULP64)
	case []sim.Half:
		return check(o, got, w, r.AgreeHalf, ULPHalf)
	case []sim.BFloat16:
		return check(o, got, w, r.AgreeBFloat16, ULPBFloat16)
	case []sim.Float2:
		return check(o, got, w, r.agreeFloat2, ulpFloat2)
	case []sim.Float3:
		return check(o, got, w, r.agreeFloat3, ulpFloat3)
	case []sim.Float4:
		return check(o, got, w, r.agreeFloat4, ulpFloat4)
	case []sim.Double2:
		return check(o, got, w, r.agreeDouble2, ulpDouble2)
	case []int8:
		return check(o, got, w, equal, nil)
	case []uint8:
		return check(o, got, w, equal, nil)
	case []int16:
		return check(o, got, w, equal, nil)
	case []uint16:
		return check(o, got, w, equal, nil)
	case []int32:
		return check(o, got, w, equal, nil)
	case []uint32:
		return check(o, got, w, equal, nil)
	case []int64:
		return check(o, got, w, equal, nil)
	case []uint64:
		return check(o, got, w, equal, nil)
	case []sim.Char4:
		return check(o, got, w, equal, nil)
	case []sim.Uchar4:
		return check(o, got, w, equal, nil)
	case []sim.Short2:
		return check(o, got, w, equal, nil)
	case []sim.Short4:
		return check(o, got, w, equal, nil)
	case []sim.Int2:
		return check(o, got, w, equal, nil)
	case []sim.Int3:
		return check(o, got, w, equal, nil)
	case []sim.Int4:
		return check(o, got, w, equal, nil)
	case []sim.Uint2:
		return check(o, got, w, equal, nil)
	case []sim.Uint4:
		return check(o, got, w, equal, nil)
	case []sim.Longlong2:
		return check(o, got, w, equal, nil)
	}
	return nil, fmt.Errorf("output %d: unsupported type %T", o, want)
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
// of a and b (0 when there are none), each in its own type's ulps: a half's
// in binary16's, a float vector's those of its farthest component. Integer
// elements and outputs whose
// types differ are ignored. A report's measure of how far two results are,
// not a verdict: Check decides.
func MaxULP(a, b Result) uint64 {
	var m uint64
	for i := range min(len(a), len(b)) {
		switch x := a[i].(type) {
		case []float32:
			m = max(m, maxULP(x, b[i], ULP32))
		case []float64:
			m = max(m, maxULP(x, b[i], ULP64))
		case []sim.Half:
			m = max(m, maxULP(x, b[i], ULPHalf))
		case []sim.BFloat16:
			m = max(m, maxULP(x, b[i], ULPBFloat16))
		case []sim.Float2:
			m = max(m, maxULP(x, b[i], ulpFloat2))
		case []sim.Float3:
			m = max(m, maxULP(x, b[i], ulpFloat3))
		case []sim.Float4:
			m = max(m, maxULP(x, b[i], ulpFloat4))
		case []sim.Double2:
			m = max(m, maxULP(x, b[i], ulpDouble2))
		}
	}
	return m
}

// maxULP is the largest ulp distance between corresponding elements of x
// and y, or 0 if y is not a []T.
func maxULP[T any](x []T, y any, ulp func(a, b T) uint64) uint64 {
	var m uint64
	if y, ok := y.([]T); ok {
		for j := range min(len(x), len(y)) {
			m = max(m, ulp(x[j], y[j]))
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

func ordered16(u uint16) int64 {
	if u&(1<<15) != 0 {
		return -int64(u &^ (1 << 15))
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
