package kernels_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gpusim/gpusim/kernels"
)

var (
	negZero32 = float32(math.Copysign(0, -1))
	nan32     = math.Float32frombits(0x7fc00000) // Go's and arm64's default NaN
	cudaNaN32 = math.Float32frombits(0x7fffffff) // CUDA's canonical NaN
	x86NaN32  = math.Float32frombits(0xffc00000) // x86's default NaN: sign set
	inf32     = float32(math.Inf(1))
	next1     = math.Nextafter32(1, 2)
	exact     = kernels.Rule{}
	ulp2      = kernels.Rule{MaxULP: 2, Why: "test"}
	rel       = kernels.Rule{RelTol: 1e-3, Why: "test"}
)

// The element rules of Rule.Agree32, one row per rule and its edges, in
// go-cmp's table shape: label, inputs, rule, want, reason.
func TestAgree32(t *testing.T) {
	tests := []struct {
		label     string
		got, want float32
		rule      kernels.Rule
		agree     bool
		reason    string
	}{
		{"same", 1, 1, exact, true, "the same bits agree under every rule"},
		{"next", next1, 1, exact, false, "bit-exact means bits"},
		{"nextUlp", next1, 1, ulp2, true, "1 ulp is within 2"},
		{"threeUlp", math.Float32frombits(math.Float32bits(1) + 3), 1, ulp2, false, "3 ulp is not within 2"},
		{"zeroSignExact", negZero32, 0, exact, false, "-0 and +0 have different bits; CUDA code can tell them apart (1/x, signbit)"},
		{"zeroSignUlp", negZero32, 0, ulp2, true, "under a tolerance -0 and +0 are the same value, 0 ulp apart"},
		{"zeroSignRel", negZero32, 0, rel, true, "|(-0) - 0| = 0"},
		{"nanPayloads", cudaNaN32, x86NaN32, exact, true, "NaN payloads are the hardware's, not the kernel's"},
		{"nanSelf", nan32, nan32, exact, true, "NaN agrees with NaN"},
		{"nanNumber", nan32, 1, ulp2, false, "NaN agrees with no number under any rule"},
		{"numberNaN", 1, nan32, rel, false, "nor a number with NaN"},
		{"inf", inf32, inf32, exact, true, "the same infinity"},
		{"infMax", inf32, math.MaxFloat32, ulp2, false, "an overflow is not 1 ulp off the largest float"},
		{"infRel", inf32, math.MaxFloat32, rel, false, "nor relatively close to it"},
		{"tinyAcrossZero", math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, ulp2, true, "2 ulp apart, across zero"},
		{"relNear", 1000, 1000.5, rel, true, "within 1e-3 relative"},
		{"relFar", 1000, 1002, rel, false, "beyond 1e-3 relative"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			if got := tt.rule.Agree32(tt.got, tt.want); got != tt.agree {
				t.Errorf("%v.Agree32(%v, %v) = %v, want %v: %s", tt.rule, tt.got, tt.want, got, tt.agree, tt.reason)
			}
			if got := tt.rule.Agree32(tt.want, tt.got); got != tt.agree {
				t.Errorf("not symmetric: %v.Agree32(%v, %v) = %v", tt.rule, tt.want, tt.got, got)
			}
			// Agree64 applies the same rules to the same values (the
			// ulp rows aside: a float64 ulp is finer).
			if tt.rule.MaxULP == 0 {
				if got := tt.rule.Agree64(float64(tt.got), float64(tt.want)); got != tt.agree {
					t.Errorf("%v.Agree64(%v, %v) = %v, want %v: %s", tt.rule, tt.got, tt.want, got, tt.agree, tt.reason)
				}
			}
		})
	}
}

func TestULP(t *testing.T) {
	for _, c := range []struct {
		a, b float32
		want uint64
	}{
		{1, 1, 0}, {1, next1, 1}, {0, negZero32, 0},
		{math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 2},
		{nan32, x86NaN32, 0},
		{nan32, 1, math.MaxUint64},
		{math.MaxFloat32, -math.MaxFloat32, 2 * uint64(math.Float32bits(math.MaxFloat32))},
	} {
		if got := kernels.ULP32(c.a, c.b); got != c.want {
			t.Errorf("ULP32(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := kernels.ULP64(1, math.Nextafter(1, 0)); got != 1 {
		t.Errorf("ULP64 below 1 = %d", got)
	}
	if got := kernels.ULP64(math.MaxFloat64, -math.MaxFloat64); got != 2*math.Float64bits(math.MaxFloat64) {
		t.Errorf("ULP64 across the whole range = %d", got)
	}
}

// Check applies the element rules to whole results, integers exactly, and
// names the first disagreement and how many there are.
func TestCheck(t *testing.T) {
	ok := []struct {
		label     string
		rule      kernels.Rule
		got, want kernels.Result
	}{
		{"empty", exact, kernels.Result{}, kernels.Result{}},
		{"ints", exact, kernels.Result{[]int32{1, 2}, []uint8{3}}, kernels.Result{[]int32{1, 2}, []uint8{3}}},
		{"nans", exact, kernels.Result{[]float32{cudaNaN32}}, kernels.Result{[]float32{x86NaN32}}},
		{"ulp", ulp2, kernels.Result{[]float32{next1, negZero32}}, kernels.Result{[]float32{1, 0}}},
		{"float64", exact, kernels.Result{[]float64{1.5}}, kernels.Result{[]float64{1.5}}},
	}
	for _, tt := range ok {
		if err := tt.rule.Check(tt.got, tt.want); err != nil {
			t.Errorf("%s: %v", tt.label, err)
		}
	}

	err := exact.Check(kernels.Result{[]int32{7}, []float32{1, negZero32, 2, next1}}, kernels.Result{[]int32{7}, []float32{1, 0, 2, 1}})
	var m *kernels.Mismatch
	if !errors.As(err, &m) || m.Output != 1 || m.Index != 1 || m.Mismatch != 2 || m.ULP != 0 {
		t.Errorf("-0 for +0 and next for 1 under an exact rule: got %v (%+v), want output 1, first at [1], 2 in all, 0 ulp", err, m)
	}
	err = ulp2.Check(kernels.Result{[]int32{1, 2, 4}}, kernels.Result{[]int32{1, 2, 3}})
	if !errors.As(err, &m) || m.Index != 2 || m.Mismatch != 1 {
		t.Errorf("integers are exact under any rule: got %v", err)
	}
	for _, tt := range []struct {
		label     string
		got, want kernels.Result
	}{
		{"outputs", kernels.Result{[]int32{1}}, kernels.Result{[]int32{1}, []int32{2}}},
		{"type", kernels.Result{[]int32{1}}, kernels.Result{[]float32{1}}},
		{"length", kernels.Result{[]float32{1}}, kernels.Result{[]float32{1, 2}}},
		{"unsupported", kernels.Result{[]string{"a"}}, kernels.Result{[]string{"a"}}},
	} {
		err := exact.Check(tt.got, tt.want)
		if err == nil || errors.As(err, &m) {
			t.Errorf("%s: got %v, want a shape error", tt.label, err)
		}
	}
}
