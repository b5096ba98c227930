package parity

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/gpusim/gpusim/cuda/translate"
	"github.com/gpusim/gpusim/cuda/twin"
)

// A twin is current when it is what the translator makes of the kernel's
// source now. Check verifies it where the Go toolchain can load the
// kernel's package (go test on a development machine or in CI, GPU or
// not), so that an edited kernel whose gpusim_cuda.go was not regenerated,
// a kernel never generated, or one the translator refuses fails there
// rather than on the GPU host. Where the package cannot be loaded (a test
// binary copied to a GPU machine with no Go toolchain), the twin is taken
// as it is.

// translated caches one translation per package directory.
var translated sync.Map // dir -> *translation

type translation struct {
	once sync.Once
	res  *translate.Result
	err  error
}

// translateDir translates the package in dir, once per process.
func translateDir(dir string) (*translate.Result, error) {
	v, _ := translated.LoadOrStore(dir, &translation{})
	tr := v.(*translation)
	tr.once.Do(func() { tr.res, tr.err = translate.Load(dir, ".") })
	return tr.res, tr.err
}

// sourceFile is the file that declares the function fn, "" if unknown.
func sourceFile(fn any) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(f.Entry())
	if file == "" || !filepath.IsAbs(file) {
		return ""
	}
	return file
}

// sourceDir is the directory of the file that declares the function fn.
func sourceDir(fn any) string {
	if file := sourceFile(fn); file != "" {
		return filepath.Dir(file)
	}
	return ""
}

// twinCurrent reports an error if kernel has no CUDA twin, or one that is
// not what the translator makes of its package now. unchecked says why it
// could not tell (the package does not load here); then err is nil unless
// there is no twin at all.
func twinCurrent(kernel any) (unchecked string, err error) {
	tw, twErr := twin.Of(kernel)
	if twErr != nil {
		if file := sourceFile(kernel); strings.HasSuffix(file, "_test.go") {
			return "", fmt.Errorf("parity: no CUDA twin for the kernel of %s, a test file, which the translator (go generate, gpusim cuda -go) does not read: move the kernel to a non-test file of its package, or set Test.SimulatorOnly", filepath.Base(file))
		}
	}
	dir := sourceDir(kernel)
	if dir == "" {
		return "the kernel's source file is unknown", twErr
	}
	res, lerr := translateDir(dir)
	if lerr != nil {
		if twErr != nil {
			return "", fmt.Errorf("%w\n(and its package does not translate: %v)", twErr, lerr)
		}
		return fmt.Sprintf("its package does not load here (%v)", firstLine(lerr.Error())), nil
	}
	refusals := func() string {
		var b strings.Builder
		for _, d := range res.Diagnostics {
			fmt.Fprintf(&b, "\n\t%s", d)
		}
		return b.String()
	}
	if twErr != nil {
		if len(res.Diagnostics) > 0 {
			return "", fmt.Errorf("%w; the translator refuses, in %s:%s", twErr, dir, refusals())
		}
		if strings.Contains(twErr.Error(), "[...]") {
			return "", fmt.Errorf("%w: an instance of a generic kernel is translated where a non-test file of its package names it (var _ = Scale[float64], say)", twErr)
		}
		return "", twErr
	}
	for _, k := range res.Kernels {
		if k.Twin.GoName != tw.GoName {
			continue
		}
		if k.Twin.Source != tw.Source || !reflect.DeepEqual(k.Twin.Params, tw.Params) {
			return "", fmt.Errorf("parity: the CUDA twin of %s is out of date: its source changed since gpusim_cuda.go was generated; run go generate (gpusim cuda -go) in %s", tw.GoName, dir)
		}
		return "", nil
	}
	for _, name := range res.Refused {
		if name == tw.GoName {
			return "", fmt.Errorf("parity: %s no longer translates (its gpusim_cuda.go is from before an edit); the translator refuses, in %s:%s", tw.GoName, dir, refusals())
		}
	}
	return "", fmt.Errorf("parity: the CUDA twin of %s is out of date: the translator finds no such kernel in %s now; run go generate (gpusim cuda -go) there", tw.GoName, dir)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
