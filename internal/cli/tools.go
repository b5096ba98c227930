package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

func cmdOccupancy(e *env, args []string) error {
	fs := e.newFlags("occupancy")
	block := fs.Int("block", 256, "threads per block")
	regs := fs.Int("regs", 0, "registers per thread (0: unknown, not a limit)")
	smem := fs.Int("smem", 0, "shared memory per block, bytes (static + dynamic)")
	arch := fs.String("arch", "sm_90", "device: sm_90, sm_80 or sm_75")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("occupancy takes no arguments, got %q", pos[0])
	}
	spec, ok := sim.LookupSpec(*arch)
	if !ok {
		return usagef("unknown device %q (sm_90, sm_80 or sm_75)", *arch)
	}
	o, err := spec.CalcOccupancy(*block, *regs, *smem)
	var le *sim.LaunchError
	if errors.As(err, &le) {
		return usagef("illegal launch shape: %s: %s", le.Limit, le.Detail)
	}
	if *asJSON {
		return e.writeJSON(o)
	}
	w := e.stdout
	fmt.Fprintf(w, "%s (%s): %d threads/block, %d registers/thread, %d bytes shared/block\n", spec.Name, spec.Arch, *block, *regs, *smem)
	fmt.Fprintf(w, "  warps per block            %4d\n", o.WarpsPerBlock)
	fmt.Fprintf(w, "  block limit: warps         %4d  (%d warps per SM)\n", o.BlocksByWarps, spec.MaxWarpsPerSM)
	fmt.Fprintf(w, "  block limit: blocks        %4d\n", o.BlocksByBlocks)
	fmt.Fprintf(w, "  block limit: registers     %4v  (%d allocated per block, unit %d per warp)\n", limitStr(o.BlocksByRegs), o.RegsPerBlock, spec.RegAllocUnit)
	fmt.Fprintf(w, "  block limit: shared memory %4v  (%d allocated per block incl. %d reserved, of %d per SM)\n", limitStr(o.BlocksByShared), o.SharedAllocated, spec.SharedReservedBlock, spec.SharedPerSM)
	fmt.Fprintf(w, "active blocks per SM %d, active warps per SM %d of %d, occupancy %.1f%%, limited by %v\n",
		o.BlocksPerSM, o.WarpsPerSM, o.MaxWarpsPerSM, 100*o.Occupancy, o.Limiter)
	return nil
}

