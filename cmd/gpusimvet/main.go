// Command gpusimvet runs the gpusim analyzer (package
// github.com/gpusim/gpusim/cuda/vet) over Go packages. It works on its own,
//
//	gpusimvet ./...
//
// and as a vet tool:
//
//	go vet -vettool=$(which gpusimvet) ./...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/gpusim/gpusim/cuda/vet"
)

func main() { singlechecker.Main(vet.Analyzer) }
