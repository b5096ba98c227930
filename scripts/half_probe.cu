// half_probe.cu: prints the H100's float -> half/bfloat16 conversions (all
// four rounding modes) and back, for the float32 bit patterns of
// sim/half_test.go's probeFloats, in the format of sim/testdata/half.golden:
//   f32 rn rz rd ru h2f(rn) | bf-rn bf-rz bf-rd bf-ru bf2f(rn)
// Build and compare on the GPU:
//   nvcc -arch=sm_90 -o half_probe scripts/half_probe.cu && ./half_probe > half.out
//   diff half.out sim/testdata/half.golden
// The conversions run on the device (cvt instructions), not the host.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void conv(const float *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = in[i];
    unsigned *o = out + 10 * i;
    o[0] = __half_as_ushort(__float2half_rn(f));
    o[1] = __half_as_ushort(__float2half_rz(f));
    o[2] = __half_as_ushort(__float2half_rd(f));
    o[3] = __half_as_ushort(__float2half_ru(f));
    o[4] = __float_as_uint(__half2float(__float2half_rn(f)));
    o[5] = __bfloat16_as_ushort(__float2bfloat16_rn(f));
    o[6] = __bfloat16_as_ushort(__float2bfloat16_rz(f));
    o[7] = __bfloat16_as_ushort(__float2bfloat16_rd(f));
    o[8] = __bfloat16_as_ushort(__float2bfloat16_ru(f));
    o[9] = __float_as_uint(__bfloat162float(__float2bfloat16_rn(f)));
}

static float h2f_host(unsigned short h) { return __half2float(__ushort_as_half(h)); }

int main() {
    std::vector<unsigned> bits;
    auto add = [&](unsigned b) { bits.push_back(b); bits.push_back(b | 0x80000000u); };
    for (unsigned u = 0; u < 0x7c00; u += 151) {
        float f = h2f_host((unsigned short)u);
        unsigned b; memcpy(&b, &f, 4);
        add(b); add(b + 1); add(b + 0x1000); add(b + 0x1001); add(b + 0xfff);
    }
    for (unsigned u = 0; u < 0x7f80; u += 251) {
        unsigned b = u << 16;
        add(b); add(b | 0x8000); add(b | 0x8001); add(b | 0x7fff);
    }
    unsigned extra[] = {0x33000000, 0x33000001, 0x337fffff, 0x33c00000, 0x387fc000, 0x387fe000, 0x38800000,
        0x477fe000, 0x477fefff, 0x477ff000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff, 0x00000001, 0x007fffff};
    for (unsigned b : extra) add(b);
    int n = (int)bits.size();
    std::vector<float> in(n);
    memcpy(in.data(), bits.data(), 4 * n);
    float *din; unsigned *dout;
    cudaMalloc(&din, 4 * n); cudaMalloc(&dout, 40 * n);
    cudaMemcpy(din, in.data(), 4 * n, cudaMemcpyHostToDevice);
    conv<<<(n + 255) / 256, 256>>>(din, dout, n);
    std::vector<unsigned> out(10 * n);
    if (cudaMemcpy(out.data(), dout, 40 * n, cudaMemcpyDeviceToHost) != cudaSuccess) { fprintf(stderr, "CUDA error\n"); return 1; }
    for (int i = 0; i < n; i++) {
        unsigned *o = &out[10 * i];
        printf("%08x %04x %04x %04x %04x %08x | %04x %04x %04x %04x %08x\n", bits[i],
               o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9]);
    }
    return 0;
}
