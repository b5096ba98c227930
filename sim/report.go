package sim

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind classifies a finding.
type Kind uint8

const (
	DataRace          Kind = iota + 1 // two unordered accesses to one element, at least one a write
	UninitializedRead                 // a read of memory nothing wrote
	BarrierDivergence                 // threads of a block at different barriers, or passing one by
	WarpDivergence                    // lanes meeting in different warp collectives, or a mask without the caller (fatal)
	Deadlock                          // no thread can make progress (includes livelock)
	OutOfBounds                       // an index outside a buffer, or a shared array outside its block (fatal: the launch is aborted)
	KernelPanic                       // a Go panic in the kernel (fatal)
	InvalidShared                     // shared memory declared inconsistently or beyond the limits (fatal)
	InvalidShuffle                    // a shuffle reads a lane outside the mask, or one that exited or does not exist, or a rank outside its group, or has an undefined width
	Hang                              // a thread ran past the watchdog's timeout without calling into sim (fatal)
	BudgetExceeded                    // the launch ran out of its time limit, Options.WithTimeLimit (fatal)
	StackOverflow                     // a thread's stack grew past Options.MaxDepth frames (fatal)
	ShadowBudget                      // detection's shadow memory would exceed its budget (fatal)
	UseAfterFree                      // a kernel accessed a freed buffer (fatal)
	ForeignBuffer                     // a kernel accessed a buffer of another Device (fatal)
)

