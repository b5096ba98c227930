package kernels

import (
	"math"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Histograms from seeds 000, 003 and 004: every bin update is an atomicAdd,
// into a per-block shared histogram that is then merged into global memory
// (histogram_shared256, histogram_text_shared) or straight into global
// memory (histogram_text, histogram_mod16).

// ---- seed 000: shared-memory histogram, 256 bins ----

const sharedHistBins = 256

// HistogramShared256 is the seed's
//
//	extern "C" __global__ void histogram(const int *data, int *hist, int N, int nbins)
//
// with its dynamic shared s_hist of nbins ints: zero s_hist, barrier, one
// atomicAdd per in-range element into s_hist, barrier, then each thread
// merges a strided share of the bins into hist with atomicAdd.
func HistogramShared256(data, hist *sim.Buffer[int32], N, nbins int) sim.Kernel {
	return func(t *sim.Thread) {
		s_hist := sim.DynamicShared[int32](t, "s_hist")
		tid := t.ThreadIdx.X
		gid := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		for i := tid; i < nbins; i += t.BlockDim.X {
			s_hist.Store(t, i, 0)
		}
		t.SyncThreads()
		if gid < N {
			bin := int(data.Load(t, gid))
			if bin >= 0 && bin < nbins {
				sim.AtomicAdd(t, s_hist, bin, 1)
			}
		}
		t.SyncThreads()
		for i := tid; i < nbins; i += t.BlockDim.X {
			sim.AtomicAdd(t, hist, i, s_hist.Load(t, i))
		}
	}
}

var histogramShared256 = register(&Kernel{
	Name: "histogram_shared256",
	Doc: `Shared-memory histogram of int32 data into 256 bins; out-of-range values are skipped.

Seed 000's CuPy RawKernel "histogram": each block zeroes a dynamic shared
s_hist[nbins], counts its elements into it with atomicAdd, then merges it into
the global histogram with one atomicAdd per bin. Launch: ceil(N/256) blocks of
256 threads, nbins*4 bytes of dynamic shared memory. Case: Inputs[0] []int32
data; Result: []int32 hist[256].`,
	Seed:      "000",
	Funcs:     []any{HistogramShared256},
	Run:       runHistogramShared256,
	Reference: func(c Case) Result { return Result{histCount(c.Inputs[0].([]int32), sharedHistBins)} },
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: orDefault(block, 256), Inputs: []any{genBins(r, n, sharedHistBins, true)}}
	},
	SeedN: 10_000_000,
})

func runHistogramShared256(b Backend, c Case) (Result, error) {
	data := c.Inputs[0].([]int32)
	n, block := len(data), orDefault(c.Block, 256)
	return launchOnce(b, HistogramShared256, sim.Dim(cover(n, block)), sim.Dim(block), sharedHistBins*4,
		[]devBuf{input(data), zeroedOutput[int32](sharedHistBins)}, int32(n), int32(sharedHistBins))
}

// histCount counts the values of data in [0, nbins).
func histCount(data []int32, nbins int) []int32 {
	h := make([]int32, nbins)
	for _, v := range data {
		if v >= 0 && int(v) < nbins {
			h[v]++
		}
	}
	return h
}

// genBins returns n int32 values, mostly in [0, nbins); with outside set,
// about one in eight lies outside: negative, just past the last bin, or at
// the int32 extremes.
func genBins(r *rand.Rand, n, nbins int, outside bool) []int32 {
	d := make([]int32, n)
	for i := range d {
		d[i] = int32(r.IntN(nbins))
		if !outside || r.IntN(8) != 0 {
			continue
		}
		switch r.IntN(5) {
		case 0:
			d[i] = -1 - int32(r.IntN(1000))
		case 1:
			d[i] = int32(nbins + r.IntN(1000))
		case 2:
			d[i] = math.MaxInt32
		case 3:
			d[i] = math.MinInt32
		default:
			d[i] = int32(nbins)
		}
	}
	return d
}

// ---- seed 003: text histogram of 128 ASCII bins (Numba examples 4.3, 4.4) ----

const (
	textBins  = 128
	textBlock = 128 // threads_per_block in the seed
	textGrid  = 32  // blocks_per_grid in the seed's first launch
)

// HistogramTextZeroInit is the seed's kernel_zero_init, a grid-stride
// loop writing zeros (Numba's arr.size becomes the n parameter), as
// histogram_text runs it.
func HistogramTextZeroInit(arr *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			arr.Store(t, i, 0)
		}
	}
}

// HistogramTextSharedZeroInit is the seed's kernel_zero_init as
// histogram_text_shared runs it: the same grid-stride loop of zeros.
func HistogramTextSharedZeroInit(arr *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for i := t.GlobalX(); i < n; i += t.GridStrideX() {
			arr.Store(t, i, 0)
		}
	}
}

