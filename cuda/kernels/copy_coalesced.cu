// copy_coalesced: seed 002's copy_coalesced. Launch: ceil(N/256) blocks of 256.
extern "C" __global__ void copy_coalesced(const float *input, float *output, int N)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N)
        output[idx] = input[idx];
}