var kindNames = map[Kind]string{
	DataRace: "data race", UninitializedRead: "uninitialised read", BarrierDivergence: "barrier divergence",
	WarpDivergence: "warp divergence", Deadlock: "deadlock", OutOfBounds: "out-of-bounds access",
	KernelPanic: "kernel panic", InvalidShared: "invalid shared memory", InvalidShuffle: "invalid shuffle",
	Hang: "hang", BudgetExceeded: "time limit exceeded", StackOverflow: "stack overflow",
	ShadowBudget: "shadow memory budget exceeded", UseAfterFree: "use after free", ForeignBuffer: "buffer of another device",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText writes the kind's name, so that JSON carries "data race",
// not a number.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a name MarshalText wrote.
func (k *Kind) UnmarshalText(b []byte) error {
	for kk, name := range kindNames {
		if name == string(b) {
			*k = kk
			return nil
		}
	}
	return fmt.Errorf("sim: unknown finding kind %q", b)
}

// Fatal reports whether a finding of this kind aborts the launch.
func (k Kind) Fatal() bool {
	switch k {
	case Deadlock, OutOfBounds, KernelPanic, InvalidShared, WarpDivergence,
		Hang, BudgetExceeded, StackOverflow, ShadowBudget, UseAfterFree, ForeignBuffer,
		MisalignedAddress, ConstantWrite:
		return true
	}
	return false
}

// Access is one side of a finding: who did what, where.
type Access struct {
	Host   bool // the host (a copy or memset), not a thread
	Block  Dim3
	Thread Dim3
	Op     string // "read", "write", "atomic", "SyncThreads", ...
	Site   string // file:line of the kernel code
}

func (a Access) String() string {
	if a.Host {
		return "host"
	}
	s := fmt.Sprintf("%s by block %s thread %s", a.Op, a.Block.IndexString(), a.Thread.IndexString())
	if a.Site != "" {
		s += " at " + a.Site
	}
	return s
}

// WaitingThread is a thread that could not make progress, for deadlock reports.
type WaitingThread struct {
	Block, Thread Dim3
	At            string // what it waits in
	Site          string // file:line
}

// Span is an inclusive range of linear indices, First <= Last.
type Span struct{ First, Last int }

func (s Span) String() string {
	if s.First == s.Last {
		return fmt.Sprint(s.First)
	}
	return fmt.Sprintf("%d-%d", s.First, s.Last)
}

// StateGroup is threads in one state at one line: in every block of
// Blocks, the threads of Threads. Indices are linear, x fastest (blockIdx
// and threadIdx as CUDA linearises them).
type StateGroup struct {
	Blocks  Span
	Threads []Span // at most maxSpans; MoreSpans counts the rest
	// MoreSpans is the number of thread ranges left out of Threads.
	MoreSpans int    `json:",omitempty"`
	At        string // what the threads wait in, or do
	Site      string // file:line
	Count     int    // threads in the group
}

func (g StateGroup) String() string {
	var b strings.Builder
	if g.Blocks.First == g.Blocks.Last {
		fmt.Fprintf(&b, "block %d", g.Blocks.First)
	} else {
		fmt.Fprintf(&b, "blocks %v", g.Blocks)
	}
	if len(g.Threads) == 1 && g.Threads[0].First == g.Threads[0].Last && g.MoreSpans == 0 {
		fmt.Fprintf(&b, ", thread %d", g.Threads[0].First)
	} else {
		b.WriteString(", threads ")
		for i, s := range g.Threads {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(s.String())
		}
		if g.MoreSpans > 0 {
			fmt.Fprintf(&b, " and %d more ranges", g.MoreSpans)
		}
	}
	fmt.Fprintf(&b, ": %s", g.At)
	if g.Site != "" {
		fmt.Fprintf(&b, " at %s", g.Site)
	}
	if g.Count > 1 {
		fmt.Fprintf(&b, " (%d threads)", g.Count)
	}
	return b.String()
}

// Finding is one deduplicated problem. Two findings are the same when their
// kind and the source lines of both accesses agree; Count says how many
// times it happened, and the other fields describe the first occurrence.
type Finding struct {
	Kind   Kind
	Space  Space  // of the memory involved, if any
	Memory string // buffer or shared array name, if any
	Index  int    // element index, if any
	// Cols is the row length of a 2-D shared array (Shared2D), whose
	// element Index is [Index/Cols][Index%Cols]; 0 for 1-D memory.
	Cols int `json:",omitempty"`
	// View is the element type of the view of Memory the access went
	// through (Reinterpret), where it differs from the buffer's: Index
	// counts elements of that type.
	View string `json:",omitempty"`
	// Current is the access that revealed the finding; Previous the earlier
	// access it conflicts with (races), or the other party (divergence).
	Current, Previous Access
	Count             int
	Detail            string
	// Groups are the live threads of a deadlock, a livelock, a time limit
	// or a stopped launch, by state and line (at most maxGroups groups;
	// Detail says how many threads are left out). Waiting lists the first
	// maxWaitingPerGroup threads of each, one by one.
	Groups  []StateGroup    `json:",omitempty"`
	Waiting []WaitingThread `json:",omitempty"`
	// Panic is the value a KernelPanic's thread panicked with (Detail
	// holds its text, cut at maxPanicText bytes); nil for other kinds.
	// Where it is an error, errors.Is and errors.As on the Report reach it.
	// Of nested panics (a deferred call panicking while the kernel
	// panics) only the last is kept: recover sees no other.
	Panic any `json:"-"`
}

// elementString is element i of memory with rows of cols elements (0:
// 1-D) as CUDA source names it: [i], or [row][col] for a 2-D array.
func elementString(i, cols int) string {
	if cols <= 0 || i < 0 {
		return fmt.Sprintf("[%d]", i)
	}
	return fmt.Sprintf("[%d][%d]", i/cols, i%cols)
}

func (f *Finding) key() string {
	return strconv.Itoa(int(f.Kind)) + "|" + f.Current.Site + "|" + f.Previous.Site + "|" + f.Current.Op + "|" + f.Previous.Op + "|" + f.Memory
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Memory != "" {
		fmt.Fprintf(&b, " on %s %s%s", f.Space, quoteName(f.Memory), elementString(f.Index, f.Cols))
		if f.View != "" {
			fmt.Fprintf(&b, " of its %s view", f.View)
		}
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", f.Detail)
	}
	if f.Current.Op != "" || f.Current.Host {
		fmt.Fprintf(&b, "\n    %s", f.Current)
	}
	if f.Previous.Op != "" || f.Previous.Host {
		fmt.Fprintf(&b, "\n    previous %s", f.Previous)
	}
	for _, g := range f.Groups {
		fmt.Fprintf(&b, "\n    %s", g)
	}
	if len(f.Groups) == 0 {
		for _, w := range f.Waiting {
			fmt.Fprintf(&b, "\n    block %s thread %s: %s at %s", w.Block.IndexString(), w.Thread.IndexString(), w.At, w.Site)
		}
	}
	switch {
	case f.Count > 1 && (f.Previous.Op != "" || f.Previous.Host):
		fmt.Fprintf(&b, "\n    (%d occurrences of this pair of lines)", f.Count)
	case f.Count > 1:
		fmt.Fprintf(&b, "\n    (%d occurrences at this line)", f.Count)
	}
	return b.String()
}

func quoteName(s string) string { return fmt.Sprintf("%q", s) }

// Report is the error a launch returns when it has findings. It is both an
// error (the text lists every finding) and data a test can inspect.
//
//	if err := dev.Launch(cfg, k); err != nil {
//		t.Fatal(err) // prints every finding with its threads and lines
//	}
type Report struct {
	Findings []Finding
	Aborted  bool // a fatal finding, or Stopped, ended the launch early; see the package doc for memory
	Dropped  int  // distinct findings beyond the report's capacity
	// Stopped is the context's error when LaunchContext was cancelled or
	// its deadline passed; Unwrap returns it, so errors.Is(err,
	// context.DeadlineExceeded) works on the Report.
	Stopped error `json:"-"`
}

// Unwrap returns Stopped, if any, and the errors kernels panicked with
// (Finding.Panic), so that errors.Is(err, context.DeadlineExceeded) and
// errors.As(err, &myErr) work on the Report.
func (r *Report) Unwrap() []error {
	if r == nil {
		return nil // a typed nil in an error, as Error allows
	}
	var errs []error
	if r.Stopped != nil {
		errs = append(errs, r.Stopped)
	}
	for i := range r.Findings {
		if e, ok := r.Findings[i].Panic.(error); ok {
			errs = append(errs, e)
		}
	}
	return errs
}

func (r *Report) Error() string {
	if r == nil {
		return "gpusim: nil *Report"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gpusim: %d finding(s)", len(r.Findings))
	if r.Stopped != nil {
		fmt.Fprintf(&b, ", launch stopped: %v", r.Stopped)
	} else if r.Aborted {
		b.WriteString(", launch aborted")
	}
	for i := range r.Findings {
		fmt.Fprintf(&b, "\n[%d] %s", i+1, r.Findings[i].String())
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "\n(%d more distinct findings dropped)", r.Dropped)
	}
	return b.String()
}

// Has reports whether any finding is of kind k.
func (r *Report) Has(k Kind) bool {
	if r == nil {
		return false
	}
	for _, f := range r.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// Of returns the findings of kind k.
func (r *Report) Of(k Kind) []Finding {
	var out []Finding
	if r != nil {
		for _, f := range r.Findings {
			if f.Kind == k {
				out = append(out, f)
			}
		}
	}
	return out
}

const maxFindings = 1000

// findingSet deduplicates findings by kind and source-line pair.
type findingSet struct {
	list    []Finding
	index   map[string]int
	dropped map[string]struct{} // keys of distinct findings beyond maxFindings
	fatal   bool
}

// add records f, or counts it if a finding with its key is recorded, and
// returns its index in the list (-1 if it is beyond maxFindings).
func (s *findingSet) add(f Finding) int {
	if s.index == nil {
		s.index = map[string]int{}
	}
	if f.Kind.Fatal() {
		s.fatal = true
	}
	k := f.key()
	if i, ok := s.index[k]; ok {
		s.list[i].Count++
		return i
	}
	if len(s.list) >= maxFindings {
		if s.dropped == nil {
			s.dropped = map[string]struct{}{}
		}
		s.dropped[k] = struct{}{}
		return -1
	}
	f.Count = 1
	s.index[k] = len(s.list)
	s.list = append(s.list, f)
	return len(s.list) - 1
}

// result is what the launch returns: its Report, or nil for a clean run.
//
// It seals the launch: a finding added later (by a goroutine its kernel
// started, which outlived it) is the Device's (addFinding). The findings
// the Device holds so far, of earlier launches, join the report, without
// making it Aborted: they did not end this launch.
func (l *launch) result() error {
	late := l.dev.takeLate()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sealed = true
	fatal := l.findings.fatal
	for _, f := range late.list {
		if i := l.findings.add(f); i >= 0 {
			l.findings.list[i].Count += f.Count - 1
		}
	}
	for k := range late.dropped {
		if l.findings.dropped == nil {
			l.findings.dropped = map[string]struct{}{}
		}
		l.findings.dropped[k] = struct{}{}
	}
	l.findings.fatal = fatal
	l.settleGuesses()
	return l.findings.report(l.stopped)
}

func (s *findingSet) report(stopped error) error {
	if len(s.list) == 0 && stopped == nil {
		return nil
	}
	out := &Report{Findings: append([]Finding(nil), s.list...), Aborted: s.fatal || stopped != nil, Dropped: len(s.dropped), Stopped: stopped}
	sort.SliceStable(out.Findings, func(i, j int) bool {
		a, b := &out.Findings[i], &out.Findings[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Current.Site != b.Current.Site {
			return a.Current.Site < b.Current.Site
		}
		return a.Previous.Site < b.Previous.Site
	})
	return out
}

func (l *launch) markFatal() {
	l.mu.Lock()
	l.findings.fatal = true
	l.mu.Unlock()
}

func (l *launch) addFinding(f Finding) {
	if l.epoch != nil && l.stop.Load() == 0 {
		l.specFail("a finding")
		return
	}
	l.mu.Lock()
	if l.sealed {
		l.mu.Unlock()
		l.dev.addLate(f)
		return
	}
	l.findings.add(f)
	l.mu.Unlock()
	if f.Kind.Fatal() {
		// Every thread's next call into sim stops it, the one that
		// found it too if the kernel recovers the panic that unwinds it.
		l.aborted.Store(true)
	}
}

// raceKey is what makes two race findings one (Finding.key) before any
// text is made: the memory's name, the two sites and operations, and
// whether the earlier access is the host's.
type raceKey struct {
	mem           *mem // (two buffers of one name are one finding: the second key finds it in findings)
	cur, prev     site
	curOp, prevOp uint8 // opIndex
	host          bool
}

// opIndex numbers the operations reports name, for raceKey: comparing
// short integers, not hashing strings, is what keeps a repeated race
// cheap.
func opIndex(op string) uint8 {
	switch op {
	case "read":
		return 1
	case "write":
		return 2
	case "atomic":
		return 3
	case "atomic load":
		return 4
	case "atomic store":
		return 5
	case "volatile read":
		return 6
	case "volatile write":
		return 7
	}
	return 0 // another operation: told apart by findings' own key
}

// countRace counts a race whose key was reported before and reports
// whether it was; a counted race's key goes into w's cache of repeats, at
// the index it returns (-1 if the race's finding was dropped, past
// maxFindings). The entry it replaces hands its count on first.
func (l *launch) countRace(w *worker, k raceKey) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.races[k]
	if !ok || i < 0 {
		return -1, ok
	}
	l.findings.list[i].Count++
	j := int(w.repeatNext % uint8(len(w.repeats)))
	if old := &w.repeats[j]; old.n > 0 {
		l.findings.list[old.i].Count += int(old.n)
	}
	w.repeats[j] = repeatedRace{k: k, i: i}
	w.repeatNext++
	return j, true
}

// repeatedRace is a race a worker counts without the launch's lock: a
// racy kernel repeats a few races at every thread, and each repeat costs
// a comparison and an increment. flushRepeats adds the counts to the
// findings.
type repeatedRace struct {
	k    raceKey
	i    int      // index in findings
	n    int64    // repeats not yet added
	memo raceMemo // what race tells it by; zero (m nil) until race sets it
}

// repeated counts k if it is one of the worker's recent races and returns
// its index in w.repeats, or -1.
func (w *worker) repeated(k raceKey) int {
	for j := range w.repeats {
		if r := &w.repeats[j]; r.k == k && r.k.mem != nil {
			r.n++
			return j
		}
	}
	return -1
}

// flushRepeats adds the worker's counted repeats to the findings (under
// l.mu).
func (l *launch) flushRepeats(w *worker) {
	for j := range w.repeats {
		if r := &w.repeats[j]; r.n > 0 {
			l.findings.list[r.i].Count += int(r.n)
			r.n = 0
		}
	}
}

// addRace records race finding f, whose key is k.
func (l *launch) addRace(k raceKey, f Finding) {
	if l.epoch != nil && l.stop.Load() == 0 {
		l.specFail("a finding")
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.races == nil {
		l.races = map[raceKey]int{}
	}
	l.races[k] = l.findings.add(f)
}

// threadAccess describes thread t doing op at site s.
func threadAccess(t *Thread, op string, s site) Access {
	return Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: op, Site: s.String()}
}

// accessOf describes a recorded access by global thread id.
func (l *launch) accessOf(gid uint32, op string, s site) Access {
	if gid < l.gidBase {
		return Access{Host: true, Op: op}
	}
	g := int(gid - l.gidBase)
	return Access{Block: l.grid.unlinear(g / l.tpb), Thread: l.block.unlinear(g % l.tpb), Op: op, Site: s.String()}
}

// badIndex reports an out-of-bounds access and aborts the thread.
// A freed buffer has no elements, so every access to it comes here, and is
// named for what it is.
func (t *Thread) badIndex(m *mem, i int, write bool) {
	op := "read"
	if write {
		op = "write"
	}
	t.badAccess(m, i, op)
}

// badAccess is badIndex for an access named op.
func (t *Thread) badAccess(m *mem, i int, op string) {
	s := t.w.sites.callerSite()
	f := Finding{Kind: OutOfBounds, Space: m.space, Memory: m.name, Cols: m.cols, View: m.view, Index: i,
		Detail:  fmt.Sprintf("index %d outside [0,%d)", i, m.n),
		Current: threadAccess(t, op, s)}
	root := m
	if m.vroot != nil {
		root = m.vroot
	}
	switch {
	case root.lapsed:
		f.Detail = root.lapsedDetail()
	case m.freed:
		f.Kind, f.Detail = UseAfterFree, fmt.Sprintf("buffer %q was freed before the kernel used it", m.name)
	case m.space == GlobalSpace && m.dev == nil:
		f.Kind, f.Detail = ForeignBuffer, "zero-value Buffer: make one with sim.Alloc or sim.FromHost"
	case m.space == GlobalSpace && m.dev != t.w.l.dev:
		f.Kind, f.Detail = ForeignBuffer, fmt.Sprintf("buffer %q belongs to another Device", m.name)
	case m.space == SharedSpace && t.blk.dynamic != nil && root == t.blk.dynamic.base():
		// (Its length comes from the launch, not the kernel: one who
		// forgot Config.SharedBytes reads [0,0) and wonders why.)
		f.Detail += fmt.Sprintf(": the launch's dynamic shared memory is %d bytes (Config.SharedBytes)", t.w.l.dynSh)
	}
	t.w.l.addFinding(f)
	panic(abortKernel{})
}

// lapsedDetail says that shared array m is used after its block ended.
func (m *mem) lapsedDetail() string {
	return fmt.Sprintf("shared array %q belongs to block %s, which has ended (the array was kept past its block's kernel call, or its launch): on the GPU the pointer is into a dead block's shared memory",
		m.name, m.life.lapsedIn.IndexString())
}

// kernelPanic records a Go panic raised by kernel code, with the kernel line
// that raised it (the stack is still intact inside the deferred recover).
func (w *worker) kernelPanic(t *Thread, r any) {
	detail := panicText(r)
	if e, ok := r.(runtime.Error); ok && strings.Contains(e.Error(), "nil pointer dereference") {
		if fn := nilEntry(); fn != "" {
			detail += fmt.Sprintf(" in %s: a nil *Buffer, *Thread or other sim value reached it (a buffer never allocated, or an Alloc whose error was dropped?)", fn)
		}
	}
	w.l.addFinding(Finding{Kind: KernelPanic, Detail: detail, Panic: r,
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "panic", Site: panicSite()}})
}

// maxPanicText bounds a panic value's text in a finding: a kernel that
// panics with a 10 MiB string must not copy it into every report line.
const maxPanicText = 4 << 10

// panicText is r's text, as fmt.Sprint writes it, cut at maxPanicText
// bytes (at a rune boundary) with the length of what was cut. A string
// value is cut before it is copied.
func panicText(r any) string {
	s, ok := r.(string)
	if !ok {
		s = fmt.Sprint(r) // (which survives an Error or String method that panics)
	}
	if len(s) <= maxPanicText {
		return s
	}
	cut := maxPanicText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes)", s[:cut], len(s)-cut)
}

