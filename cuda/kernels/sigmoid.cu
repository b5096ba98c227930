// sigmoid: seed 000's parallel map. Built without --use_fast_math, so expf
// is the 2-ulp library function, not __expf.
extern "C" __global__ void parallel_map(const float *input, float *output, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
    {
        float x = input[idx];
        // apply the sigmoid function
        output[idx] = 1.0f / (1.0f + expf(-x));
    }
}
