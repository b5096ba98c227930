// matmul_naive: seed 004's naive matrix multiply, one thread per element of C.
extern "C" __global__ void matmul_naive(float *A, float *B, float *C,
                                        int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum = fmaf(A[row * K + k], B[k * N + col], sum); // fused, as the Go kernel; holds under -fmad=false
        }
        C[row * N + col] = sum;
    }
}
