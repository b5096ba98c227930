// stencil_1d: seed 002's stencil_1d. Two changes, both needed to compile or
// to run at other block sizes: the seed's "extern __shared__ float
// smem[BLOCK_SIZE + 2 * RADIUS]" gave an extern array a size (the launch
// passes (blockDim.x + 2*RADIUS)*sizeof(float) bytes instead), and
// BLOCK_SIZE (256) is blockDim.x, the same at the seed's launch.
// Launch: ceil(N/B) blocks of B >= RADIUS threads.
#define RADIUS 3

extern "C" __global__ void stencil_1d(const float *input, float *output, int N)
{
    extern __shared__ float smem[];
    int BLOCK_SIZE = blockDim.x;
    int tid        = threadIdx.x;
    int global_idx = blockIdx.x * BLOCK_SIZE + tid;
    int smem_idx   = tid + RADIUS;

    // centre
    if (global_idx < N)
        smem[smem_idx] = input[global_idx];

    // left halo
    if (tid < RADIUS && global_idx >= RADIUS)
        smem[smem_idx - RADIUS] = input[global_idx - RADIUS];

    // right halo
    if (tid >= BLOCK_SIZE - RADIUS && (global_idx + RADIUS) < N)
        smem[smem_idx + RADIUS] = input[global_idx + RADIUS];

    __syncthreads();

    // interior outputs only
    if (global_idx >= RADIUS && global_idx < N - RADIUS) {
        float sum = 0.0f;
        for (int j = -RADIUS; j <= RADIUS; ++j)
            sum += smem[smem_idx + j];
        output[global_idx] = sum / (2 * RADIUS + 1);
    }
}
