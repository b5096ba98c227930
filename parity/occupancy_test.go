//go:build cuda

package parity

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/sim"
)

// maxOccupancyErrors caps the mismatches printed in full per entry point;
// the rest are counted in its summary line and in the report.
const maxOccupancyErrors = 10

// occupancyProbes are the dynamic shared memory sizes checked at one block
// size: 0, 16 KiB and 48 KiB for every entry point (occupancy is defined for
// any request; 48 KiB plus static memory needs the opt-in), and for twins
// with extern __shared__ also 1 KiB and 4 and 8 bytes per thread, the sizes
// their drivers launch with (reduce_sum's block*4, scan_exclusive's
// 2*block*4, histogram_shared256's 256 bins).
func occupancyProbes(block int, dynamic bool) []int {
	p := []int{0, 16 << 10, 48 << 10}
	if dynamic {
		p = append(p, 1<<10, 4*block, 8*block)
	}
	slices.Sort(p)
	return slices.Compact(p)
}

const occupancyProbeWords = "block sizes 32 to 1024 in steps of 32 (up to the function's MAX_THREADS_PER_BLOCK), " +
	"dynamic shared memory 0, 16 KiB and 48 KiB, and for twins with extern __shared__ also 1 KiB, 4 and 8 bytes per thread " +
	"(a request above the function's dynamic limit is opted into for the query, as sim assumes)"

// TestOccupancyParity checks the simulator's occupancy calculator against
// the driver's on every twin entry point: for each block size and dynamic
// shared memory size, sim.Spec.CalcOccupancy with the entry's real register
// count (CU_FUNC_ATTRIBUTE_NUM_REGS) and static plus dynamic shared memory
// must give the blocks per SM that cuOccupancyMaxActiveBlocksPerMultiprocessor
// gives. A configuration sim refuses counts as 0 blocks, as does one the
// driver refuses. It first checks that the device's limits are the spec's.
func TestOccupancyParity(t *testing.T) {
	defer writeReport()
	start := time.Now()
	info := dev.Info()
	spec, err := cuda.SpecFor(info.Arch)
	if err != nil {
		t.Fatal(err)
	}
	lim, err := dev.Limits()
	if err != nil {
		t.Fatal(err)
	}
	diffs := lim.Compare(spec)
	t.Logf("device %s (%s, %d SMs) against sim spec %s (%s, %d SMs); device limits %+v", info.Name, info.Arch, lim.SMs,
		spec.Name, spec.Arch, spec.SMs, lim)
	for _, d := range diffs {
		t.Errorf("device limit differs from sim spec %s: %s", spec.Name, d)
	}
	rep.mu.Lock()
	rep.OccSpec = fmt.Sprintf("sim's %s spec (%s)", spec.Name, spec.Arch)
	rep.OccProbes = occupancyProbeWords
	rep.OccLimits = diffs
	rep.Occupancy = nil
	rep.mu.Unlock()

	var configs, mismatches int
	entries := registryEntries()
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			row := occupancyEntry(t, spec, e)
			configs += row.Configs
			mismatches += row.Mismatches
			rep.AddOccupancy(row)
		})
	}
	t.Logf("%d entry points, %d configurations, %d mismatches, in %v", len(entries), configs, mismatches,
		time.Since(start).Round(time.Millisecond))
}

// occupancyEntry checks one kernel function's generated entry point.
func occupancyEntry(t *testing.T, spec sim.Spec, e entryPoint) OccupancyRow {
	tw, err := twin.Of(e.fn)
	if err != nil {
		t.Fatal(err)
	}
	dynamic := cuda.UsesDynamicShared([]byte(tw.Source))
	kernel, entry := e.kernel, e.name
	row := OccupancyRow{Kernel: kernel, Entry: entry, Limiters: map[string]int{}}
	a, err := dev.FuncAttributes(e.fn)
	if err != nil {
		row.First = err.Error()
		t.Errorf("%s.%s: %v", kernel, entry, err)
		return row
	}
	row.Regs, row.StaticShared, row.LocalBytes, row.MaxThreads = a.NumRegs, a.StaticShared, a.LocalBytes, a.MaxThreadsPerBlock
	for block := 32; block <= min(1024, a.MaxThreadsPerBlock); block += 32 {
		for _, dyn := range occupancyProbes(block, dynamic) {
			msg, ok := occupancyCheck(spec, e, a, block, dyn, row.Limiters)
			row.Configs++
			if ok {
				continue
			}
			row.Mismatches++
			if row.First == "" {
				row.First = msg
			}
			if row.Mismatches <= maxOccupancyErrors {
				t.Error(msg)
			}
		}
	}
	if row.Mismatches > maxOccupancyErrors {
		t.Errorf("%s.%s: %d more mismatches not shown", kernel, entry, row.Mismatches-maxOccupancyErrors)
	}
	t.Logf("%s.%s: %d regs, %d B static smem, %d B local, max %d threads, dynamic limit %d B, carveout %d; "+
		"%d configurations, %d mismatches; sim limiters: %s", kernel, entry, a.NumRegs, a.StaticShared,
		a.LocalBytes, a.MaxThreadsPerBlock, a.MaxDynamicShared, a.Carveout, row.Configs, row.Mismatches,
		limiterList(row.Limiters))
	return row
}

// occupancyCheck compares one configuration and returns a description of
// it and whether sim and the driver agree; it counts sim's limiter.
func occupancyCheck(spec sim.Spec, e entryPoint, a cuda.FuncAttrs, block, dyn int, limiters map[string]int) (string, bool) {
	kernel, entry := e.kernel, e.name
	smem := a.StaticShared + dyn
	got, derr := dev.Occupancy(e.fn, block, dyn)
	o, serr := spec.CalcOccupancy(block, a.NumRegs, smem)

	simBlocks, simSays := o.BlocksPerSM, ""
	if serr != nil {
		simBlocks, simSays = 0, "refuses: "+serr.Error()
		limiters["refused"]++
	} else {
		simSays = fmt.Sprintf("%d blocks/SM, limited by %v (warps %d, blocks %d, registers %d, shared %d; %d B allocated per block)",
			o.BlocksPerSM, o.Limiter, o.BlocksByWarps, o.BlocksByBlocks, o.BlocksByRegs, o.BlocksByShared, o.SharedAllocated)
		limiters[o.Limiter.String()]++
	}
	devBlocks, devSays := got.BlocksPerSM, fmt.Sprintf("%d blocks/SM", got.BlocksPerSM)
	if derr != nil {
		devBlocks, devSays = 0, "error: "+derr.Error()
	}
	var opt string
	if got.OptIn {
		opt = ", opted in"
	}
	msg := fmt.Sprintf("%s.%s block=%d regs=%d smem=%d (static %d + dynamic %d%s): driver %s; sim %s",
		kernel, entry, block, a.NumRegs, smem, a.StaticShared, dyn, opt, devSays, simSays)
	return strings.TrimSpace(msg), simBlocks == devBlocks
}