// nilEntry is, for a nil pointer dereference being recovered in a
// deferred call, the sim function the kernel called that made it (the
// outermost sim frame of those the fault unwinds), as "sim.(*Buffer).Load";
// "" if the fault is not in sim.
func nilEntry() string {
	var pcs [64]uintptr
	n := runtime.Callers(1, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	faulted, entry := false, ""
	for {
		fr, more := frames.Next()
		inSim := strings.HasPrefix(fr.Function, simPkg) && !strings.HasSuffix(fr.File, "_test.go")
		switch {
		case fr.Function == "runtime.sigpanic":
			faulted = true
		case faulted && inSim:
			entry = fr.Function
		case faulted:
			more = false
		}
		if !more {
			break
		}
	}
	if entry == "" {
		return ""
	}
	// github.com/gpusim/gpusim/sim.(*Buffer[go.shape.float32]).Load -> sim.(*Buffer).Load
	name := strings.TrimPrefix(entry, simPkg)
	var b strings.Builder
	depth := 0
	for _, c := range name {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return "sim." + b.String()
}

// kernelGoexit records a thread that called runtime.Goexit, with the kernel
// line that led to it.
func (w *worker) kernelGoexit(t *Thread) {
	w.l.addFinding(Finding{Kind: KernelPanic,
		Detail:  "runtime.Goexit in a kernel thread (a *testing.T's FailNow, Fatal or SkipNow, called from the kernel?): it ends the thread's goroutine, and the launch; report failures from the test after Launch returns",
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "Goexit", Site: panicSite()}})
}

// panicSite is the line of the kernel's code a panic or Goexit unwinding
// through a deferred recover (two frames up) came from: the innermost frame
// outside the runtime, sim and the standard library, or the innermost
// outside the runtime and sim if there is none.
func panicSite() string { return outerSite(4) }

// outerSite is the line of the innermost frame of the calling goroutine's
// stack, skip frames up (as runtime.Callers counts them), that is outside
// the runtime, sim and the standard library, or the innermost outside the
// runtime and sim if there is none.
func outerSite(skip int) string {
	var pcs [32]uintptr
	n := runtime.Callers(skip+1, pcs[:])
	where, lib := "", ""
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !strings.HasPrefix(fr.Function, "runtime.") &&
			!(strings.HasPrefix(fr.Function, simPkg) && !strings.HasSuffix(fr.File, "_test.go")) {
			s := fmt.Sprintf("%s:%d", shortFile(fr.File), fr.Line)
			if !stdlib(fr.Function, fr.File) {
				where = s
				break
			}
			if lib == "" {
				lib = s
			}
		}
		if !more {
			break
		}
	}
	if where == "" {
		return lib
	}
	return where
}

