// add_one_atomic: seed 003, Numba example 4.2 (cuda.atomic.add). Launched
// <<<10, 16>>>: x[0] grows by exactly 160. atomicAdd on double needs sm_60.
extern "C" __global__ void add_one_atomic(double *x)
{
    atomicAdd(&x[0], 1.0);
}
