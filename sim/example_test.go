package sim_test

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// vectorAdd is the CUDA kernel
//
//	__global__ void add(const float *a, const float *b, float *c, int n) {
//	    int i = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (i < n) c[i] = a[i] + b[i];
//	}
func vectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			c.Store(t, i, a.Load(t, i)+b.Load(t, i))
		}
	}
}

func Example_vectorAdd() {
	dev := sim.NewDevice(sim.H100)
	const n = 1000
	ha, hb := make([]float32, n), make([]float32, n)
	for i := range ha {
		ha[i], hb[i] = float32(i), float32(2*i)
	}
	a, _ := sim.FromHost(dev, "a", ha)
	b, _ := sim.FromHost(dev, "b", hb)
	c, _ := sim.Alloc[float32](dev, "c", n)

	const threads = 256
	cfg := sim.Config{Grid: sim.Dim((n + threads - 1) / threads), Block: sim.Dim(threads)}
	if err := dev.Launch(cfg, vectorAdd(a, b, c, n)); err != nil {
		fmt.Println(err)
		return
	}
	out := c.ToHost()
	fmt.Println(out[0], out[1], out[999])
	// Output: 0 3 2997
}

// reduceSum is the seed's shared-memory tree reduction: each block sums
// blockDim.x elements into out[blockIdx.x].
//
//	__shared__ float s[256];
//	s[tid] = i < n ? in[i] : 0;
//	__syncthreads();
//	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
//	    if (tid < stride) s[tid] += s[tid + stride];
//	    __syncthreads();
//	}
//	if (tid == 0) out[blockIdx.x] = s[0];
func reduceSum(in, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[float32](t, "s", 256)
		tid := t.ThreadIdx.X
		i := t.BlockIdx.X*t.BlockDim.X + tid
		var v float32
		if i < n {
			v = in.Load(t, i)
		}
		s.Store(t, tid, v)
		t.SyncThreads()
		for stride := t.BlockDim.X / 2; stride > 0; stride >>= 1 {
			if tid < stride {
				s.Store(t, tid, s.Load(t, tid)+s.Load(t, tid+stride))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			out.Store(t, t.BlockIdx.X, s.Load(t, 0))
		}
	}
}

func Example_reduction() {
	dev := sim.NewDevice(sim.H100)
	const n, threads = 10000, 256
	blocks := (n + threads - 1) / threads
	host := make([]float32, n)
	for i := range host {
		host[i] = 1
	}
	in, _ := sim.FromHost(dev, "in", host)
	partial, _ := sim.Alloc[float32](dev, "partial", blocks)
	err := dev.Launch(sim.Config{Grid: sim.Dim(blocks), Block: sim.Dim(threads)}, reduceSum(in, partial, n))
	if err != nil {
		fmt.Println(err)
		return
	}
	var sum float32
	for _, p := range partial.ToHost() {
		sum += p
	}
	fmt.Println(blocks, "blocks, sum", sum)
	// Output: 40 blocks, sum 10000
}
