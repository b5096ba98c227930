// Command gpusim runs, checks and profiles the kernels of the gpusim
// registry on the simulated GPU. Run `gpusim help` for the subcommands.
package main

import (
	"os"

	"github.com/gpusim/gpusim/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
