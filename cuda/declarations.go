package cuda

// The functions here read declarations off CUDA C source without a
// compiler: the entry points a translation unit declares and their
// parameter names. Tests hold the generated twins to the Go kernels with
// them.

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	launchBounds = regexp.MustCompile(`__launch_bounds__\s*\([^)]*\)`)
	// A __global__ declaration: qualifiers and the return type, then the
	// name directly before the opening parenthesis.
	globalDecl = regexp.MustCompile(`__global__[^;{(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

// declarations returns src without comments and __launch_bounds__, which
// would otherwise read as declarations or parameter lists.
func declarations(src []byte) string {
	s := blockComment.ReplaceAllString(string(src), "")
	s = lineComment.ReplaceAllString(s, "")
	return launchBounds.ReplaceAllString(s, "")
}

// EntryPoints returns the names of the __global__ functions src declares,
// in order of appearance, comments ignored.
func EntryPoints(src []byte) []string {
	var names []string
	for _, m := range globalDecl.FindAllStringSubmatch(declarations(src), -1) {
		names = append(names, m[1])
	}
	return names
}

// paramName is a declarator's name: the last identifier, before any array
// brackets ("const float *__restrict__ a" and "int v[4]" name a and v).
var paramName = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\]\s*)*$`)

var typeWords = map[string]bool{"void": true, "bool": true, "char": true, "short": true, "int": true,
	"long": true, "signed": true, "unsigned": true, "float": true, "double": true, "const": true,
	"volatile": true, "__restrict__": true, "size_t": true}

// ParamNames returns the parameter names of the __global__ function entry
// that src declares first, in order, so that a test can hold a
// kernels.Func's Params to its twin's signature.
func ParamNames(src []byte, entry string) ([]string, error) {
	s := declarations(src)
	for _, m := range globalDecl.FindAllStringSubmatchIndex(s, -1) {
		if s[m[2]:m[3]] != entry {
			continue
		}
		list, _, ok := strings.Cut(s[m[1]:], ")")
		if !ok {
			return nil, fmt.Errorf("cuda: %s: unterminated parameter list", entry)
		}
		if list = strings.TrimSpace(list); list == "" || list == "void" {
			return []string{}, nil
		}
		var names []string
		for _, p := range strings.Split(list, ",") {
			p = strings.TrimSpace(p)
			n := paramName.FindStringSubmatchIndex(p)
			// An unnamed parameter ("float *", "unsigned int") ends in its
			// type: nothing before the last word, or a type word last.
			if n == nil || n[2] == 0 || typeWords[p[n[2]:n[3]]] {
				return nil, fmt.Errorf("cuda: %s: unnamed parameter %q", entry, p)
			}
			names = append(names, p[n[2]:n[3]])
		}
		return names, nil
	}
	return nil, fmt.Errorf("cuda: no __global__ function %q", entry)
}

// ExternC reports whether src gives its entry points C linkage (extern "C"
// on the declarations or around them), so that the driver finds them by
// their plain names.
func ExternC(src []byte) bool {
	return strings.Contains(string(src), `extern "C"`)
}
