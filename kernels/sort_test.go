package kernels_test

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// Seed 001's properties (sort_test.go, radix_test.go, search_test.go,
// merge_test.go) draw sizes up to -seed001.maxn. The default keeps go test
// short; the seed sizes run in BenchmarkSeedSize, and a long check is
//
//	go test ./kernels -run 'Bitonic|Radix|Search|Merge' -seed001.maxn=300000 -rapid.checks=20 -timeout 0
var seed001MaxN = flag.Int("seed001.maxn", 4096, "largest size seed 001's property tests draw")

// drawSize draws a problem size in [0, max]: 0 to 3, a power of two, an odd
// size, or any size, each a quarter of the time.
func drawSize(t *rapid.T, max int) int {
	switch rapid.IntRange(0, 3).Draw(t, "shape") {
	case 0:
		return rapid.IntRange(0, min(3, max)).Draw(t, "n")
	case 1:
		return 1 << rapid.IntRange(0, bits.Len(uint(max))-1).Draw(t, "log2n")
	case 2:
		return rapid.IntRange(0, (max-1)/2).Draw(t, "half") | 1
	}
	return rapid.IntRange(0, max).Draw(t, "n")
}

// drawOptions draws the launch options of one run: detection stays on (the
// zero Options), under the natural order or a seeded random one.
func drawOptions(t *rapid.T) sim.Options {
	if seed := rapid.Uint64Range(0, 3).Draw(t, "schedule"); seed > 0 {
		return sim.Options{}.WithSchedule(sim.RandomOrder).WithSeed(seed)
	}
	return sim.Options{}
}

// runClean runs the named registry kernel's driver on a fresh H100
// simulator with detection on and fails unless it returns no error and no
// launch reported a finding.
func runClean(t fataler, name string, c kernels.Case, opts sim.Options) kernels.Result {
	t.Helper()
	k, ok := kernels.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	b := kernels.NewSimBackend(sim.H100, opts)
	res, err := k.Run(b, c)
	if err != nil {
		t.Fatalf("%s, n=%d block=%d: %v", name, c.N, c.Block, err)
	}
	for _, r := range b.Reports {
		if len(r.Findings) > 0 {
			t.Fatalf("%s, n=%d block=%d: findings:\n%v", name, c.N, c.Block, r)
		}
	}
	return res
}

// fataler is what runClean needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// sameBits reports whether a and b hold the same float32 bit patterns.
func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// drawF32s draws n keys from a small pool (so that duplicates are common)
// that holds signed zeros, infinities, subnormals and, with nans, NaNs of
// either sign with different payloads.
func drawF32s(t *rapid.T, n int, nans bool) []float32 {
	pool := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -2.5, 3e38, -3e38,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1))}
	if nans {
		pool = append(pool, math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00000),
			math.Float32frombits(0x7f800001), math.Float32frombits(0xffffffff))
	}
	seed := rapid.Uint64().Draw(t, "seed")
	r := rand.New(rand.NewPCG(seed, 1))
	d := make([]float32, n)
	for i := range d {
		if r.IntN(3) == 0 {
			d[i] = pool[r.IntN(len(pool))]
		} else {
			d[i] = float32(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		}
	}
	return d
}

