package parity

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// The tests below give Check user kernels whose buffers hold every element
// type a sim.Buffer can, and a kernel that reads constant memory (package
// usertest, which has generated twins). Without a GPU they run the
// simulator against the CPU references; in the test binary built with
// -tags cuda on a GPU host (scripts/build-parity.sh) the same Checks also
// run the twins on the device and compare every buffer with the
// simulator's.

// drawShape draws a number of elements and a block size.
func drawShape(rt *rapid.T) (n int, block sim.Dim3) {
	return rapid.IntRange(0, 200).Draw(rt, "n"), sim.Dim(rapid.SampledFrom([]int{32, 64, 128}).Draw(rt, "block"))
}

// halves draws n halves from all 65536 bit patterns: NaNs, infinities,
// subnormals and signed zeros included.
func halves(rt *rapid.T, n int, label string) []sim.Half {
	bits := rapid.SliceOfN(rapid.Uint16(), n, n).Draw(rt, label)
	out := make([]sim.Half, n)
	for i, b := range bits {
		out[i] = sim.UshortAsHalf(b)
	}
	return out
}

// cover is a 1-D grid of blocks of block threads covering n.
func cover(n int, block sim.Dim3) sim.Dim3 { return sim.Dim(max(1, (n+block.X-1)/block.X)) }

func f32(rt *rapid.T, label string) float32 { return rapid.Float32().Draw(rt, label) }

func TestCheckFloat4AndHalfBuffers(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.ScaleFloat4,
		Draw: func(rt *rapid.T) Launch {
			n, block := drawShape(rt)
			// A grid-stride loop: any grid up to the one covering n.
			grid := sim.Dim(rapid.IntRange(1, cover(n, block).X).Draw(rt, "grid"))
			in := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) sim.Float4 {
				return sim.Float4{X: f32(rt, "x"), Y: f32(rt, "y"), Z: f32(rt, "z"), W: f32(rt, "w")}
			}), n, n).Draw(rt, "in")
			// out and halves start with garbage the kernel overwrites.
			out := make([]sim.Float4, n)
			for i := range out {
				out[i] = sim.Float4{X: -1, Y: -2, Z: -3, W: -4}
			}
			return Launch{Grid: grid, Block: block,
				Args: []any{in, out, halves(rt, 4*n, "halves"), rapid.Float32Range(-4, 4).Draw(rt, "s"), n}}
		},
		Reference: func(l Launch) []any {
			in, s := l.Args[0].([]sim.Float4), l.Args[3].(float32)
			out, hs := make([]sim.Float4, len(in)), make([]sim.Half, 4*len(in))
			for i, v := range in {
				w := sim.Float4{X: v.X * s, Y: v.Y * s, Z: float32(v.Z*s) + 1, W: v.W}
				out[i] = w
				hs[4*i], hs[4*i+1], hs[4*i+2], hs[4*i+3] = sim.Float2Half(w.X), sim.Float2HalfRZ(w.Y), sim.Float2Half(w.Z), sim.Float2Half(w.W)
			}
			return []any{nil, out, hs}
		},
	})
}

func TestCheckHalfAndBFloat16Buffers(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.HalfAxpy,
		Draw: func(rt *rapid.T) Launch {
			n, block := drawShape(rt)
			bits := rapid.SliceOfN(rapid.Uint16(), n, n).Draw(rt, "b")
			b := make([]sim.BFloat16, n)
			for i, u := range bits {
				b[i] = sim.UshortAsBFloat16(u)
			}
			return Launch{Grid: cover(n, block), Block: block,
				Args: []any{halves(rt, n, "x"), halves(rt, n, "y"), b, f32(rt, "a"), n}}
		},
		Reference: func(l Launch) []any {
			x, a := l.Args[0].([]sim.Half), l.Args[3].(float32)
			y := append([]sim.Half(nil), l.Args[1].([]sim.Half)...)
			b := append([]sim.BFloat16(nil), l.Args[2].([]sim.BFloat16)...)
			for i := range y {
				s := float32(a*sim.Half2Float(x[i])) + sim.Half2Float(y[i])
				y[i] = sim.Float2Half(s)
				b[i] = sim.Float2BFloat16(s + sim.BFloat162Float(b[i]))
			}
			return []any{nil, y, b}
		},
	})
}

