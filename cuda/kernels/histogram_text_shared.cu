// histogram_text_shared: seed 003, Numba example 4.4
// (kernel_histogram_shared), written from the Go kernel. histo_local is
// indexed by threadIdx.x: blocks must have exactly 128 threads. Bins are
// unsigned long long (no signed 64-bit atomicAdd in CUDA).
// Launch: histogram_text_shared_zero_init<<<1, 128>>>(histo, 128), then
// histogram_text_shared<<<32, 128>>>(arr, histo, n).
extern "C" __global__ void histogram_text_shared_zero_init(unsigned long long *arr, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int threads_per_grid = blockDim.x * gridDim.x;
    for (int iarr = i; iarr < n; iarr += threads_per_grid)
        arr[iarr] = 0;
}

extern "C" __global__ void histogram_text_shared(const unsigned char *arr, unsigned long long *histo, int n)
{
    __shared__ unsigned long long histo_local[128];
    histo_local[threadIdx.x] = 0;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int threads_per_grid = blockDim.x * gridDim.x;
    for (int iarr = i; iarr < n; iarr += threads_per_grid) {
        if (arr[iarr] < 128)
            atomicAdd(&histo_local[arr[iarr]], 1ULL);
    }
    __syncthreads();

    atomicAdd(&histo[threadIdx.x], histo_local[threadIdx.x]);
}
