package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// What rule 3 of the lockstep model reads from a kernel's source: the
// innermost loop around a line, and where a line stands against it.
func TestLockstepSourceLoops(t *testing.T) {
	const src = `package p

func k() {
	for !done { // 4
		if cas() == 0 {
			release() // 6
		}
	} // 8
	for cas() != 0 { // 9
	}
	release() // 11
	for i := 0; i < 2; i++ { // 12
		f := func() {
			cas() // 14
		}
		f() // 16
	} // 17
	if a {
		signal() // 19
	} else {
		for wait() { // 21
		}
	}
	if b {
		signal() // 25
	}
	for wait() { // 27
	}
}
`
	file := filepath.Join(t.TempDir(), "k.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line  int
		loop  lineSpan
		found bool
	}{
		{5, lineSpan{4, 8}, true},
		{6, lineSpan{4, 8}, true},
		{9, lineSpan{9, 10}, true},
		{11, lineSpan{}, false},
		{14, lineSpan{}, false}, // the literal has no loop of its own
		{16, lineSpan{12, 17}, true},
		{21, lineSpan{21, 22}, true},
	} {
		loop, found, ok := loopAround(file, lineSpan{tc.line, tc.line})
		if !ok || found != tc.found || loop != tc.loop {
			t.Errorf("loop around line %d: %v, %v, %v; want %v, %v", tc.line, loop, found, ok, tc.loop, tc.found)
		}
	}
	for _, tc := range []struct {
		line   int
		target lineSpan
		isLoop bool
		want   relation
	}{
		{6, lineSpan{4, 8}, true, relInside},    // the release inside the done-flag loop
		{11, lineSpan{9, 10}, true, relOther},   // the release after the naive loop
		{19, lineSpan{21, 22}, true, relOther},  // the other branch of an if
		{25, lineSpan{27, 28}, true, relBefore}, // an if before the loop
		{25, lineSpan{27, 27}, false, relBefore},
		{11, lineSpan{4, 8}, true, relOther}, // after the loop
	} {
		if rel, ok := relate(file, tc.line, tc.target, tc.isLoop); !ok || rel != tc.want {
			t.Errorf("line %d against %v: %v, %v; want %v", tc.line, tc.target, rel, ok, tc.want)
		}
	}
	if _, _, ok := loopAround(filepath.Join(t.TempDir(), "gone.go"), lineSpan{1, 1}); ok {
		t.Error("a file that is not there was read")
	}
}