func TestCheckShortBuffers(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.Shorts,
		Draw: func(rt *rapid.T) Launch {
			n, block := drawShape(rt)
			return Launch{Grid: cover(n, block), Block: block,
				Args: []any{rapid.SliceOfN(rapid.Int16(), n, n).Draw(rt, "x"), rapid.SliceOfN(rapid.Uint16(), n, n).Draw(rt, "u"), n}}
		},
		Reference: func(l Launch) []any {
			x := append([]int16(nil), l.Args[0].([]int16)...)
			u := append([]uint16(nil), l.Args[1].([]uint16)...)
			for i := range x {
				x[i] = x[i]*3 - 7
				u[i] = u[i] ^ 0xa5a5 + uint16(i)
			}
			return []any{x, u}
		},
	})
}

// vec draws n elements of a vector type from comps, which draws one
// element's components.
func vec[T any](rt *rapid.T, n int, label string, comps func(rt *rapid.T) T) []T {
	return rapid.SliceOfN(rapid.Custom(comps), n, n).Draw(rt, label)
}

func i8(rt *rapid.T) int8    { return rapid.Int8().Draw(rt, "c") }
func u8(rt *rapid.T) uint8   { return rapid.Uint8().Draw(rt, "c") }
func i16(rt *rapid.T) int16  { return rapid.Int16().Draw(rt, "c") }
func i32(rt *rapid.T) int32  { return rapid.Int32().Draw(rt, "c") }
func u32(rt *rapid.T) uint32 { return rapid.Uint32().Draw(rt, "c") }
func i64(rt *rapid.T) int64  { return rapid.Int64().Draw(rt, "c") }
func fl(rt *rapid.T) float32 { return rapid.Float32().Draw(rt, "c") }
func db(rt *rapid.T) float64 { return rapid.Float64().Draw(rt, "c") }

func TestCheckSmallVectorBuffers(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.SmallVectors,
		Draw: func(rt *rapid.T) Launch {
			n, block := drawShape(rt)
			return Launch{Grid: cover(n, block), Block: block, Args: []any{
				vec(rt, n, "c4", func(rt *rapid.T) sim.Char4 { return sim.Char4{X: i8(rt), Y: i8(rt), Z: i8(rt), W: i8(rt)} }),
				vec(rt, n, "uc4", func(rt *rapid.T) sim.Uchar4 { return sim.Uchar4{X: u8(rt), Y: u8(rt), Z: u8(rt), W: u8(rt)} }),
				vec(rt, n, "s2", func(rt *rapid.T) sim.Short2 { return sim.Short2{X: i16(rt), Y: i16(rt)} }),
				vec(rt, n, "s4", func(rt *rapid.T) sim.Short4 { return sim.Short4{X: i16(rt), Y: i16(rt), Z: i16(rt), W: i16(rt)} }),
				vec(rt, n, "i2", func(rt *rapid.T) sim.Int2 { return sim.Int2{X: i32(rt), Y: i32(rt)} }),
				vec(rt, n, "i3", func(rt *rapid.T) sim.Int3 { return sim.Int3{X: i32(rt), Y: i32(rt), Z: i32(rt)} }),
				n}}
		},
		Reference: func(l Launch) []any {
			c4 := append([]sim.Char4(nil), l.Args[0].([]sim.Char4)...)
			uc4 := append([]sim.Uchar4(nil), l.Args[1].([]sim.Uchar4)...)
			s2 := append([]sim.Short2(nil), l.Args[2].([]sim.Short2)...)
			s4 := append([]sim.Short4(nil), l.Args[3].([]sim.Short4)...)
			i2 := append([]sim.Int2(nil), l.Args[4].([]sim.Int2)...)
			i3 := append([]sim.Int3(nil), l.Args[5].([]sim.Int3)...)
			for i := range c4 {
				a, b, c, d, e, f := c4[i], uc4[i], s2[i], s4[i], i2[i], i3[i]
				c4[i] = sim.Char4{X: a.Y + 1, Y: a.Z, Z: a.W, W: a.X}
				uc4[i] = sim.Uchar4{X: b.Y + 1, Y: b.Z, Z: b.W, W: b.X}
				s2[i] = sim.Short2{X: c.Y + 1, Y: c.X}
				s4[i] = sim.Short4{X: d.Y + 1, Y: d.Z, Z: d.W, W: d.X}
				i2[i] = sim.Int2{X: e.Y + 1, Y: e.X}
				i3[i] = sim.Int3{X: f.Y + 1, Y: f.Z, Z: f.X}
			}
			return []any{c4, uc4, s2, s4, i2, i3}
		},
	})
}

