package sim

import (
	"fmt"
	"time"
)

// ErrorCode is the CUDA runtime error a refused launch or allocation maps to.
type ErrorCode int

// The codes are cudaError_t values, so a report can be matched against what
// the CUDA runtime says for the same request.
const (
	ErrInvalidValue         ErrorCode = 1   // cudaErrorInvalidValue: "invalid argument"
	ErrMemoryAllocation     ErrorCode = 2   // cudaErrorMemoryAllocation: "out of memory"
	ErrInvalidConfiguration ErrorCode = 9   // cudaErrorInvalidConfiguration: "invalid configuration argument"
	ErrLaunchOutOfResources ErrorCode = 701 // cudaErrorLaunchOutOfResources: "too many resources requested for launch"
)

func (c ErrorCode) String() string {
	switch c {
	case ErrInvalidValue:
		return "cudaErrorInvalidValue (invalid argument)"
	case ErrMemoryAllocation:
		return "cudaErrorMemoryAllocation (out of memory)"
	case ErrInvalidConfiguration:
		return "cudaErrorInvalidConfiguration (invalid configuration argument)"
	case ErrLaunchOutOfResources:
		return "cudaErrorLaunchOutOfResources (too many resources requested for launch)"
	case ErrCooperativeLaunchTooLarge:
		return "cudaErrorCooperativeLaunchTooLarge (too many blocks in cooperative launch)"
	}
	return fmt.Sprintf("cudaError %d", int(c))
}

// LaunchError is a launch or allocation the device refuses before anything
// runs, with the CUDA error it corresponds to and the limit that was broken.
type LaunchError struct {
	Code   ErrorCode
	Limit  string // which limit, e.g. "threads per block"
	Detail string // the numbers
}

func (e *LaunchError) Error() string {
	return fmt.Sprintf("sim: %v: %s: %s", e.Code, e.Limit, e.Detail)
}

// Validate checks a launch shape against the device's limits, as the CUDA
// runtime does before it runs anything.
func (d *Device) Validate(cfg Config) error {
	s := &d.spec
	grid, blk := cfg.Grid.norm(), cfg.Block.norm()
	bad := func(code ErrorCode, limit, format string, args ...any) error {
		return &LaunchError{Code: code, Limit: limit, Detail: fmt.Sprintf(format, args...)}
	}
	if blk.X < 1 || blk.Y < 1 || blk.Z < 1 {
		return bad(ErrInvalidConfiguration, "block dimensions", "block %v has a dimension below 1", blk)
	}
	if blk.X > s.MaxBlockDim.X || blk.Y > s.MaxBlockDim.Y || blk.Z > s.MaxBlockDim.Z {
		return bad(ErrInvalidConfiguration, "block dimensions", "block %v exceeds the maximum %v", blk, s.MaxBlockDim)
	}
	if n := blk.Size(); n > s.MaxThreadsPerBlock {
		return bad(ErrInvalidConfiguration, "threads per block", "%d threads exceed the maximum %d", n, s.MaxThreadsPerBlock)
	}
	if grid.X < 1 || grid.Y < 1 || grid.Z < 1 {
		return bad(ErrInvalidConfiguration, "grid dimensions", "grid %v has a dimension below 1", grid)
	}
	if grid.X > s.MaxGridDim.X || grid.Y > s.MaxGridDim.Y || grid.Z > s.MaxGridDim.Z {
		return bad(ErrInvalidConfiguration, "grid dimensions", "grid %v exceeds the maximum %v", grid, s.MaxGridDim)
	}
	if cfg.SharedBytes < 0 {
		return bad(ErrInvalidValue, "dynamic shared memory", "negative size %d", cfg.SharedBytes)
	}
	if cfg.SharedBytes > s.SharedPerBlockOptin {
		return bad(ErrInvalidValue, "dynamic shared memory", "%d bytes exceed the opt-in maximum of %d per block", cfg.SharedBytes, s.SharedPerBlockOptin)
	}
	if cfg.SharedBytes > s.SharedPerBlock && !cfg.Options.sharedOptIn {
		return bad(ErrInvalidValue, "dynamic shared memory", "%d bytes exceed the default %d per block; opt in with Options.WithSharedOptIn (cudaFuncAttributeMaxDynamicSharedMemorySize)", cfg.SharedBytes, s.SharedPerBlock)
	}
	if r := cfg.Registers; r != 0 {
		if r < 0 || r > s.MaxRegsPerThread {
			return bad(ErrLaunchOutOfResources, "registers per thread", "%d registers per thread, maximum %d", r, s.MaxRegsPerThread)
		}
		warps := (blk.Size() + s.WarpSize - 1) / s.WarpSize
		perWarp := roundUp(r*s.WarpSize, s.RegAllocUnit)
		if need := warps * perWarp; need > s.RegsPerBlock {
			return bad(ErrLaunchOutOfResources, "registers per block", "%d threads x %d registers need %d, maximum %d", blk.Size(), r, need, s.RegsPerBlock)
		}
	}
	if cfg.Options.cooperative {
		if err := d.cooperativeCheck(cfg); err != nil {
			return err
		}
	}
	if int64(grid.X)*int64(grid.Y)*int64(grid.Z)*int64(blk.Size()) >= 1<<32-1 {
		return bad(ErrInvalidConfiguration, "threads per grid", "the simulator numbers threads in 32 bits: at most %d threads per launch", uint32(1<<32-2))
	}
	return nil
}

func roundUp(x, unit int) int {
	if unit <= 1 {
		return x
	}
	return (x + unit - 1) / unit * unit
}

// Launch runs kernel k over the grid and blocks until every thread has
// exited, the launch was aborted, or no thread can make progress.
//
// It returns a *LaunchError if the shape or resources are refused (nothing
// ran), a *Report if the run produced findings (races, divergence, deadlock,
// out-of-bounds, uninitialised reads, panics), and nil for a clean run.
func (d *Device) Launch(cfg Config, k Kernel) error {
	if err := d.Validate(cfg); err != nil {
		return err
	}
	if k == nil {
		return &LaunchError{Code: ErrInvalidValue, Limit: "kernel", Detail: "nil kernel"}
	}
	l := &launch{
		dev: d, kernel: k, opts: cfg.Options,
		grid: cfg.Grid.norm(), block: cfg.Block.norm(),
		dynSh: cfg.SharedBytes, detect: !cfg.Options.noDetect,
		spec: &d.spec, prof: cfg.Options.profile,
	}
	l.tpb = l.block.Size()
	l.nblocks = l.grid.Size()
	l.gidBase = d.takeGids(l.nblocks * l.tpb)
	l.resident = d.spec.SMs * maxBlocksPerSM(&d.spec, l.tpb)
	start := time.Now()
	l.run()
	elapsed := time.Since(start)
	d.mu.Lock()
	d.totals.add(&l.stats)
	if !l.detect {
		// Writes were not tracked: consider everything initialised.
		for _, m := range d.buffers {
			m.initAll = true
		}
	}
	d.mu.Unlock()
	if l.prof != nil {
		l.prof.finish(l, elapsed)
	}
	return l.findings.report(l)
}

// maxBlocksPerSM is the residency bound by threads and blocks alone (shared
// memory and registers are not known to the scheduler).
func maxBlocksPerSM(s *Spec, tpb int) int {
	n := s.MaxThreadsPerSM / tpb
	if n > s.MaxBlocksPerSM {
		n = s.MaxBlocksPerSM
	}
	if n < 1 {
		n = 1
	}
	return n
}
