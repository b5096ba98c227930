// histogram_shared256: seed 000's CuPy RawKernel "histogram" (renamed to the
// registry name). Launch: ceil(N/256) blocks of 256 threads, nbins*sizeof(int)
// bytes of dynamic shared memory; hist zeroed by the host.
extern "C" __global__ void histogram_shared256(const int *data, int *hist, int N, int nbins)
{
    extern __shared__ int s_hist[];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;

    for (int i = tid; i < nbins; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();

    if (gid < N) {
        int bin = data[gid];
        if (bin >= 0 && bin < nbins)
            atomicAdd(&s_hist[bin], 1);
    }
    __syncthreads();

    for (int i = tid; i < nbins; i += blockDim.x)
        atomicAdd(&hist[i], s_hist[i]);
}
