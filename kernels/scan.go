package kernels

import (
	"fmt"
	"math/rand/v2"

	"github.com/gpusim/gpusim/sim"
)

// Prefix sums. Seed 004's Hillis-Steele inclusive scan runs in one block of
// n threads over a double-buffered shared array; the faulty variant drops the
// double buffer and races. scan_exclusive extends it to any n: per-block
// scans, a scan of the block sums (recursively), and a pass adding the
// scanned sums back.

// hillisSteeleN is the seed's #define N: the shared buffers' length and so
// the largest n (one thread per element, one block). The seed sets it to 16,
// its problem size; here it is the largest block.
const hillisSteeleN = 1024

// ScanHillisSteele is the seed's
//
//	__global__ void hillis_steele_scan(int *input, int *output, int n) {
//	    __shared__ int temp[2][N];
//	    ...
//	}
//
// with temp[p][i] at temp[p*N + i].
func ScanHillisSteele(input, output *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		temp := sim.Shared[int32](t, "temp", 2*hillisSteeleN)
		tid := t.ThreadIdx.X
		var v int32
		if tid < n {
			v = input.Load(t, tid)
		}
		temp.Store(t, tid, v)
		t.SyncThreads()
		parity := 0
		for stride := 1; stride < n; stride *= 2 {
			if tid >= stride {
				temp.Store(t, (1-parity)*hillisSteeleN+tid, temp.Load(t, parity*hillisSteeleN+tid)+temp.Load(t, parity*hillisSteeleN+tid-stride))
			} else {
				temp.Store(t, (1-parity)*hillisSteeleN+tid, temp.Load(t, parity*hillisSteeleN+tid))
			}
			parity = 1 - parity
			t.SyncThreads()
		}
		output.Store(t, tid, temp.Load(t, parity*hillisSteeleN+tid))
	}
}

// ScanHillisSteeleFaulty scans in place:
//
//	if (tid >= stride) temp[tid] += temp[tid - stride];
//	__syncthreads();
//
// Thread tid reads temp[tid-stride] in the same barrier phase in which
// thread tid-stride writes it, so the result depends on the order.
func ScanHillisSteeleFaulty(input, output *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		temp := sim.Shared[int32](t, "temp", hillisSteeleN)
		tid := t.ThreadIdx.X
		var v int32
		if tid < n {
			v = input.Load(t, tid)
		}
		temp.Store(t, tid, v)
		t.SyncThreads()
		for stride := 1; stride < n; stride *= 2 {
			if tid >= stride {
				temp.Store(t, tid, temp.Load(t, tid)+temp.Load(t, tid-stride))
			}
			t.SyncThreads()
		}
		output.Store(t, tid, temp.Load(t, tid))
	}
}

const hillisSteeleCaseDoc = `
Launch: <<<1, n>>> with n <= 1024 (the seed: N = 16); the block is the
problem size, so Generate takes n from its block argument when that is set.
Case: Inputs[0] []int32 (bounded so that no partial sum overflows); Result:
[]int32 inclusive prefix sums.`

var scanHillisSteele = register(&Kernel{
	Name: "scan_hillis_steele",
	Doc: `Hillis-Steele inclusive scan of int32 in one block, double-buffered in shared memory.

Seed 004's hillis_steele_scan: log2(n) steps, each reading temp[parity] and
writing temp[1-parity], with a barrier between steps.` + hillisSteeleCaseDoc,
	Seed:      "004",
	Funcs:     []any{ScanHillisSteele},
	Run:       func(b Backend, c Case) (Result, error) { return runHillisSteele(b, c, ScanHillisSteele) },
	Reference: referenceInclusiveScan,
	Generate:  func(r *rand.Rand, n, block int) Case { return generateHillisSteele(r, n, block, 1) },
	Blocks:    []int{1, 2, 16, 31, 32, 100, 256, 1000, 1024},
	SeedN:     16,
})

var scanHillisSteeleFaulty = register(&Kernel{
	Name: "scan_hillis_steele_faulty",
	Doc: `Faulty: Hillis-Steele scan without double buffering, updating temp in place: a shared-memory race.

In each step thread tid reads temp[tid-stride] while thread tid-stride
updates it, with no barrier between them. The first step races once some
thread both updates its slot and is read (n >= 3); Generate makes n >= 8,
where the detector reports it under every schedule (its shadow keeps one
read per element, so at n = 3 or 4 some orders hide the racing read).` + hillisSteeleCaseDoc,
	Seed:      "004",
	Funcs:     []any{ScanHillisSteeleFaulty},
	Run:       func(b Backend, c Case) (Result, error) { return runHillisSteele(b, c, ScanHillisSteeleFaulty) },
	Reference: referenceInclusiveScan,
	Generate:  func(r *rand.Rand, n, block int) Case { return generateHillisSteele(r, n, block, 8) },
	Blocks:    []int{8, 16, 32, 100, 256, 1024},
	SeedN:     16,
	Faulty:    true,
	Expect:    []sim.Kind{sim.DataRace},
	FixedBy:   "scan_hillis_steele",
})

func runHillisSteele(b Backend, c Case, fn any) (Result, error) {
	in := c.Inputs[0].([]int32)
	n := len(in)
	if n < 1 || n > hillisSteeleN {
		return nil, fmt.Errorf("%s: n = %d, want 1..%d (one block of n threads)", KernelName(fn), n, hillisSteeleN)
	}
	return launchOnce(b, fn, sim.Dim(1), sim.Dim(n), 0, []devBuf{input(in), output[int32](n)}, int32(n))
}

func referenceInclusiveScan(c Case) Result {
	in := c.Inputs[0].([]int32)
	out := make([]int32, len(in))
	var s int32
	for i, v := range in {
		s += v
		out[i] = s
	}
	return Result{out}
}

