// float_to_int_probe prints what the H100 gives for float32 -> integer
// conversions whose value the target type cannot hold (negative to
// unsigned, out of range, NaN, Inf). Go calls the result
// implementation-dependent (the spec's Conversions), CUDA undefined, and
// cuda/translate emits plain C casts, so sim (Go's result on the host) and
// the GPU may disagree without a finding. Go on amd64 gives, for the same
// inputs (columns uint32 int32 uint8 int8 int64 uint64):
//
//   -1.5   4294967295 -1          255 -1  -1                   18446744073709551615
//   300    300        300         44  44  300                  300
//   -300   4294966996 -300        212 -44 -300                 18446744073709551316
//   3e+09  3000000000 -2147483648 0   0   3000000000           3000000000
//   -3e+09 1294967296 -2147483648 0   0   -3000000000          18446744070709551616
//   1e+20  0          -2147483648 0   0   -9223372036854775808 9223372036854775808
//   -1e+20 0          -2147483648 0   0   -9223372036854775808 9223372036854775808
//   NaN    0          -2147483648 0   0   -9223372036854775808 9223372036854775808
//   +Inf   0          -2147483648 0   0   -9223372036854775808 9223372036854775808
//   255.9  255        255         255 -1  255                  255
//
// Not yet run on an H100 (no device machine came on 2026-12-07).
//
//   nvcc -arch=sm_90 -o float_to_int_probe float_to_int_probe.cu && ./float_to_int_probe
#include <cstdio>
#include <cmath>
__global__ void conv(const float *in, int n, unsigned *u32, int *i32, unsigned char *u8, signed char *i8, long long *i64, unsigned long long *u64) {
	int i = threadIdx.x;
	if (i < n) {
		float x = in[i];
		u32[i] = (unsigned)x; i32[i] = (int)x; u8[i] = (unsigned char)x; i8[i] = (signed char)x;
		i64[i] = (long long)x; u64[i] = (unsigned long long)x;
	}
}
int main() {
	const int n = 10;
	float h[n] = {-1.5f, 300.0f, -300.0f, 3e9f, -3e9f, 1e20f, -1e20f, NAN, INFINITY, 255.9f};
	float *d; unsigned *u32; int *i32; unsigned char *u8; signed char *i8; long long *i64; unsigned long long *u64;
	cudaMalloc(&d, sizeof h); cudaMalloc(&u32, 4*n); cudaMalloc(&i32, 4*n); cudaMalloc(&u8, n); cudaMalloc(&i8, n); cudaMalloc(&i64, 8*n); cudaMalloc(&u64, 8*n);
	cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
	conv<<<1, 32>>>(d, n, u32, i32, u8, i8, i64, u64);
	unsigned hu32[n]; int hi32[n]; unsigned char hu8[n]; signed char hi8[n]; long long hi64[n]; unsigned long long hu64[n];
	cudaMemcpy(hu32, u32, 4*n, cudaMemcpyDeviceToHost); cudaMemcpy(hi32, i32, 4*n, cudaMemcpyDeviceToHost);
	cudaMemcpy(hu8, u8, n, cudaMemcpyDeviceToHost); cudaMemcpy(hi8, i8, n, cudaMemcpyDeviceToHost);
	cudaMemcpy(hi64, i64, 8*n, cudaMemcpyDeviceToHost); cudaMemcpy(hu64, u64, 8*n, cudaMemcpyDeviceToHost);
	printf("x uint32 int32 uint8 int8 int64 uint64\n");
	for (int i = 0; i < n; i++) printf("%g %u %d %u %d %lld %llu\n", h[i], hu32[i], hi32[i], hu8[i], hi8[i], hi64[i], hu64[i]);
	return 0;
}
