package sim

// Spec describes a GPU model: the limits a launch is checked against and the
// resources the occupancy calculator divides. Numbers are NVIDIA's published
// values for the compute capability (CUDA C Programming Guide, "Compute
// Capabilities" table) and match cudaGetDeviceProperties on the real parts.
type Spec struct {
	Name string // marketing name, e.g. "NVIDIA H100 SXM"
	Arch string // sm_XY
	CC   [2]int // compute capability major, minor

	SMs                int
	WarpSize           int
	MaxThreadsPerBlock int
	MaxBlockDim        Dim3
	MaxGridDim         Dim3

	// Shared memory, in bytes.
	SharedPerBlock      int // static limit per block (48 KiB on every part)
	SharedPerBlockOptin int // dynamic limit per block after cudaFuncSetAttribute opt-in
	SharedPerSM         int // usable per SM (after the 1 KiB per block the driver reserves)
	SharedReservedBlock int // bytes the driver reserves per resident block
	SharedAllocUnit     int // allocation granularity per block

	RegsPerSM        int // 32-bit registers
	RegsPerBlock     int
	MaxRegsPerThread int
	RegAllocUnit     int // registers are allocated per warp in units of this many
	MaxThreadsPerSM  int
	MaxBlocksPerSM   int
	MaxWarpsPerSM    int

	GlobalMemory int64 // bytes
}

// H100 is an NVIDIA H100 SXM5 80GB (sm_90), gpusim's default device.
var H100 = Spec{
	Name: "NVIDIA H100 SXM", Arch: "sm_90", CC: [2]int{9, 0},
	SMs: 132, WarpSize: 32, MaxThreadsPerBlock: 1024,
	MaxBlockDim: Dim3{1024, 1024, 64}, MaxGridDim: Dim3{1<<31 - 1, 65535, 65535},
	SharedPerBlock: 48 << 10, SharedPerBlockOptin: 227 << 10, SharedPerSM: 228 << 10,
	SharedReservedBlock: 1 << 10, SharedAllocUnit: 128,
	RegsPerSM: 64 << 10, RegsPerBlock: 64 << 10, MaxRegsPerThread: 255, RegAllocUnit: 256,
	MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, MaxWarpsPerSM: 64,
	GlobalMemory: 80 << 30,
}

// A100 is an NVIDIA A100 SXM4 80GB (sm_80).
var A100 = Spec{
	Name: "NVIDIA A100-SXM4-80GB", Arch: "sm_80", CC: [2]int{8, 0},
	SMs: 108, WarpSize: 32, MaxThreadsPerBlock: 1024,
	MaxBlockDim: Dim3{1024, 1024, 64}, MaxGridDim: Dim3{1<<31 - 1, 65535, 65535},
	SharedPerBlock: 48 << 10, SharedPerBlockOptin: 163 << 10, SharedPerSM: 164 << 10,
	SharedReservedBlock: 1 << 10, SharedAllocUnit: 128,
	RegsPerSM: 64 << 10, RegsPerBlock: 64 << 10, MaxRegsPerThread: 255, RegAllocUnit: 256,
	MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, MaxWarpsPerSM: 64,
	GlobalMemory: 80 << 30,
}

// T4 is an NVIDIA Tesla T4 (sm_75), the GPU of the Numba seed's notebook.
var T4 = Spec{
	Name: "Tesla T4", Arch: "sm_75", CC: [2]int{7, 5},
	SMs: 40, WarpSize: 32, MaxThreadsPerBlock: 1024,
	MaxBlockDim: Dim3{1024, 1024, 64}, MaxGridDim: Dim3{1<<31 - 1, 65535, 65535},
	SharedPerBlock: 48 << 10, SharedPerBlockOptin: 64 << 10, SharedPerSM: 64 << 10,
	SharedReservedBlock: 0, SharedAllocUnit: 256,
	RegsPerSM: 64 << 10, RegsPerBlock: 64 << 10, MaxRegsPerThread: 255, RegAllocUnit: 256,
	MaxThreadsPerSM: 1024, MaxBlocksPerSM: 16, MaxWarpsPerSM: 32,
	GlobalMemory: 15 << 30,
}

// Specs lists the named devices, for lookup by name or arch.
var Specs = []Spec{H100, A100, T4}

// LookupSpec finds a spec by arch ("sm_90") or a case-sensitive name prefix ("H100").
func LookupSpec(name string) (Spec, bool) {
	for _, s := range Specs {
		if s.Arch == name || len(name) > 0 && (s.Name == name || containsWord(s.Name, name)) {
			return s, true
		}
	}
	return Spec{}, false
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i == 0 || s[i-1] == ' ') {
			return true
		}
	}
	return false
}
