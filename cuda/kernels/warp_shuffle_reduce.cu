// warp_shuffle_reduce: seed 004's warp_sync_demo corrected: warp sums go to a
// separate output and the kernel covers a grid of n elements.
extern "C" __global__ void warp_shuffle_reduce(const int *data, int *out, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32; // lane within the warp
    int val = tid < n ? data[tid] : 0;
    // broadcast within the warp: lane 0's value to every lane
    val = __shfl_sync(0xffffffff, val, 0);
    // warp reduction
    for (int offset = 16; offset > 0; offset >>= 1) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    if (lane == 0 && tid < n) {
        out[tid / 32] = val; // the warp's result
    }
}
