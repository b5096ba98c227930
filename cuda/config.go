package cuda

import "github.com/gpusim/gpusim/cuda/twin"

// Config selects the device and the twin compiler.
type Config struct {
	// Ordinal is the CUDA device number (0: the first GPU).
	Ordinal int
	// NVCC is the compiler; empty: nvcc on PATH, then $CUDA_HOME/bin/nvcc,
	// then /usr/local/cuda/bin/nvcc.
	NVCC string
	// CacheDir holds compiled twins; empty: $GPUSIM_CUDA_CACHE, else
	// <os.UserCacheDir>/gpusim/cuda.
	CacheDir string
	// ExtraFlags are appended to the nvcc flags (and to the cache key).
	ExtraFlags []string
	// Source, if set, may replace the CUDA a kernel runs: for a kernel
	// whose generated twin is tw it returns a module name (the cache and
	// Builds key), a complete source and the name of the entry point in it
	// to launch, or a nil src to run the generated twin. It lets a
	// hand-written CUDA implementation of a Go kernel run under the same
	// drivers, to be held to the simulator (or to the generated twin) by
	// the same parity checks.
	Source func(tw *twin.Twin) (module string, src []byte, entry string)
}

// Info describes the opened device.
type Info struct {
	Name          string // e.g. "NVIDIA H100 80GB HBM3"
	CC            [2]int // compute capability
	Arch          string // sm_XY, what twins are compiled for
	DriverVersion int    // cuDriverGetVersion, e.g. 13000
	NVCC          string // nvcc --version's release line
	SMs           int
}

// Build records how one twin was compiled.
type Build struct {
	Kernel string
	Flags  []string // nvcc flags, the -arch one included
	Hash   string   // cache key: sha256 of source, flags and nvcc version
	Cached bool     // loaded from the disk cache rather than compiled now
}

// ParityFlags are the nvcc flags every twin is compiled with, chosen for
// bitwise parity with the Go bodies: Go on amd64 at GOAMD64=v1 or v2 (the
// default) never fuses a*b+c into an FMA, so neither may nvcc
// (-fmad=false); on arm64 and at GOAMD64=v3 or v4 Go may fuse it, and
// float32(a*b)+c keeps it unfused everywhere. IEEE division and square root and no
// flush-to-zero match Go's float32 arithmetic. -lineinfo changes no code;
// it lets compute-sanitizer name source lines.
var ParityFlags = []string{"-fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-O3", "-lineinfo"}
