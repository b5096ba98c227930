// warp_shuffle_reduce_faulty: seed 004's warp_sync_demo verbatim. FAULTY in a
// block of more than one warp: warp w's lane 0 writes data[w] while lane w of
// warp 0 reads it, unordered. Fixed by warp_shuffle_reduce.
extern "C" __global__ void warp_sync_demo(int *data) {
    int tid = threadIdx.x;
    int lane = tid % 32; // lane within the warp
    int val = data[tid];
    // broadcast within the warp: lane 0's value to every lane
    val = __shfl_sync(0xffffffff, val, 0);
    // warp reduction
    for (int offset = 16; offset > 0; offset >>= 1) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    if (lane == 0) {
        data[tid / 32] = val; // the warp's result
    }
}
