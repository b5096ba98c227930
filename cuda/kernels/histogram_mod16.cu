// histogram_mod16: seed 004's "histogram" kernel (renamed). Correct only for
// non-negative input: C's % of a negative int is negative.
// Launch: ceil(n/256) blocks of 256 threads; hist[16] zeroed by the host.
extern "C" __global__ void histogram_mod16(const int *input, int *hist, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        int bin = input[idx] % 16;  // assumes 16 bins
        atomicAdd(&hist[bin], 1);
    }
}
