//go:build cuda

package parity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
)

// handwrittenEntry finds, in the hand-written twin of registry kernel
// kernel (cuda/kernels/<kernel>.cu), the entry point that a generated twin
// replaces: the one whose parameters have the generated twin's names, in
// order (the Go kernels kept their CUDA twins' parameter names).
func handwrittenEntry(kernel string, tw *twin.Twin) (src []byte, entry string, err error) {
	src, err = cuda.Twin(kernel)
	if err != nil {
		return nil, "", err
	}
	want := make([]string, len(tw.Params))
	for i, p := range tw.Params {
		want[i] = p.Name
	}
	var found []string
	for _, e := range cuda.EntryPoints(src) {
		if names, err := cuda.ParamNames(src, e); err == nil && slices.Equal(names, want) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		return nil, "", fmt.Errorf("%s.cu: %d entry points with parameters %q for %s", kernel, len(found), want, tw.Entry)
	}
	return src, found[0], nil
}

// TestGeneratedMatchesHandwritten runs every correct registry kernel's
// driver on the GPU twice on the same cases, once with the generated twins
// and once with the hand-written twins they replaced, and requires the
// outputs to be bit-identical. It runs while cuda/kernels/*.cu still hold
// the hand-written twins.
func TestGeneratedMatchesHandwritten(t *testing.T) {
	if len(cuda.TwinNames()) == 0 {
		t.Skip("no hand-written twins left in cuda/kernels")
	}
	defer writeReport()
	var current string // the registry kernel being run, read by Source
	var sourceErr error
	hand, err := cuda.Open(cuda.Config{Source: func(tw *twin.Twin) (string, []byte, string) {
		src, entry, err := handwrittenEntry(current, tw)
		if err != nil {
			sourceErr = err
			return "", nil, ""
		}
		return "handwritten-" + current, src, entry
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer hand.Close()
	for _, k := range kernels.All() {
		if k.Faulty {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			current, sourceErr = k.Name, nil
			row := HandwrittenRow{Kernel: k.Name}
			defer func() { rep.AddHandwritten(row) }()
			for i := range 6 {
				r := rand.New(rand.NewPCG(uint64(i), 0x4a4d))
				n := 1 + r.IntN(MaxSize(k))
				if i == 0 && k.SeedN > 0 && k.SeedN <= 1<<20 {
					n = k.SeedN
				}
				c := k.Generate(r, n, 0)
				gen, gerr := k.Run(dev, c)
				hw, herr := k.Run(hand, c)
				if sourceErr != nil {
					row.First = sourceErr.Error()
					t.Fatal(sourceErr)
				}
				row.Cases++
				switch {
				case gerr != nil || herr != nil:
					if row.First == "" {
						row.First = fmt.Sprintf("n=%d: generated: %v; hand-written: %v", n, gerr, herr)
					}
					t.Errorf("n=%d: generated: %v; hand-written: %v", n, gerr, herr)
				default:
					if d := Diff(kernels.Rule{}, hw, gen); d != "" {
						if row.First == "" {
							row.First = fmt.Sprintf("n=%d: (-hand-written +generated) %s", n, d)
						}
						t.Errorf("n=%d: generated and hand-written twins differ (-hand-written +generated):\n%s", n, d)
						continue
					}
					row.Identical++
				}
			}
		})
	}
}
