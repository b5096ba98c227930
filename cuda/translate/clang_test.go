package translate

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// clang finds clang++-19, or fails the test when GPUSIM_REQUIRE_CLANG=1 (CI)
// and skips it otherwise.
func clang(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("clang++-19")
	if err != nil {
		if os.Getenv("GPUSIM_REQUIRE_CLANG") == "1" {
			t.Fatal("clang++-19 is required (GPUSIM_REQUIRE_CLANG=1) but not installed: apt-get install -y clang-19")
		}
		t.Skip("clang++-19 not installed (apt-get install -y clang-19); the generated CUDA is not compiled")
	}
	return path
}

// compileCUDA compiles one translation unit to PTX through the shim and
// returns the PTX.
func compileCUDA(t *testing.T, cc, dir, name, src string) (string, error) {
	t.Helper()
	return CompileWithClang(cc, dir, name, src)
}

// TestClangCompiles compiles every translated testdata kernel to PTX with
// clang through the shim, and checks that the PTX has the entry point.
func TestClangCompiles(t *testing.T) {
	cc := clang(t)
	res := loadOK(t)
	if len(res.Kernels) == 0 {
		t.Fatal("no kernels translated")
	}
	dir := t.TempDir()
	for _, k := range res.Kernels {
		t.Run(k.Twin.Entry, func(t *testing.T) {
			t.Parallel()
			ptx, err := compileCUDA(t, cc, dir, k.Twin.Entry, k.Twin.Source)
			if err != nil {
				t.Fatalf("clang: %v\n%s", err, ptx)
			}
			if !strings.Contains(ptx, ".entry "+k.Twin.Entry+"(") {
				t.Errorf("PTX has no .entry %s", k.Twin.Entry)
			}
		})
	}
}

// TestShimCatchesWrongOverload: the shim is strict enough to reject a call
// nvcc would reject or convert, so that the clang check means something.
func TestShimCatchesWrongOverload(t *testing.T) {
	cc := clang(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"atomic_int64_add": `extern "C" __global__ void k(long long *p) { atomicAdd(&p[0], 1LL); }`,
		"shfl_short":       `extern "C" __global__ void k(short *p) { p[0] = __shfl_sync(0xffffffffU, p[0], 1); }`,
		"sqrt_float":       `extern "C" __global__ void k(double *p) { p[0] = sqrt(1.0f); }`,
	} {
		if out, err := compileCUDA(t, cc, dir, name, src); err == nil {
			t.Errorf("%s compiled; the shim should reject it:\n%s", name, out)
		}
	}
	if out, err := compileCUDA(t, cc, dir, "fine", `extern "C" __global__ void k(unsigned long long *p) { atomicAdd(&p[0], 1ULL); }`); err != nil {
		t.Errorf("a correct call failed: %s", out)
	}
}

// TestClangDoesNotFuse: a*b+c compiles to a multiply and an add, as with
// nvcc -fmad=false, which parity's CUDA is built with: Go rounds twice.
func TestClangDoesNotFuse(t *testing.T) {
	cc := clang(t)
	ptx, err := compileCUDA(t, cc, t.TempDir(), "lerp",
		`extern "C" __global__ void lerp(float *p) { p[0] = p[1] + p[2] * (p[3] - p[1]); }`)
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, ptx)
	}
	if strings.Contains(ptx, "fma.") || !strings.Contains(ptx, "mul.") {
		t.Errorf("want a separate mul and add, got:\n%s", ptx)
	}
}