func generateHillisSteele(r *rand.Rand, n, block, least int) Case {
	if block != 0 {
		n = block
	}
	n = min(max(n, least), hillisSteeleN)
	return Case{N: n, Block: n, Inputs: []any{genScanInput(r, n)}}
}

// genScanInput returns n int32 values of either sign, zeros among them, as
// large as they can be while no prefix sum leaves int32 (signed overflow is
// undefined in C).
func genScanInput(r *rand.Rand, n int) []int32 {
	bound := int64(1<<31-1) / int64(max(n, 1))
	bound = min(bound, 1<<24)
	d := make([]int32, n)
	for i := range d {
		switch r.IntN(6) {
		case 0:
			d[i] = 0
		case 1:
			d[i] = int32(bound)
		case 2:
			d[i] = int32(-bound)
		case 3:
			d[i] = int32(r.IntN(10))
		default:
			d[i] = int32(r.Int64N(2*bound+1) - bound)
		}
	}
	return d
}

// ---- multi-block exclusive scan ----

// ScanExclusiveBlock scans each block's blockDim.x elements with the
// double-buffered Hillis-Steele of scan_hillis_steele, over a dynamic shared
// temp[2*blockDim.x]; it writes the exclusive scan (inclusive minus the
// element) to out and the block's total to sums[blockIdx.x].
//
//	__global__ void scan_exclusive_block(const int *in, int *out, int *sums, int n)
func ScanExclusiveBlock(in, out, sums *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		temp := sim.DynamicShared[int32](t, "temp")
		B := t.BlockDim.X
		tid := t.ThreadIdx.X
		gid := t.BlockIdx.X*B + tid
		var x int32
		if gid < n {
			x = in.Load(t, gid)
		}
		temp.Store(t, tid, x)
		t.SyncThreads()
		p := 0
		for stride := 1; stride < B; stride *= 2 {
			if tid >= stride {
				temp.Store(t, (1-p)*B+tid, temp.Load(t, p*B+tid)+temp.Load(t, p*B+tid-stride))
			} else {
				temp.Store(t, (1-p)*B+tid, temp.Load(t, p*B+tid))
			}
			p = 1 - p
			t.SyncThreads()
		}
		incl := temp.Load(t, p*B+tid)
		if gid < n {
			out.Store(t, gid, incl-x)
		}
		if tid == B-1 {
			sums.Store(t, t.BlockIdx.X, incl)
		}
	}
}

// ScanExclusiveAdd adds each block's scanned offset to its elements:
//
//	__global__ void scan_exclusive_add(int *out, const int *offsets, int n)
func ScanExclusiveAdd(out, offsets *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		gid := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if gid < n {
			out.Store(t, gid, out.Load(t, gid)+offsets.Load(t, t.BlockIdx.X))
		}
	}
}

var scanExclusive = register(&Kernel{
	Name: "scan_exclusive",
	Doc: `Multi-block exclusive scan of int32: per-block Hillis-Steele scans, a scan of the block sums, then adding them back.

Not a seed kernel as such: seed 004's scan for any n, as the radix sort of
seed 001 needs (see ScanExclusive). scan_exclusive_block scans each block with
the double-buffered Hillis-Steele over 2*block ints of dynamic shared memory
and writes the block totals; the driver scans the totals the same way
(recursing while they span more than one block) and scan_exclusive_add adds
them back. Case: Inputs[0] []int32 (bounded so that no partial sum
overflows); Result: []int32 exclusive prefix sums (out[0] = 0).`,
	Seed:  "004",
	Funcs: []any{ScanExclusiveBlock, ScanExclusiveAdd},
	Run: func(b Backend, c Case) (Result, error) {
		in := c.Inputs[0].([]int32)
		return runBuffers(b, []devBuf{input(in), output[int32](len(in))}, func(m []Mem) error {
			return ScanExclusive(b, m[0], m[1], len(in), orDefault(c.Block, 256))
		})
	},
	Reference: func(c Case) Result {
		in := c.Inputs[0].([]int32)
		out := make([]int32, len(in))
		var s int32
		for i, v := range in {
			out[i] = s
			s += v
		}
		return Result{out}
	},
	Generate: func(r *rand.Rand, n, block int) Case {
		return Case{N: n, Block: orDefault(block, 256), Inputs: []any{genScanInput(r, n)}}
	},
	SeedN: 1 << 20,
})

// ScanExclusive writes the exclusive prefix sums of the n int32 elements of
// in to out (both Int32 buffers of at least n elements) on b, with blocks of
// block threads: the scan_exclusive kernel's device part, for drivers that
// need a scan (radix sort's digit offsets).
func ScanExclusive(b Backend, in, out Mem, n, block int) error {
	if block < 2 {
		return fmt.Errorf("ScanExclusive: block of %d threads cannot reduce the block sums", block)
	}
	if n == 0 {
		return nil
	}
	nb := cover(n, block)
	sums, err := b.Alloc(Int32, nb)
	if err != nil {
		return err
	}
	defer b.Free(sums)
	if err := b.Launch(ScanExclusiveBlock, sim.Dim(nb), sim.Dim(block), 2*block*4, in, out, sums, int32(n)); err != nil {
		return err
	}
	if nb == 1 {
		return nil
	}
	offsets, err := b.Alloc(Int32, nb)
	if err != nil {
		return err
	}
	defer b.Free(offsets)
	if err := ScanExclusive(b, sums, offsets, nb, block); err != nil {
		return err
	}
	return b.Launch(ScanExclusiveAdd, sim.Dim(nb), sim.Dim(block), 0, out, offsets, int32(n))
}
