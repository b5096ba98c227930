// coop_probe: device facts gpusim's cooperative-groups and memory-model
// work (issue 12) compares with. Build and run on the H100:
//
//   nvcc -arch=sm_90 -O2 -o coop_probe scripts/coop_probe.cu
//   ./coop_probe                                   # limits, reduce orders, scans
//   compute-sanitizer --tool racecheck ./coop_probe shfl     # expect a hazard
//   compute-sanitizer --tool racecheck ./coop_probe syncwarp # expect none
//
// What to compare:
//  1. "coop limit" lines: the driver's co-resident blocks for each kernel and
//     block size, with the kernel's numRegs and static shared bytes; gpusim's
//     Device.CooperativeLimit(Config{Block, Registers: numRegs, SharedBytes:
//     dyn}, static) must print the same number (go test ./sim -run
//     CooperativeLimitMatchesH100 holds the H100's numbers), and the launch with one block
//     more must fail with cudaErrorCooperativeLaunchTooLarge (720).
//  2. "reduce" lines: which association order cg::reduce uses for float plus
//     on tile<32>, tile<16> and a coalesced group of 13 lanes; gpusim uses
//     xor-butterfly (offsets N/2..1) on tiles and the scan's last rank on
//     coalesced groups below 32 (sim/coop.go, Reduce), as the H100 gave:
//     tile32 402790c1, tile16 3fff5fb6, coalesced13 3fe8bbba
//     (TestNoRaceReduceOrdersMatchH100). A mismatch means sim.Reduce must
//     follow the order printed as matching.
//  3. "exclusive_scan rank0": the value rank 0 gets (gpusim: T's zero).
//  4. racecheck on "shfl": lane 0 writes shared s[0], the warp shuffles,
//     lane 31 reads s[0]: gpusim reports a race (TestRaceOrderedOnlyByWarpCollective);
//     with __syncwarp instead ("syncwarp") neither should.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
namespace cg = cooperative_groups;

__global__ void grid_reduce(const float *in, float *partial, float *out, int n) {
    extern __shared__ float s[];
    cg::grid_group grid = cg::this_grid();
    float v = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float t = 0;
        for (int b = 0; b < gridDim.x; b++) t += partial[b];
        *out = t;
    }
}

__global__ void heavy(float *p) { // many registers and static shared memory
    __shared__ float big[6000];
    cg::grid_group grid = cg::this_grid();
    float r[40];
    for (int k = 0; k < 40; k++) r[k] = p[(threadIdx.x + k) % 64] * k;
    big[threadIdx.x % 6000] = r[threadIdx.x % 40];
    grid.sync();
    float a = 0;
    for (int k = 0; k < 40; k++) a += r[k] * big[(threadIdx.x + k) % 6000];
    p[threadIdx.x % 64] = a;
}

__global__ void reduce_orders(const float *in, float *out) {
    auto block = cg::this_thread_block();
    auto t32 = cg::tiled_partition<32>(block);
    auto t16 = cg::tiled_partition<16>(block);
    unsigned l = threadIdx.x;
    out[l] = cg::reduce(t32, in[l], cg::plus<float>());
    out[32 + l] = cg::reduce(t16, in[l], cg::plus<float>());
    out[64 + l] = cg::exclusive_scan(t16, in[l] + 1.0f, cg::plus<float>());
    if (l < 13) {
        auto g = cg::coalesced_threads();
        out[96 + l] = cg::reduce(g, in[l], cg::plus<float>());
    }
}

__global__ void shfl_only(int *out, int sync) {
    __shared__ int s[1];
    unsigned lane = threadIdx.x % 32;
    if (lane == 0) s[0] = 7;
    int v = __shfl_sync(0xffffffffu, (int)lane, 0);
    if (sync) __syncwarp();
    if (lane == 31) out[0] = s[0] + v - v;
}

static float butterfly(const float *v, int n) { // lane 0's xor butterfly
    float w[32];
    memcpy(w, v, n * sizeof(float));
    for (int off = n / 2; off > 0; off /= 2) {
        float x[32];
        for (int i = 0; i < n; i++) x[i] = w[i] + w[i ^ off];
        memcpy(w, x, n * sizeof(float));
    }
    return w[0];
}
static float scan_last(const float *v, int n) { // Hillis-Steele, last rank
    float w[32];
    memcpy(w, v, n * sizeof(float));
    for (int d = 1; d < n; d *= 2) {
        float x[32];
        for (int i = 0; i < n; i++) x[i] = i >= d ? w[i] + w[i - d] : w[i];
        memcpy(w, x, n * sizeof(float));
    }
    return w[n - 1];
}
static float down_chain(const float *v, int n) { // shfl_down into rank 0
    float w[32];
    memcpy(w, v, n * sizeof(float));
    for (int off = 1; off < n; off *= 2)
        for (int r = 0; r + off < n; r++) w[r] += w[r + off];
    return w[0];
}
static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

template <typename K> static void limit(const char *name, K kernel, int block, int dyn) {
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, kernel);
    int perSM = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, block, dyn);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int limit = perSM * sms;
    float *p;
    cudaMalloc(&p, 1 << 20);
    void *args[] = {&p, &p, &p, &limit};
    cudaError_t ok = cudaLaunchCooperativeKernel((void *)kernel, limit, block, args, dyn);
    cudaDeviceSynchronize();
    cudaError_t big = cudaLaunchCooperativeKernel((void *)kernel, limit + 1, block, args, dyn);
    cudaGetLastError();
    printf("coop limit %s block=%d dyn=%d numRegs=%d static=%zu: %d blocks/SM x %d SMs = %d; at limit: %d; limit+1: %d (%s)\n",
           name, block, dyn, a.numRegs, a.sharedSizeBytes, perSM, sms, limit, (int)ok, (int)big, cudaGetErrorName(big));
    cudaFree(p);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        int *out;
        cudaMalloc(&out, 4);
        shfl_only<<<1, 32>>>(out, strcmp(argv[1], "syncwarp") == 0);
        printf("%s: %s\n", argv[1], cudaGetErrorString(cudaDeviceSynchronize()));
        return 0;
    }
    for (int block : {64, 128, 256, 512, 1024}) limit("grid_reduce", grid_reduce, block, block * 4);
    for (int block : {128, 256, 1024}) limit("heavy", heavy, block, 0);

    float h[32], *din, *dout, o[128];
    for (int i = 0; i < 32; i++) h[i] = 1.0f / (float)(i + 3);
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, sizeof o);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    reduce_orders<<<1, 32>>>(din, dout);
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
    printf("reduce tile32: %08x butterfly %08x scan %08x down %08x\n", bits(o[0]), bits(butterfly(h, 32)), bits(scan_last(h, 32)), bits(down_chain(h, 32)));
    printf("reduce tile16: %08x butterfly %08x scan %08x down %08x\n", bits(o[32]), bits(butterfly(h, 16)), bits(scan_last(h, 16)), bits(down_chain(h, 16)));
    printf("reduce coalesced13: %08x scan %08x down %08x\n", bits(o[96]), bits(scan_last(h, 13)), bits(down_chain(h, 13)));
    printf("exclusive_scan rank0: %g (bits %08x)\n", o[64], bits(o[64]));
    return 0;
}
