package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
)

// defaultN is the problem size when neither -n nor -in gives one: small
// enough that a profiled run with detection takes about a second.
const defaultN = 1 << 16

type runFlags struct {
	n, block int
	seed     uint64
	sched    string
	race     bool
	in       string
	arch     string
	json     bool
	profile  bool
	workers  int
	shadow   bytesFlag
}

func addRunFlags(fs *flag.FlagSet, race bool) *runFlags {
	f := &runFlags{}
	fs.IntVar(&f.n, "n", 0, "problem size, in the kernel's unit (0: the smaller of the seed's size and 65536)")
	fs.IntVar(&f.block, "block", 0, "threads per block (0: the kernel's default)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the input generator and of the random schedule")
	fs.StringVar(&f.sched, "sched", "natural", "schedule: natural or random")
	fs.BoolVar(&f.race, "race", race, "detect races, uninitialised reads and barrier divergence (-race=false: off)")
	fs.StringVar(&f.in, "in", "", "read the case from a JSON file {\"N\":..,\"Block\":..,\"Params\":[..],\"Inputs\":[[..],..]}")
	fs.StringVar(&f.arch, "arch", "sm_90", "device: sm_90 (H100), sm_80 (A100) or sm_75 (T4)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.IntVar(&f.workers, "workers", 1, "workers running blocks (0: one per core); with -race, findings are those of one worker, and a profiled run uses one")
	f.shadow = bytesFlag(sim.DefaultShadowBudget)
	fs.Var(&f.shadow, "shadow-budget", "the most host memory, in `bytes` (4294967296, 8GiB, 512MiB), detection's shadow memory may take (0: no budget but the host's memory); "+
		"detection keeps 16 bytes per element of up to 4 bytes (per 4 bytes of a larger one) of every buffer, and a size that needs more is refused before the run")
	return f
}

// recorder is the simulator backend that also remembers which function
// each launch ran, so profiles carry the kernel's name, and its block
// size, so a run without profiles knows its launches too.
type recorder struct {
	*kernels.SimBackend
	names  []string
	blocks []int
}

func (r *recorder) Launch(fn any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	r.names = append(r.names, kernels.KernelName(fn))
	r.blocks = append(r.blocks, block.Size())
	return r.SimBackend.Launch(fn, grid, block, sharedBytes, args...)
}

func (r *recorder) LaunchCooperative(fn any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	r.names = append(r.names, kernels.KernelName(fn))
	r.blocks = append(r.blocks, block.Size())
	return r.SimBackend.LaunchCooperative(fn, grid, block, sharedBytes, args...)
}

// outcome is one run of a kernel.
type outcome struct {
	Kernel   string         `json:"kernel"`
	Device   string         `json:"device"`
	N        int            `json:"n"`
	Block    int            `json:"block"`
	Seed     uint64         `json:"seed"`
	Schedule string         `json:"schedule"`
	Race     bool           `json:"race"`
	Status   string         `json:"status"` // ok, mismatch, error, findings
	Error    string         `json:"error,omitempty"`
	Findings []sim.Finding  `json:"findings"`
	Launches []*sim.Profile `json:"launches,omitempty"` // with profiling on
	Count    int            `json:"launch_count"`       // launches the driver made
	Elapsed  time.Duration  `json:"elapsed_ns"`

	kcase  kernels.Case   // the case the driver ran
	result kernels.Result // the driver's result; nil if it failed
}

// execute runs k's driver once. It returns an error only for bad input:
// an illegal launch shape or block size, or an unreadable input file.
func (e *env) execute(k *kernels.Kernel, f *runFlags) (*outcome, error) {
	spec, ok := sim.LookupSpec(f.arch)
	if !ok {
		return nil, usagef("unknown device %q (sm_90, sm_80 or sm_75)", f.arch)
	}
	opts := sim.Options{}.WithSeed(f.seed).WithDetection(f.race).WithShadowBudget(int64(f.shadow))
	if f.workers < 0 {
		return nil, usagef("-workers %d: want 0 (one per core) or more", f.workers)
	}
	if f.workers != 1 {
		opts = opts.WithWorkers(f.workers)
	}
	switch f.sched {
	case "natural":
	case "random":
		opts = opts.WithSchedule(sim.RandomOrder)
	default:
		return nil, usagef("-sched %q: want natural or random", f.sched)
	}
	if f.block != 0 && k.Blocks != nil && !contains(k.Blocks, f.block) {
		return nil, usagef("illegal launch shape: %s takes blocks of %s threads, not %d", k.Name, joinInts(k.Blocks), f.block)
	}
	if f.block < 0 || f.block > spec.MaxThreadsPerBlock {
		return nil, usagef("illegal launch shape: threads per block: %d, allowed 1 to %d", f.block, spec.MaxThreadsPerBlock)
	}
	n := f.n
	if n == 0 {
		n = defaultN
		if k.SeedN > 0 && k.SeedN < n {
			n = k.SeedN
		}
	}
	if n < 0 {
		return nil, inputf("-n %d: negative size", n)
	}
	cm := &caseMaker{k: k, spec: spec, seed: f.seed, n: n, block: f.block, nSet: f.n != 0}
	if f.race {
		cm.det = &detection{run: k.Run, budget: opts.ShadowBudget(), offHint: ", or -race=false (no detection)"}
		if e.cmd == "race" {
			cm.det.offHint = ""
		}
	}
	var c kernels.Case
	var err error
	if f.in != "" {
		c, err = cm.read(f.in)
	} else {
		c, err = cm.generate(fmt.Sprintf("-n %d", n), n, f.block)
	}
	if err != nil {
		return nil, err
	}
	var prog *sim.Progress
	if isTerminal(e.stderr) {
		prog = new(sim.Progress)
		opts = opts.WithProgress(prog)
	}
	be := kernels.NewSimBackend(spec, opts)
	var profs []*sim.Profile
	if f.profile {
		be.Profiles = &profs
	}
	rec := &recorder{SimBackend: be}
	o := &outcome{Kernel: k.Name, Device: be.Name(), N: c.N, Block: c.Block, Seed: f.seed,
		Schedule: f.sched, Race: f.race, Findings: []sim.Finding{}}
	stop := e.progress(k.Name, prog)
	start := time.Now()
	got, err := runDriver(k, rec, c)
	o.Elapsed = time.Since(start)
	stop()
	for i, p := range profs {
		if len(rec.names) == len(profs) {
			p.Kernel = rec.names[i]
		}
	}
	o.Launches, o.Count, o.kcase = profs, len(rec.blocks), c
	if err == nil {
		o.result = got
	}
	if o.Block == 0 && len(rec.blocks) > 0 {
		o.Block = rec.blocks[0]
	}
	for _, r := range be.Reports {
		o.Findings = append(o.Findings, r.Findings...)
	}
	var le *sim.LaunchError
	if errors.As(err, &le) {
		return nil, usagef("illegal launch shape: %s: %s", le.Limit, le.Detail)
	}
	switch {
	case err != nil:
		o.Status, o.Error = "error", err.Error()
		if len(o.Findings) > 0 {
			o.Status = "findings"
		}
	default:
		if cerr := k.Rule.Check(got, k.Reference(c)); cerr != nil {
			o.Status, o.Error = "mismatch", cerr.Error()
		} else if len(o.Findings) > 0 {
			o.Status = "findings"
		} else {
			o.Status = "ok"
		}
	}
	return o, nil
}

// runDriver runs k's host driver, turning a panic in it (a case the driver
// cannot handle, say) into an error: the command reports it, it does not
// crash.
func runDriver(k *kernels.Kernel, be kernels.Backend, c kernels.Case) (res kernels.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the host driver of %s panicked: %v", k.Name, r)
		}
	}()
	return k.Run(be, c)
}

