// add_one_mutex: seed 003, Numba example 4.5, written from the Go kernel. A
// spin lock on a zeroed unsigned long long word: atomicCAS to take it,
// __threadfence after taking and before releasing, atomicExch to release.
// Spinning within a warp needs independent thread scheduling (sm_70+).
// Launched <<<10, 16>>>: x[0] grows by exactly 160.
__device__ void lock(unsigned long long *mutex)
{
    while (atomicCAS(mutex, 0ULL, 1ULL) != 0ULL) {
    }
    __threadfence();
}

__device__ void unlock(unsigned long long *mutex)
{
    __threadfence();
    atomicExch(mutex, 0ULL);
}

extern "C" __global__ void add_one_mutex(double *x, unsigned long long *mutex)
{
    lock(mutex);
    x[0] += 1;
    unlock(mutex);
}
