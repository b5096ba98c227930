// vec_div: c = a / (b + 1e-8f) elementwise on float32, seed 000's CuPy
// a / (b + epsilon). Built without --use_fast_math: the division is IEEE.
extern "C" __global__ void vec_div(const float *a, const float *b, float *c, int n)
{
    int idx = blockDim.x * blockIdx.x + threadIdx.x;
    if (idx < n) {
        c[idx] = a[idx] / (b[idx] + 1e-8f);
    }
}
