// hwrules probes the hardware rules that gpusim's sim package follows
// exactly, and prints one line per case in the format of
// sim/testdata/hwrules.golden, which TestHardwareRules compares the
// simulator's results with:
//
//   smem static=S dynamic=D optin=O: <cudaError name of the launch>
//   shfl <idx|up|down|xor> b=B width=W: <the lane each of lanes 0..31 read>
//   grid GX x BX: <cudaError name of the launch>
//
// Build and run on the GPU (sm_90, the H100):
//
//   nvcc -arch=sm_90 -o hwrules hwrules.cu && ./hwrules > hwrules.out
//
// and replace sim/testdata/hwrules.golden with hwrules.out (the file in the
// repository holds what the PTX ISA and the CUDA headers say the H100
// does, until it has been run there).
#include <cstdio>
#include <cuda_runtime.h>

// --- shared memory: static + dynamic above the 48 KiB default, with and
// without the cudaFuncAttributeMaxDynamicSharedMemorySize opt-in. Each
// case has a kernel instance of its own (TAG), so that one case's opt-in
// does not carry over to the next.

template <int TAG>
__global__ void smemStatic40K(int *out) {
    __shared__ float s[10240]; // 40960 bytes static
    extern __shared__ float d[];
    s[threadIdx.x] = 1.0f;
    d[threadIdx.x] = 2.0f;
    __syncthreads();
    out[0] = (int)(s[0] + d[0]);
}

template <int TAG>
__global__ void smemDynamicOnly(int *out) {
    extern __shared__ float d[];
    d[threadIdx.x] = 2.0f;
    __syncthreads();
    out[0] = (int)d[0];
}

static const char *launchStatus(cudaError_t launch) {
    cudaError_t sync = cudaDeviceSynchronize();
    if (launch != cudaSuccess) {
        return cudaGetErrorName(launch);
    }
    return cudaGetErrorName(sync);
}

template <typename K>
static void smemCase(K kernel, int dynamic, bool optin, int *out) {
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, kernel);
    cudaError_t set = cudaSuccess;
    if (optin) {
        set = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic);
    }
    cudaError_t err = set;
    if (set == cudaSuccess) {
        kernel<<<1, 32, dynamic>>>(out);
        err = cudaGetLastError();
    }
    printf("smem static=%d dynamic=%d optin=%d: %s\n", (int)attr.sharedSizeBytes, dynamic, optin ? 1 : 0,
           launchStatus(err));
}

// --- shuffles: every lane passes its own lane number, so each result is
// the lane it read. op, b and width are runtime values, so the compiler
// folds nothing: it is the shfl.sync instruction with the c operand the
// CUDA headers compute from width.
__global__ void shflKernel(int op, int b, int width, int *out) {
    int lane = threadIdx.x & 31;
    int r = -1;
    switch (op) {
    case 0: r = __shfl_sync(0xffffffffu, lane, b, width); break;
    case 1: r = __shfl_up_sync(0xffffffffu, lane, (unsigned)b, width); break;
    case 2: r = __shfl_down_sync(0xffffffffu, lane, (unsigned)b, width); break;
    case 3: r = __shfl_xor_sync(0xffffffffu, lane, b, width); break;
    }
    out[lane] = r;
}

// --- grids: a grid of 2^32 threads is legal on the GPU (gpusim refuses it
// with a code of its own); one beyond gridDim.x's maximum is not.
__global__ void gridKernel(int *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = 1;
    }
}

int main() {
    int *out;
    if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "hwrules: cudaMalloc failed\n");
        return 1;
    }

    smemCase(smemStatic40K<0>, 10240, false, out);
    smemCase(smemStatic40K<1>, 10240, true, out);
    smemCase(smemStatic40K<2>, 8192, false, out);
    smemCase(smemStatic40K<3>, 8196, false, out);
    smemCase(smemDynamicOnly<0>, 49152, false, out);
    smemCase(smemDynamicOnly<1>, 49156, false, out);
    smemCase(smemDynamicOnly<2>, 49156, true, out);

    const char *ops[] = {"idx", "up", "down", "xor"};
    const int bs[] = {-33, -1, 0, 1, 5, 31, 32, 33, 63};
    const int widths[] = {32, 16, 8, 1, 12, 7, 0, 33, 64, -1};
    for (int op = 0; op < 4; op++) {
        for (int b : bs) {
            for (int w : widths) {
                cudaMemset(out, 0xff, 32 * sizeof(int));
                shflKernel<<<1, 32>>>(op, b, w, out);
                cudaError_t err = cudaGetLastError();
                const char *status = launchStatus(err);
                int host[32];
                cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
                printf("shfl %s b=%d width=%d:", ops[op], b, w);
                if (err != cudaSuccess || cudaPeekAtLastError() != cudaSuccess) {
                    printf(" %s\n", status);
                    continue;
                }
                for (int i = 0; i < 32; i++) {
                    printf(" %d", host[i]);
                }
                printf("\n");
            }
        }
    }

    const unsigned grids[][2] = {{4194304u, 1024u}, {2147483647u, 1u}, {2147483648u, 1u}};
    for (auto &g : grids) {
        gridKernel<<<g[0], g[1]>>>(out);
        printf("grid %ux%u: %s\n", g[0], g[1], launchStatus(cudaGetLastError()));
    }
    cudaFree(out);
    return 0;
}