func TestCheckWideVectorBuffers(t *testing.T) {
	Check(t, Test{
		Kernel: usertest.WideVectors,
		Draw: func(rt *rapid.T) Launch {
			n, block := drawShape(rt)
			return Launch{Grid: cover(n, block), Block: block, Args: []any{
				vec(rt, n, "i4", func(rt *rapid.T) sim.Int4 { return sim.Int4{X: i32(rt), Y: i32(rt), Z: i32(rt), W: i32(rt)} }),
				vec(rt, n, "u2", func(rt *rapid.T) sim.Uint2 { return sim.Uint2{X: u32(rt), Y: u32(rt)} }),
				vec(rt, n, "u4", func(rt *rapid.T) sim.Uint4 { return sim.Uint4{X: u32(rt), Y: u32(rt), Z: u32(rt), W: u32(rt)} }),
				vec(rt, n, "f2", func(rt *rapid.T) sim.Float2 { return sim.Float2{X: fl(rt), Y: fl(rt)} }),
				vec(rt, n, "f3", func(rt *rapid.T) sim.Float3 { return sim.Float3{X: fl(rt), Y: fl(rt), Z: fl(rt)} }),
				vec(rt, n, "d2", func(rt *rapid.T) sim.Double2 { return sim.Double2{X: db(rt), Y: db(rt)} }),
				vec(rt, n, "l2", func(rt *rapid.T) sim.Longlong2 { return sim.Longlong2{X: i64(rt), Y: i64(rt)} }),
				rapid.Float32Range(-8, 8).Draw(rt, "s"), n}}
		},
		Reference: func(l Launch) []any {
			i4 := append([]sim.Int4(nil), l.Args[0].([]sim.Int4)...)
			u2 := append([]sim.Uint2(nil), l.Args[1].([]sim.Uint2)...)
			u4 := append([]sim.Uint4(nil), l.Args[2].([]sim.Uint4)...)
			f2 := append([]sim.Float2(nil), l.Args[3].([]sim.Float2)...)
			f3 := append([]sim.Float3(nil), l.Args[4].([]sim.Float3)...)
			d2 := append([]sim.Double2(nil), l.Args[5].([]sim.Double2)...)
			l2 := append([]sim.Longlong2(nil), l.Args[6].([]sim.Longlong2)...)
			s := l.Args[7].(float32)
			for i := range i4 {
				a, b, c, d, e, f, g := i4[i], u2[i], u4[i], f2[i], f3[i], d2[i], l2[i]
				i4[i] = sim.Int4{X: a.Y + 1, Y: a.Z, Z: a.W, W: a.X}
				u2[i] = sim.Uint2{X: b.Y + 1, Y: b.X}
				u4[i] = sim.Uint4{X: c.Y + 1, Y: c.Z, Z: c.W, W: c.X}
				f2[i] = sim.Float2{X: (d.Y + 1) * s, Y: d.X * s}
				f3[i] = sim.Float3{X: (e.Y + 1) * s, Y: e.Z * s, Z: e.X * s}
				d2[i] = sim.Double2{X: (f.Y + 1) * float64(s), Y: f.X * float64(s)}
				l2[i] = sim.Longlong2{X: g.Y + 1, Y: g.X}
			}
			return []any{i4, u2, u4, f2, f3, d2, l2}
		},
	})
}

