package translate

import (
	"go/types"
	"strconv"
	"strings"
	"sync"
)

// reserved are the names a Go identifier may not keep in C: C and C++
// keywords, CUDA's built-in variables and qualifiers, and every function the
// generated code calls (a local named sqrt would hide sqrt from the code
// after it). The C name of such an identifier gets a trailing underscore.
var (
	reservedOnce sync.Once
	reserved     map[string]bool
)

func isReserved(name string) bool {
	reservedOnce.Do(func() {
		reserved = map[string]bool{}
		for _, w := range strings.Fields(`
			alignas alignof and and_eq asm auto bitand bitor bool break case catch char
			char8_t char16_t char32_t class compl concept const consteval constexpr constinit
			const_cast continue co_await co_return co_yield decltype default delete do double
			dynamic_cast else enum explicit export extern false float for friend goto if inline
			int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
			protected public register reinterpret_cast requires restrict return short signed sizeof
			static static_assert static_cast struct switch template this thread_local throw true
			try typedef typeid typename union unsigned using virtual void volatile wchar_t while
			xor xor_eq NULL main
			threadIdx blockIdx blockDim gridDim warpSize dim3 uint3
			min max abs fabsf isnan isinf isfinite signbit`) {
			reserved[w] = true
		}
		var texts []string
		for _, s := range simCalls {
			texts = append(texts, s.c)
		}
		for _, m := range mathFuncs {
			texts = append(texts, m.c)
		}
		for _, m := range bitsFuncs {
			texts = append(texts, m.c)
		}
		for _, t := range texts {
			for _, w := range strings.FieldsFunc(t, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			}) {
				// Function names only: the texts also hold placeholders (b[i] = v).
				if strings.HasPrefix(w, "__") || strings.HasPrefix(w, "atomic") || len(w) > 2 && isMathName(w) {
					reserved[w] = true
				}
			}
		}
	})
	return reserved[name]
}

func isMathName(w string) bool {
	if w == "fmaf" {
		return true
	}
	for _, m := range mathFuncs {
		if m.c == w {
			return true
		}
	}
	return false
}

// cIdent is the C spelling of a Go identifier before uniquing.
func cIdent(name string) string {
	if isReserved(name) || strings.HasPrefix(name, "gosim") || strings.HasPrefix(name, "__") ||
		(strings.HasPrefix(name, "_") && len(name) > 1 && name[1] >= 'A' && name[1] <= 'Z') {
		return name + "_"
	}
	return name
}

// names gives each Go object of one C function a C name of its own: the Go
// name where it is free, else the Go name with a numeric suffix. Go's
// shadowing (x := x + 1 in an inner block) then never changes which
// variable a C name means.
type names struct {
	of     map[types.Object]string
	used   map[string]bool
	global map[string]bool // the C names of the package's functions
}

func newNames(global map[string]bool) *names {
	return &names{of: map[types.Object]string{}, used: map[string]bool{}, global: global}
}

// reserve keeps name from being handed out (a helper's or the entry's own
// name, a label).
func (n *names) reserve(name string) { n.used[name] = true }

// name returns o's C name, assigning one on first use.
func (n *names) name(o types.Object) string {
	if s, ok := n.of[o]; ok {
		return s
	}
	s := n.fresh(cIdent(o.Name()))
	n.of[o] = s
	return s
}

// fresh returns base or base_N, unused so far, and marks it used.
func (n *names) fresh(base string) string {
	s := base
	for i := 1; n.used[s] || n.global[s]; i++ {
		s = base + "_" + strconv.Itoa(i)
	}
	n.used[s] = true
	return s
}
