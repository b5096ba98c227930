// barrier_divergent_faulty (faulty): a __syncthreads() that only threads
// 0..15 reach, breaking seed 004's rule that every thread of the block must
// reach it. Undefined behaviour: it may hang or pass silently.
// Launch: <<<1, n>>>, n > 16.
extern "C" __global__ void barrier_divergent_faulty(int *x)
{
    if (threadIdx.x < 16)
        __syncthreads();
    x[threadIdx.x] = 1;
}
