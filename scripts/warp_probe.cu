// warp_probe prints what the H100 gives for warp collectives and
// cooperative groups on cases the CUDA Programming Guide states loosely:
// a partial last warp (a block of 48) under a full mask, and the
// meta_group_rank/meta_group_size of partitioned groups. One line a case,
// "case[row]: values of lanes 0.. in hex", to compare by hand with sim's
// tests (TestNoRaceWarpCollectiveValues, TestNoRaceGroupValues,
// TestNoRacePartitionMetaGroupRanks). Not yet run on an H100: sim follows
// the Guide and CUDA's headers there; partial[0] (match_all's mask in a
// partial warp: sim gives the 16 lanes that exist) and parts[0..3] (the
// partitions' meta ranks) are the open questions.
//
//   nvcc -arch=sm_90 -o warp_probe warp_probe.cu && ./warp_probe
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define N 64
__global__ void partial(unsigned *out) {
    int tid = threadIdx.x, lane = tid % 32;
    int pred = 0;
    unsigned ma = __match_all_sync(0xffffffff, 7, &pred);
    out[0 * N + tid] = ma;
    out[1 * N + tid] = pred;
    out[2 * N + tid] = __ballot_sync(0xffffffff, 1);
    out[3 * N + tid] = __reduce_add_sync(0xffffffff, 1u);
    out[4 * N + tid] = __match_any_sync(0xffffffff, lane % 3);
    cg::thread_block b = cg::this_thread_block();
    auto t32 = cg::tiled_partition<32>(b);
    auto t16 = cg::tiled_partition<16>(b);
    out[5 * N + tid] = t32.meta_group_rank() * 100 + t32.meta_group_size();
    out[6 * N + tid] = t16.meta_group_rank() * 100 + t16.meta_group_size();
    out[7 * N + tid] = t32.num_threads();
}

__global__ void parts(unsigned *out) {
    int tid = threadIdx.x, lane = tid % 32;
    auto t32 = cg::tiled_partition<32>(cg::this_thread_block());
    auto lp = cg::labeled_partition(t32, lane % 3);
    out[0 * N + tid] = lp.meta_group_rank() * 100 + lp.meta_group_size();
    auto lp2 = cg::labeled_partition(t32, (lane * 7) % 5);
    out[1 * N + tid] = lp2.meta_group_rank() * 100 + lp2.meta_group_size();
    auto bp = cg::binary_partition(t32, lane < 10);
    out[2 * N + tid] = bp.meta_group_rank() * 100 + bp.meta_group_size();
    auto ba = cg::binary_partition(t32, true);
    out[3 * N + tid] = ba.meta_group_rank() * 100 + ba.meta_group_size();
    if (lane % 3 == 0) {
        auto c = cg::coalesced_threads();
        out[4 * N + tid] = c.meta_group_rank() * 100 + c.meta_group_size();
        out[5 * N + tid] = c.num_threads() * 100 + c.thread_rank();
        out[6 * N + tid] = c.shfl(lane, c.num_threads() - 1 - c.thread_rank());
        auto lc = cg::labeled_partition(c, lane % 2);
        out[7 * N + tid] = lc.meta_group_rank() * 100 + lc.meta_group_size();
    }
}

void dump(const char *name, unsigned *h, int rows, int n) {
    for (int r = 0; r < rows; r++) {
        printf("%s[%d]:", name, r);
        for (int i = 0; i < n; i++) printf(" %x", h[r * N + i]);
        printf("\n");
    }
}

int main() {
    unsigned *d, h[8 * N];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0xee, sizeof h);
    partial<<<1, 48>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("partial: %s\n", cudaGetErrorName(cudaGetLastError()));
    dump("partial", h, 8, 48);
    cudaMemset(d, 0xee, sizeof h);
    parts<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("parts: %s\n", cudaGetErrorName(cudaGetLastError()));
    dump("parts", h, 8, 32);
    return 0;
}
