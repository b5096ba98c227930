package usertest

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/translate"
	"github.com/gpusim/gpusim/cuda/twin"
)

// TestTwinsAreGenerated checks that gpusim_cuda.go is what the translator
// makes of this package's kernels now (run go generate in this directory
// when it is not), and that it refuses none of them.
func TestTwinsAreGenerated(t *testing.T) {
	res, err := translate.Load(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		t.Errorf("untranslatable: %s", d)
	}
	want, err := translate.WriteGo("usertest", res.Kernels)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("gpusim_cuda.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gpusim_cuda.go is out of date: run go generate ./parity/internal/usertest")
	}
}

// TestTwinsCompileWithClang compiles each twin to PTX with clang-19
// through the shim, as kernels' test of the same name does for the
// registry.
func TestTwinsCompileWithClang(t *testing.T) {
	cc, err := exec.LookPath("clang++-19")
	if err != nil {
		if os.Getenv("GPUSIM_REQUIRE_CLANG") == "1" {
			t.Fatal("clang++-19 is required (GPUSIM_REQUIRE_CLANG=1) but not installed: apt-get install -y clang-19")
		}
		t.Skip("clang++-19 not installed (apt-get install -y clang-19); the generated twins are not compiled")
	}
	dir := t.TempDir()
	for _, fn := range []any{ScaleFloat4, HalfAxpy, Shorts, SmallVectors, WideVectors, Stencil} {
		tw, err := twin.Of(fn)
		if err != nil {
			t.Fatal(err)
		}
		ptx, err := translate.CompileWithClang(cc, dir, tw.Entry, tw.Source)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tw.Entry, err, ptx)
		}
		if !strings.Contains(ptx, ".entry "+tw.Entry+"(") {
			t.Errorf("PTX has no .entry %s", tw.Entry)
		}
	}
}
