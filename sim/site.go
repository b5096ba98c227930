package sim

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// A site is a source location in kernel code: the line that called into sim.
// Sites are interned process-wide; site 0 means unknown.
type site uint32

const maxFrames = 8

type siteInfo struct {
	file string
	line int
	fn   string
}

func (s siteInfo) String() string {
	if s.file == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", shortFile(s.file), s.line)
}

func shortFile(f string) string {
	// Keep the last two path elements: "kernels/reduce.go".
	i := strings.LastIndexByte(f, '/')
	if i > 0 {
		if j := strings.LastIndexByte(f[:i], '/'); j >= 0 {
			return f[j+1:]
		}
	}
	return f
}

// pcClass says, for one return address, which site it belongs to, or that it
// lies inside sim itself and the walk must go one frame further.
type pcClass struct {
	pc uintptr
	// kernelPC is pc when the return address is a kernel line (neither
	// internal nor boundary), else 0: entrySite's whole test.
	kernelPC uintptr
	site     site
	fn       int32 // interned function name, for "which line comes later" checks
	line     int32
	internal bool
	boundary bool // the kernel's caller: the walk missed the kernel frame
	// inlined: kernel functions the compiler inlined the frame's function
	// into stand around it at pc, their call lines in siteTable.outer.
	inlined bool
}

var siteTable = struct {
	sync.RWMutex
	byPC  map[uintptr]pcClass
	infos []siteInfo
	strs  []string // infos[i].String(), formatted once: every report names sites
	ids   map[siteInfo]site
	fns   map[string]int32
	// outer holds, for a kernel pc whose function was inlined into other
	// kernel functions, their lines at pc, innermost first (kernelChain).
	outer map[uintptr][]pastOp
}{byPC: map[uintptr]pcClass{}, infos: []siteInfo{{}}, strs: []string{siteInfo{}.String()}, ids: map[siteInfo]site{}, fns: map[string]int32{},
	outer: map[uintptr][]pastOp{}}

// simPkg is the prefix of every function symbol in this package
// ("github.com/gpusim/gpusim/sim." as published; another path in a fork, a
// vendored or an internal copy) and runThreadFunc the symbol of the scheduler
// frame that calls kernels, where a walk up from a sim entry point has missed
// the kernel. Both are read off the runtime's symbol table at init, so that
// sim tells its own frames from kernel code under any module path.
// (An init function, not initialisers: runThreads's body refers back to
// simPkg, a cycle the compiler refuses in initialisers.)
var simPkg, runThreadFunc string

func init() { simPkg, runThreadFunc = ownSymbols() }

func ownSymbols() (pkg, runThreads string) {
	runThreads = funcName((*worker).runThreads)
	pkg, ok := strings.CutSuffix(runThreads, "(*worker).runThreads")
	if !ok || pkg == "" {
		panic("sim: cannot read the scheduler's symbol: " + runThreads)
	}
	return pkg, runThreads
}

// funcName returns the runtime's symbol for the function f.
func funcName(f any) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

// classify resolves a return address, expanding inlined frames: the first
// frame outside sim's non-test files is the site.
func classify(pc uintptr) pcClass {
	siteTable.RLock()
	c, ok := siteTable.byPC[pc]
	siteTable.RUnlock()
	if ok {
		return c
	}
	c = pcClass{pc: pc, internal: true}
	// The trailing 0 matters: Frames expands the inlined calls around a PC
	// (SyncThreads or Load inlined into the kernel) only while more PCs
	// follow it, so a lone PC would yield the innermost sim function alone.
	// The 0 itself is no function and is skipped.
	frames := runtime.CallersFrames([]uintptr{pc, 0})
	for {
		f, more := frames.Next()
		if f.Function == runThreadFunc {
			c.boundary = true
			break
		}
		if f.Function != "" && !passedFrame(f) {
			c.internal = false
			c.kernelPC = pc
			c.site, c.fn = internSite(siteInfo{file: f.File, line: f.Line, fn: f.Function})
			c.line = int32(f.Line)
			var outer []pastOp
			for more {
				if f, more = frames.Next(); f.Function == "" || f.Function == runThreadFunc {
					break
				}
				if !passedFrame(f) {
					s, fn := internSite(siteInfo{file: f.File, line: f.Line, fn: f.Function})
					outer = append(outer, pastOp{fn, int32(f.Line), s})
				}
			}
			if len(outer) > 0 {
				c.inlined = true
				siteTable.Lock()
				siteTable.outer[pc] = outer
				siteTable.Unlock()
			}
			break
		}
		if !more {
			break
		}
	}
	siteTable.Lock()
	siteTable.byPC[pc] = c
	siteTable.Unlock()
	return c
}

// passedFrame reports whether a walk from a sim entry point up to the
// kernel's line passes frame f: sim's own (its non-test files), and the
// runtime's, which calls a kernel's deferred `defer t.SyncThreads()` while
// the kernel panics (the site is then the line that panicked, not
// runtime/panic.go).
func passedFrame(f runtime.Frame) bool {
	return strings.HasPrefix(f.Function, simPkg) && !strings.HasSuffix(f.File, "_test.go") ||
		strings.HasPrefix(f.Function, "runtime.")
}

func internSite(s siteInfo) (site, int32) {
	siteTable.Lock()
	defer siteTable.Unlock()
	fn, ok := siteTable.fns[s.fn]
	if !ok {
		fn = int32(len(siteTable.fns) + 1)
		siteTable.fns[s.fn] = fn
	}
	if id, ok := siteTable.ids[s]; ok {
		return id, fn
	}
	id := site(len(siteTable.infos))
	siteTable.infos = append(siteTable.infos, s)
	siteTable.strs = append(siteTable.strs, s.String())
	siteTable.ids[s] = id
	return id, fn
}

