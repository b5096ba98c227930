// reduce_sum: seed 000's per-block partial sums (launched with blockDim.x floats of dynamic shared memory).
extern "C"
__global__ void reduce_sum(float *g_idata, float *g_odata, int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float sum = 0;
    // each thread adds up to two elements (unrolled)
    if (i < n)
        sum += g_idata[i];
    if (i + blockDim.x < n)
        sum += g_idata[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    // halving tree in shared memory
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    // the block's partial sum
    if (tid == 0) {
        g_odata[blockIdx.x] = sdata[0];
    }
}
