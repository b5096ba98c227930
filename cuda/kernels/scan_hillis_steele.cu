// scan_hillis_steele: seed 004's hillis_steele_scan (renamed), with N, the
// shared buffers' length, raised from the seed's problem size 16 to the
// largest block. Launch: <<<1, n>>>, n <= N.
#define N 1024

extern "C" __global__ void scan_hillis_steele(int *input, int *output, int n)
{
    __shared__ int temp[2][N];
    int tid = threadIdx.x;

    temp[0][tid] = (tid < n) ? input[tid] : 0;
    __syncthreads();

    int parity = 0;
    for (int stride = 1; stride < n; stride *= 2) {
        if (tid >= stride) {
            temp[1 - parity][tid] = temp[parity][tid] + temp[parity][tid - stride];
        } else {
            temp[1 - parity][tid] = temp[parity][tid];
        }
        parity = 1 - parity;
        __syncthreads();
    }
    output[tid] = temp[parity][tid];
}
