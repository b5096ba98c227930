package cuda_test

import (
	"slices"
	"testing"

	"github.com/gpusim/gpusim/cuda"
)

func TestParamNames(t *testing.T) {
	src := []byte(`
// __global__ void plain(int *commented_out) {}
extern "C" __global__ void plain(const float *a, const float* __restrict__ b, float *c, int n) {}
extern "C" __global__ __launch_bounds__(256, 2) void bounded(unsigned long long *mutex, double x) {}
extern "C" __global__ void
split(float *in,   /* the input */
      float out[],
      int n);
extern "C" __global__ void none() {}
extern "C" __global__ void none_void(void) {}
extern "C" __global__ void unnamed(float *, int) {}
extern "C" __global__ void unnamed_long(unsigned long long) {}
`)
	tests := []struct {
		entry   string
		want    []string
		wantErr bool
	}{
		{entry: "plain", want: []string{"a", "b", "c", "n"}},
		{entry: "bounded", want: []string{"mutex", "x"}},
		{entry: "split", want: []string{"in", "out", "n"}},
		{entry: "none", want: []string{}},
		{entry: "none_void", want: []string{}},
		{entry: "unnamed", wantErr: true},
		{entry: "unnamed_long", wantErr: true},
		{entry: "absent", wantErr: true},
	}
	for _, tt := range tests {
		got, err := cuda.ParamNames(src, tt.entry)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParamNames(%s) = %q, %v; want %q, error %v", tt.entry, got, err, tt.want, tt.wantErr)
		}
	}
}
