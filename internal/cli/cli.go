// Package cli is the gpusim command: it lists the kernel registry, runs a
// kernel's host driver on the simulator against its CPU reference, reports
// findings, profiles launches, computes occupancy and writes traces.
//
// Exit status: 0 success; 1 a run that failed its check or had any finding,
// in every subcommand that runs kernels (run, race, sweep, trace; for sweep
// -gpu also a GPU result that differs from the simulator's, or a driver
// that failed on the GPU), and in cuda -o and -go a kernel the translator
// refuses (the kernels that translate are written all the same); 2 bad
// usage or input (unknown kernel, illegal launch shape, unreadable or
// invalid -in case file, a problem size whose inputs would not fit the
// simulated device's or this process's memory, or, with detection on,
// whose shadow memory would exceed detection's budget (-shadow-budget),
// -gpu in a binary built
// without the cuda tag or where the GPU cannot be opened). Messages start
// with the subcommand: "gpusim run: ...".
//
// The detectors run by default (-race=false turns them off), as for a
// launch through package sim. Every subcommand but cuda takes -json.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gpusim/gpusim/kernels"
)

// usageError is bad input: one line on stderr, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// inputError is bad input that no block size cures (an unreadable or
// invalid case file, a problem size too large to hold): a usage error,
// which a sweep reports once and stops at, instead of as every block
// size's row.
type inputError struct{ usageError }

func (e *inputError) Unwrap() error { return &e.usageError }

func inputf(format string, args ...any) error {
	return &inputError{usageError{fmt.Sprintf(format, args...)}}
}

// exitError carries a non-zero status whose output is already written.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

type env struct {
	stdout, stderr io.Writer
	cmd            string // the subcommand running, which prefixes its messages
}

type command struct {
	name, args, doc string
	run             func(e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"list", "", "kernels of the registry with their summaries", cmdList},
		{"run", "KERNEL [-n N] [-block B] [-seed S] [-sched natural|random] [-race] [-shadow-budget BYTES] [-in FILE]", "run a kernel, check it against its reference, report findings and the profile", cmdRun},
		{"race", "KERNEL [flags of run]", "run with detection on and print only the findings; exit 1 if any", cmdRace},
		{"occupancy", "-block B [-regs R] [-smem BYTES] [-arch sm_90]", "theoretical occupancy of a launch shape", cmdOccupancy},
		{"sweep", "KERNEL -blocks 64,128,256,512,1024 [-gpu [-gpu-runs 5]]", "occupancy and memory statistics per block size; -gpu adds GPU kernel times and checks the GPU's result (needs -tags cuda)", cmdSweep},
		{"trace", "KERNEL -o trace.json", "write the simulated timeline as Chrome trace JSON (Perfetto, chrome://tracing)", cmdTrace},
		{"amdahl", "-p 0.9 -n 1000", "Amdahl's law speedup and table", cmdAmdahl},
		{"cuda", "KERNEL | -o DIR PKG | -go DIR [-all-or-nothing]", "print a registry kernel's generated CUDA C; or translate the Go kernels of a package of yours into one .cu per kernel (-o), or into the Go file that carries them into test binaries (-go, for go generate); a kernel the translator refuses is left out, its refusals printed with file:line, and the exit status is 1", cmdCUDA},
	}
}

// Main runs the command line args (without the program name) and returns
// the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 2 && args[0] == "help" {
		// gpusim help CMD: the command's synopsis and flags.
		for _, c := range commands {
			if c.name == args[1] {
				fmt.Fprintf(stdout, "usage: gpusim %s %s\n    %s\n\nflags:\n", c.name, c.args, c.doc)
				e.cmd = c.name
				return e.exit(c.run(e, []string{"-h"}))
			}
		}
		fmt.Fprintf(stderr, "gpusim help: unknown command %q%s (gpusim help lists them)\n", args[1], suggest(args[1], commandNames()))
		return 2
	}
	if len(args) > 2 && args[0] == "help" {
		fmt.Fprintf(stderr, "gpusim help: help takes one command, got %d (gpusim help %s)\n", len(args)-1, args[1])
		return 2
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		e.usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			e.cmd = c.name
			return e.exit(c.run(e, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "gpusim: unknown command %q%s (gpusim help lists them)\n", args[0], suggest(args[0], commandNames()))
	return 2
}

func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

// prefix is what the command's messages start with: "gpusim run".
func (e *env) prefix() string {
	if e.cmd == "" {
		return "gpusim"
	}
	return "gpusim " + e.cmd
}

func (e *env) exit(err error) int {
	var ue *usageError
	var xe *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &xe):
		return xe.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s: %s\n", e.prefix(), ue.msg)
		return 2
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", e.prefix(), err)
	return 1
}

