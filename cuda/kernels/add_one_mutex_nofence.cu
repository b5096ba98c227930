// add_one_mutex_nofence (faulty): add_one_mutex without its __threadfence
// calls. The lock still excludes, but nothing orders one holder's write of
// x[0] before the next holder's read: a data race on x[0].
__device__ void lock_nofence(unsigned long long *mutex)
{
    while (atomicCAS(mutex, 0ULL, 1ULL) != 0ULL) {
    }
}

__device__ void unlock_nofence(unsigned long long *mutex)
{
    atomicExch(mutex, 0ULL);
}

extern "C" __global__ void add_one_mutex_nofence(double *x, unsigned long long *mutex)
{
    lock_nofence(mutex);
    x[0] += 1;
    unlock_nofence(mutex);
}
