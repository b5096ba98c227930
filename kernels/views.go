package kernels

import (
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Kernels of sim's views and value types: vector loads through a
// reinterpreted buffer, binary16 inputs packed in 32-bit words, and dynamic
// shared memory carved into two typed arrays. Their host-visible buffers
// are float32, int32 and uint32; the other types live on the device only.

// Float4Axpy is y = a*x + y on float32, the first n/4*4 elements as float4
// (one 16-byte load of x, one of y and one store per thread, through
// Reinterpret views), the n%4 tail by threads 0..n%4-1 one float each. The
// product is rounded before the add (float32(a*x) + y), so no FMA.
func Float4Axpy(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		x4 := sim.Reinterpret[sim.Float4](x)
		y4 := sim.Reinterpret[sim.Float4](y)
		n4 := n / 4
		i := t.GlobalX()
		if i < n4 {
			xv := x4.Load(t, i)
			yv := y4.Load(t, i)
			y4.Store(t, i, sim.MakeFloat4(float32(a*xv.X)+yv.X, float32(a*xv.Y)+yv.Y, float32(a*xv.Z)+yv.Z, float32(a*xv.W)+yv.W))
		}
		if i < n-n4*4 {
			j := n4*4 + i
			y.Store(t, j, float32(a*x.Load(t, j))+y.Load(t, j))
		}
	}
}

func axpyRef(c Case) Result {
	x, y, a := f32s(c, 0), append([]float32(nil), f32s(c, 1)...), f32s(c, 2)[0]
	for i := range y {
		y[i] = float32(a*x[i]) + y[i]
	}
	return Result{y}
}

var float4Axpy = register(&Kernel{
	Name: "float4_axpy",
	Doc: "float4_axpy: y = a*x + y on float32, loaded and stored as float4 through reinterpreted views.\n\n" +
		"N elements (Inputs: x, y, and a as a one-element slice); n/4 threads move a float4 each and the\n" +
		"first n%4 also one tail float. The product is rounded before the add, so the result is exact.",
	Funcs: []any{Float4Axpy},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		return launchOnce(b, Float4Axpy, sim.Dim(cover(max(c.N/4, c.N%4), block)), sim.Dim(block), 0,
			[]devBuf{input(f32s(c, 0)), inOut(f32s(c, 1))}, f32s(c, 2)[0], int32(c.N))
	},
	Reference: axpyRef,
	Generate: func(r *rand.Rand, n, block int) Case {
		// |a| < 4 and |x|, |y| < 1e18: no overflow, so no NaN whose bits differ.
		return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e18), randF32s(r, n, 1, 1e18), []float32{float32(8*r.Float64() - 4)}}}
	},
	SeedN: 1 << 20,
})

// HalfDot is a dot product of two binary16 vectors of n elements, each held
// two per uint32 word (element 2k in the low half), read through
// Reinterpret[sim.Half] views. Each thread sums its grid-stride products in
// float32 (a product of two halves is exact in float32), the block sums
// them with a halving tree in shared memory, and thread 0 writes the
// block's partial sum.
func HalfDot(a, b *sim.Buffer[uint32], partial *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s_block := sim.Shared[float32](t, "s_block", dotThreads)
		ah := sim.Reinterpret[sim.Half](a)
		bh := sim.Reinterpret[sim.Half](b)
		var s float32
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			s += sim.Half2Float(ah.Load(t, i)) * sim.Half2Float(bh.Load(t, i))
		}
		tid := t.ThreadIdx.X
		s_block.Store(t, tid, s)
		t.SyncThreads()
		for i := t.BlockDim.X / 2; i > 0; i /= 2 {
			if tid < i {
				s_block.Store(t, tid, s_block.Load(t, tid)+s_block.Load(t, tid+i))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			partial.Store(t, t.BlockIdx.X, s_block.Load(t, 0))
		}
	}
}

// halfAt is element i of halves packed two per word.
func halfAt(w []uint32, i int) float32 {
	return sim.Half2Float(sim.UshortAsHalf(uint16(w[i/2] >> (16 * (i % 2)))))
}

// treeSum replays a block's halving tree over s (len a power of two).
func treeSum[T float32 | int32](s []T) T {
	for i := len(s) / 2; i > 0; i /= 2 {
		for tid := range i {
			s[tid] += s[tid+i]
		}
	}
	return s[0]
}

func halfDotRef(c Case) Result {
	a, b := c.Inputs[0].([]uint32), c.Inputs[1].([]uint32)
	block := orDefault(c.Block, dotThreads)
	grid := dotGrid(c.N, block)
	out := make([]float32, grid)
	for blk := range grid {
		s := make([]float32, block)
		for tid := range block {
			for i := blk*block + tid; i < c.N; i += grid * block {
				s[tid] += halfAt(a, i) * halfAt(b, i)
			}
		}
		out[blk] = treeSum(s)
	}
	return Result{out}
}

