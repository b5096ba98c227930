package sim

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// Kind classifies a finding.
type Kind uint8

const (
	DataRace          Kind = iota + 1 // two unordered accesses to one element, at least one a write
	UninitializedRead                 // a read of memory nothing wrote
	BarrierDivergence                 // threads of a block at different barriers, or passing one by
	WarpDivergence                    // lanes meeting in different warp collectives, or a mask without the caller (fatal)
	Deadlock                          // no thread can make progress (includes livelock)
	OutOfBounds                       // an index outside a buffer (fatal: the launch is aborted)
	KernelPanic                       // a Go panic in the kernel (fatal)
	InvalidShared                     // shared memory declared inconsistently or beyond the limits (fatal)
	InvalidShuffle                    // a shuffle reads a lane outside the mask, or one that exited or does not exist
)

var kindNames = map[Kind]string{
	DataRace: "data race", UninitializedRead: "uninitialised read", BarrierDivergence: "barrier divergence",
	WarpDivergence: "warp divergence", Deadlock: "deadlock", OutOfBounds: "out-of-bounds access",
	KernelPanic: "kernel panic", InvalidShared: "invalid shared memory", InvalidShuffle: "invalid shuffle",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Fatal reports whether a finding of this kind aborts the launch.
func (k Kind) Fatal() bool {
	return k == Deadlock || k == OutOfBounds || k == KernelPanic || k == InvalidShared || k == WarpDivergence
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
	s := fmt.Sprintf("%s by block %v thread %v", a.Op, a.Block, a.Thread)
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

// Finding is one deduplicated problem. Two findings are the same when their
// kind and the source lines of both accesses agree; Count says how many
// times it happened, and the other fields describe the first occurrence.
type Finding struct {
	Kind   Kind
	Space  Space  // of the memory involved, if any
	Memory string // buffer or shared array name, if any
	Index  int    // element index, if any
	// Current is the access that revealed the finding; Previous the earlier
	// access it conflicts with (races), or the other party (divergence).
	Current, Previous Access
	Count             int
	Detail            string
	Waiting           []WaitingThread // deadlocks: every live thread
}

func (f *Finding) key() string {
	return fmt.Sprintf("%d|%s|%s|%s|%s|%s", f.Kind, f.Current.Site, f.Previous.Site, f.Current.Op, f.Previous.Op, f.Memory)
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Memory != "" {
		fmt.Fprintf(&b, " on %s %s[%d]", f.Space, quoteName(f.Memory), f.Index)
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
	for _, w := range f.Waiting {
		fmt.Fprintf(&b, "\n    block %v thread %v: %s at %s", w.Block, w.Thread, w.At, w.Site)
	}
	if f.Count > 1 {
		fmt.Fprintf(&b, "\n    (%d occurrences of this pair of lines)", f.Count)
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
	Aborted  bool // a fatal finding stopped the launch; see the package doc for memory
	Dropped  int  // distinct findings beyond the report's capacity
}

func (r *Report) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpusim: %d finding(s)", len(r.Findings))
	if r.Aborted {
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
	dropped int
	fatal   bool
}

func (s *findingSet) add(f Finding) {
	if s.index == nil {
		s.index = map[string]int{}
	}
	if f.Kind.Fatal() {
		s.fatal = true
	}
	k := f.key()
	if i, ok := s.index[k]; ok {
		s.list[i].Count++
		return
	}
	if len(s.list) >= maxFindings {
		s.dropped++
		return
	}
	f.Count = 1
	s.index[k] = len(s.list)
	s.list = append(s.list, f)
}

func (s *findingSet) report(l *launch) error {
	if len(s.list) == 0 {
		return nil
	}
	out := &Report{Findings: append([]Finding(nil), s.list...), Aborted: s.fatal, Dropped: s.dropped}
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
	l.mu.Lock()
	l.findings.add(f)
	l.mu.Unlock()
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
func (t *Thread) badIndex(m *mem, i int, write bool) {
	op := "read"
	if write {
		op = "write"
	}
	s := t.w.sites.callerSite()
	t.w.l.addFinding(Finding{Kind: OutOfBounds, Space: m.space, Memory: m.name, Index: i,
		Detail:  fmt.Sprintf("index %d outside [0,%d)", i, m.n),
		Current: threadAccess(t, op, s)})
	panic(abortKernel{})
}

// kernelPanic records a Go panic raised by kernel code, with the kernel line
// that raised it (the stack is still intact inside the deferred recover).
func (w *worker) kernelPanic(t *Thread, r any) {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	where := ""
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !strings.HasPrefix(fr.Function, "runtime.") &&
			!(strings.HasPrefix(fr.Function, simPkg) && !strings.HasSuffix(fr.File, "_test.go")) {
			where = fmt.Sprintf("%s:%d", shortFile(fr.File), fr.Line)
			break
		}
		if !more {
			break
		}
	}
	w.l.addFinding(Finding{Kind: KernelPanic, Detail: fmt.Sprint(r),
		Current: Access{Block: t.BlockIdx, Thread: t.ThreadIdx, Op: "panic", Site: where}})
}