func (e *env) usage(w io.Writer) {
	fmt.Fprintln(w, "gpusim runs CUDA-style kernels on a simulated GPU.\n\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  gpusim %s %s\n      %s\n", c.name, c.args, c.doc)
	}
	fmt.Fprintln(w, "\ngpusim help CMD shows a command's flags. Every subcommand but cuda takes -json.")
	fmt.Fprintln(w, "Exit status: 0 ok, 1 a failed check or any finding, 2 bad usage or input.")
}

// newFlags makes a flag set whose errors become usage errors.
func (e *env) newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("gpusim "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags and positional arguments in any order, as
// `gpusim run reduce_sum -n 1000` and `gpusim run -n 1000 reduce_sum` both
// read naturally.
func (e *env) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stdout)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (e *env) writeJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func cmdList(e *env, args []string) error {
	fs := e.newFlags("list")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list takes no arguments, got %q (gpusim run %s runs a kernel)", pos[0], pos[0])
	}
	type entry struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
		Seed    string `json:"seed,omitempty"`
		Faulty  bool   `json:"faulty,omitempty"`
	}
	var out []entry
	for _, k := range kernels.All() {
		out = append(out, entry{k.Name, summary(k.Doc), k.Seed, k.Faulty})
	}
	if *asJSON {
		if out == nil {
			out = []entry{}
		}
		return e.writeJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(e.stdout, "(no kernels registered)")
	}
	width := 0
	for _, k := range out {
		width = max(width, len(k.Name))
	}
	for _, k := range out {
		mark := ""
		if k.Faulty {
			mark = " [faulty]"
		}
		fmt.Fprintf(e.stdout, "%-*s  %s%s\n", width, k.Name, k.Summary, mark)
	}
	return nil
}

func summary(doc string) string {
	if i := strings.IndexByte(doc, '\n'); i >= 0 {
		doc = doc[:i]
	}
	return strings.TrimSpace(doc)
}

// lookup finds a kernel or says which name was probably meant.
func lookup(name string) (*kernels.Kernel, error) {
	if k, ok := kernels.Lookup(name); ok {
		return k, nil
	}
	var names []string
	for _, k := range kernels.All() {
		names = append(names, k.Name)
	}
	return nil, usagef("unknown kernel %q%s (gpusim list shows all)%s", name, suggest(name, names), ownKernelHint(name))
}

// ownKernelHint is what lookup adds for a name that is no registry
// kernel's and looks like a package or a Go kernel of the user's (a path,
// or an exported Go name): run, race, sweep and trace run the registry's
// kernels only, and how a user runs their own.
func ownKernelHint(name string) string {
	if !strings.ContainsAny(name, "/.\\") && (name == "" || name[0] < 'A' || name[0] > 'Z') {
		return ""
	}
	return "; run, race, sweep and trace take a registry kernel's name; to run a kernel of your own, test it with go test: " +
		"parity.Check(t, parity.Test{Kernel: ..., Draw: ..., Reference: ...}) runs it on the simulator with every detector on " +
		"against your CPU reference (and on a GPU with -tags cuda), or launch it with sim.NewDevice and Device.Launch in a test (see the README)"
}

// suggest returns `; did you mean "x"?` for the closest name by edit
// distance, if it is close enough to be a typo.
func suggest(name string, names []string) string {
	best, bestD := "", 1<<30
	sort.Strings(names)
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(name)/2) {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