// randHalves is n binary16 values (randF32 below 6e4, so finite) packed two
// per word.
func randHalves(r *rand.Rand, n int) []uint32 {
	w := make([]uint32, cover(n, 2))
	for i := range n {
		h := sim.HalfAsUshort(sim.Float2Half(randF32(r, 4, 6e4)))
		w[i/2] |= uint32(h) << (16 * (i % 2))
	}
	return w
}

var halfDot = register(&Kernel{
	Name: "half_dot",
	Doc: "half_dot: per-block partial dot products of two binary16 vectors, accumulated in float32.\n\n" +
		"N halves per input, packed two per uint32 and read through Reinterpret[Half] views; a\n" +
		"grid-stride float32 sum per thread, a halving tree per block (power-of-two blocks up to 256).\n" +
		"The reference replays the kernel's order, so the partial sums are exact.",
	Funcs: []any{HalfDot},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, dotThreads)
		grid := dotGrid(c.N, block)
		return launchOnce(b, HalfDot, sim.Dim(grid), sim.Dim(block), 0,
			[]devBuf{input(c.Inputs[0].([]uint32)), input(c.Inputs[1].([]uint32)), output[float32](grid)}, int32(c.N))
	},
	Reference: halfDotRef,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randHalves(r, n), randHalves(r, n)}}
	},
	Blocks: dotBlocks,
	SeedN:  1 << 20,
})

// CarvedShared sums each block's elements and counts its positive ones,
// with the block's dynamic shared memory (8 bytes per thread, declared as
// bytes) carved into a float32 array and an int32 array behind it
// (`float *vals = (float *)smem; int *cnts = (int *)&smem[4*blockDim.x];`),
// both reduced by one halving tree. Thread 0 writes sums[block] and
// counts[block].
func CarvedShared(in, sums *sim.Buffer[float32], counts *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		smem := sim.DynamicShared[uint8](t, "smem")
		nb := t.BlockDim.X
		vals := sim.Reinterpret[float32](smem)
		cnts := sim.Reinterpret[int32](smem.Offset(4 * nb))
		tid := t.ThreadIdx.X
		var v float32
		if i := t.GlobalX(); i < n {
			v = in.Load(t, i)
		}
		var c int32
		if v > 0 {
			c = 1
		}
		vals.Store(t, tid, v)
		cnts.Store(t, tid, c)
		t.SyncThreads()
		for i := nb / 2; i > 0; i /= 2 {
			if tid < i {
				vals.Store(t, tid, vals.Load(t, tid)+vals.Load(t, tid+i))
				cnts.Store(t, tid, cnts.Load(t, tid)+cnts.Load(t, tid+i))
			}
			t.SyncThreads()
		}
		if tid == 0 {
			sums.Store(t, t.BlockIdx.X, vals.Load(t, 0))
			counts.Store(t, t.BlockIdx.X, cnts.Load(t, 0))
		}
	}
}

func carvedRef(c Case) Result {
	in := f32s(c, 0)
	block := orDefault(c.Block, 256)
	grid := cover(c.N, block)
	sums, counts := make([]float32, grid), make([]int32, grid)
	for blk := range grid {
		v, k := make([]float32, block), make([]int32, block)
		for tid := range block {
			if i := blk*block + tid; i < c.N {
				v[tid] = in[i]
				if in[i] > 0 {
					k[tid] = 1
				}
			}
		}
		sums[blk], counts[blk] = treeSum(v), treeSum(k)
	}
	return Result{sums, counts}
}

var carvedShared = register(&Kernel{
	Name: "carved_shared",
	Doc: "carved_shared: per-block sum and count of positives, in dynamic shared memory carved into two arrays.\n\n" +
		"N float32 elements; DynamicShared[uint8] of 8 bytes per thread viewed as float32 and, behind\n" +
		"it, int32 (Reinterpret and Offset); one halving tree over both (power-of-two blocks). The\n" +
		"reference replays the tree, so both results are exact.",
	Funcs: []any{CarvedShared},
	Run: func(b Backend, c Case) (Result, error) {
		block := orDefault(c.Block, 256)
		grid := cover(c.N, block)
		return launchOnce(b, CarvedShared, sim.Dim(grid), sim.Dim(block), 8*block,
			[]devBuf{input(f32s(c, 0)), output[float32](grid), output[int32](grid)}, int32(c.N))
	},
	Reference: carvedRef,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: block, Inputs: []any{randF32s(r, n, 1, 1e18)}}
	},
	Blocks: []int{32, 64, 128, 256, 512, 1024},
	SeedN:  1 << 20,
})
