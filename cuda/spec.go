package cuda

import (
	"fmt"

	"github.com/gpusim/gpusim/sim"
)

// SpecFor returns the simulator's model of a device of compute capability
// arch ("sm_90"), as sim.LookupSpec finds it. The occupancy calculator uses
// only per-SM and per-block limits, which are the architecture's: an H200 is
// sm_90 with the H100's SM (more memory, the same 132 SMs), so sm_90 maps to
// sim.H100 for either.
func SpecFor(arch string) (sim.Spec, error) {
	s, ok := sim.LookupSpec(arch)
	if !ok || s.Arch != arch {
		return sim.Spec{}, fmt.Errorf("cuda: the simulator has no spec for %s (it models %s)", arch, specArchs())
	}
	return s, nil
}

func specArchs() []string {
	var a []string
	for _, s := range sim.Specs {
		a = append(a, s.Arch)
	}
	return a
}

// Limits are the device attributes (cuDeviceGetAttribute) that the
// occupancy calculator divides, under the names of sim.Spec's fields.
type Limits struct {
	SMs                 int // MULTIPROCESSOR_COUNT (not an occupancy limit; reported only)
	WarpSize            int // WARP_SIZE
	MaxThreadsPerBlock  int // MAX_THREADS_PER_BLOCK
	MaxThreadsPerSM     int // MAX_THREADS_PER_MULTIPROCESSOR
	MaxBlocksPerSM      int // MAX_BLOCKS_PER_MULTIPROCESSOR
	RegsPerSM           int // MAX_REGISTERS_PER_MULTIPROCESSOR
	RegsPerBlock        int // MAX_REGISTERS_PER_BLOCK
	SharedPerSM         int // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, bytes
	SharedPerBlock      int // MAX_SHARED_MEMORY_PER_BLOCK (without opt-in)
	SharedPerBlockOptin int // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
	SharedReservedBlock int // RESERVED_SHARED_MEMORY_PER_BLOCK
}

// Compare lists, one line each, the limits in which s differs from the
// device. The SM count is not compared: it varies between parts of one
// architecture (H100 PCIe and SXM) and does not enter occupancy.
func (l Limits) Compare(s sim.Spec) []string {
	var diffs []string
	for _, c := range []struct {
		name      string
		dev, spec int
	}{
		{"WarpSize", l.WarpSize, s.WarpSize},
		{"MaxThreadsPerBlock", l.MaxThreadsPerBlock, s.MaxThreadsPerBlock},
		{"MaxThreadsPerSM", l.MaxThreadsPerSM, s.MaxThreadsPerSM},
		{"MaxBlocksPerSM", l.MaxBlocksPerSM, s.MaxBlocksPerSM},
		{"RegsPerSM", l.RegsPerSM, s.RegsPerSM},
		{"RegsPerBlock", l.RegsPerBlock, s.RegsPerBlock},
		{"SharedPerSM", l.SharedPerSM, s.SharedPerSM},
		{"SharedPerBlock", l.SharedPerBlock, s.SharedPerBlock},
		{"SharedPerBlockOptin", l.SharedPerBlockOptin, s.SharedPerBlockOptin},
		{"SharedReservedBlock", l.SharedReservedBlock, s.SharedReservedBlock},
	} {
		if c.dev != c.spec {
			diffs = append(diffs, fmt.Sprintf("%s: device %d, sim %s %d", c.name, c.dev, s.Arch, c.spec))
		}
	}
	return diffs
}
