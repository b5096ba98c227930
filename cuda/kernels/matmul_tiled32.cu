// matmul_tiled32: seed 000's tiled matrix multiply, 32x32 shared tiles, N a
// multiple of TILE_SIZE. the product-sum is an explicit fmaf, as the Go
// kernel's fma32 does.
#define TILE_SIZE 32

extern "C" __global__ void matmul_tiled(float *A, float *B, float *C, int N)
{
    __shared__ float sA[TILE_SIZE][TILE_SIZE];
    __shared__ float sB[TILE_SIZE][TILE_SIZE];
    int row = blockIdx.y * TILE_SIZE + threadIdx.y;
    int col = blockIdx.x * TILE_SIZE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < N / TILE_SIZE; ++t) {
        // cooperative load into shared memory
        sA[threadIdx.y][threadIdx.x] = A[row * N + t * TILE_SIZE + threadIdx.x];
        sB[threadIdx.y][threadIdx.x] = B[(t * TILE_SIZE + threadIdx.y) * N + col];
        __syncthreads();
        // partial sum over the tile
        for (int k = 0; k < TILE_SIZE; ++k) {
            sum = fmaf(sA[threadIdx.y][k], sB[k][threadIdx.x], sum); // fused, as the Go kernel
        }
        __syncthreads(); // before loading the next pair of tiles
    }
    C[row * N + col] = sum;
}