// stencilRef is usertest.Stencil on the CPU, with the constants the launch
// sets (zero past the values given).
func stencilRef(l Launch) []any {
	in := l.Args[0].([]float32)
	var taps [2*usertest.Radius + 1]float32
	var offset [2]sim.Float4
	var bias [1]sim.Half
	for _, c := range l.Constants {
		switch c.Var {
		case usertest.Taps:
			copy(taps[:], c.Values.([]float32))
		case usertest.Offset:
			copy(offset[:], c.Values.([]sim.Float4))
		case usertest.HalfBias:
			copy(bias[:], c.Values.([]sim.Half))
		}
	}
	out := make([]float32, len(in))
	for i := range out {
		var s float32
		for j, w := range taps {
			if k := i + j - usertest.Radius; k >= 0 && k < len(in) {
				s += float32(w * in[k])
			}
		}
		o := offset[i%2]
		s += o.X
		s += o.Y
		s += o.Z
		s += o.W
		s += sim.Half2Float(bias[0])
		out[i] = s
	}
	return []any{nil, out}
}

// drawStencil draws a stencil launch; the taps cover the array or only its
// start (the rest is zero).
func drawStencil(rt *rapid.T) Launch {
	n, block := drawShape(rt)
	in := rapid.SliceOfN(rapid.Float32Range(-100, 100), n, n).Draw(rt, "in")
	k := rapid.IntRange(0, 2*usertest.Radius+1).Draw(rt, "taps")
	taps := rapid.SliceOfN(rapid.Float32Range(-2, 2), k, k).Draw(rt, "tap")
	off := vec(rt, 2, "offset", func(rt *rapid.T) sim.Float4 {
		r := rapid.Float32Range(-1, 1)
		return sim.Float4{X: r.Draw(rt, "x"), Y: r.Draw(rt, "y"), Z: r.Draw(rt, "z"), W: r.Draw(rt, "w")}
	})
	bias := sim.Float2Half(rapid.Float32Range(-10, 10).Draw(rt, "bias"))
	return Launch{Grid: cover(n, block), Block: block,
		Args: []any{in, make([]float32, n), n},
		Constants: []Constant{
			Const(usertest.Taps, taps),
			Const(usertest.Offset, off),
			Const(usertest.HalfBias, []sim.Half{bias}),
		}}
}

// TestCheckConstantMemory: Launch.Constants fills __constant__ memory on
// every backend before the launch, float, float4 and half arrays alike.
func TestCheckConstantMemory(t *testing.T) {
	Check(t, Test{Kernel: usertest.Stencil, Draw: drawStencil, Reference: stencilRef})
}

// TestCheckLaunchRequiresConstants: a launch that leaves out a constant the
// kernel's twin declares is refused before anything runs, naming the
// constant and how to set it, rather than reported as a difference between
// the GPU (holding an earlier launch's values) and the simulator (zeros).
func TestCheckLaunchRequiresConstants(t *testing.T) {
	l := Launch{Grid: sim.Dim(1), Block: sim.Dim(32), Args: []any{[]float32{1, 2}, make([]float32, 2), 2}}
	err := checkLaunch(Test{Kernel: usertest.Stencil}, l, nil)
	if err == nil || !strings.Contains(err.Error(), "usertest_half_bias") || !strings.Contains(err.Error(), "parity.Const(HalfBias, values)") {
		t.Errorf("no constants: %v, want an error naming usertest_half_bias and parity.Const(HalfBias, values)", err)
	}
	l.Constants = []Constant{Const(usertest.HalfBias, nil), Const(usertest.Offset, nil)}
	err = checkLaunch(Test{Kernel: usertest.Stencil}, l, nil)
	if err == nil || !strings.Contains(err.Error(), "__constant__ usertest_taps (usertest.Taps, 5 elements of float32)") {
		t.Errorf("taps left out: %v", err)
	}
	// Zeros given explicitly (an empty Values is all zeros) are accepted.
	l.Constants = append(l.Constants, Const(usertest.Taps, nil))
	if err := checkLaunch(Test{Kernel: usertest.Stencil, Reference: stencilRef}, l, nil); err != nil {
		t.Errorf("every constant set: %v", err)
	}
}

