package vet_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gpusim/gpusim/cuda/vet"
)

// testdata is a module of its own whose go.mod replaces
// github.com/gpusim/gpusim with this repository, so its kernels import the
// real sim package.
func testdata(t *testing.T) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// setFlag sets one of the analyzer's flags for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	f := vet.Analyzer.Flags.Lookup(name)
	if f == nil {
		t.Fatalf("analyzer has no flag %q", name)
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Value.Set(old) })
}

// TestCapture checks every flagged write in testdata/capture (its // want
// comments) and that the correct kernel paired with each is not flagged.
// The kernels there use slices, maps and pointers on purpose, which the
// translator refuses too: its check is off here, and TestTranslate covers
// it.
func TestCapture(t *testing.T) {
	setFlag(t, "translate", "false")
	analysistest.Run(t, testdata(t), vet.Analyzer, "vettest/capture")
}

// TestTranslate checks that each construct the translator refuses in
// testdata/untranslatable is reported at its line with the translator's
// message, that the translatable kernel paired with it is not, and that a
// write both checks refuse is reported once.
func TestTranslate(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.Analyzer, "vettest/untranslatable")
}

// TestClean runs both checks over correct, translatable kernels of every
// registry form: any report is a false positive and fails the test.
func TestClean(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.Analyzer, "vettest/clean")
}
