package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusim/gpusim/cuda/translate"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
)

// generatedGoFile is the file `gpusim cuda -go` writes into a package: the
// package's CUDA twins, registered with package twin at init.
const generatedGoFile = "gpusim_cuda.go"

// cmdCUDA prints the generated CUDA of a registry kernel, from the twins
// compiled into this binary (no source needed), or translates a package of
// the user's: -o writes one .cu file per kernel, -go the Go file that
// carries the twins into test binaries.
func cmdCUDA(e *env, args []string) error {
	fs := e.newFlags("cuda")
	outDir := fs.String("o", "", "translate the package PKG and write one .cu per kernel into this directory, named after its entry point (the Go name, renamed where CUDA has it: a kernel sin is sin_.cu)")
	goFile := fs.Bool("go", false, "translate the package in directory PKG and write its "+generatedGoFile+" there, as go generate does")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("cuda takes one KERNEL (a registry kernel) or, with -o or -go, one package")
	}
	if *goFile {
		if st, err := os.Stat(pos[0]); err != nil || !st.IsDir() {
			return usagef("cuda -go: %q is not a directory (give the package's directory, e.g. . from go generate)", pos[0])
		}
	}
	if *outDir == "" && !*goFile {
		if k, ok := kernels.Lookup(pos[0]); ok {
			return e.printTwins(k)
		}
		if _, err := e.kernelArg(fs, pos); err != nil {
			return err
		}
	}
	return e.translatePackage(pos[0], *outDir, *goFile)
}

// printTwins writes the CUDA of every entry point k launches.
func (e *env) printTwins(k *kernels.Kernel) error {
	for i, f := range k.Funcs {
		tw, err := twin.Of(f)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprint(e.stdout, tw.Source)
	}
	return nil
}

// translatePackage translates the package pattern and writes its .cu files
// into outDir, and its generated Go file into the package's directory if
// goFile is set. Any kernel the translator refuses is an error listing
// every refusal with its file:line, and nothing is written.
func (e *env) translatePackage(pattern, outDir string, goFile bool) error {
	res, err := translate.Load(".", pattern)
	if err != nil {
		return usagef("cuda: %v", err)
	}
	if len(res.Diagnostics) > 0 {
		var b strings.Builder
		for _, d := range res.Diagnostics {
			fmt.Fprintf(&b, "%s\n", d)
		}
		fmt.Fprint(e.stderr, b.String())
		return fmt.Errorf("cuda: %d construct(s) cannot be translated; nothing written", len(res.Diagnostics))
	}
	if len(res.Kernels) == 0 {
		return usagef("cuda: no kernels in %s (a kernel is a function returning sim.Kernel)", pattern)
	}
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		for _, k := range res.Kernels {
			p := filepath.Join(outDir, k.Twin.Entry+".cu")
			if err := os.WriteFile(p, []byte(k.Twin.Source), 0o644); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, p)
		}
	}
	if goFile {
		src, err := translate.WriteGo(res.Kernels[0].Func.Pkg().Name(), res.Kernels)
		if err != nil {
			return err
		}
		p := filepath.Join(pattern, generatedGoFile)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %d kernel(s)\n", p, len(res.Kernels))
	}
	return nil
}
