package cuda

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Twins holds the CUDA C twin of every registry kernel,
// kernels/<kernel name>.cu. It builds without the cuda tag so that a
// tagless test can check that every kernel has a twin.
//
//go:embed kernels/*.cu
var Twins embed.FS

// Twin returns the source of the named kernel's twin.
func Twin(kernel string) ([]byte, error) {
	b, err := Twins.ReadFile("kernels/" + kernel + ".cu")
	if err != nil {
		return nil, fmt.Errorf("cuda: no twin for kernel %q: %w", kernel, err)
	}
	return b, nil
}

// TwinNames lists the kernels that have a twin, sorted.
func TwinNames() []string {
	ents, _ := fs.ReadDir(Twins, "kernels")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".cu"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	launchBounds = regexp.MustCompile(`__launch_bounds__\s*\([^)]*\)`)
	// A __global__ declaration: qualifiers and the return type, then the
	// name directly before the opening parenthesis.
	globalDecl = regexp.MustCompile(`__global__[^;{(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

// EntryPoints returns the names of the __global__ functions src declares,
// in order of appearance, comments ignored.
func EntryPoints(src []byte) []string {
	s := blockComment.ReplaceAllString(string(src), "")
	s = lineComment.ReplaceAllString(s, "")
	s = launchBounds.ReplaceAllString(s, "")
	var names []string
	for _, m := range globalDecl.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}

// ExternC reports whether src gives its entry points C linkage (extern "C"
// on the declarations or around them), so that the driver finds them by
// their plain names.
func ExternC(src []byte) bool {
	return strings.Contains(string(src), `extern "C"`)
}
