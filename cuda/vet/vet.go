package vet

import (
	"golang.org/x/tools/go/analysis"
)

// Analyzer is the gpusim vet check: it reports kernels that write host
// variables they capture (see the package documentation).
var Analyzer = &analysis.Analyzer{
	Name: "gpusim",
	Doc: `check gpusim kernels for writes to captured host variables

A kernel (a func(*sim.Thread) literal) runs once on every thread of the grid.
Any write it makes to a variable declared outside it, or to memory reached
through one (captured slices, maps, pointers, struct fields, array elements),
is made by every thread to the same host memory without synchronisation: a
race the simulator cannot see. Write results to a *sim.Buffer with Store, or
combine them with an atomic such as sim.AtomicAdd.`,
	URL: "https://pkg.go.dev/github.com/gpusim/gpusim/cuda/vet",
	Run: run,
}

func run(pass *analysis.Pass) (any, error) {
	checkCaptures(pass)
	return nil, nil
}