func TestLaunchConstantsRefused(t *testing.T) {
	args := []any{[]float32{1}, make([]float32, 1), 1}
	for _, tt := range []struct {
		name string
		cs   []Constant
		want string
	}{
		{"twice", []Constant{Const(usertest.Taps, []float32{1}), Const(usertest.Taps, []float32{2})}, "twice"},
		{"too long", []Constant{Const(usertest.Taps, make([]float32, 6))}, "6 elements into constant \"usertest_taps\" of 5"},
		{"wrong type", []Constant{{Var: usertest.Taps, Values: []float64{1}}}, "[]float64 into constant \"usertest_taps\""},
		{"not a constant", []Constant{{Var: []float32{1}, Values: []float32{1}}}, "not a *sim.Constant"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunLaunch(newSim(), usertest.Stencil, Launch{Grid: sim.Dim(1), Block: sim.Dim(32), Args: args, Constants: tt.cs})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunLaunch = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// lut is a constant read by a kernel declared in this test file, which has
// no twin: Check cannot know what it reads, and the simulator alone runs it.
var lut = sim.NewConstant[sim.Int2]("parity_test_lut", 4)

func lutKernel(idx *sim.Buffer[int32], out *sim.Buffer[sim.Int2], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			out.Store(t, i, lut.Load(t, int(idx.Load(t, i))))
		}
	}
}

func TestCheckConstantWithoutTwin(t *testing.T) {
	table := []sim.Int2{sim.MakeInt2(1, -1), sim.MakeInt2(2, -2), sim.MakeInt2(3, -3)}
	Check(t, Test{
		Kernel:        lutKernel,
		SimulatorOnly: true,
		Draw: func(rt *rapid.T) Launch {
			n := rapid.IntRange(0, 64).Draw(rt, "n")
			idx := rapid.SliceOfN(rapid.Int32Range(0, 3), n, n).Draw(rt, "idx")
			return Launch{Grid: sim.Dim(2), Block: sim.Dim(32), Args: []any{idx, make([]sim.Int2, n), n},
				Constants: []Constant{Const(lut, table)}}
		},
		Reference: func(l Launch) []any {
			idx := l.Args[0].([]int32)
			out := make([]sim.Int2, len(idx))
			for i, k := range idx {
				if int(k) < len(table) {
					out[i] = table[k] // lut[3] is past the values given: zero
				}
			}
			return []any{nil, out}
		},
	})
}

// keep is a kernel that leaves its buffer alone.
func keep[T sim.Storable](b *sim.Buffer[T], n int) sim.Kernel { return func(t *sim.Thread) {} }

// TestRunLaunchEveryElementType passes a buffer of every element type a
// sim.Buffer holds through RunLaunch, the path Check takes (upload, launch,
// read back), and compares the bytes read back with those given.
func TestRunLaunchEveryElementType(t *testing.T) {
	kernelsByType := []any{
		keep[int8], keep[uint8], keep[int16], keep[uint16], keep[int32], keep[uint32], keep[int64], keep[uint64],
		keep[float32], keep[float64], keep[sim.Half], keep[sim.BFloat16], keep[sim.Char4], keep[sim.Uchar4],
		keep[sim.Short2], keep[sim.Short4], keep[sim.Int2], keep[sim.Int3], keep[sim.Int4], keep[sim.Uint2],
		keep[sim.Uint4], keep[sim.Float2], keep[sim.Float3], keep[sim.Float4], keep[sim.Double2], keep[sim.Longlong2],
	}
	seen := map[kernels.DType]bool{}
	for _, k := range kernelsByType {
		load, _ := reflect.TypeOf(k).In(0).MethodByName("Load")
		dt, ok := kernels.DTypeFor(load.Type.Out(0))
		if !ok {
			t.Fatalf("%T: no DType", k)
		}
		seen[dt] = true
		host := reflect.MakeSlice(reflect.SliceOf(dt.GoType()), 3, 3).Interface()
		_, in, _ := kernels.HostBytes(host)
		for i := range in {
			in[i] = byte(3*i + 1)
		}
		out, err := RunLaunch(newSim(), k, Launch{Grid: sim.Dim(1), Block: sim.Dim(1), Args: []any{host, 3}})
		if err != nil {
			t.Errorf("%v: %v", dt, err)
			continue
		}
		if _, got, _ := kernels.HostBytes(out[0]); !bytes.Equal(got, in) {
			t.Errorf("%v: read back % x, wrote % x", dt, got, in)
		}
	}
	for dt := kernels.Int8; dt.Valid(); dt++ {
		if !seen[dt] {
			t.Errorf("%v: not tried", dt)
		}
	}
}

// TestDiffHalvesAndVectors holds go-cmp's printing of halves and vectors
// to rule.Check's verdict, as TestDiffPrintsWhatCheckDecides does for
// floats, and checks that a half prints as its value and bits.
func TestDiffHalvesAndVectors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rule := rapid.SampledFrom([]kernels.Rule{{}, {MaxULP: 2, Why: "t"}, {RelTol: 1e-2, Why: "t"}}).Draw(t, "rule")
		n := rapid.IntRange(0, 8).Draw(t, "n")
		h, bf := halves(t, n, "h"), make([]sim.BFloat16, n)
		f4 := make([]sim.Float4, n)
		for i := range bf {
			bf[i] = sim.UshortAsBFloat16(rapid.Uint16().Draw(t, "bf"))
			f4[i] = sim.Float4{X: fl(t), Y: fl(t), Z: fl(t), W: fl(t)}
		}
		h2, bf2, f42 := append([]sim.Half(nil), h...), append([]sim.BFloat16(nil), bf...), append([]sim.Float4(nil), f4...)
		for range rapid.IntRange(0, 3).Draw(t, "edits") {
			if n == 0 {
				break
			}
			i, d := rapid.IntRange(0, n-1).Draw(t, "i"), uint16(rapid.IntRange(0, 3).Draw(t, "ulps"))
			switch rapid.IntRange(0, 2).Draw(t, "which") {
			case 0:
				h2[i] = sim.UshortAsHalf(sim.HalfAsUshort(h2[i]) + d)
			case 1:
				bf2[i] = sim.UshortAsBFloat16(sim.BFloat16AsUshort(bf2[i]) + d)
			case 2:
				f42[i].Z = math.Float32frombits(math.Float32bits(f42[i].Z) + uint32(d))
			}
		}
		want, got := kernels.Result{h, bf, f4}, kernels.Result{h2, bf2, f42}
		agree := rule.Check(got, want) == nil
		if d := Diff(rule, want, got); (d == "") != agree {
			t.Fatalf("Diff empty=%v, Check agrees=%v; diff:\n%s", d == "", agree, d)
		}
		if same := cmp.Equal(want, got, Options(rule)); same != agree {
			t.Fatalf("go-cmp with Options says equal=%v, Check agrees=%v", same, agree)
		}
	})
	d := Diff(kernels.Rule{}, kernels.Result{[]sim.Half{sim.Float2Half(2)}}, kernels.Result{[]sim.Half{sim.Float2Half(2.5)}})
	if !strings.Contains(d, `Value: 2, Bits: s"0x4000"`) || !strings.Contains(d, `Value: 2.5, Bits: s"0x4100"`) {
		t.Errorf("half diff does not show values and bits:\n%s", d)
	}
}
