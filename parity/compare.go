package parity

import (
	"fmt"
	"math/rand/v2"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// Options returns the go-cmp options that print the difference between two
// Results under rule: floats compared by rule.Agree32 and rule.Agree64,
// sim.Half and sim.BFloat16 by rule.AgreeHalf and rule.AgreeBFloat16,
// vectors field by field (so a float4's components by Agree32),
// everything else exactly, an empty slice equal to a nil one. They print;
// rule.Check decides (Diff).
func Options(rule kernels.Rule) cmp.Options {
	return cmp.Options{
		cmpopts.EquateEmpty(),
		cmp.Comparer(rule.Agree32),
		cmp.Comparer(rule.Agree64),
		// A half prints as its value and bits: go-cmp would print the
		// unexported field of sim.Half, {bits: 15360}.
		cmp.Transformer("Half", func(h sim.Half) halfValue {
			return halfValue{Value: sim.Half2Float(h), Bits: bits16(sim.HalfAsUshort(h))}
		}),
		cmp.Transformer("BFloat16", func(h sim.BFloat16) bf16Value {
			return bf16Value{Value: sim.BFloat162Float(h), Bits: bits16(sim.BFloat16AsUshort(h))}
		}),
		cmp.Comparer(func(a, b halfValue) bool {
			return rule.AgreeHalf(sim.UshortAsHalf(uint16(a.Bits)), sim.UshortAsHalf(uint16(b.Bits)))
		}),
		cmp.Comparer(func(a, b bf16Value) bool {
			return rule.AgreeBFloat16(sim.UshortAsBFloat16(uint16(a.Bits)), sim.UshortAsBFloat16(uint16(b.Bits)))
		}),
	}
}

// halfValue is how a diff prints a sim.Half: its value and its bits.
type halfValue struct {
	Value float32
	Bits  bits16
}

// bf16Value is how a diff prints a sim.BFloat16: its value and its bits.
type bf16Value struct {
	Value float32
	Bits  bits16
}

// bits16 are the 16 bits of a half or bfloat16, printed in hexadecimal.
type bits16 uint16

func (b bits16) String() string { return fmt.Sprintf("%#04x", uint16(b)) }

// Diff returns go-cmp's diff of got against want (-want +got) when
// rule.Check finds that they disagree, and "" when they agree. go-cmp walks a
// slice by reflection, about 3 µs an element (half a minute for a 10M
// element case), so it runs only to print a difference already found.
func Diff(rule kernels.Rule, want, got kernels.Result) string {
	err := rule.Check(got, want)
	if err == nil {
		return ""
	}
	if d := cmp.Diff(want, got, Options(rule)); d != "" {
		return d
	}
	return err.Error()
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