func cmdSweep(e *env, args []string) error {
	fs := e.newFlags("sweep")
	f := addRunFlags(fs, true)
	blocks := fs.String("blocks", "64,128,256,512,1024", "block sizes to try, comma-separated")
	gpu := fs.Bool("gpu", false, "also run each case on the GPU (a binary built with -tags cuda), time its kernels and compare its result with the simulator's")
	gpuRuns := fs.Int("gpu-runs", 5, "timed GPU runs per block size, after one warm-up run")
	k, err := e.kernelArg(fs, args)
	if err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*blocks, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usagef("-blocks: %q is not a block size", s)
		}
		sizes = append(sizes, n)
	}
	if *gpuRuns < 1 {
		return usagef("-gpu-runs %d: want at least 1", *gpuRuns)
	}
	var dev gpuDevice
	if *gpu {
		// Open the device before the simulator runs: a sweep that cannot
		// reach its GPU fails at once.
		if dev, err = openGPU(k.Name); err != nil {
			return err
		}
		defer dev.Close()
	}
	f.profile = true
	type row struct {
		Block       int           `json:"block"`
		Status      string        `json:"status"`
		Error       string        `json:"error,omitempty"`
		Occupancy   sim.Occupancy `json:"occupancy"`
		Requests    int64         `json:"global_requests"`
		SectorsPer  float64       `json:"global_sectors_per_request"`
		Conflicts   int64         `json:"shared_bank_conflicts"`
		Barriers    int64         `json:"barriers"`
		Atomics     int64         `json:"atomics"`
		ElapsedNano int64         `json:"elapsed_ns"`
		GPU         *gpuTiming    `json:"gpu,omitempty"`
	}
	var rows []row
	n := f.n
	gpuFailed, failed := false, false
	for _, b := range sizes {
		f.block = b
		o, err := e.execute(k, f)
		if err != nil {
			var ue *usageError
			var ie *inputError
			if errors.As(err, &ue) && !errors.As(err, &ie) {
				rows = append(rows, row{Block: b, Status: "illegal", Error: ue.msg})
				continue
			}
			return err
		}
		n = o.N
		failed = failed || o.Status != "ok"
		r := row{Block: b, Status: o.Status, Error: firstLine(o.Error), ElapsedNano: int64(o.Elapsed)}
		var g sim.GlobalStats
		for _, p := range o.Launches {
			if r.Occupancy.ThreadsPerBlock == 0 || p.Counters.Threads > 0 && p.Block.Size() == b {
				r.Occupancy = p.Occupancy
			}
			for _, x := range []sim.GlobalStats{p.Memory.GlobalLoad, p.Memory.GlobalStore} {
				g.Requests += x.Requests
				g.Sectors += x.Sectors
			}
			r.Conflicts += p.Memory.SharedLoad.Conflicts() + p.Memory.SharedStore.Conflicts()
			r.Barriers += p.Sync.Barriers
			r.Atomics += p.Atomics.Global + p.Atomics.Shared
		}
		r.Requests, r.SectorsPer = g.Requests, g.SectorsPerRequest()
		if dev != nil {
			want, against := o.result, "sim"
			if want == nil {
				want, against = k.Reference(o.kcase), "reference"
			}
			r.GPU = timeOnGPU(dev, k, o.kcase, want, against, *gpuRuns)
			gpuFailed = gpuFailed || r.GPU.Check != "same"
		}
		rows = append(rows, r)
	}
	if ran := slices.ContainsFunc(rows, func(r row) bool { return r.Status != "illegal" }); !ran {
		// Nothing ran: a table of refusals and exit status 0 would pass
		// for a sweep.
		hint := ""
		if len(k.Blocks) > 0 {
			hint = fmt.Sprintf("; try -blocks %s", strings.ReplaceAll(joinInts(k.Blocks), " ", ""))
		}
		return usagef("-blocks %s: no block size runs %s (%s)%s", *blocks, k.Name, rows[len(rows)-1].Error, hint)
	}
	if f.json {
		if err := e.writeJSON(rows); err != nil {
			return err
		}
	} else {
		w := e.stdout
		fmt.Fprintf(w, "%s on %s, n=%d\n", k.Name, f.arch, n)
		if dev != nil {
			info := dev.Info()
			fmt.Fprintf(w, "GPU: %s (%s, %d SMs), CUDA driver %d.%d", info.Name, info.Arch, info.SMs, info.DriverVersion/1000, info.DriverVersion%1000/10)
			if info.NVCC != "" {
				fmt.Fprintf(w, ", nvcc: %s", info.NVCC)
			}
			fmt.Fprintln(w)
			if spec, _ := sim.LookupSpec(f.arch); spec.Arch != info.Arch {
				fmt.Fprintf(w, "note: the occupancy columns model %s (-arch %s); the GPU is %s\n", spec.Arch, f.arch, info.Arch)
			}
		}
		simTime := "time"
		if dev != nil {
			simTime = "sim-time"
		}
		fmt.Fprintf(w, "%6s %7s %7s %6s %-13s %10s %8s %9s %8s %8s %9s", "block", "blocks", "warps", "occ%", "limit", "gld+gst", "sect/req", "bank-cnf", "barriers", "atomics", simTime)
		if dev != nil {
			fmt.Fprintf(w, " %12s %12s %10s  %s", "gpu-kern-med", "gpu-kern-min", "gpu-driver", "gpu-vs-sim")
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			if r.Status == "illegal" {
				fmt.Fprintf(w, "%6d  %s\n", r.Block, r.Error)
				continue
			}
			o := r.Occupancy
			fmt.Fprintf(w, "%6d %7d %7d %6.1f %-13v %10d %8.2f %9d %8d %8d %9s",
				r.Block, o.BlocksPerSM, o.WarpsPerSM, 100*o.Occupancy, o.Limiter, r.Requests, r.SectorsPer, r.Conflicts, r.Barriers, r.Atomics, fmtDur(r.ElapsedNano))
			if g := r.GPU; g != nil {
				if g.Check == "error" {
					fmt.Fprintf(w, " %12s %12s %10s", "-", "-", "-")
				} else {
					fmt.Fprintf(w, " %12s %12s %10s", fmtGPUDur(g.KernelMedianNano), fmtGPUDur(g.KernelMinNano), fmtGPUDur(g.DriverMedianNano))
				}
				check := g.Check
				if check != "same" {
					check = strings.ToUpper(check)
				}
				if g.Against != "sim" {
					check += " (vs reference)"
				}
				fmt.Fprintf(w, "  %s", check)
			}
			if r.Status != "ok" {
				fmt.Fprintf(w, "  sim: %s", strings.ToUpper(r.Status))
			}
			fmt.Fprintln(w)
		}
		if dev != nil {
			printGPULegend(w, k, *gpuRuns)
			for _, r := range rows {
				if r.GPU != nil && r.GPU.Error != "" {
					fmt.Fprintf(w, "block %d: %s\n", r.Block, r.GPU.Error)
				}
			}
		}
	}
	if gpuFailed || failed {
		return &exitError{1}
	}
	return nil
}

