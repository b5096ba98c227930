package sim

import "fmt"

// Limiter names the resource that bounds the number of resident blocks.
type Limiter uint8

const (
	LimitWarps     Limiter = iota // threads (warps) per SM
	LimitBlocks                   // resident blocks per SM
	LimitRegisters                // the register file
	LimitShared                   // shared memory per SM
)

var limiterNames = [...]string{"warps", "blocks", "registers", "shared memory"}

func (l Limiter) String() string {
	if int(l) < len(limiterNames) {
		return limiterNames[l]
	}
	return fmt.Sprintf("Limiter(%d)", int(l))
}

// MarshalText makes a Limiter print by name in JSON.
func (l Limiter) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Occupancy is the theoretical occupancy of one kernel configuration on
// one SM, as the CUDA occupancy calculator and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor compute it.
type Occupancy struct {
	Arch             string
	ThreadsPerBlock  int
	RegsPerThread    int // 0: unknown, not a limit
	SharedPerBlock   int // static + dynamic bytes the kernel asks for
	WarpsPerBlock    int
	RegsPerBlock     int // allocated, after the per-warp granularity
	SharedAllocated  int // per block, after the driver's reservation and granularity
	BlocksPerSM      int // active blocks: the minimum of the four limits
	WarpsPerSM       int // active warps
	MaxWarpsPerSM    int
	Occupancy        float64 // WarpsPerSM / MaxWarpsPerSM, in [0,1]
	Limiter          Limiter // the first limit, in the order warps, blocks, registers, shared, that equals BlocksPerSM
	BlocksByWarps    int
	BlocksByBlocks   int
	BlocksByRegs     int // -1: unlimited (registers unknown)
	BlocksByShared   int // -1: unlimited (no shared memory at all)
	RegAllocUnit     int
	SharedAllocUnit  int
	SharedReserved   int
	SharedPerSMTotal int
}

// subPartitions is the number of SM sub-partitions (warp schedulers) the
// register file is split between: 4 on every part since Volta, 2 on sm_60.
func subPartitions(s *Spec) int {
	if s.CC[0] == 6 && s.CC[1] == 0 {
		return 2
	}
	return 4
}

// CalcOccupancy computes the occupancy of blocks of threadsPerBlock threads,
// each needing regsPerThread registers (0: unknown), with sharedPerBlock
// bytes of shared memory (static plus dynamic), by the rules of CUDA's
// cuda_occupancy.h:
//
//  1. warps: floor(MaxWarpsPerSM / ceil(threads/32)) blocks;
//  2. blocks: MaxBlocksPerSM;
//  3. registers: each warp is allocated regs*32 rounded up to RegAllocUnit
//     (256); the register file is split evenly between the SM's 4
//     sub-partitions, each holds floor((RegsPerSM/4) / regsPerWarp) warps,
//     and the SM holds floor(4*that / warpsPerBlock) blocks; a block whose
//     allocation exceeds RegsPerBlock cannot launch at all;
//  4. shared memory: each block is allocated its bytes plus the driver's
//     reservation (1 KiB on sm_80 and later) rounded up to SharedAllocUnit,
//     out of the SM's SharedPerSM (the largest carveout, as with
//     cudaFuncCachePreferNone).
//
// It returns an error, as the calculator does, for a configuration that
// cannot launch: too many threads, registers or shared bytes per block.
// check refuses a Spec the simulator cannot model: a warp of other than 32
// threads (the simulator's warps are 32 lanes, as every NVIDIA GPU's), or a
// count or unit that must be positive and is not (a hand-made Spec left
// them zero, and launches divided by them).
func (s *Spec) check() error {
	bad := func(what string, v int) error {
		return &LaunchError{Code: ErrInvalidValue, Limit: "device spec",
			Detail: fmt.Sprintf("Spec %q: %s is %d", s.Name, what, v)}
	}
	if s.WarpSize != warpSize {
		return bad("WarpSize (the simulator's warps are 32 threads)", s.WarpSize)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"SMs", s.SMs}, {"MaxThreadsPerBlock", s.MaxThreadsPerBlock}, {"MaxThreadsPerSM", s.MaxThreadsPerSM},
		{"MaxBlocksPerSM", s.MaxBlocksPerSM}, {"MaxWarpsPerSM", s.MaxWarpsPerSM}, {"RegsPerSM", s.RegsPerSM},
		{"RegsPerBlock", s.RegsPerBlock}, {"MaxBlockDim.X", s.MaxBlockDim.X}, {"MaxGridDim.X", s.MaxGridDim.X}} {
		if f.v <= 0 {
			return bad(f.name+" (must be positive)", f.v)
		}
	}
	return nil
}

