// histogram_mod16_negative (faulty): the same kernel as histogram_mod16, run on
// input with negative values: input % 16 is then negative and atomicAdd
// writes before the start of hist.
// Launch: ceil(n/256) blocks of 256 threads; hist[16] zeroed by the host.
extern "C" __global__ void histogram_mod16_negative(const int *input, int *hist, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        int bin = input[idx] % 16;  // assumes 16 bins
        atomicAdd(&hist[bin], 1);
    }
}
