// scan_exclusive: multi-block exclusive scan, written from the Go kernels.
// scan_exclusive_block<<<ceil(n/B), B, 2*B*sizeof(int)>>>(in, out, sums, n)
// scans each block with the double-buffered Hillis-Steele of
// scan_hillis_steele and writes each block's total to sums; the host scans
// sums the same way (recursively) into offsets, then
// scan_exclusive_add<<<ceil(n/B), B>>>(out, offsets, n) adds them back.
extern "C" __global__ void scan_exclusive_block(const int *in, int *out, int *sums, int n)
{
    extern __shared__ int temp[];  // 2 * blockDim.x
    int B = blockDim.x;
    int tid = threadIdx.x;
    int gid = blockIdx.x * B + tid;

    int x = (gid < n) ? in[gid] : 0;
    temp[tid] = x;
    __syncthreads();

    int p = 0;
    for (int stride = 1; stride < B; stride *= 2) {
        if (tid >= stride) {
            temp[(1 - p) * B + tid] = temp[p * B + tid] + temp[p * B + tid - stride];
        } else {
            temp[(1 - p) * B + tid] = temp[p * B + tid];
        }
        p = 1 - p;
        __syncthreads();
    }
    int incl = temp[p * B + tid];
    if (gid < n)
        out[gid] = incl - x;
    if (tid == B - 1)
        sums[blockIdx.x] = incl;
}

extern "C" __global__ void scan_exclusive_add(int *out, const int *offsets, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        out[gid] = out[gid] + offsets[blockIdx.x];
}
