package vet

import (
	"go/token"

	"golang.org/x/tools/go/analysis"
)

// Analyzer is the gpusim vet check (see the package documentation).
var Analyzer = &analysis.Analyzer{
	Name: "gpusim",
	Doc: `check gpusim kernels: writes to captured host variables, and code the CUDA translator refuses

A kernel (a func(*sim.Thread) literal) runs once on every thread of the grid.
Any write it makes to a variable declared outside it, or to memory reached
through one (captured slices, maps, pointers, struct fields, array elements),
is made by every thread to the same host memory without synchronisation: a
race the simulator cannot see. Write results to a *sim.Buffer with Store, or
combine them with an atomic such as sim.AtomicAdd.

Every kernel of a package's non-test files (a function returning sim.Kernel)
is also run through the Go-to-CUDA translator (package cuda/translate), and
each construct it refuses is reported where it is, with why and what to
write instead.`,
	URL: "https://pkg.go.dev/github.com/gpusim/gpusim/cuda/vet",
	Run: run,
}

var checkCapture, checkTranslation bool

func init() {
	Analyzer.Flags.BoolVar(&checkCapture, "capture", true, "report kernels that write captured host variables")
	Analyzer.Flags.BoolVar(&checkTranslation, "translate", true, "report kernels the CUDA translator refuses")
}

func run(pass *analysis.Pass) (any, error) {
	done := map[token.Pos]bool{}
	if checkCapture {
		done = checkCaptures(pass)
	}
	if checkTranslation {
		checkTranslate(pass, done)
	}
	return nil, nil
}
