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

// TestCapture checks every flagged write in testdata/capture (its // want
// comments) and that the correct kernel paired with each is not flagged.
func TestCapture(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.Analyzer, "vettest/capture")
}

// TestClean runs over correct kernels of every registry form: any report is
// a false positive and fails the test.
func TestClean(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.Analyzer, "vettest/clean")
}
