package parity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gpusim/gpusim/kernels"
	"pgregory.net/rapid"
)

// ULP32 is the distance between a and b in units in the last place: the
// number of float32 values between them (0 for equal values, +0 and -0
// included). NaNs are at distance 0 from each other and MaxUint64 from
// anything else.
func ULP32(a, b float32) uint64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxUint64
	}
	return ulpDist(ordered32(a), ordered32(b))
}

// ULP64 is ULP32 for float64.
func ULP64(a, b float64) uint64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxUint64
	}
	return ulpDist(ordered64(a), ordered64(b))
}

func ordered32(f float32) int64 {
	i := int64(int32(math.Float32bits(f)))
	if i < 0 {
		i = math.MinInt32 - i
	}
	return i
}

func ordered64(f float64) int64 {
	i := int64(math.Float64bits(f))
	if i < 0 {
		i = math.MinInt64 - i
	}
	return i
}

func ulpDist(a, b int64) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(b) - uint64(a)
}

// floatOK reports whether a and b agree under rule, given their ulp
// distance and the exact-bits test.
func floatOK(rule kernels.Rule, sameBits bool, ulp uint64, a, b float64) bool {
	if rule.MaxULP == 0 && rule.RelTol == 0 {
		return sameBits
	}
	if ulp <= rule.MaxULP {
		return true
	}
	if rule.RelTol != 0 {
		return math.Abs(a-b) <= rule.RelTol*math.Max(math.Abs(a), math.Abs(b))
	}
	return false
}

// Options returns the go-cmp options that compare Results under rule:
// floats bit-exactly for an exact rule, else within MaxULP or RelTol;
// everything else exactly. An empty slice equals a nil one.
func Options(rule kernels.Rule) cmp.Options {
	return cmp.Options{
		cmpopts.EquateEmpty(),
		cmp.Comparer(func(a, b float32) bool {
			return floatOK(rule, math.Float32bits(a) == math.Float32bits(b), ULP32(a, b), float64(a), float64(b))
		}),
		cmp.Comparer(func(a, b float64) bool {
			return floatOK(rule, math.Float64bits(a) == math.Float64bits(b), ULP64(a, b), a, b)
		}),
	}
}

// Diff compares got with want under rule and returns go-cmp's diff
// (-want +got), empty when they agree. Agreement is decided by a plain loop
// first: go-cmp walks a slice by reflection, about 3 µs per element, which
// made a 10M-element seed case cost half a minute; it only runs to print a
// difference.
func Diff(rule kernels.Rule, want, got kernels.Result) string {
	if len(want) != len(got) {
		return fmt.Sprintf("result has %d outputs, want %d", len(got), len(want))
	}
	if agree(rule, want, got) {
		return ""
	}
	return cmp.Diff(want, got, Options(rule))
}

// sameInts reports whether y is a []T equal to x.
func sameInts[T int8 | uint8 | int32 | uint32 | int64 | uint64](x []T, y any) bool {
	yy, ok := y.([]T)
	return ok && slices.Equal(x, yy)
}

// agree reports whether want and got agree under rule, for the slice types
// results hold; any other type is left to go-cmp.
func agree(rule kernels.Rule, want, got kernels.Result) bool {
	for i := range want {
		switch x := want[i].(type) {
		case []float32:
			y, ok := got[i].([]float32)
			if !ok || len(x) != len(y) {
				return false
			}
			for j := range x {
				a, b := x[j], y[j]
				if !floatOK(rule, math.Float32bits(a) == math.Float32bits(b), ULP32(a, b), float64(a), float64(b)) {
					return false
				}
			}
		case []float64:
			y, ok := got[i].([]float64)
			if !ok || len(x) != len(y) {
				return false
			}
			for j := range x {
				a, b := x[j], y[j]
				if !floatOK(rule, math.Float64bits(a) == math.Float64bits(b), ULP64(a, b), a, b) {
					return false
				}
			}
		case []int32:
			if !sameInts(x, got[i]) {
				return false
			}
		case []uint32:
			if !sameInts(x, got[i]) {
				return false
			}
		case []int64:
			if !sameInts(x, got[i]) {
				return false
			}
		case []uint64:
			if !sameInts(x, got[i]) {
				return false
			}
		case []int8:
			if !sameInts(x, got[i]) {
				return false
			}
		case []uint8:
			if !sameInts(x, got[i]) {
				return false
			}
		default:
			if !cmp.Equal(want[i], got[i], Options(rule)) {
				return false
			}
		}
	}
	return true
}

// MaxULP is the largest ulp distance between corresponding float elements
// of a and b (0 when there are none); integer elements are ignored.
func MaxULP(a, b kernels.Result) uint64 {
	var m uint64
	for i := range min(len(a), len(b)) {
		switch x := a[i].(type) {
		case []float32:
			y, ok := b[i].([]float32)
			if !ok {
				continue
			}
			for j := range min(len(x), len(y)) {
				m = max(m, ULP32(x[j], y[j]))
			}
		case []float64:
			y, ok := b[i].([]float64)
			if !ok {
				continue
			}
			for j := range min(len(x), len(y)) {
				m = max(m, ULP64(x[j], y[j]))
			}
		}
	}
	return m
}

// MaxSize bounds generated problem sizes: kernels whose seed size is small
// (a matrix side or a fixed launch) get small sizes, the others element
// counts of a few thousand.
func MaxSize(k *kernels.Kernel) int {
	if k.SeedN > 0 && k.SeedN <= 4096 {
		return 40
	}
	return 3000
}

// Shape is a drawn launch shape.
type Shape struct {
	N, Block int
	Even     bool // N is a multiple of Block
	Seed     uint64
}

// DrawShape draws a legal block size for k (from k.Blocks, else a multiple
// of 32 up to 1024), a problem size that divides evenly by the block or not,
// and an input seed.
func DrawShape(t *rapid.T, k *kernels.Kernel) Shape {
	var block int
	if len(k.Blocks) > 0 {
		block = rapid.SampledFrom(k.Blocks).Draw(t, "block")
	} else {
		block = 32 * rapid.IntRange(1, 32).Draw(t, "warps")
	}
	limit := MaxSize(k)
	var n int
	if limit >= block && rapid.Bool().Draw(t, "even") {
		n = block * rapid.IntRange(1, limit/block).Draw(t, "blocks")
	} else {
		n = rapid.IntRange(1, limit).Draw(t, "n")
	}
	seed := rapid.Uint64().Draw(t, "seed")
	return Shape{N: n, Block: block, Even: n%block == 0, Seed: seed}
}

// Case generates k's case for s.
func (s Shape) Case(k *kernels.Kernel) kernels.Case {
	return k.Generate(rand.New(rand.NewPCG(s.Seed, 0x9a7)), s.N, s.Block)
}
