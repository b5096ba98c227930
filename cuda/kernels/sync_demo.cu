// sync_demo: seed 004's sync_demo. Launch: <<<1, n>>>, n <= 256.
extern "C" __global__ void sync_demo(int *data)
{
    __shared__ int shared_buf[256];
    int tid = threadIdx.x;

    // Phase 1: every thread writes its slot.
    shared_buf[tid] = tid * 2;
    // Required: all slots written before any is read.
    __syncthreads();

    // Phase 2: read the neighbour's slot.
    int neighbor = (tid + 1) % blockDim.x;
    data[tid] = shared_buf[neighbor];
}
