// dot_mutex_faulty: seed 003's example 4.6 dot_mutex as printed. FAULTY: the
// tree reads s_block[tid + 1] where s_block[tid + i] was meant, so thread tid
// reads the slot thread tid + 1 writes in the same step: a shared-memory race.
// Fixed by dot_mutex.
#define THREADS_PER_BLOCK 256

// Example 4.5's lock and unlock.
__device__ void lock(int *mutex) {
    while (atomicCAS(mutex, 0, 1) != 0) {
    }
    __threadfence();
}

__device__ void unlock(int *mutex) {
    __threadfence();
    atomicExch(mutex, 0);
}

extern "C" __global__ void kernel_zero_init(float *arr, int n) {
    for (int iarr = blockIdx.x * blockDim.x + threadIdx.x; iarr < n; iarr += blockDim.x * gridDim.x)
        arr[iarr] = 0;
}

extern "C" __global__ void dot_mutex(int *mutex, const float *a, const float *b, float *c, int n) {
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
            s_block[tid] += s_block[tid + 1];
        __syncthreads();
    }
    // instead of a partial per block, add the block's sum to c[0] under the lock
    if (tid == 0) {
        lock(mutex);
        c[0] += s_block[0];
        unlock(mutex);
    }
}