// TestCompareF32Order pins the order of the any-n bitonic sorts: every
// value below in strictly increasing order, NaNs last whatever their sign.
func TestCompareF32Order(t *testing.T) {
	order := []uint32{
		0xff800000,             // -Inf
		0xff7fffff,             // -MaxFloat32
		0xbf800000,             // -1
		0x80000001,             // -smallest subnormal
		0x80000000,             // -0
		0x00000000,             // +0
		0x00000001,             // smallest subnormal
		0x3f800000,             // 1
		0x7f7fffff,             // MaxFloat32
		0x7f800000,             // +Inf
		0x7f800001, 0x7fc00000, // NaNs, by their bits
		0xff800001, 0xffc00000, 0xffffffff, // NaNs with the sign bit, after
	}
	for i, a := range order {
		for j, b := range order {
			got := kernels.CompareF32(math.Float32frombits(a), math.Float32frombits(b))
			if want := cmpInt(i, j); got != want {
				t.Errorf("CompareF32(%#08x, %#08x) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCompareF32TotalOrder checks on arbitrary bit patterns that CompareF32
// is 0 only for identical bits, antisymmetric, and agrees with < wherever
// Go's comparison orders two different non-NaN values.
func TestCompareF32TotalOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := math.Float32frombits(rapid.Uint32().Draw(t, "a"))
		b := math.Float32frombits(rapid.Uint32().Draw(t, "b"))
		c := kernels.CompareF32(a, b)
		if (c == 0) != (math.Float32bits(a) == math.Float32bits(b)) {
			t.Fatalf("CompareF32(%v, %v) = %d", a, b, c)
		}
		if kernels.CompareF32(b, a) != -c {
			t.Fatalf("not antisymmetric on %v, %v", a, b)
		}
		if a < b && c != -1 || a > b && c != 1 {
			t.Fatalf("CompareF32(%v, %v) = %d disagrees with <", a, b, c)
		}
		if a != a && b == b && c != 1 {
			t.Fatalf("NaN %v does not sort after %v", a, b)
		}
	})
}

// TestBitonicSortSorts: the seed's kernel under the fixed loop, on power-of-
// two sizes without NaNs, equals slices.Sort of the input (+0 and -0 are
// equal to both, so compared as floats) and is a permutation of its bits.
func TestBitonicSortSorts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := 1 << rapid.IntRange(0, bits.Len(uint(*seed001MaxN))-1).Draw(t, "log2n")
		block := 32 * rapid.IntRange(1, 32).Draw(t, "warps")
		in := drawF32s(t, n, false)
		got := runClean(t, "bitonic_sort", kernels.Case{N: n, Block: block, Inputs: []any{slices.Clone(in)}}, drawOptions(t))[0].([]float32)
		want := slices.Sorted(slices.Values(in))
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d block=%d: not sorted:\n got %v\nwant %v", n, block, got, want)
		}
		if err := kernels.CheckMerged(sortedBits(got), in, kernels.CompareF32); err != nil {
			t.Fatalf("not a permutation of the input: %v", err)
		}
	})
}

// sortedBits is x sorted by CompareF32, to compare multisets of bits.
func sortedBits(x []float32) []float32 {
	s := slices.Clone(x)
	slices.SortFunc(s, kernels.CompareF32)
	return s
}

// TestBitonicSortNaNPolicy: with NaNs the seed's comparisons never move a
// NaN's pair, so the output is a permutation of the input (bit for bit),
// equal to the network replayed on the CPU, and in general not sorted.
func TestBitonicSortNaNPolicy(t *testing.T) {
	k, _ := kernels.Lookup("bitonic_sort")
	rapid.Check(t, func(t *rapid.T) {
		n := 1 << rapid.IntRange(1, 10).Draw(t, "log2n")
		in := drawF32s(t, n, true)
		c := kernels.Case{N: n, Block: 64, Inputs: []any{slices.Clone(in)}}
		got := runClean(t, "bitonic_sort", c, sim.Options{})[0].([]float32)
		if !sameBits(sortedBits(got), sortedBits(in)) {
			t.Fatalf("n=%d: output is not a permutation of the input", n)
		}
		if want := k.Reference(c)[0].([]float32); !sameBits(got, want) {
			t.Fatalf("n=%d: differs from the replayed network", n)
		}
	})
	// A NaN stops every pair it is in: [2 NaN 1 0] comes out [1 NaN 0 2].
	in := []float32{2, float32(math.NaN()), 1, 0}
	got := runClean(t, "bitonic_sort", kernels.Case{N: 4, Inputs: []any{slices.Clone(in)}}, sim.Options{})[0].([]float32)
	if got[0] != 1 || got[1] == got[1] || got[2] != 0 || got[3] != 2 {
		t.Errorf("bitonic_sort(%v) = %v, want [1 NaN 0 2]", in, got)
	}
}

// anySorts are the bitonic sorts for any n, which sort by CompareF32.
var anySorts = []string{"bitonic_sort_any", "bitonic_sort_shared", "bitonic_segments_merged"}