// HistogramText is example 4.3's kernel_histogram:
//
//	i = cuda.grid(1); threads_per_grid = cuda.gridsize(1)
//	for iarr in range(i, arr.size, threads_per_grid):
//	    if arr[iarr] < 128: cuda.atomic.add(histo, arr[iarr], 1)
func HistogramText(arr *sim.Buffer[uint8], histo *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		for iarr := t.GlobalX(); iarr < n; iarr += t.GridStrideX() {
			if arr.Load(t, iarr) < textBins {
				sim.AtomicAdd(t, histo, int(arr.Load(t, iarr)), 1)
			}
		}
	}
}

// HistogramTextShared is example 4.4's kernel_histogram_shared: a
// shared histo_local[128] indexed by threadIdx.x (so the block must have
// exactly 128 threads), zeroed, barrier, grid-stride atomics into it,
// barrier, then one global atomicAdd per thread for its bin.
func HistogramTextShared(arr *sim.Buffer[uint8], histo *sim.Buffer[uint64], n int) sim.Kernel {
	return func(t *sim.Thread) {
		histo_local := sim.Shared[uint64](t, "histo_local", textBins)
		histo_local.Store(t, t.ThreadIdx.X, 0)
		t.SyncThreads()
		for iarr := t.GlobalX(); iarr < n; iarr += t.GridStrideX() {
			if arr.Load(t, iarr) < textBins {
				sim.AtomicAdd(t, histo_local, int(arr.Load(t, iarr)), 1)
			}
		}
		t.SyncThreads()
		sim.AtomicAdd(t, histo, t.ThreadIdx.X, histo_local.Load(t, t.ThreadIdx.X))
	}
}

var histogramText = register(&Kernel{
	Name: "histogram_text",
	Doc: `Histogram of the 128 ASCII bins of a uint8 text, grid-stride loop, global atomicAdd.

Seed 003, Numba example 4.3 (kernel_histogram), with kernel_zero_init run
first on 1 block of 128 threads. Bytes >= 128 are skipped. Numba's histogram
was int64; CUDA has no atomicAdd on signed 64-bit integers, so the bins are
uint64 (unsigned long long) in Go and CUDA alike. Launch: [32, 128] as the
seed's first run (Params[0], if set, overrides the 32 blocks; the seed's
Shakespeare run used 32*80). Case: Inputs[0] []uint8; Result: []uint64 histo[128].`,
	Seed:  "003",
	Funcs: []any{HistogramTextZeroInit, HistogramText},
	Run: func(b Backend, c Case) (Result, error) {
		return runHistogramText(b, c, HistogramTextZeroInit, HistogramText)
	},
	Reference: referenceHistogramText,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: orDefault(block, textBlock), Inputs: []any{genText(r, n)}}
	},
	SeedN: 5_757_359,
})

var histogramTextShared = register(&Kernel{
	Name: "histogram_text_shared",
	Doc: `Text histogram of 128 ASCII bins with a per-block shared histogram merged by atomicAdd.

Seed 003, Numba example 4.4 (kernel_histogram_shared). The shared
histo_local[128] is indexed by threadIdx.x, so blocks must have exactly 128
threads. Bins are uint64 for the reason histogram_text gives. Launch: [32, 128]
(Params[0] overrides the grid). Case: Inputs[0] []uint8; Result: []uint64 histo[128].`,
	Seed:  "003",
	Funcs: []any{HistogramTextSharedZeroInit, HistogramTextShared},
	Run: func(b Backend, c Case) (Result, error) {
		return runHistogramText(b, c, HistogramTextSharedZeroInit, HistogramTextShared)
	},
	Reference: referenceHistogramText,
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: textBlock, Inputs: []any{genText(r, n)}}
	},
	Blocks: []int{textBlock},
	SeedN:  5_757_359,
})

func runHistogramText(b Backend, c Case, zero, kern any) (Result, error) {
	arr := c.Inputs[0].([]uint8)
	block, grid := orDefault(c.Block, textBlock), textGrid
	if len(c.Params) > 0 && c.Params[0] > 0 {
		grid = c.Params[0]
	}
	return runBuffers(b, []devBuf{input(arr), output[uint64](textBins)}, func(m []Mem) error {
		dArr, histo := m[0], m[1]
		// kernel_zero_init[1, 128](histo_gpu)
		if err := b.Launch(zero, sim.Dim(1), sim.Dim(textBins), 0, histo, int32(textBins)); err != nil {
			return err
		}
		return b.Launch(kern, sim.Dim(grid), sim.Dim(block), 0, dArr, histo, int32(len(arr)))
	})
}

// referenceHistogramText is the seed's histogram_cpu.
func referenceHistogramText(c Case) Result {
	h := make([]uint64, textBins)
	for _, ch := range c.Inputs[0].([]uint8) {
		if ch < textBins {
			h[ch]++
		}
	}
	return Result{h}
}

