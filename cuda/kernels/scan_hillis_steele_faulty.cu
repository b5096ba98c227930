// scan_hillis_steele_faulty (faulty): the Hillis-Steele scan without double
// buffering. In each step thread tid reads temp[tid - stride] while thread
// tid - stride may already have overwritten it: a shared-memory race.
// Launch: <<<1, n>>>, n <= N.
#define N 1024

extern "C" __global__ void scan_hillis_steele_faulty(int *input, int *output, int n)
{
    __shared__ int temp[N];
    int tid = threadIdx.x;

    temp[tid] = (tid < n) ? input[tid] : 0;
    __syncthreads();

    for (int stride = 1; stride < n; stride *= 2) {
        if (tid >= stride)
            temp[tid] += temp[tid - stride];
        __syncthreads();
    }
    output[tid] = temp[tid];
}