// Bounds of a thread report (Finding.Groups and Waiting): whatever the
// grid, a report's text stays within a few KB.
const (
	maxGroups          = 24  // groups listed; the rest are counted in Detail
	maxSpans           = 8   // thread ranges listed per group
	maxWaitingPerGroup = 256 // threads listed one by one in Waiting, per state and line
)

// threadKey is what a thread group shares: a state and a line.
type threadKey struct {
	at string
	s  site
}

// grouper gathers threads, block by block in increasing linear order and
// thread by thread in increasing order within a block, into ThreadGroups:
// runs of consecutive blocks whose threads in one state at one line form
// the same ranges. It costs a map lookup per thread and keeps at most one
// block's ranges besides the groups.
type grouper struct {
	groups  []StateGroup
	full    [][]Span          // each group's thread ranges, untruncated, to compare blocks with
	last    map[threadKey]int // the key's latest group
	block   int               // the block being added
	cur     map[threadKey][]Span
	order   []threadKey // keys of the current block, in first-seen order
	perKey  map[threadKey]int
	waiting []WaitingThread
	extra   int // threads in groups beyond maxGroups
	extraG  int // groups beyond maxGroups
	siteStr map[site]string
}

func newGrouper() *grouper {
	return &grouper{last: map[threadKey]int{}, cur: map[threadKey][]Span{}, perKey: map[threadKey]int{},
		siteStr: map[site]string{}, block: -1}
}

