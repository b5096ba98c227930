package sim_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// halfRef rounds f to binary16 (or, with bf, bfloat16) by the definition:
// the neighbours below and above among all finite values of the format,
// chosen by the mode. It knows nothing of cuda_fp16.hpp's bit tricks.
func halfRef(f float32, mode byte, vals []float64) int {
	x := float64(f)
	// vals is sorted ascending over non-negative finite encodings 0..max.
	ax := math.Abs(x)
	lo := sort.SearchFloat64s(vals, ax) // the first value >= ax
	if lo == len(vals) || vals[lo] > ax {
		lo--
	}
	neg := math.Signbit(x)
	if ax == vals[lo] {
		return sgn(lo, neg)
	}
	max := len(vals) - 1
	var up float64
	if lo == max {
		up = 2*vals[max] - vals[max-1] // the next value the exponent range would have
	} else {
		up = vals[lo+1]
	}
	hi := lo + 1 // may be max+1: infinity
	var pick int
	switch mode {
	case 'n':
		switch d := (ax - vals[lo]) - (up - ax); {
		case d < 0:
			pick = lo
		case d > 0:
			pick = hi
		case lo%2 == 0:
			pick = lo
		default:
			pick = hi
		}
	case 'z':
		pick = lo
	case 'u':
		pick = hi
		if neg {
			pick = lo
		}
	case 'd':
		pick = lo
		if neg {
			pick = hi
		}
	}
	if pick > max && mode == 'z' {
		pick = max
	}
	return sgn(pick, neg)
}

func sgn(i int, neg bool) int {
	if neg {
		return i | 0x8000
	}
	return i
}

func TestHalfRoundingMatchesDefinition(t *testing.T) {
	// Non-negative finite encodings in order are 0x0000..0x7bff (half) and
	// 0x0000..0x7f7f (bfloat16); their values grow with the encoding.
	var hv, bv []float64
	for u := 0; u <= 0x7bff; u++ {
		hv = append(hv, float64(sim.Half2Float(sim.UshortAsHalf(uint16(u)))))
	}
	for u := 0; u <= 0x7f7f; u++ {
		bv = append(bv, float64(sim.BFloat162Float(sim.UshortAsBFloat16(uint16(u)))))
	}
	// Half2Float against the formula.
	for u := 1; u <= 0x7bff; u++ {
		e, m := u>>10, float64(u&0x3ff)
		want := math.Ldexp(m, -24)
		if e > 0 {
			want = math.Ldexp(1024+m, e-25)
		}
		if hv[u] != want {
			t.Fatalf("Half2Float(%#04x) = %v, want %v", u, hv[u], want)
		}
	}
	conv := map[byte][2]func(float32) uint16{
		'n': {func(f float32) uint16 { return sim.HalfAsUshort(sim.Float2Half(f)) }, func(f float32) uint16 { return sim.BFloat16AsUshort(sim.Float2BFloat16(f)) }},
		'z': {func(f float32) uint16 { return sim.HalfAsUshort(sim.Float2HalfRZ(f)) }, func(f float32) uint16 { return sim.BFloat16AsUshort(sim.Float2BFloat16RZ(f)) }},
		'd': {func(f float32) uint16 { return sim.HalfAsUshort(sim.Float2HalfRD(f)) }, func(f float32) uint16 { return sim.BFloat16AsUshort(sim.Float2BFloat16RD(f)) }},
		'u': {func(f float32) uint16 { return sim.HalfAsUshort(sim.Float2HalfRU(f)) }, func(f float32) uint16 { return sim.BFloat16AsUshort(sim.Float2BFloat16RU(f)) }},
	}
	for _, f := range probeFloats() {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || math.Abs(float64(f)) > 1e38 {
			continue
		}
		for mode, c := range conv {
			for k, vals := range [][]float64{hv, bv} {
				want := halfRef(f, mode, vals)
				inf := 0x7c00
				if k == 1 {
					inf = 0x7f80
				}
				if want&0x7fff > len(vals)-1 {
					want = want&0x8000 | inf
				}
				if got := int(c[k](f)); got != want {
					t.Fatalf("format %d mode %c: %v (%#08x) -> %#04x, want %#04x", k, mode, f, math.Float32bits(f), got, want)
				}
			}
		}
	}
}

// probeFloats are the float32 bit patterns scripts/half_probe.cu converts:
// every half and bfloat16 value and the midpoints and neighbours around
// them, the extremes, and NaNs and infinities.
func probeFloats() []float32 {
	var out []float32
	add := func(b uint32) { out = append(out, math.Float32frombits(b), math.Float32frombits(b|0x80000000)) }
	for u := uint32(0); u < 0x7c00; u += 151 {
		b := math.Float32bits(sim.Half2Float(sim.UshortAsHalf(uint16(u))))
		add(b)
		add(b + 1)
		add(b + 0x1000) // the midpoint to the next half when normal
		add(b + 0x1001)
		add(b + 0xfff)
	}
	for u := uint32(0); u < 0x7f80; u += 251 {
		b := u << 16
		add(b)
		add(b | 0x8000)
		add(b | 0x8001)
		add(b | 0x7fff)
	}
	for _, b := range []uint32{0x33000000, 0x33000001, 0x337fffff, 0x33c00000, 0x387fc000, 0x387fe000, 0x38800000,
		0x477fe000, 0x477fefff, 0x477ff000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff, 0x00000001, 0x007fffff} {
		add(b)
	}
	return out
}

var updateHalf = flag.Bool("update-half", false, "rewrite testdata/half.golden from the simulator")

// TestHalfMatchesH100Golden holds the simulator's conversions of every
// probe pattern to testdata/half.golden, which is scripts/half_probe.cu's
// output on the GPU: one line per pattern, in hex, "f32 rn rz rd ru
// h2f(rn) | bf-rn bf-rz bf-rd bf-ru bf2f(rn)". Until the H100 output
// replaces it, the golden file is the simulator's own output
// (-update-half), which the definition test above checks.
func TestHalfMatchesH100Golden(t *testing.T) {
	var sb strings.Builder
	u := func(h sim.Half) uint16 { return sim.HalfAsUshort(h) }
	v := func(h sim.BFloat16) uint16 { return sim.BFloat16AsUshort(h) }
	for _, f := range probeFloats() {
		fmt.Fprintf(&sb, "%08x %04x %04x %04x %04x %08x | %04x %04x %04x %04x %08x\n", math.Float32bits(f),
			u(sim.Float2Half(f)), u(sim.Float2HalfRZ(f)), u(sim.Float2HalfRD(f)), u(sim.Float2HalfRU(f)),
			math.Float32bits(sim.Half2Float(sim.Float2Half(f))),
			v(sim.Float2BFloat16(f)), v(sim.Float2BFloat16RZ(f)), v(sim.Float2BFloat16RD(f)), v(sim.Float2BFloat16RU(f)),
			math.Float32bits(sim.BFloat162Float(sim.Float2BFloat16(f))))
	}
	const path = "testdata/half.golden"
	if *updateHalf {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(sb.String(), "\n")
	for i, w := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != w {
			g := ""
			if i < len(got) {
				g = got[i]
			}
			t.Fatalf("line %d: sim %q, golden %q", i+1, g, w)
		}
	}
	if len(got) != len(strings.Split(string(want), "\n")) {
		t.Fatalf("sim prints %d lines, golden has %d", len(got), len(strings.Split(string(want), "\n")))
	}
}