// TestBitonicAnySorts: for any n, with NaNs, infinities and signed zeros,
// each any-n sort equals slices.SortFunc(in, CompareF32) bit for bit; its
// non-NaN prefix equals slices.Sort of the non-NaN inputs, and the NaNs
// come last.
func TestBitonicAnySorts(t *testing.T) {
	for _, name := range anySorts {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				n := drawSize(t, *seed001MaxN)
				block := 1 << rapid.IntRange(5, 10).Draw(t, "log2block")
				in := drawF32s(t, n, true)
				got := runClean(t, name, kernels.Case{N: n, Block: block, Inputs: []any{slices.Clone(in)}}, drawOptions(t))[0].([]float32)
				if want := sortedBits(in); !sameBits(got, want) {
					t.Fatalf("n=%d block=%d:\n got %v\nwant %v", n, block, got, want)
				}
				nonNaN := slices.DeleteFunc(slices.Clone(in), func(x float32) bool { return x != x })
				slices.Sort(nonNaN)
				if !slices.Equal(got[:len(nonNaN)], nonNaN) {
					t.Fatalf("n=%d: non-NaN prefix differs from slices.Sort", n)
				}
				for _, x := range got[len(nonNaN):] {
					if x == x {
						t.Fatalf("n=%d: %v after the first NaN", n, x)
					}
				}
			})
		})
	}
}

// TestBitonicSeedLoopReadsPastEnd pins the seed's host loop's bug: at its
// last stage (k = n) the j = k step reads data[idx + n].
func TestBitonicSeedLoopReadsPastEnd(t *testing.T) {
	k, _ := kernels.Lookup("bitonic_sort_seed_faulty")
	for _, n := range []int{2, 8, 1 << 10} {
		c := k.Generate(rand.New(rand.NewPCG(1, 2)), n, 0)
		b := kernels.NewSimBackend(sim.H100, sim.Options{})
		_, err := k.Run(b, c)
		var r *sim.Report
		if !errors.As(err, &r) || !r.Has(sim.OutOfBounds) {
			t.Fatalf("n=%d: want an out-of-bounds report, got %v", n, err)
		}
		for _, f := range r.Of(sim.OutOfBounds) {
			if f.Memory != "data" || f.Index < n || f.Index >= 2*n {
				t.Errorf("n=%d: out-of-bounds access not data[n..2n):\n%v", n, f)
			}
		}
		// Every stage but the last is clean: the report comes from the
		// last launch, the first of stage k = n.
		L := bits.Len(uint(n)) - 1
		if want := L*(L+1)/2 + L; len(b.Reports) != 1 || countingLaunches(k, c) != want {
			t.Errorf("n=%d: %d reports, %d launches planned; want 1 and %d", n, len(b.Reports), countingLaunches(k, c), want)
		}
	}
}

// ---- launches ----

// countBackend is a Backend that runs nothing: it counts launches, so that a
// driver's launch sequence can be measured at any n without simulating it.
type countBackend struct{ launches int }

type countMem struct {
	dt kernels.DType
	n  int
}

func (m countMem) Len() int              { return m.n }
func (m countMem) DType() kernels.DType  { return m.dt }
func (b *countBackend) Name() string     { return "count" }
func (b *countBackend) Free(kernels.Mem) {}
func (b *countBackend) Alloc(dt kernels.DType, n int) (kernels.Mem, error) {
	return countMem{dt, n}, nil
}
func (b *countBackend) Write(kernels.Mem, any) error   { return nil }
func (b *countBackend) Read(kernels.Mem, any) error    { return nil }
func (b *countBackend) Memset(kernels.Mem, byte) error { return nil }
func (b *countBackend) Launch(any, sim.Dim3, sim.Dim3, int, ...any) error {
	b.launches++
	return nil
}

// countingLaunches is the number of launches k's driver makes on c.
func countingLaunches(k *kernels.Kernel, c kernels.Case) int {
	var b countBackend
	if _, err := k.Run(&b, c); err != nil {
		panic(err)
	}
	return b.launches
}