// genText returns n bytes: mostly printable ASCII and lower-case letters (a
// skewed distribution, as natural text is), with zeros, control characters
// and bytes >= 128 (UTF-8 continuation bytes) mixed in.
func genText(r *rand.Rand, n int) []uint8 {
	d := make([]uint8, n)
	for i := range d {
		switch k := r.IntN(10); {
		case k < 5:
			d[i] = 'a' + uint8(r.IntN(26))
		case k < 8:
			d[i] = uint8(32 + r.IntN(95))
		case k < 9:
			d[i] = uint8(128 + r.IntN(128))
		default:
			d[i] = uint8(r.IntN(32))
		}
	}
	return d
}

// ---- seed 004: histogram with bin = input % 16 ----

const mod16Bins = 16

// HistogramMod16 is seed 004's
//
//	__global__ void histogram(int *input, int *hist, int n) {
//	    int idx = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (idx < n) { int bin = input[idx] % 16; atomicAdd(&hist[bin], 1); }
//	}
//
// Go's % truncates toward zero as C's does, so a negative input gives a
// negative bin and the atomicAdd falls outside hist.
func HistogramMod16(input, hist *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < n {
			bin := input.Load(t, idx) % mod16Bins
			sim.AtomicAdd(t, hist, int(bin), 1)
		}
	}
}

// HistogramMod16Negative is the same kernel as HistogramMod16, the entry
// point of histogram_mod16_negative, which runs it on negative input.
func HistogramMod16Negative(input, hist *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		idx := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if idx < n {
			bin := input.Load(t, idx) % mod16Bins
			sim.AtomicAdd(t, hist, int(bin), 1)
		}
	}
}

// mod16Kernel is the registry entry of seed 004's histogram kernel fn,
// on input that is all non-negative or, with negative, not.
func mod16Kernel(name, doc string, fn any, negative bool) *Kernel {
	return &Kernel{
		Name:      name,
		Doc:       doc,
		Seed:      "004",
		Funcs:     []any{fn},
		Run:       func(b Backend, c Case) (Result, error) { return runHistogramMod16(b, c, fn) },
		Reference: referenceMod16,
		Generate: func(r *rand.Rand, n, block int) Case {
			return Case{N: n, Block: orDefault(block, 256), Inputs: []any{genMod16(r, n, negative)}}
		},
		SeedN: 1 << 20,
	}
}

var histogramMod16 = register(mod16Kernel("histogram_mod16",
	`Histogram of non-negative int32 input into 16 bins by input % 16, global atomicAdd.

Seed 004's "histogram" kernel, one element per thread. Its bin is only in
range for non-negative input (C's % of a negative int is negative); the
generator keeps to that, and histogram_mod16_negative shows what happens
otherwise. Case: Inputs[0] []int32; Result: []int32 hist[16].`,
	HistogramMod16, false))

var histogramMod16Negative = register(faulty(mod16Kernel("histogram_mod16_negative",
	`Faulty: histogram_mod16 on input with negative values, whose negative bin is out of bounds.

The same kernel as histogram_mod16; the generator mixes in negative values
(at least one that is not a multiple of 16), so input % 16 is negative and
atomicAdd(&hist[bin], 1) writes before the start of hist. On a GPU that is a
silent memory corruption; the simulator reports OutOfBounds.`,
	HistogramMod16Negative, true), "histogram_mod16", sim.OutOfBounds))

func runHistogramMod16(b Backend, c Case, fn any) (Result, error) {
	in := c.Inputs[0].([]int32)
	n, block := len(in), orDefault(c.Block, 256)
	return launchOnce(b, fn, sim.Dim(cover(n, block)), sim.Dim(block), 0,
		[]devBuf{input(in), zeroedOutput[int32](mod16Bins)}, int32(n))
}

// referenceMod16 counts input % 16 for the values whose bin is in range
// (all of them, for the correct kernel's input).
func referenceMod16(c Case) Result {
	h := make([]int32, mod16Bins)
	for _, v := range c.Inputs[0].([]int32) {
		if bin := v % mod16Bins; bin >= 0 {
			h[bin]++
		}
	}
	return Result{h}
}

// genMod16 returns n int32 values from 0 to MaxInt32 (small ones, multiples
// of 16, the maximum); with negative set, about a quarter are negative, and
// one of them, -1, is always present.
func genMod16(r *rand.Rand, n int, negative bool) []int32 {
	d := make([]int32, n)
	for i := range d {
		switch r.IntN(4) {
		case 0:
			d[i] = int32(r.IntN(64))
		case 1:
			d[i] = int32(16 * r.IntN(1000))
		case 2:
			d[i] = math.MaxInt32 - int32(r.IntN(16))
		default:
			d[i] = r.Int32()
		}
		if negative && r.IntN(4) == 0 {
			d[i] = -1 - d[i]
		}
	}
	if negative && n > 0 {
		d[r.IntN(n)] = -1
	}
	return d
}
