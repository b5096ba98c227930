package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

// printProfiles prints each launch's profile in the shape of Nsight
// Compute's summary: sections of name, unit, value.
func printProfiles(w io.Writer, ps []*sim.Profile) {
	for i, p := range ps {
		fmt.Fprintf(w, "\n  %s (launch %d)  grid %v x block %v, %s (%s)\n", orName(p.Kernel), i+1, p.Grid, p.Block, p.Device, p.Arch)
		sec := func(name string) { fmt.Fprintf(w, "    Section: %s\n    %s\n", name, strings.Repeat("-", 62)) }
		row := func(name, unit string, v any) { fmt.Fprintf(w, "    %-38s %-10s %12v\n", name, unit, v) }
		sec("Launch Statistics")
		row("Block Size", "", p.Block.Size())
		row("Grid Size", "", p.Grid.Size())
		row("Threads", "thread", p.Counters.Threads)
		row("Static Shared Memory Per Block", "byte", p.SharedStatic)
		row("Dynamic Shared Memory Per Block", "byte", p.SharedDynamic)
		o := p.Occupancy
		sec("Occupancy")
		row("Block Limit Warps", "block", o.BlocksByWarps)
		row("Block Limit SM", "block", o.BlocksByBlocks)
		row("Block Limit Shared Mem", "block", limitStr(o.BlocksByShared))
		row("Block Limit Registers", "block", "n/a")
		row("Theoretical Active Warps per SM", "warp", o.WarpsPerSM)
		row("Theoretical Occupancy", "%", fmt.Sprintf("%.2f", 100*o.Occupancy))
		row("Limited By", "", o.Limiter)
		m := p.Memory
		sec("Memory Workload Analysis")
		glob := func(name string, g sim.GlobalStats) {
			row(name+" Requests", "request", g.Requests)
			row(name+" Sectors", "sector", g.Sectors)
			row(name+" Sectors/Request", "", fmt.Sprintf("%.2f", g.SectorsPerRequest()))
			row(name+" Sector Efficiency", "%", fmt.Sprintf("%.2f", 100*g.Efficiency()))
		}
		glob("Global Load", m.GlobalLoad)
		glob("Global Store", m.GlobalStore)
		shared := func(name string, s sim.SharedStats) {
			row(name+" Requests", "request", s.Requests)
			row(name+" Wavefronts", "", s.Wavefronts)
			row(name+" Bank Conflicts", "", s.Conflicts())
			row(name+" Max Conflict Degree", "way", s.MaxDegree)
		}
		if m.SharedLoad.Requests+m.SharedStore.Requests > 0 {
			shared("Shared Load", m.SharedLoad)
			shared("Shared Store", m.SharedStore)
		}
		a := p.Atomics
		if a.Global+a.Shared > 0 {
			row("Atomics (global)", "op", a.Global)
			row("Atomics (shared)", "op", a.Shared)
			row("Atomic Addresses", "", a.Addresses)
			row("Most Contended", "", fmt.Sprintf("%s[%d] x%d", a.Hottest.Memory, a.Hottest.Index, a.Hottest.Count))
		}
		s := p.Sync
		if s.Barriers+s.Collectives > 0 {
			sec("Synchronization")
			row("Barriers Executed", "barrier", s.Barriers)
			row("Barriers With Exited Threads", "barrier", s.BarriersWithExited)
			row("Warp Collectives", "", s.Collectives)
			row("Partial-Mask Collectives", "", s.PartialCollectives)
		}
		if len(p.Lines) > 0 {
			sec("Source Counters")
			fmt.Fprintf(w, "    %-28s %-7s %-6s %9s %9s %8s\n", "line", "space", "op", "requests", "sectors", "sect/req")
			for _, l := range p.Lines {
				switch {
				case l.Op == "atomic":
					fmt.Fprintf(w, "    %-28s %-7v %-6s %9d\n", l.Site, l.Space, l.Op, l.Atomics)
				case l.Space == sim.GlobalSpace:
					fmt.Fprintf(w, "    %-28s %-7v %-6s %9d %9d %8.2f\n", l.Site, l.Space, l.Op, l.Global.Requests, l.Global.Sectors, l.Global.SectorsPerRequest())
				default:
					fmt.Fprintf(w, "    %-28s %-7v %-6s %9d %9s %8s  %d wavefronts, %.2f-way\n", l.Site, l.Space, l.Op, l.Shared.Requests, "", "", l.Shared.Wavefronts, l.Shared.Degree())
				}
			}
		}
	}
}

func orName(s string) string {
	if s == "" {
		return "kernel"
	}
	return s
}

func limitStr(n int) any {
	if n < 0 {
		return "none"
	}
	return n
}
