// dot_partial: seed 003's example 4.6 (Numba), written line by line from the
// Go kernel: per-block partial dot products. a.size is passed as n.
#define THREADS_PER_BLOCK 256

extern "C" __global__ void dot_partial(const float *a, const float *b, float *partial_c, int n) {
    int igrid = blockIdx.x * blockDim.x + threadIdx.x;           // cuda.grid(1)
    int threads_per_grid = blockDim.x * gridDim.x;               // cuda.gridsize(1)
    double s_thread = 0.0;                                        // Numba types 0.0 as float64
    for (int iarr = igrid; iarr < n; iarr += threads_per_grid)
        s_thread += (double)(a[iarr] * b[iarr]);                  // float32 product, widened
    __shared__ float s_block[THREADS_PER_BLOCK];
    int tid = threadIdx.x;
    s_block[tid] = (float)s_thread;
    __syncthreads();
    for (int i = blockDim.x / 2; i > 0; i /= 2) {
        if (tid < i)
            s_block[tid] += s_block[tid + i];
        __syncthreads();
    }
    if (tid == 0)
        partial_c[blockIdx.x] = s_block[0];
}