func (s site) info() siteInfo {
	siteTable.RLock()
	defer siteTable.RUnlock()
	if int(s) < len(siteTable.infos) {
		return siteTable.infos[s]
	}
	return siteInfo{}
}

func (s site) String() string {
	siteTable.RLock()
	defer siteTable.RUnlock()
	if int(s) < len(siteTable.strs) {
		return siteTable.strs[s]
	}
	return siteInfo{}.String()
}

// siteCache is a per-worker direct-mapped cache in front of the site table,
// so that a hot access site costs two frame-pointer reads and one or two
// array probes.
type siteCache struct {
	entries [512]pcClass // direct-mapped on the return address's low bits
	slow    int64        // lookups that took a slow path (see Counters.SlowSites)
	slowRes pcClass      // the last slowCaller result, which callerSkip points to
}

// callerSite returns the site of the kernel line that (directly or through
// sim helpers) called the function that calls callerSite.
func (c *siteCache) callerSite() site { return c.callerSkip(1, 1).site }

// probe returns the cache entry for pc, classifying it on a miss.
func (c *siteCache) probe(pc uintptr) *pcClass {
	e := &c.entries[pc%uintptr(len(c.entries))]
	if e.pc != pc {
		*e = classify(pc)
	}
	return e
}

// kernelChain appends, for every kernel-code frame between the sim entry
// point that calls it and the kernel's caller, the function and line the
// frame is at: the barrier's line in a helper, then the helper's call line
// in the kernel, whether or not the compiler inlined the helper. Only the
// first maxFrames frames are read.
//
//go:noinline
func (c *siteCache) kernelChain(dst []pastOp) []pastOp {
	var pcs [maxFrames]uintptr
	n := framePCs(&pcs, maxFrames)
	for _, pc := range pcs[:n] {
		if pc == 0 {
			break
		}
		e := c.probe(pc)
		if e.boundary {
			break
		}
		if !e.internal {
			dst = append(dst, pastOp{e.fn, e.line, e.site})
		}
		if e.inlined {
			siteTable.RLock()
			dst = append(dst, siteTable.outer[pc]...)
			siteTable.RUnlock()
		}
	}
	return dst
}

// entrySite resolves the kernel line of a sim entry point E (Load's slow
// path, an atomic) from the two return addresses above E, pc0 (E's own) and
// pc1 (its caller's): whether or not the compiler inlined E's caller (Load,
// AtomicAdd) into the kernel, one of them is the kernel's line. Anything else
// counts as a slow lookup and walks the stack.
func (c *siteCache) entrySite(pc0, pc1 uintptr) *pcClass {
	// The usual case, a cache hit: pc0 is the kernel's line (E is Load, or
	// E's caller, SyncThreads say, was inlined into the kernel). Small
	// enough to be inlined.
	if e := &c.entries[pc0%uintptr(len(c.entries))]; e.kernelPC == pc0 {
		return e
	}
	return c.entrySiteMiss(pc0, pc1)
}

// entrySiteMiss is entrySite past a cache hit on a kernel line at pc0:
// pc0 may be sim's (an atomic's wrapper, which the inliner did not take)
// and pc1 the kernel's.
//
//go:noinline
func (c *siteCache) entrySiteMiss(pc0, pc1 uintptr) *pcClass {
	cls := c.probe(pc0)
	if cls.internal {
		if cls = c.probe(pc1); cls.internal || cls.boundary {
			c.slow++
			cls = c.callerSkip(1, 4)
		}
	}
	return cls
}

// callerSkip is caller for a call path that usually holds skip sim frames
// above the caller of callerSkip: the walk first reads only that many. The
// first sure of them are sim's in every build (functions marked noinline
// and called only from sim) and are not looked up; every later frame is
// classified, since the compiler may inline sim frames (Load, SyncThreads)
// into the kernel in one build and not in another.
//
// The result points into the cache and stays valid until the next lookup:
// callers read it at once. (A pcClass returned by value came back in six
// registers that the caller spilled field by field and reloaded whole, a
// store-forwarding stall that cost more than the walk.)
//
//go:noinline
func (c *siteCache) callerSkip(sure, skip int) *pcClass {
	var pcs [maxFrames]uintptr
	want := skip + 1
	for {
		n := framePCs(&pcs, want)
		ended := n < want // the chain ended, or reached runThreads
		for i := sure; i < n && !ended; i++ {
			if pcs[i] == 0 {
				ended = true
				break
			}
			e := c.probe(pcs[i])
			if !e.internal {
				return e
			}
			ended = e.boundary
		}
		if ended || want == maxFrames {
			c.slow++
			c.slowRes = slowCaller()
			return &c.slowRes
		}
		want = maxFrames
	}
}

// slowCaller finds the kernel frame with the runtime's unwinder: correct in
// every case, and 0.2 to 5 µs a call, depending on stack depth and inlining.
// The frame-pointer walk falls back on it when the kernel frame lies deeper
// than maxFrames (a chain of helper functions between kernel and sim) or the
// chain is broken; Counters.SlowSites counts how often, and the registry's
// tests expect zero.
func slowCaller() pcClass {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == runThreadFunc || f.Function == "" {
			break
		}
		if !passedFrame(f) {
			var c pcClass
			c.site, c.fn = internSite(siteInfo{file: f.File, line: f.Line, fn: f.Function})
			c.line = int32(f.Line)
			return c
		}
		if !more {
			break
		}
	}
	return pcClass{}
}
