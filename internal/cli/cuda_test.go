package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cuda/translate"
)

// testdata/mixed has two kernels that translate (Double, Negate) and two
// the translator refuses: Lookup for a map in its body, Labels for a
// string in the helper it calls.

// lineOf is the file:line:col, relative to this directory, of the first
// occurrence of text in testdata/mixed/mixed.go.
func lineOf(t *testing.T, text string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "mixed", "mixed.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(src), "\n") {
		if c := strings.Index(line, text); c >= 0 {
			return fmt.Sprintf("testdata/mixed/mixed.go:%d:%d", i+1, c+1)
		}
	}
	t.Fatalf("%q is not in mixed.go", text)
	return ""
}

func cuFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	slices.Sort(names)
	return names
}

// TestCUDAWritesWhatTranslates: cuda -o writes a .cu for every kernel that
// translates, prints each refusal at its file:line with why, names the
// kernels left out, and exits 1.
func TestCUDAWritesWhatTranslates(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := run(t, "cuda", "-o", dir, "./testdata/mixed")
	if code != 1 {
		t.Errorf("exit %d, want 1 (a kernel was refused)", code)
	}
	if got := cuFiles(t, dir); !slices.Equal(got, []string{"Double.cu", "Negate.cu"}) {
		t.Errorf("wrote %v, want Double.cu and Negate.cu", got)
	}
	if src, err := os.ReadFile(filepath.Join(dir, "Double.cu")); err != nil || !strings.Contains(string(src), `extern "C" __global__ void Double(float *x, int n)`) {
		t.Errorf("Double.cu: %v\n%s", err, src)
	}
	for _, want := range []string{"Double.cu", "Negate.cu"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks the written %s: %q", want, stdout)
		}
	}
	for _, want := range []string{
		lineOf(t, "map[int]int32") + ": maps cannot run on the GPU",
		lineOf(t, `"ab"`) + ": strings cannot be used on the GPU",
		"gpusim cuda: 2 construct(s) cannot be translated, in 2 kernel(s): mixed.Lookup, mixed.Labels; those are not written, the other 2 kernel(s) are\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCUDAAllOrNothing: with -all-or-nothing a refusal writes nothing, and
// the refusals are printed all the same.
func TestCUDAAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cu")
	code, stdout, stderr := run(t, "cuda", "-all-or-nothing", "-o", dir, "./testdata/mixed")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("-all-or-nothing made %s (%v)", dir, err)
	}
	if !strings.Contains(stderr, lineOf(t, "map[int]int32")) || !strings.Contains(stderr, "mixed.Lookup, mixed.Labels; nothing written") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestCUDAGoFileOfWhatTranslates: -go's file registers the twins of the
// kernels that translate and no other; -all-or-nothing writes no file.
// (writeTranslation is called with a temporary directory for the Go file,
// which the command writes into the package's own.)
func TestCUDAGoFileOfWhatTranslates(t *testing.T) {
	res, err := translate.Load(".", "./testdata/mixed")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, cmd: "cuda"}
	dir := t.TempDir()
	err = e.writeTranslation(res, "./testdata/mixed", "", dir, false)
	if err == nil || !strings.Contains(err.Error(), "mixed.Lookup, mixed.Labels") {
		t.Errorf("error %v, want the refused kernels named", err)
	}
	src, rerr := os.ReadFile(filepath.Join(dir, generatedGoFile))
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, k := range []string{"Double", "Negate"} {
		if !strings.Contains(string(src), "twin.Register("+k+",") {
			t.Errorf("%s does not register %s:\n%s", generatedGoFile, k, src)
		}
	}
	for _, k := range []string{"Lookup", "Labels"} {
		if strings.Contains(string(src), "twin.Register("+k+",") {
			t.Errorf("%s registers the refused %s", generatedGoFile, k)
		}
	}
	if !strings.Contains(out.String(), generatedGoFile+": 2 kernel(s)") {
		t.Errorf("stdout %q", out.String())
	}

	none := t.TempDir()
	if err := e.writeTranslation(res, "./testdata/mixed", "", none, true); err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("-all-or-nothing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(none, generatedGoFile)); !os.IsNotExist(err) {
		t.Errorf("-all-or-nothing wrote %s (%v)", generatedGoFile, err)
	}
}

// TestCUDAExitStatus: a package whose kernels all translate exits 0 with
// nothing on stderr; one whose kernels are all refused writes nothing and
// exits 1.
func TestCUDAExitStatus(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, "cuda", "-o", dir, "../../parity/internal/usertest"); code != 0 || stderr != "" {
		t.Errorf("a package that translates: exit %d, stderr %q", code, stderr)
	}
	if len(cuFiles(t, dir)) == 0 {
		t.Errorf("no .cu written for a package that translates")
	}
	bad := filepath.Join(t.TempDir(), "bad")
	code, _, stderr := run(t, "cuda", "-o", bad, "../../cuda/translate/testdata/bad")
	if code != 1 || !strings.Contains(stderr, "; nothing written") {
		t.Errorf("a package of refused kernels: exit %d, stderr ends %q", code, stderr[max(0, len(stderr)-300):])
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a package of refused kernels made %s (%v)", bad, err)
	}
}

// TestCUDAOutDirOnePackage: -o writes one flat directory, so a pattern
// that may match several packages is refused before anything is loaded or
// written (testdata/dup/one and two both have a kernel Scale, whose .cu
// files would overwrite each other), and two kernels that would share a
// file write nothing.
func TestCUDAOutDirOnePackage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cu")
	code, stdout, stderr := run(t, "cuda", "-o", dir, "./testdata/dup/...")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "gpusim cuda: -o takes one package") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("cuda -o with a pattern: exit %d, stdout %q, stderr %q; want 2 and one line saying -o takes one package", code, stdout, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused pattern made %s (%v)", dir, err)
	}
	// Kernels of two packages reaching writeTranslation (as two patterns
	// would) are refused there, before a file is written.
	res, err := translate.Load(".", "./testdata/dup/one", "./testdata/dup/two")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, cmd: "cuda"}
	err = e.writeTranslation(res, "./testdata/dup/one ./testdata/dup/two", dir, "", false)
	if err == nil || !strings.Contains(err.Error(), "one.Scale and two.Scale would both be written to "+filepath.Join(dir, "Scale.cu")+"; nothing written") {
		t.Errorf("two kernels for one file: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused translation made %s (%v)", dir, err)
	}
	// One package of the two is written.
	if code, _, stderr := run(t, "cuda", "-o", dir, "./testdata/dup/one"); code != 0 || !slices.Equal(cuFiles(t, dir), []string{"Scale.cu"}) {
		t.Errorf("cuda -o one package: exit %d, wrote %v, stderr %q", code, cuFiles(t, dir), stderr)
	}
}

// A name that is no registry kernel's, given to cuda without -o or -go,
// says how to translate a package.
func TestCUDAUnknownKernelSaysHowToTranslateAPackage(t *testing.T) {
	code, _, stderr := run(t, "cuda", "./testdata/mixed")
	if code != 2 || !strings.Contains(stderr, `gpusim cuda: unknown kernel "./testdata/mixed"`) || !strings.Contains(stderr, "give -o DIR or -go") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
