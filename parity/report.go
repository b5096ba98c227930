package parity

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gpusim/gpusim/sim"
)

// KernelStats is what the value-parity run saw of one kernel.
type KernelStats struct {
	Kernel       string
	Rule         string // "exact", "≤N ulp", "rel 1e-5"
	Cases        int
	SeedN        int // the kernel's SeedN, run as a fixed case (0: not run)
	Blocks       map[int]bool
	MinN, MaxN   int
	Even, Uneven int // cases whose n divides / does not divide by the block
	MaxULP       uint64
	Failure      string // first disagreement, empty if none
	Elapsed      time.Duration
}

// Add records one compared case.
func (s *KernelStats) Add(n, block int, ulp uint64) {
	if s.Blocks == nil {
		s.Blocks = map[int]bool{}
	}
	if s.Cases == 0 || n < s.MinN {
		s.MinN = n
	}
	s.MaxN = max(s.MaxN, n)
	s.Cases++
	if block > 0 {
		s.Blocks[block] = true
		if n%block == 0 {
			s.Even++
		} else {
			s.Uneven++
		}
	}
	s.MaxULP = max(s.MaxULP, ulp)
}

// SanitizerResult is one kernel under one compute-sanitizer tool, beside
// what the simulator's detectors found on the same case.
type SanitizerResult struct {
	Kernel, Tool string
	Sim          []string // sim findings this tool is meant to see
	SimOther     []string // sim findings outside the tool's scope
	GPUErrors    int      // the tool's error (and hazard) count
	RunErr       string   // the runner's own failure (launch error, timeout)
	Agree        bool
}

// OccupancyRow is one twin entry point under the occupancy parity check:
// its attributes as ptxas compiled it, and how sim's calculator fared
// against the driver's over the configurations checked.
type OccupancyRow struct {
	Kernel, Entry string
	Regs          int // NUM_REGS
	StaticShared  int // bytes
	LocalBytes    int // per thread
	MaxThreads    int // the function's MAX_THREADS_PER_BLOCK
	Configs       int // (block size, dynamic shared) pairs checked
	Mismatches    int
	Limiters      map[string]int // sim's limiter (or "refused") -> configurations
	First         string         // first mismatch, or the error that stopped the entry
}

// Report is the parity run's outcome.
type Report struct {
	mu         sync.Mutex
	Device     string
	Driver     int
	NVCC       string
	Arch       string
	Flags      string
	Started    time.Time
	Kernels    map[string]*KernelStats
	Sanitizer  []SanitizerResult
	Values     map[string]map[string]int // faulty kernel -> value -> count over repeated runs
	ValueRuns  map[string]int
	Unexpected []string

	OccSpec   string   // the sim spec the occupancy check compares with
	OccProbes string   // the configurations, in words
	OccLimits []string // device limits that differ from the spec
	Occupancy []OccupancyRow
}

// NewReport returns an empty report.
func NewReport() *Report {
	return &Report{Started: time.Now(), Kernels: map[string]*KernelStats{},
		Values: map[string]map[string]int{}, ValueRuns: map[string]int{}}
}

// Stats returns the stats of kernel, creating them.
func (r *Report) Stats(kernel, rule string) *KernelStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.Kernels[kernel]
	if !ok {
		s = &KernelStats{Kernel: kernel, Rule: rule}
		r.Kernels[kernel] = s
	}
	return s
}

// AddSanitizer records a sanitizer comparison.
func (r *Report) AddSanitizer(s SanitizerResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Sanitizer = append(r.Sanitizer, s)
}

// AddOccupancy records one entry point's occupancy parity.
func (r *Report) AddOccupancy(row OccupancyRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Occupancy = append(r.Occupancy, row)
}

// ToolFor names the compute-sanitizer tool that can see a finding, or ""
// when none can (races in global memory: racecheck watches shared memory
// only; deadlocks hang rather than report).
func ToolFor(f sim.Finding) string {
	switch f.Kind {
	case sim.DataRace:
		if f.Space == sim.SharedSpace {
			return "racecheck"
		}
	case sim.BarrierDivergence, sim.WarpDivergence, sim.InvalidShuffle:
		return "synccheck"
	case sim.OutOfBounds, sim.InvalidShared:
		return "memcheck"
	case sim.UninitializedRead:
		if f.Space == sim.GlobalSpace {
			return "initcheck"
		}
	}
	return ""
}