func (s Spec) CalcOccupancy(threadsPerBlock, regsPerThread, sharedPerBlock int) (Occupancy, error) {
	o := Occupancy{Arch: s.Arch, ThreadsPerBlock: threadsPerBlock, RegsPerThread: regsPerThread,
		SharedPerBlock: sharedPerBlock, MaxWarpsPerSM: s.MaxWarpsPerSM, RegAllocUnit: s.RegAllocUnit,
		SharedAllocUnit: s.SharedAllocUnit, SharedReserved: s.SharedReservedBlock, SharedPerSMTotal: s.SharedPerSM}
	bad := func(code ErrorCode, limit, format string, args ...any) (Occupancy, error) {
		return o, &LaunchError{Code: code, Limit: limit, Detail: fmt.Sprintf(format, args...)}
	}
	if err := s.check(); err != nil {
		return o, err
	}
	if threadsPerBlock < 1 || threadsPerBlock > s.MaxThreadsPerBlock {
		return bad(ErrInvalidConfiguration, "threads per block", "%d threads, allowed 1 to %d", threadsPerBlock, s.MaxThreadsPerBlock)
	}
	if regsPerThread < 0 || regsPerThread > s.MaxRegsPerThread {
		return bad(ErrLaunchOutOfResources, "registers per thread", "%d registers per thread, maximum %d", regsPerThread, s.MaxRegsPerThread)
	}
	if sharedPerBlock < 0 || sharedPerBlock > s.SharedPerBlockOptin {
		return bad(ErrInvalidValue, "shared memory per block", "%d bytes, maximum %d (with opt-in)", sharedPerBlock, s.SharedPerBlockOptin)
	}
	ws := s.WarpSize
	o.WarpsPerBlock = (threadsPerBlock + ws - 1) / ws

	o.BlocksByWarps = s.MaxWarpsPerSM / o.WarpsPerBlock
	o.BlocksByBlocks = s.MaxBlocksPerSM

	o.BlocksByRegs = -1
	if regsPerThread > 0 {
		perWarp := roundUp(regsPerThread*ws, s.RegAllocUnit)
		o.RegsPerBlock = perWarp * o.WarpsPerBlock
		if o.RegsPerBlock > s.RegsPerBlock {
			return bad(ErrLaunchOutOfResources, "registers per block", "%d threads x %d registers allocate %d, maximum %d",
				threadsPerBlock, regsPerThread, o.RegsPerBlock, s.RegsPerBlock)
		}
		sp := subPartitions(&s)
		warps := (s.RegsPerSM / sp) / perWarp * sp
		o.BlocksByRegs = warps / o.WarpsPerBlock
	}

	o.BlocksByShared = -1
	if alloc := roundUp(sharedPerBlock+s.SharedReservedBlock, s.SharedAllocUnit); alloc > 0 {
		o.SharedAllocated = alloc
		o.BlocksByShared = s.SharedPerSM / alloc
	}

	o.BlocksPerSM, o.Limiter = o.BlocksByWarps, LimitWarps
	for _, c := range []struct {
		n int
		l Limiter
	}{{o.BlocksByBlocks, LimitBlocks}, {o.BlocksByRegs, LimitRegisters}, {o.BlocksByShared, LimitShared}} {
		if c.n >= 0 && c.n < o.BlocksPerSM {
			o.BlocksPerSM, o.Limiter = c.n, c.l
		}
	}
	o.WarpsPerSM = o.BlocksPerSM * o.WarpsPerBlock
	o.Occupancy = float64(o.WarpsPerSM) / float64(s.MaxWarpsPerSM)
	return o, nil
}