// printGPULegend says what the GPU columns of a sweep measure.
func printGPULegend(w io.Writer, k *kernels.Kernel, runs int) {
	fmt.Fprintf(w, "\nsim-time:     wall time of the simulator run (host), not a GPU estimate\n")
	fmt.Fprintf(w, "gpu-kern-med: GPU time of the kernel launches of one driver run (CUDA events around each\n")
	fmt.Fprintf(w, "              cuLaunchKernel, summed over the run's launches; no copies, no launch overhead),\n")
	fmt.Fprintf(w, "              median of %d timed runs after 1 warm-up run; gpu-kern-min: their minimum\n", runs)
	fmt.Fprintf(w, "gpu-driver:   host wall time of one whole driver run on the GPU (allocations, copies both ways,\n")
	fmt.Fprintf(w, "              launches, frees), median of the same runs\n")
	fmt.Fprintf(w, "gpu-vs-sim:   every GPU run's result against the simulator's, %s (%s's rule):\n", k.Rule, k.Name)
	fmt.Fprintf(w, "              same, DIFFERS or ERROR (the driver failed on the GPU)\n")
}

func fmtDur(ns int64) string {
	return fmt.Sprintf("%.0fms", float64(ns)/1e6)
}

func cmdTrace(e *env, args []string) error {
	fs := e.newFlags("trace")
	f := addRunFlags(fs, true)
	out := fs.String("o", "trace.json", "output file (- for stdout)")
	k, err := e.kernelArg(fs, args)
	if err != nil {
		return err
	}
	f.profile = true
	o, err := e.execute(k, f)
	if err != nil {
		return err
	}
	if *out == "-" {
		if err := sim.WriteTrace(e.stdout, o.Launches...); err != nil {
			return err
		}
		if o.Status != "ok" {
			printFindings(e.stderr, o.Findings)
			return &exitError{1}
		}
		return nil
	}
	file, err := os.Create(*out)
	if err != nil {
		return usagef("cannot write trace: %v", err)
	}
	if err := sim.WriteTrace(file, o.Launches...); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	events := 0
	for _, p := range o.Launches {
		events += len(p.Timeline)
	}
	if f.json {
		if err := e.writeJSON(map[string]any{"kernel": k.Name, "file": *out, "launches": len(o.Launches), "events": events, "status": o.Status, "findings": o.Findings}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s: %d launch(es), %d events written to %s (open in https://ui.perfetto.dev or chrome://tracing)\n", k.Name, len(o.Launches), events, *out)
		if o.Status != "ok" {
			printOutcome(e.stdout, o)
		}
	}
	if o.Status != "ok" {
		return &exitError{1}
	}
	return nil
}

// Amdahl is the speedup of a program whose fraction p parallelises over n
// processors: 1 / ((1-p) + p/n). n = +Inf gives the limit 1/(1-p).
func Amdahl(p, n float64) float64 { return 1 / ((1 - p) + p/n) }

func cmdAmdahl(e *env, args []string) error {
	fs := e.newFlags("amdahl")
	p := fs.Float64("p", 0.9, "parallel fraction, in [0,1]")
	n := fs.Float64("n", 1000, "processors")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("amdahl takes no arguments, got %q", pos[0])
	}
	if !(*p >= 0 && *p <= 1) || !(*n >= 1) {
		return usagef("want 0 <= p <= 1 and n >= 1, got p=%v n=%v", *p, *n)
	}
	ps := []float64{0.5, 0.75, 0.9, 0.95, 0.99}
	ns := []float64{4, 64, 1024, math.Inf(1)}
	s := Amdahl(*p, *n)
	if *asJSON {
		type cell struct {
			P       float64 `json:"p"`
			N       any     `json:"n"`
			Speedup float64 `json:"speedup"`
		}
		var table []cell
		for _, pp := range ps {
			for _, nn := range ns {
				var nv any = nn
				if math.IsInf(nn, 1) {
					nv = "inf"
				}
				table = append(table, cell{pp, nv, Amdahl(pp, nn)})
			}
		}
		return e.writeJSON(map[string]any{"p": *p, "n": *n, "speedup": s, "limit": Amdahl(*p, math.Inf(1)), "table": table})
	}
	w := e.stdout
	fmt.Fprintf(w, "S(%g) = 1 / ((1-%g) + %g/%g) = %.2fx   (limit as n grows: %.1fx)\n\n", *n, *p, *p, *n, s, Amdahl(*p, math.Inf(1)))
	fmt.Fprintf(w, "%-6s %8s %8s %8s %8s\n", "P", "N=4", "N=64", "N=1024", "N=inf")
	for _, pp := range ps {
		fmt.Fprintf(w, "%-6s", fmt.Sprintf("%g%%", pp*100))
		for _, nn := range ns {
			fmt.Fprintf(w, " %7.1fx", Amdahl(pp, nn))
		}
		fmt.Fprintln(w)
	}
	return nil
}