// Write renders the report as Markdown.
func (r *Report) Write(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(w, "# Parity: simulator vs %s\n\n", r.Device)
	fmt.Fprintf(w, "Written by `parity.test` (build tag cuda) on %s. Driver API version %d, %s, twins compiled for %s with `%s`.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Driver, r.NVCC, r.Arch, r.Flags)
	fmt.Fprintln(w, "## Values: the same host driver on sim and on the GPU")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| kernel | rule | cases | seed N | blocks | n range | even/uneven | max ulp | time | result |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, name := range slices.Sorted(maps.Keys(r.Kernels)) {
		s := r.Kernels[name]
		res := "agree"
		if s.Failure != "" {
			res = "**DIFFER**: " + oneLine(s.Failure, 160)
		}
		seed := "-"
		if s.SeedN > 0 {
			seed = fmt.Sprint(s.SeedN)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %d..%d | %d/%d | %d | %.1fs | %s |\n", s.Kernel, s.Rule, s.Cases, seed,
			blockList(s.Blocks), s.MinN, s.MaxN, s.Even, s.Uneven, s.MaxULP, s.Elapsed.Seconds(), res)
	}
	if len(r.Sanitizer) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "## Detectors: sim findings vs compute-sanitizer")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Each kernel's small case (its seed size if ≤256, else a few thousand elements or a 40² matrix) under each tool. 'sim' lists the simulator's findings the tool can see; 'sim, out of scope' those it cannot (global-memory races for racecheck, deadlocks).")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| kernel | tool | sim | sim, out of scope | sanitizer errors | runner | agree |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
		sort.Slice(r.Sanitizer, func(i, j int) bool {
			a, b := r.Sanitizer[i], r.Sanitizer[j]
			return a.Kernel < b.Kernel || a.Kernel == b.Kernel && a.Tool < b.Tool
		})
		agree := 0
		for _, s := range r.Sanitizer {
			v := "no"
			if s.Agree {
				v, agree = "yes", agree+1
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %s | %s |\n", s.Kernel, s.Tool, list(s.Sim), list(s.SimOther), s.GPUErrors,
				oneLine(s.RunErr, 100), v)
		}
		fmt.Fprintf(w, "\n%d of %d (kernel, tool) pairs agree.\n", agree, len(r.Sanitizer))
	}
	if len(r.Occupancy) > 0 {
		r.writeOccupancy(w)
	}
	if len(r.Values) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "## Values the GPU returns for racy kernels over repeated runs")
		fmt.Fprintln(w)
		for _, k := range slices.Sorted(maps.Keys(r.Values)) {
			vals := r.Values[k]
			keys := slices.Sorted(maps.Keys(vals))
			var parts []string
			for _, v := range keys {
				parts = append(parts, fmt.Sprintf("%s ×%d", v, vals[v]))
			}
			fmt.Fprintf(w, "- %s, %d runs: %s\n", k, r.ValueRuns[k], strings.Join(parts, ", "))
		}
	}
	if len(r.Unexpected) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "## Other problems")
		fmt.Fprintln(w)
		for _, u := range r.Unexpected {
			fmt.Fprintf(w, "- %s\n", oneLine(u, 300))
		}
	}
}

func (r *Report) writeOccupancy(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Occupancy: sim.Spec.CalcOccupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Blocks per SM for every twin entry point, with the registers and static shared memory ptxas gave it, against %s, %s. ", r.OccSpec, r.OccProbes)
	if len(r.OccLimits) == 0 {
		fmt.Fprintln(w, "The device's per-SM and per-block limits equal the spec's.")
	} else {
		fmt.Fprintf(w, "The device's limits differ from the spec's: %s.\n", strings.Join(r.OccLimits, "; "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| kernel | entry | regs | static smem | local | max threads | configurations | sim limiters | mismatches |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	rows := slices.Clone(r.Occupancy)
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		return a.Kernel < b.Kernel || a.Kernel == b.Kernel && a.Entry < b.Entry
	})
	configs, bad := 0, 0
	for _, o := range rows {
		res := fmt.Sprint(o.Mismatches)
		switch {
		case o.First != "" && o.Mismatches == 0:
			res = "**error**: " + oneLine(o.First, 200)
		case o.First != "":
			res = fmt.Sprintf("**%d**: %s", o.Mismatches, oneLine(o.First, 200))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %s | %s |\n", o.Kernel, o.Entry, o.Regs, o.StaticShared,
			o.LocalBytes, o.MaxThreads, o.Configs, limiterList(o.Limiters), res)
		configs += o.Configs
		bad += o.Mismatches
	}
	fmt.Fprintf(w, "\n%d entry points, %d configurations, %d mismatches.\n", len(rows), configs, bad)
}

// limiterList renders limiter counts, most frequent first.
func limiterList(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func blockList(m map[int]bool) string {
	b := slices.Sorted(maps.Keys(m))
	if len(b) > 6 {
		return fmt.Sprintf("%d sizes, %d..%d", len(b), b[0], b[len(b)-1])
	}
	return strings.Trim(fmt.Sprint(b), "[]")
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, "; ")
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "\\|")
	if len(s) > n {
		// Cut on a rune boundary: go-cmp's output holds non-ASCII spaces,
		// and half a rune makes the report invalid UTF-8.
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}
