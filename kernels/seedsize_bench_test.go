package kernels_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

var seedScale = flag.Float64("seedsize.scale", 1,
	"BenchmarkSeedSize runs this fraction of each seed size (matrix sides scale by its square root)")

// BenchmarkSeedSize runs every correct registry kernel with a seed size
// (Kernel.SeedN > 0) at that size, through its host driver on a fresh H100
// simulator per iteration, as <kernel>/detect=off and then <kernel>/detect=on.
// Without -bench nothing runs. The full run takes over twenty minutes on one
// core (matmul_tiled32 alone about nine), past go test's default timeout:
//
//	go test -run '^$' -bench SeedSize -benchtime 1x -timeout 0 ./kernels/
//
// -bench 'SeedSize/sigmoid/' picks one kernel. For a quick check, scale the
// sizes down; the flag goes after the package, since go test passes
// everything after an unknown flag to the test binary:
//
//	go test -run '^$' -bench SeedSize -benchtime 1x ./kernels/ -seedsize.scale=0.01
//
// The input is generated and the CPU reference computed once per kernel,
// outside the timing, and each sub-benchmark's first result is compared
// with the reference under the kernel's rule, so a broken run fails rather
// than being timed. Metrics: ns/elem is the time of one driver run divided
// by the length of the case's largest input (its element count, N*N for a
// square matmul); x-detect-off is the detect=on time over the detect=off
// time of the same run.
func BenchmarkSeedSize(b *testing.B) {
	if *seedScale <= 0 {
		b.Fatalf("-seedsize.scale=%v: want > 0", *seedScale)
	}
	for _, k := range kernels.All() {
		if k.Faulty || k.SeedN <= 0 {
			continue
		}
		b.Run(k.Name, func(b *testing.B) {
			c := seedCase(k, *seedScale)
			want := k.Reference(c)
			elems := float64(caseElems(c))
			var offNs float64 // detect=off's ns per run, for the ratio
			for _, detect := range []bool{false, true} {
				name := "detect=off"
				if detect {
					name = "detect=on"
				}
				b.Run(name, func(b *testing.B) {
					opts := sim.Options{}.WithDetection(detect)
					checked := false
					for b.Loop() {
						got, err := k.Run(kernels.NewSimBackend(sim.H100, opts), c)
						if err != nil {
							b.Fatal(err)
						}
						if !checked {
							b.StopTimer()
							if err := k.Rule.Check(got, want); err != nil {
								b.Fatalf("N=%d: %v", c.N, err)
							}
							checked = true
							b.StartTimer()
						}
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(ns/elems, "ns/elem")
					if !detect {
						offNs = ns
					} else if offNs > 0 {
						b.ReportMetric(ns/offNs, "x-detect-off")
					}
				})
			}
		})
	}
}

// seedGenerators replace Generate where it does not make the seed's shape:
// the seed 004 matmuls are M = N = K = 512, while their Generate draws M
// and K below N.
var seedGenerators = map[string]func(r *rand.Rand, n, block int) kernels.Case{
	"matmul_naive":   squareMatmul,
	"matmul_tiled16": squareMatmul,
}

// squareMatmul makes an M = N = K = n case of genMatmulMNK's layout:
// Params [M, K], inputs A (M*K) and B (K*N) uniform in [0, 1).
func squareMatmul(r *rand.Rand, n, block int) kernels.Case {
	matrix := func() []float32 {
		m := make([]float32, n*n)
		for i := range m {
			m[i] = r.Float32()
		}
		return m
	}
	return kernels.Case{N: n, Block: block, Params: []int{n, n}, Inputs: []any{matrix(), matrix()}}
}

func generator(k *kernels.Kernel) func(r *rand.Rand, n, block int) kernels.Case {
	if g, ok := seedGenerators[k.Name]; ok {
		return g
	}
	return k.Generate
}

// seedCase generates k's case at scale times its seed size. Where N is a
// matrix side (the inputs grow as N squared) the side is scaled by
// sqrt(scale), so that the element count scales by about scale.
func seedCase(k *kernels.Kernel, scale float64) kernels.Case {
	gen := generator(k)
	n := float64(k.SeedN)
	if isSide(gen) {
		n *= math.Sqrt(scale)
	} else {
		n *= scale
	}
	return gen(rand.New(rand.NewPCG(1, 4)), max(1, int(math.Round(n))), 0)
}

// isSide reports whether gen's n is a matrix side: doubling n from 256
// quadruples its inputs rather than doubling them (or leaving them be).
func isSide(gen func(r *rand.Rand, n, block int) kernels.Case) bool {
	r := rand.New(rand.NewPCG(1, 4))
	return caseElems(gen(r, 512, 0)) >= 3*caseElems(gen(r, 256, 0))
}

// caseElems is the length of c's largest input, or c.N if it has none.
func caseElems(c kernels.Case) int {
	n := 0
	for _, in := range c.Inputs {
		if v := reflect.ValueOf(in); v.Kind() == reflect.Slice {
			n = max(n, v.Len())
		}
	}
	if n == 0 {
		n = c.N
	}
	return max(n, 1)
}
