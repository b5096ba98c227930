// broadcast_add: seed 000's array_2d + a[:, None] (CuPy) as a kernel: one
// thread per element of the rows x cols row-major array.
extern "C" __global__ void broadcast_add(const float *arr, const float *a, float *out, int rows, int cols)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        out[idx] = arr[idx] + a[idx / cols];
    }
}