func (g *grouper) siteString(s site) string {
	str, ok := g.siteStr[s]
	if !ok {
		str = s.String()
		if s == 0 {
			str = ""
		}
		g.siteStr[s] = str
	}
	return str
}

// add records thread tid (linear) of block blk (linear), at and s its
// state and line.
func (g *grouper) add(blk int, blockIdx Dim3, tid int, threadIdx Dim3, at string, s site) {
	if blk != g.block {
		g.endBlock()
		g.block = blk
	}
	k := threadKey{at, s}
	sp, ok := g.cur[k]
	if !ok {
		g.order = append(g.order, k)
	}
	if n := len(sp); n > 0 && sp[n-1].Last == tid-1 {
		sp[n-1].Last = tid
	} else {
		sp = append(sp, Span{tid, tid})
	}
	g.cur[k] = sp
	if c, seen := g.perKey[k]; (seen || len(g.perKey) < maxGroups) && c < maxWaitingPerGroup {
		g.perKey[k] = c + 1
		g.waiting = append(g.waiting, WaitingThread{Block: blockIdx, Thread: threadIdx, At: at, Site: g.siteString(s)})
	}
}

// endBlock turns the current block's ranges into groups, extending the
// key's latest group when it covers the previous block with the same ranges.
func (g *grouper) endBlock() {
	for _, k := range g.order {
		sp := g.cur[k]
		n := 0
		for _, s := range sp {
			n += s.Last - s.First + 1
		}
		if i, ok := g.last[k]; ok && i >= 0 && g.groups[i].Blocks.Last == g.block-1 && slices.Equal(g.full[i], sp) {
			g.groups[i].Blocks.Last = g.block
			g.groups[i].Count += n
		} else if len(g.groups) < maxGroups {
			g.last[k] = len(g.groups)
			g.groups = append(g.groups, StateGroup{Blocks: Span{g.block, g.block}, At: k.at, Site: g.siteString(k.s), Count: n})
			g.full = append(g.full, slices.Clone(sp))
		} else {
			if _, ok := g.last[k]; !ok {
				g.last[k] = -1
			}
			g.extra += n
			g.extraG++
		}
		delete(g.cur, k)
	}
	g.order = g.order[:0]
}

// finish writes the groups into f, and returns the count of threads left out.
func (g *grouper) finish(f *Finding) int {
	g.endBlock()
	for i := range g.groups {
		sp := g.full[i]
		if len(sp) > maxSpans {
			g.groups[i].MoreSpans = len(sp) - maxSpans
			sp = sp[:maxSpans]
		}
		g.groups[i].Threads = sp
	}
	f.Groups, f.Waiting = g.groups, g.waiting
	if g.extra > 0 {
		f.Detail += fmt.Sprintf("; %d more threads in %d more groups not listed", g.extra, g.extraG)
	}
	return g.extra
}
