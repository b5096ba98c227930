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
const generatedGoFile = translate.GeneratedFile

// cmdCUDA prints the generated CUDA of a registry kernel, from the twins
// compiled into this binary (no source needed), or translates a package of
// the user's: -o writes one .cu file per kernel, -go the Go file that
// carries the twins into test binaries. A kernel the translator refuses is
// left out, its refusals printed, and the exit status is 1 (see
// translatePackage).
func cmdCUDA(e *env, args []string) error {
	fs := e.newFlags("cuda")
	outDir := fs.String("o", "", "translate the package PKG (one package: a pattern with ... is refused) and write one .cu per kernel into this directory, named after its entry point (the Go name, renamed where CUDA has it: a kernel sin is sin_.cu)")
	goFile := fs.Bool("go", false, "translate the package in directory PKG and write its "+generatedGoFile+" there, as go generate does")
	allOrNothing := fs.Bool("all-or-nothing", false, "with -o or -go, write nothing if the translator refuses any kernel "+
		"(by default every kernel that translates is written, each refusal is printed with its file:line, and the exit status is 1)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("cuda takes one KERNEL (a registry kernel) or, with -o or -go, one package")
	}
	if *goFile {
		if st, err := os.Stat(pos[0]); err != nil || !st.IsDir() {
			return usagef("-go: %q is not a directory (give the package's directory, e.g. . from go generate)", pos[0])
		}
	}
	if *outDir == "" && !*goFile {
		if k, ok := kernels.Lookup(pos[0]); ok {
			return e.printTwins(k)
		}
		var names []string
		for _, k := range kernels.All() {
			names = append(names, k.Name)
		}
		return usagef("unknown kernel %q%s (gpusim list shows all); to translate a package of yours, give -o DIR or -go", pos[0], suggest(pos[0], names))
	}
	if *outDir != "" && isMultiPattern(pos[0]) {
		return usagef("-o takes one package, and %s is a pattern that may match several, whose kernels would share the one directory: run gpusim cuda -o once per package, each into a directory of its own", pos[0])
	}
	res, err := translate.Load(".", pos[0])
	if err != nil {
		return usagef("%v", err)
	}
	goDir := ""
	if *goFile {
		goDir = pos[0]
	}
	return e.writeTranslation(res, pos[0], *outDir, goDir, *allOrNothing)
}

// isMultiPattern says whether a go list pattern can match several
// packages: one with ..., or all, std or cmd.
func isMultiPattern(p string) bool {
	return strings.Contains(p, "...") || p == "all" || p == "std" || p == "cmd"
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

func morePackages(n int) string {
	if n < 2 {
		return ""
	}
	return " (-o takes one package: run gpusim cuda -o once per package, each into a directory of its own)"
}

// writeTranslation writes what the translator made of the package
// pattern: one <Entry>.cu per kernel into outDir, if set, and the
// generated Go file into goDir, if set. Every kernel that translates is
// written. Each refusal is printed to stderr (file:line: why, and what to
// write instead; the file relative to the working directory when it lies
// below it), and the error that follows names the kernels left out,
// so the command exits 1 after writing the others: a CI run of go
// generate fails, and the twins of the other kernels are current. With
// allOrNothing a refusal writes nothing, as gpusim once did.
func (e *env) writeTranslation(res *translate.Result, pattern, outDir, goDir string, allOrNothing bool) error {
	wd, _ := os.Getwd()
	relative := func(d translate.Diagnostic) translate.Diagnostic {
		if rel, err := filepath.Rel(wd, d.Pos.Filename); wd != "" && err == nil && !strings.HasPrefix(rel, "..") {
			d.Pos.Filename = rel
		}
		return d
	}
	for _, d := range res.Diagnostics {
		fmt.Fprintf(e.stderr, "%s\n", relative(d))
	}
	for _, d := range res.Notes {
		d = relative(d)
		fmt.Fprintf(e.stderr, "%s: note: %s\n", d.Pos, d.Message)
	}
	var refusal string
	if n := len(res.Diagnostics); n > 0 {
		refusal = fmt.Sprintf("%d construct(s) cannot be translated", n)
		if len(res.Refused) > 0 {
			refusal += fmt.Sprintf(", in %d kernel(s): %s", len(res.Refused), strings.Join(res.Refused, ", "))
		}
		if allOrNothing || len(res.Kernels) == 0 {
			return fmt.Errorf("%s; nothing written", refusal)
		}
	}
	if len(res.Kernels) == 0 {
		return usagef("no kernels in %s (a kernel is a function returning sim.Kernel)", pattern)
	}
	if outDir != "" {
		// One file per entry point: two kernels that would share a file
		// (of two packages a pattern matched) write nothing.
		pkgs, files := map[string]bool{}, map[string]string{}
		for _, k := range res.Kernels {
			pkgs[k.Func.Pkg().Path()] = true
			name := k.Twin.Entry + ".cu"
			if other, dup := files[name]; dup {
				return usagef("%s and %s would both be written to %s; nothing written%s", other, k.Twin.GoName, filepath.Join(outDir, name), morePackages(len(pkgs)))
			}
			files[name] = k.Twin.GoName
		}
		if len(pkgs) > 1 {
			return usagef("-o takes one package, and %s matches %d with kernels; nothing written: run gpusim cuda -o once per package, each into a directory of its own", pattern, len(pkgs))
		}
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
	if goDir != "" {
		src, err := translate.WriteGo(res.Kernels[0].Func.Pkg().Name(), res.Kernels)
		if err != nil {
			return err
		}
		p := filepath.Join(goDir, generatedGoFile)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %d kernel(s)\n", p, len(res.Kernels))
	}
	switch {
	case refusal != "" && len(res.Refused) > 0:
		return fmt.Errorf("%s; those are not written, the other %d kernel(s) are", refusal, len(res.Kernels))
	case refusal != "":
		return fmt.Errorf("%s; the %d kernel(s) are written", refusal, len(res.Kernels))
	}
	return nil
}