// caseMaker makes a run's case: generated by the kernel's generator at n
// and block, or read from a case file, the size bounded first (checkSize).
type caseMaker struct {
	k     *kernels.Kernel
	spec  sim.Spec
	seed  uint64
	n     int        // -n, or the default
	block int        // -block (or the sweep's block size); 0: the kernel's default
	nSet  bool       // -n was given
	det   *detection // set where detection is on: its shadow memory is bounded too
}

// gen is the kernel's generator, seeded by seed (-seed for the run's case).
func (m *caseMaker) gen(seed uint64, n, block int) kernels.Case {
	return m.k.Generate(rand.New(rand.NewPCG(seed, 0x67707573)), n, block)
}

// generate makes the case of size n, or says, as bad input in what (the
// flag or file field that gave n), why a case that large cannot run.
func (m *caseMaker) generate(what string, n, block int) (kernels.Case, error) {
	if why := checkSize(m.k.Name, m.gen, m.seed, m.spec, n, block, m.det); why != "" {
		return kernels.Case{}, inputf("%s: %s", what, why)
	}
	return m.gen(m.seed, n, block), nil
}

// read reads a case from a JSON file. What the file leaves out comes from
// the kernel's generator at the file's N and Block, or at -n and -block:
// the input slices' types and lengths, and the Params. Inputs must have the
// lengths the case's N and Params give them: the generator's for its N,
// or, where the file sets Params of a kernel whose Params shape its inputs
// (kernels.Kernel.InputLens), those Params' (the case's N is then the
// file's, in the kernel's unit). An N below 0, a Block below 1 or
// outside the kernel's Blocks (as -block is held to them), an N or
// Block other than -n's or -block's, Params the kernel does not take,
// Params that need other inputs than the generator's without Inputs, and
// inputs of another count or length are bad input.
func (m *caseMaker) read(path string) (kernels.Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return kernels.Case{}, inputf("cannot read input: %v", err)
	}
	var raw struct {
		N      *int
		Block  *int
		Params []int
		Inputs []json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt "Input" would run on generated inputs
	if err := dec.Decode(&raw); err != nil {
		return kernels.Case{}, inputf("input %s: %v (a case has N, Block, Params and Inputs)", path, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		// A second case, or a stray bracket, would be left unread.
		return kernels.Case{}, inputf("input %s: more follows the case's JSON object, which ends at byte %d: a file holds one case", path, end)
	}
	n, block, what := m.n, m.block, fmt.Sprintf("-n %d", m.n)
	if raw.N != nil {
		if *raw.N < 0 {
			return kernels.Case{}, inputf("input %s: N %d is negative", path, *raw.N)
		}
		if m.nSet && *raw.N != m.n {
			return kernels.Case{}, inputf("input %s: N %d, but -n %d: give the size in one place", path, *raw.N, m.n)
		}
		n, what = *raw.N, fmt.Sprintf("input %s: N %d", path, *raw.N)
	}
	if raw.Block != nil {
		if *raw.Block < 1 {
			return kernels.Case{}, inputf("input %s: Block %d: a block has at least 1 thread", path, *raw.Block)
		}
		if m.block != 0 && *raw.Block != m.block {
			return kernels.Case{}, inputf("input %s: Block %d, but the run asks for blocks of %d threads (-block, or sweep's -blocks): leave Block out of the file to choose it there", path, *raw.Block, m.block)
		}
		if m.k.Blocks != nil && !contains(m.k.Blocks, *raw.Block) {
			return kernels.Case{}, inputf("input %s: illegal launch shape: %s takes blocks of %s threads, not %d", path, m.k.Name, joinInts(m.k.Blocks), *raw.Block)
		}
		block = *raw.Block
	}
	tmpl, err := m.generate(what, n, block)
	if err != nil {
		return tmpl, err
	}
	c := tmpl
	lens := make([]int, len(tmpl.Inputs))
	for i, in := range tmpl.Inputs {
		lens[i] = lenOf(in)
	}
	generated := slices.Clone(lens)
	if raw.Params != nil {
		c.Params = raw.Params
		if m.k.InputLens != nil && !slices.Equal(raw.Params, tmpl.Params) {
			if raw.N != nil {
				c.N = *raw.N
			}
			if lens, err = m.k.InputLens(c); err != nil {
				return tmpl, inputf("input %s: Params %v: %v", path, raw.Params, err)
			}
		}
	}
	if raw.Inputs == nil {
		if !slices.Equal(lens, generated) {
			return tmpl, inputf("input %s: Params %v need inputs of %v elements; the generator made %v for its own Params %v: give the Inputs too", path, raw.Params, lens, generated, tmpl.Params)
		}
		return c, nil
	}
	if len(raw.Inputs) != len(tmpl.Inputs) {
		return tmpl, inputf("input %s: %d inputs, the kernel takes %d", path, len(raw.Inputs), len(tmpl.Inputs))
	}
	c.Inputs = make([]any, len(raw.Inputs))
	for i, r := range raw.Inputs {
		v := reflect.New(reflect.TypeOf(tmpl.Inputs[i]))
		if err := json.Unmarshal(r, v.Interface()); err != nil {
			return tmpl, inputf("input %s: input %d: %v", path, i, err)
		}
		if got := lenOf(v.Elem().Interface()); got != lens[i] {
			return tmpl, inputf("input %s: input %d has %d elements; the kernel takes %d for N %d%s", path, i, got, lens[i], c.N, paramsNote(c.Params))
		}
		c.Inputs[i] = v.Elem().Interface()
	}
	return c, nil
}

// lenOf is the length of a slice input, -1 for anything else.
func lenOf(in any) int {
	if v := reflect.ValueOf(in); v.Kind() == reflect.Slice {
		return v.Len()
	}
	return -1
}

func paramsNote(params []int) string {
	if len(params) == 0 {
		return ""
	}
	return fmt.Sprintf(" and Params %v", params)
}

// progress shows, on a terminal stderr, the blocks done of the blocks
// launched so far and an estimate of the time left, once a run passes a
// second; it returns the function that clears it.
func (e *env) progress(name string, p *sim.Progress) func() {
	if !isTerminal(e.stderr) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(e.stderr, "\r\033[K")
				}
				return
			case now := <-t.C:
				if d := now.Sub(start); d >= time.Second {
					line := fmt.Sprintf("running %s on the simulator... %.0fs", name, d.Seconds())
					if p != nil {
						done, total := p.Blocks()
						line = progressLine(name, done, total, d)
					}
					fmt.Fprintf(e.stderr, "\r\033[K%s", line)
					shown = true
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// progressLine is the progress display after elapsed: "running reduce_sum:
// 120/512 blocks, 3s, about 9s left". The estimate assumes the blocks
// still to come take as long as those done, over the launches started so
// far (a driver's later launches are not known yet).
func progressLine(name string, done, total int64, elapsed time.Duration) string {
	s := fmt.Sprintf("running %s on the simulator: %d/%d blocks, %.0fs", name, done, total, elapsed.Seconds())
	if done > 0 && total > done {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return s
}

func cmdRun(e *env, args []string) error {
	fs := e.newFlags("run")
	f := addRunFlags(fs, true)
	fs.BoolVar(&f.profile, "profile", true, "profile every launch")
	k, err := e.kernelArg(fs, args)
	if err != nil {
		return err
	}
	o, err := e.execute(k, f)
	if err != nil {
		return err
	}
	if f.json {
		if err := e.writeJSON(o); err != nil {
			return err
		}
	} else {
		printOutcome(e.stdout, o)
	}
	if o.Status != "ok" {
		return &exitError{1}
	}
	return nil
}

func cmdRace(e *env, args []string) error {
	fs := e.newFlags("race")
	f := addRunFlags(fs, true)
	k, err := e.kernelArg(fs, args)
	if err != nil {
		return err
	}
	f.race = true
	o, err := e.execute(k, f)
	if err != nil {
		return err
	}
	if f.json {
		if err := e.writeJSON(struct {
			Kernel   string        `json:"kernel"`
			Findings []sim.Finding `json:"findings"`
		}{o.Kernel, o.Findings}); err != nil {
			return err
		}
	} else if len(o.Findings) == 0 {
		fmt.Fprintf(e.stdout, "%s: no findings\n", o.Kernel)
	} else {
		printFindings(e.stdout, o.Findings)
	}
	if len(o.Findings) > 0 {
		return &exitError{1}
	}
	return nil
}

// kernelArg parses flags and exactly one kernel name.
func (e *env) kernelArg(fs *flag.FlagSet, args []string) (*kernels.Kernel, error) {
	pos, err := e.parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("want one kernel name, got %d arguments (gpusim list shows the kernels)", len(pos))
	}
	return lookup(pos[0])
}

func printOutcome(w io.Writer, o *outcome) {
	verdict := map[string]string{"ok": "PASS", "mismatch": "FAIL (result differs from the reference)",
		"error": "ERROR", "findings": "FINDINGS"}[o.Status]
	fmt.Fprintf(w, "%s  n=%d block=%d seed=%d sched=%s race=%v  on %s\n", o.Kernel, o.N, o.Block, o.Seed, o.Schedule, o.Race, o.Device)
	fmt.Fprintf(w, "result: %s  (%d launch(es), %v)\n", verdict, o.Count, o.Elapsed.Round(time.Millisecond))
	if o.Error != "" && o.Status != "findings" {
		fmt.Fprintf(w, "  %s\n", firstLine(o.Error))
	}
	if len(o.Findings) == 0 {
		fmt.Fprintln(w, "findings: none")
	} else {
		printFindings(w, o.Findings)
	}
	printProfiles(w, o.Launches)
}

func printFindings(w io.Writer, fs []sim.Finding) {
	fmt.Fprintf(w, "findings: %d\n", len(fs))
	for i, f := range fs {
		fmt.Fprintf(w, "[%d] %s\n", i+1, strings.ReplaceAll(f.String(), "\n", "\n    "))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// bytesFlag is a flag of a number of bytes: 4294967296, 4GiB, 512MiB,
// 1.5GiB; the suffixes KiB, MiB, GiB and TiB (or K, M, G, T, KB, MB, GB,
// TB, all powers of 1024) scale it.
type bytesFlag int64

func (b *bytesFlag) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	for _, u := range []struct {
		name  string
		scale int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if int64(*b)%u.scale == 0 {
			return fmt.Sprintf("%d%s", int64(*b)/u.scale, u.name)
		}
	}
	return fmt.Sprint(int64(*b))
}

func (b *bytesFlag) Set(s string) error {
	num := strings.TrimSpace(s)
	scale := 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
		{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, scale = strings.TrimSpace(rest), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0) || v*scale >= 1<<63 {
		return fmt.Errorf("%q is not a number of bytes (4294967296, 4GiB, 512MiB)", s)
	}
	*b = bytesFlag(v * scale)
	return nil
}
