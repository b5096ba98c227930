package kernels

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Case is one problem instance: inputs in host memory plus the launch shape.
type Case struct {
	N      int   // problem size (elements, or matrix side, as the kernel's doc says)
	Block  int   // threads per block along x (0: the kernel's default)
	Params []int // extra integer parameters (e.g. M, K for matmul, stride for copy)
	Inputs []any // host slices: []float32, []int32, []uint8, ...
}

// Result is a driver's or reference's output: host slices in a fixed order.
type Result []any

// Rule is how a backend's result is compared with the reference (and, in
// parity/, with another backend's).
type Rule struct {
	// MaxULP is the largest allowed distance in units in the last place for
	// float elements; 0 means bit-exact. Integer elements are always exact.
	// A sim.Half or sim.BFloat16 counts in its own type's ulps, a float
	// vector (sim.Float4, ...) component by component.
	MaxULP uint64
	// RelTol, if non-zero, also accepts |a-b| <= RelTol*max(|a|,|b|) (float
	// sums whose association order is not fixed, e.g. float atomics).
	RelTol float64
	// Why states the reason for a non-exact rule.
	Why string
}

// String says how the rule compares: "bit-exact", "within 4 ulp",
// "within relative 1e-06", or both.
func (r Rule) String() string {
	switch {
	case r.MaxULP == 0 && r.RelTol == 0:
		return "bit-exact"
	case r.RelTol == 0:
		return fmt.Sprintf("within %d ulp", r.MaxULP)
	case r.MaxULP == 0:
		return fmt.Sprintf("within relative %g", r.RelTol)
	}
	return fmt.Sprintf("within %d ulp or relative %g", r.MaxULP, r.RelTol)
}

// Kernel is one registry entry: a parallel pattern with its device
// functions, host driver, CPU reference and input generator, in the manner of
// go/analysis's Analyzer values.
type Kernel struct {
	Name string // unique, snake_case
	Doc  string // first line is the summary `gpusim list` prints
	Seed string // seed file it is ported from, e.g. "000"

	// Funcs are the kernel functions the driver launches (see KernelName):
	// VecAdd, or ReduceSum[float32] for an instance of a generic kernel.
	Funcs []any
	// Run is the host driver: allocations, copies and launches, written
	// against Backend only.
	Run func(b Backend, c Case) (Result, error)
	// Reference computes the expected Result on the CPU, following the
	// kernel's own operation order where the Rule is exact.
	Reference func(c Case) Result
	// Generate makes a random Case of about size n with block size block
	// (0: default).
	Generate func(r *rand.Rand, n, block int) Case
	// InputLens, for a kernel whose Params shape its inputs (matmul's M
	// and K), gives the length each input must have for a case's N and
	// Params, or an error that says which Params the kernel takes. It is
	// nil where every input's length follows from N alone, as Generate
	// makes it. It lets a case file (gpusim run -in) set Params the
	// generator would not choose and have its inputs checked against them.
	InputLens func(c Case) ([]int, error)
	// Rule is the comparison rule.
	Rule Rule
	// Blocks lists the legal block sizes (nil: any multiple of 32 up to 1024).
	Blocks []int
	// SeedN is the problem size of the seed text the kernel was ported
	// from (SEEDS.md), which the seed-size benchmarks run; 0 if the text
	// gives none.
	SeedN int

	// Faulty marks a known-buggy variant kept as a test case: Expect lists
	// the finding kinds the detectors must report on it.
	Faulty bool
	Expect []sim.Kind
	// FixedBy names the corrected kernel of a faulty variant.
	FixedBy string
}

// Validate checks that a registry entry is complete and consistent.
func (k *Kernel) Validate() error {
	var errs []error
	if k.Name == "" {
		errs = append(errs, errors.New("no name"))
	}
	if k.Doc == "" {
		errs = append(errs, errors.New("no doc"))
	}
	if len(k.Funcs) == 0 {
		errs = append(errs, errors.New("no device functions"))
	}
	for _, f := range k.Funcs {
		if _, err := kernelFunc(f); err != nil {
			errs = append(errs, err)
		}
	}
	if k.Run == nil || k.Reference == nil || k.Generate == nil {
		errs = append(errs, errors.New("missing driver, reference or generator"))
	}
	if k.Faulty && len(k.Expect) == 0 {
		errs = append(errs, errors.New("faulty variant without expected findings"))
	}
	if !k.Faulty && len(k.Expect) != 0 {
		errs = append(errs, errors.New("correct kernel with expected findings"))
	}
	if k.Rule.MaxULP != 0 || k.Rule.RelTol != 0 {
		if k.Rule.Why == "" {
			errs = append(errs, errors.New("inexact rule without a reason"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kernel %q: %w", k.Name, err)
	}
	return nil
}

// faulty marks k as a known-buggy variant of the kernel named fixedBy, on
// which the detectors must report every kind in expect, and returns k.
func faulty(k *Kernel, fixedBy string, expect ...sim.Kind) *Kernel {
	k.Faulty, k.FixedBy, k.Expect = true, fixedBy, expect
	return k
}

//go:generate go run ../cmd/gpusim cuda -go .

// registry holds every kernel, in the order `gpusim list` prints them.
var registry []*Kernel

func register(k *Kernel) *Kernel {
	registry = append(registry, k)
	return k
}

// All returns the registry.
func All() []*Kernel { return append([]*Kernel(nil), registry...) }

// Lookup finds a kernel by name.
func Lookup(name string) (*Kernel, bool) {
	for _, k := range registry {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// Validate checks every registry entry and that names are unique.
func Validate() error {
	seen := map[string]bool{}
	var errs []error
	for _, k := range registry {
		if err := k.Validate(); err != nil {
			errs = append(errs, err)
		}
		if seen[k.Name] {
			errs = append(errs, fmt.Errorf("duplicate kernel %q", k.Name))
		}
		seen[k.Name] = true
	}
	return errors.Join(errs...)
}