// launchesAt is the launches k's driver makes at n with its default block.
func launchesAt(k *kernels.Kernel, n int) int {
	return countingLaunches(k, k.Generate(rand.New(rand.NewPCG(1, 1)), n, 0))
}

// TestLaunchCounts measures how the number of launches of each seed 001
// driver grows with n (default block sizes, 256 threads), logs the table
// (go test -v -run LaunchCounts ./kernels) and holds each to its formula,
// L = ceil(log2 n): L(L+1)/2 for the per-step sorts, 1 + (L-9)(L-6)/2 for
// the shared-memory one (tiles of 2^9), 24 for the radix sorts, 1 for the
// rest. The seed's own loop (bitonic_sort_seed_faulty) makes L(L+3)/2.
func TestLaunchCounts(t *testing.T) {
	names := []string{"bitonic_sort", "bitonic_sort_seed_faulty", "bitonic_sort_any", "bitonic_sort_shared",
		"bitonic_segments_merged", "radix_sort_int32", "radix_sort_pairs_int32", "parallel_search", "parallel_search_blocks"}
	sizes := []int{1 << 10, 1 << 12, 1 << 15, 1 << 16, 1 << 18, 1 << 20, 1000, 100_000, 2_000_000}
	formula := map[string]func(L int) int{
		"bitonic_sort":             func(L int) int { return L * (L + 1) / 2 },
		"bitonic_sort_seed_faulty": func(L int) int { return L * (L + 3) / 2 },
		"bitonic_sort_any":         func(L int) int { return L * (L + 1) / 2 },
		"bitonic_sort_shared":      func(L int) int { return 1 + max(0, L-9)*max(0, L-9+3)/2 },
		"bitonic_segments_merged":  func(int) int { return 1 },
		"radix_sort_int32":         func(int) int { return 24 },
		"radix_sort_pairs_int32":   func(int) int { return 24 },
		"parallel_search":          func(int) int { return 1 },
		"parallel_search_blocks":   func(int) int { return 1 },
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "%-26s", "launches at n =")
	for _, n := range sizes {
		fmt.Fprintf(&tab, "%9s", sizeName(n))
	}
	for _, name := range names {
		k, _ := kernels.Lookup(name)
		fmt.Fprintf(&tab, "\n%-26s", name)
		for _, n := range sizes {
			if n&(n-1) != 0 && (name == "bitonic_sort" || name == "bitonic_sort_seed_faulty") {
				fmt.Fprintf(&tab, "%9s", "-") // power-of-two n only
				continue
			}
			got := launchesAt(k, n)
			fmt.Fprintf(&tab, "%9d", got)
			if want := formula[name](bits.Len(uint(n - 1))); got != want {
				t.Errorf("%s at n=%d: %d launches, formula says %d", name, n, got, want)
			}
		}
	}
	t.Logf("default blocks (256 threads):\n%s", tab.String())
}

// sizeName writes n as 2^k when it is a power of two.
func sizeName(n int) string {
	if n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.Len(uint(n))-1)
	}
	return fmt.Sprint(n)
}

// TestSeed001AtMaxN runs every seed 001 kernel once at the odd size
// -seed001.maxn - 1 (power-of-two kernels at the power of two below) with
// small blocks, so that many blocks and, for the bitonic sorts, stages
// beyond one tile are covered, and compares with the reference under the
// detectors. With -seed001.maxn=300000 it is the large-size check.
func TestSeed001AtMaxN(t *testing.T) {
	for _, name := range []string{"bitonic_sort", "bitonic_sort_any", "bitonic_sort_shared", "bitonic_segments_merged",
		"radix_sort_int32", "radix_sort_uint32", "radix_sort_pairs_int32", "radix_sort_pairs_uint32",
		"parallel_search", "parallel_search_blocks"} {
		t.Run(name, func(t *testing.T) {
			k, _ := kernels.Lookup(name)
			c := k.Generate(rand.New(rand.NewPCG(7, 7)), (*seed001MaxN-1)|1, 32)
			got := runClean(t, name, c, sim.Options{})
			if err := k.Rule.Check(got, k.Reference(c)); err != nil {
				t.Fatalf("n=%d: %v", c.N, err)
			}
		})
	}
}
