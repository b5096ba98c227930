// histogram_text: seed 003, Numba example 4.3 (kernel_histogram) and its
// kernel_zero_init, written from the Go kernels. Numba's int64 histogram is
// unsigned long long here: CUDA has no atomicAdd on signed 64-bit integers.
// Launch: histogram_text_zero_init<<<1, 128>>>(histo, 128), then
// histogram_text<<<32, 128>>>(arr, histo, n).
extern "C" __global__ void histogram_text_zero_init(unsigned long long *arr, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int threads_per_grid = blockDim.x * gridDim.x;
    for (int iarr = i; iarr < n; iarr += threads_per_grid)
        arr[iarr] = 0;
}

extern "C" __global__ void histogram_text(const unsigned char *arr, unsigned long long *histo, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int threads_per_grid = blockDim.x * gridDim.x;
    for (int iarr = i; iarr < n; iarr += threads_per_grid) {
        if (arr[iarr] < 128)
            atomicAdd(&histo[arr[iarr]], 1ULL);
    }
}
