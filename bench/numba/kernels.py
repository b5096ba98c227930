"""The five kernels of bench/numba for Numba's CUDA simulator.

gpusim/main.go has the same kernels, line for line, and the same inputs.
Import this module with NUMBA_ENABLE_CUDASIM=1 set (bench.py does), or
Numba looks for a real GPU.
"""

import time

import numpy as np
from numba import cuda, float32, int32

N = 1 << 16      # elements of vector add, reduction, histogram
BLOCK = 256      # threads per block of those three
BINS = 256       # histogram bins
MAT_N = 64       # matmul is MAT_N x MAT_N
TILE = 16        # matmul tile (block TILE x TILE)
RACY_GRID, RACY_BLOCK = 10, 16


# The inputs, identical to gpusim/main.go's.

def vec_inputs():
    i = np.arange(N)
    return i.astype(np.float32), (2 * i + 1).astype(np.float32)


def reduce_input():
    return (np.arange(N) % 7 + 1).astype(np.float32)


def hist_input():
    i = np.arange(N, dtype=np.int64)
    return ((i * i * 7 + i * 13 + 5) % BINS).astype(np.int32)


def mat_inputs():
    i = np.arange(MAT_N).reshape(-1, 1)
    j = np.arange(MAT_N).reshape(1, -1)
    a = ((i * 3 + j * 5) % 11 - 5).astype(np.float32)
    b = ((i * 7 + j * 2) % 13 - 6).astype(np.float32)
    return a, b


# The kernels.

@cuda.jit
def vec_add(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]


@cuda.jit
def reduce(inp, out, n):
    sdata = cuda.shared.array(256, float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    v = float32(0)
    if i < n:
        v = inp[i]
    sdata[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] = sdata[tid] + sdata[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        out[cuda.blockIdx.x] = sdata[0]


@cuda.jit
def histogram(inp, out, n):
    sbins = cuda.shared.array(256, int32)
    tid = cuda.threadIdx.x
    sbins[tid] = 0
    cuda.syncthreads()
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    if i < n:
        cuda.atomic.add(sbins, inp[i], 1)
    cuda.syncthreads()
    cuda.atomic.add(out, tid, sbins[tid])


@cuda.jit
def add_one(a):
    a[0] = a[0] + 1  # a data race: plain load and store from every thread


@cuda.jit
def matmul(a, b, c):
    sA = cuda.shared.array((16, 16), float32)
    sB = cuda.shared.array((16, 16), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 16 + ty
    col = cuda.blockIdx.x * 16 + tx
    acc = float32(0)
    for k in range(64 // 16):
        sA[ty, tx] = a[row, k * 16 + tx]
        sB[ty, tx] = b[k * 16 + ty, col]
        cuda.syncthreads()
        for j in range(16):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    c[row, col] = acc


class Bench:
    """One kernel ready to launch: reset (untimed) before every launch."""

    def __init__(self, name, threads, launch, reset, check):
        self.name, self.threads = name, threads
        self.launch, self.reset, self.check = launch, reset, check
        self.info = ""

    def timed(self):
        self.reset()
        start = time.perf_counter()
        self.launch()
        cuda.synchronize()
        return time.perf_counter() - start


class CheckError(Exception):
    pass


def benches():
    bs = []

    ha, hb = vec_inputs()
    da, db = cuda.to_device(ha), cuda.to_device(hb)
    dc = cuda.to_device(np.zeros(N, np.float32))
    grid = (N + BLOCK - 1) // BLOCK

    def check_vec():
        c = dc.copy_to_host()
        bad = np.nonzero(c != ha + hb)[0]
        if len(bad):
            i = bad[0]
            raise CheckError(f"c[{i}] = {c[i]}, want {ha[i] + hb[i]}")
    bs.append(Bench("vector_add", N,
                    lambda: vec_add[grid, BLOCK](da, db, dc, N),
                    lambda: dc.copy_to_device(np.zeros(N, np.float32)),
                    check_vec))

    hx = reduce_input()
    dx = cuda.to_device(hx)
    dpart = cuda.to_device(np.zeros(grid, np.float32))

    def check_reduce():
        got = int(dpart.copy_to_host().astype(np.int64).sum())
        want = int(hx.astype(np.int64).sum())
        if got != want:
            raise CheckError(f"sum = {got}, want {want}")
    bs.append(Bench("reduction", N,
                    lambda: reduce[grid, BLOCK](dx, dpart, N),
                    lambda: dpart.copy_to_device(np.zeros(grid, np.float32)),
                    check_reduce))

    hv = hist_input()
    dv = cuda.to_device(hv)
    dbins = cuda.to_device(np.zeros(BINS, np.int32))

    def check_hist():
        got = dbins.copy_to_host()
        want = np.bincount(hv, minlength=BINS).astype(np.int32)
        bad = np.nonzero(got != want)[0]
        if len(bad):
            i = bad[0]
            raise CheckError(f"bins[{i}] = {got[i]}, want {want[i]}")
    bs.append(Bench("histogram", N,
                    lambda: histogram[grid, BLOCK](dv, dbins, N),
                    lambda: dbins.copy_to_device(np.zeros(BINS, np.int32)),
                    check_hist))

    d0 = cuda.to_device(np.zeros(1, np.int32))
    racy = Bench("racy_add_one", RACY_GRID * RACY_BLOCK,
                 lambda: add_one[RACY_GRID, RACY_BLOCK](d0),
                 lambda: d0.copy_to_device(np.zeros(1, np.int32)),
                 None)

    def check_racy():
        # Numba's simulator has no race detector: nothing to check, only
        # the value the race left, for the record.
        racy.info = f"a[0] = {int(d0.copy_to_host()[0])}"
    racy.check = check_racy
    bs.append(racy)

    hA, hB = mat_inputs()
    dA, dB = cuda.to_device(hA), cuda.to_device(hB)
    dC = cuda.to_device(np.zeros((MAT_N, MAT_N), np.float32))
    mgrid = (MAT_N // TILE, MAT_N // TILE)

    def check_mat():
        got = dC.copy_to_host()
        want = hA.astype(np.float64) @ hB.astype(np.float64)
        bad = np.argwhere(got.astype(np.float64) != want)
        if len(bad):
            i, j = bad[0]
            raise CheckError(f"C[{i}][{j}] = {got[i, j]}, want {want[i, j]}")
    bs.append(Bench("matmul", MAT_N * MAT_N,
                    lambda: matmul[mgrid, (TILE, TILE)](dA, dB, dC),
                    lambda: dC.copy_to_device(np.zeros((MAT_N, MAT_N), np.float32)),
                    check_mat))
    return bs
