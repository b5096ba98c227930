// add_one (faulty): seed 003, Numba example 4.1, written from the Go kernel.
// Launched <<<10, 16>>>: 160 threads read-modify-write x[0] without
// synchronisation, a data race; the result is usually far below 160.
extern "C" __global__ void add_one(double *x)
{
    x[0] = x[0] + 1;
}
