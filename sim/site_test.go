package sim

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// fastSites says whether this architecture has the frame-pointer walk
// (site_amd64.s, site_arm64.s); elsewhere every lookup unwinds.
const fastSites = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// sim's own symbols are read at init, never written down: a copy of the
// module under another path (scripts/renamed-module.sh) must find the same.
func TestOwnSymbols(t *testing.T) {
	pkg := reflect.TypeOf(Thread{}).PkgPath() + "."
	if simPkg != pkg {
		t.Errorf("simPkg = %q, want %q", simPkg, pkg)
	}
	if want := pkg + "(*worker).runThreads"; runThreadFunc != want {
		t.Errorf("runThreadFunc = %q, want %q", runThreadFunc, want)
	}
	if name := funcName(classify); !strings.HasPrefix(name, simPkg) {
		t.Errorf("classify's symbol %q lacks the prefix %q", name, simPkg)
	}
}

//go:noinline
func fpLeaf(pcs *[maxFrames]uintptr, n int) int { return framePCs(pcs, n) }

//go:noinline
func fpMid(pcs *[maxFrames]uintptr, n int) int { return fpLeaf(pcs, n) + 0 }

//go:noinline
func fpTop(pcs *[maxFrames]uintptr, n int) int { return fpMid(pcs, n) + 0 }

//go:noinline
func callersLeaf(pcs []uintptr) int { return runtime.Callers(2, pcs) }

//go:noinline
func callersMid(pcs []uintptr) int { return callersLeaf(pcs) + 0 }

//go:noinline
func callersTop(pcs []uintptr) int { return callersMid(pcs) + 0 }

// framePCs must return what the runtime's unwinder returns for the same
// frames: its caller's return address first, then each caller's in turn.
// (Only up to the test runner: at the goroutine's bottom the unwinder stops
// at goexit, the frame-pointer chain one record later, and no walk of sim's
// reaches that far, since runThreads lies above.)
func TestFramePCsMatchesCallers(t *testing.T) {
	var fp [maxFrames]uintptr
	cs := make([]uintptr, maxFrames)
	for _, n := range []int{0, 1, 2, 3, 4} {
		got := fpTop(&fp, n)
		want := callersTop(cs[:n])
		if got != want {
			t.Fatalf("max %d: framePCs returned %d PCs, runtime.Callers %d", n, got, want)
		}
		for i := range got {
			// The same call sites, in fpX and callersX: compare the
			// functions and lines the return addresses belong to.
			g, w := frameAt(fp[i]), frameAt(cs[i])
			g = strings.Replace(g, "fp", "callers", 1)
			if g != w {
				t.Errorf("max %d, frame %d: framePCs %s, runtime.Callers %s", n, i, frameAt(fp[i]), w)
			}
		}
	}
}

// frameAt names the function a return address lies in (without its package).
func frameAt(pc uintptr) string {
	f := runtime.FuncForPC(pc - 1)
	if f == nil {
		return "?"
	}
	name := f.Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}

//go:noinline
func pcs01() (uintptr, uintptr) { return callerPCs01() }

//go:noinline
func pcs01Caller() (uintptr, uintptr) { a, b := pcs01(); return a, b }

//go:noinline
func pcs12() (uintptr, uintptr) { return callerPCs12() }

//go:noinline
func pcs12Mid() (uintptr, uintptr) { a, b := pcs12(); return a, b }

//go:noinline
func pcs12Caller() (uintptr, uintptr) { a, b := pcs12Mid(); return a, b }

// callerPCs01 and callerPCs12 read the two return addresses they promise.
func TestCallerPCs(t *testing.T) {
	if !fastSites {
		t.Skip("no frame-pointer walk on " + runtime.GOARCH)
	}
	pc0, pc1 := pcs01Caller()
	if g0, g1 := frameAt(pc0), frameAt(pc1); g0 != "pcs01Caller" || g1 != "TestCallerPCs" {
		t.Errorf("callerPCs01 from pcs01: %s, %s; want pcs01Caller, TestCallerPCs", g0, g1)
	}
	pc1, pc2 := pcs12Caller()
	if g1, g2 := frameAt(pc1), frameAt(pc2); g1 != "pcs12Caller" || g2 != "TestCallerPCs" {
		t.Errorf("callerPCs12 from pcs12: %s, %s; want pcs12Caller, TestCallerPCs", g1, g2)
	}
}

// The canary of the fast path: every access, atomic, barrier and collective
// written directly in a kernel must find its line from the frame-pointer
// reads, with detection and with the profiler, on every architecture that
// has them. A slow lookup costs up to microseconds: a change that sends the
// usual case there (a new sim frame between kernel and entry point, an
// inlining decision) shows up here before it shows up as a slow benchmark.
func TestSitesNeedNoUnwinder(t *testing.T) {
	if !fastSites {
		t.Skip("no frame-pointer walk on " + runtime.GOARCH + ": every lookup unwinds")
	}
	for _, opts := range []Options{{}, Options{}.WithSchedule(RandomOrder).WithSeed(3), {profile: new(Profile)}} {
		d := NewDevice(H100)
		x, _ := Alloc[float32](d, "x", 256)
		n, _ := Alloc[int32](d, "n", 4)
		x.Memset(0)
		n.Memset(0)
		k := func(th *Thread) {
			i := th.GlobalX()
			s := Shared[float32](th, "s", 64)
			s.Store(th, th.ThreadIdx.X, x.Load(th, i))
			th.SyncThreads()
			v := s.Load(th, (th.ThreadIdx.X+1)%64)
			v = ShflXorSync(th, 0xffffffff, v, 1)
			th.SyncWarp(0xffffffff)
			AtomicAdd(th, n, 0, 1)
			th.ThreadFence()
			if th.SyncThreadsCount(v >= 0) > 0 {
				x.Store(th, i, v+1)
			}
		}
		if err := d.Launch(Config{Grid: Dim(4), Block: Dim(64), Options: opts}, k); err != nil {
			t.Fatal(err)
		}
		if c := d.Counters(); c.SlowSites != 0 {
			t.Errorf("%+v: %d of %d loads, %d stores, %d atomics and %d barriers needed a slow lookup",
				opts, c.SlowSites, c.Loads, c.Stores, c.Atomics, c.Barriers)
		}
	}
}

// stdlib tells the standard library by the file where it can: a module
// whose path has no dot (`go mod init myapp`) is the user's code, and the
// watchdog and panic reports name its lines.
func TestStdlibByFile(t *testing.T) {
	root := runtime.GOROOT()
	for _, c := range []struct {
		fn, file string
		want     bool
	}{
		{"testing.(*common).FailNow", root + "/src/testing/testing.go", true},
		{"myapp.kernel.func1", "/home/user/myapp/kernel.go", false},
		{"review.TestK.func1", "/tmp/review/k_test.go", false},
		{"github.com/x/y.k", "/home/user/y/k.go", false},
		{"fmt.Sprintf", "fmt/print.go", true}, // -trimpath: the name decides
		{"main.k", "main.go", false},
	} {
		if got := stdlib(c.fn, c.file); got != c.want {
			t.Errorf("stdlib(%q, %q) = %v, want %v", c.fn, c.file, got, c.want)
		}
	}
}
