package sim

import (
	"fmt"
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
	pc       uintptr
	site     site
	fn       int32 // interned function name, for "which line comes later" checks
	line     int32
	internal bool
	boundary bool // the kernel's caller: the walk missed the kernel frame
}

var siteTable = struct {
	sync.RWMutex
	byPC  map[uintptr]pcClass
	infos []siteInfo
	ids   map[siteInfo]site
	fns   map[string]int32
}{byPC: map[uintptr]pcClass{}, infos: []siteInfo{{}}, ids: map[siteInfo]site{}, fns: map[string]int32{}}

const (
	simPkg        = "github.com/gpusim/gpusim/sim."
	runThreadFunc = simPkg + "(*worker).runThread"
)

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
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if f.Function == runThreadFunc {
			c.boundary = true
			break
		}
		if f.Function != "" && !(strings.HasPrefix(f.Function, simPkg) && !strings.HasSuffix(f.File, "_test.go")) {
			c.internal = false
			c.site, c.fn = internSite(siteInfo{file: f.File, line: f.Line, fn: f.Function})
			c.line = int32(f.Line)
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

func (s site) String() string { return s.info().String() }

// siteCache is a per-worker direct-mapped cache in front of the site table,
// so that a hot access site costs a frame walk and one or two array probes.
type siteCache [512]pcClass

func (c *siteCache) lookup(pc uintptr) pcClass {
	e := &c[(pc^pc>>9)&511]
	if e.pc == pc {
		return *e
	}
	*e = classify(pc)
	return *e
}

// callerSite returns the site of the kernel line that (directly or through
// sim helpers) called the function that calls callerSite.
func (c *siteCache) callerSite() site { return c.callerSkip(1).site }

// caller returns the classified kernel frame that called into sim.
func (c *siteCache) caller() pcClass { return c.callerSkip(1) }

// callerSkip is caller for a call path known to hold skip-1 sim frames
// with frame pointers above the caller of callerSkip: their lookups are saved.
//
//go:noinline
func (c *siteCache) callerSkip(skip int) pcClass {
	var pcs [maxFrames]uintptr
	// Walk just far enough for the usual paths (the sim entry point inlined
	// into the kernel or not); the whole chain only when a helper function
	// sits between the kernel and sim.
	want := skip + 1
	for {
		n := framePCs(&pcs, want)
		for i := skip - 1; i < n; i++ {
			if pcs[i] == 0 {
				return slowCaller()
			}
			k := c.lookup(pcs[i])
			if k.boundary {
				return slowCaller()
			}
			if !k.internal {
				return k
			}
		}
		if n < want || want == maxFrames {
			return slowCaller()
		}
		want = maxFrames
	}
}

// slowCaller finds the kernel frame with the runtime's unwinder. The
// frame-pointer walk misses the return address of a function that has no
// frame of its own (a one-call wrapper the compiler did not inline); this
// path is correct in every case and costs about 200 ns.
func slowCaller() pcClass {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == runThreadFunc || f.Function == "" {
			break
		}
		if !(strings.HasPrefix(f.Function, simPkg) && !strings.HasSuffix(f.File, "_test.go")) {
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
