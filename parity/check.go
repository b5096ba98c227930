package parity

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/cuda"
	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"pgregory.net/rapid"
)

// Launch is one launch of a user's kernel: its shape and its arguments.
type Launch struct {
	Grid, Block sim.Dim3
	SharedBytes int
	// Args are the kernel's arguments in its parameters' order: a host
	// slice []T for each *sim.Buffer[T] parameter, copied to a new device
	// buffer of its length before the launch (an output buffer is a slice
	// of the length wanted, whose contents are its initial ones), and a
	// value for each scalar parameter, converted to the parameter's type
	// where it fits exactly: an integer to any integer type that holds it,
	// a float64 to a float32 parameter where it is a float32 value (2.5,
	// not 0.1), a float32 to a float64, an integer to a float type that
	// holds it exactly (2 for a float32); anything else is an error. T is any element type a
	// sim.Buffer holds (sim.Storable): the scalar types, int16 and uint16,
	// sim.Half and sim.BFloat16, and the vector types (sim.Float4, ...),
	// copied to the GPU with CUDA's layout of the type.
	Args []any
	// Constants are the __constant__ arrays the kernel reads, with the
	// contents the host writes into them before the launch, on the
	// simulator and on the GPU alike (cudaMemcpyToSymbol): one Const(c,
	// values) for each package-level sim.Constant the kernel (or a
	// function it calls) loads. What values does not cover is zero.
	//
	// Check requires every constant the kernel's twin declares to be here
	// (give zeros explicitly where the kernel means to read zeros): the
	// GPU is shared by every launch of the process, so a constant left out
	// would hold whatever an earlier launch wrote, while the simulator's
	// fresh device holds zeros.
	Constants []Constant
	// Cooperative says whether the launch is cooperative
	// (cudaLaunchCooperativeKernel), which grid.sync() needs. The zero
	// value makes it cooperative exactly when the kernel calls grid.sync()
	// (see Cooperation). Check launches the simulator and the GPU alike.
	Cooperative Cooperation
}

// Cooperation is whether a launch is cooperative, as
// cudaLaunchCooperativeKernel makes one: every block co-resident, so that
// grid.sync() (sim.GridGroup.Sync, cg::this_grid().sync()) is defined, and
// a grid with more blocks than the device holds co-resident refused before
// anything runs (cudaErrorCooperativeLaunchTooLarge, on the simulator and
// the GPU alike; sim.Device.CooperativeLimit says how many fit).
type Cooperation int

const (
	// CooperativeIfGridSync, the zero value, makes the launch cooperative
	// when the kernel calls grid.sync(), in its body or a helper, as its
	// generated twin records (twin.Twin.GridSync), or when Test.Options ask
	// for a cooperative launch (WithCooperative(true)). A kernel with no
	// twin (one declared in a _test.go file) is launched plainly unless the
	// Options ask: nothing tells what it calls before it runs, and its
	// grid.sync() is then a KernelPanic finding.
	CooperativeIfGridSync Cooperation = iota
	// CooperativeAlways makes the launch cooperative whatever the kernel
	// calls.
	CooperativeAlways
	// CooperativeNever makes the launch plain (cuLaunchKernel). It is
	// refused for a kernel whose twin calls grid.sync(): on an H100
	// (driver 580, CUDA 13) grid.is_valid() is true in a plain launch too,
	// and the GPU takes the grid.sync() path that the simulator, following
	// the Programming Guide (grid.sync() only in a cooperative launch),
	// does not take; the two cannot be compared. Test.Options may not ask
	// for a cooperative launch either.
	CooperativeNever
)

// Constant is the host's contents of one __constant__ array for a launch.
// Make it with Const, which checks the types.
type Constant struct {
	Var    any // the *sim.Constant[T], declared at package level
	Values any // a []T no longer than the constant
}

// Const is the Constant that fills c with values (and zeros after them)
// before a launch.
func Const[T sim.Storable](c *sim.Constant[T], values []T) Constant {
	return Constant{Var: c, Values: values}
}

// Test describes the parity test of one kernel function, written in the
// form the translator takes:
//
//	func Saxpy(x, y *sim.Buffer[float32], a float32, n int) sim.Kernel
type Test struct {
	// Kernel is the kernel function (Saxpy, or Scale[float64] for an
	// instance of a generic kernel).
	Kernel any
	// Draw draws a launch: its shape and inputs. rapid shrinks a failing
	// launch to a minimal one, so draw sizes with rapid's generators.
	Draw func(t *rapid.T) Launch
	// Reference, if set, computes on the CPU what every buffer argument
	// holds after the launch (from l's Args and Constants), in the order
	// of the buffer parameters; a nil entry leaves that buffer out of the
	// comparison (an input the kernel does not write, or scratch).
	Reference func(l Launch) []any
	// Rule compares results: the simulator's with the reference's, and the
	// GPU's with the simulator's. The zero Rule is bit-exact.
	Rule kernels.Rule
	// Options are the simulator's launch options (schedule, seed). The
	// detectors are always on. WithCooperative(true) makes every launch
	// cooperative, on the GPU too (see Launch.Cooperative).
	Options sim.Options
	// SimulatorOnly leaves the GPU out even where one is available: for a
	// kernel with no generated twin, such as one declared in a _test.go
	// file, which the translator does not read.
	SimulatorOnly bool
}

// Check property-tests t.Kernel with rapid: for every drawn launch it
// writes the launch's Constants and runs the kernel on the simulator with
// every detector on and
//
//   - fails with the simulator's report if the detectors find anything;
//   - compares the buffers with Reference's under Rule, if there is one;
//   - on a GPU host, in a test binary built with -tags cuda, runs the
//     kernel's generated CUDA twin on the device and compares every buffer
//     with the simulator's under Rule.
//
// rapid shrinks a failure to a minimal launch and prints it, with go-cmp's
// difference of the outputs.
//
// A kernel that calls grid.sync() is launched cooperatively on both
// backends (cudaLaunchCooperativeKernel on the GPU), as its twin tells;
// Launch.Cooperative decides otherwise. A cooperative grid with more blocks
// than can be co-resident fails the launch with the limit in the message
// (on the GPU the driver's limit, which counts the compiled kernel's
// registers and static shared memory; the simulator knows neither, so it
// may accept a grid the GPU refuses).
//
// A kernel the detectors report has no single answer: a race or an
// uninitialised read lets the hardware return any of several values, so
// comparing one run with another proves nothing. Check therefore fails on
// any finding and never compares a racy kernel's outputs; fix the kernel,
// or test the racy behaviour with the simulator's report directly.
//
// A launch that leaves out a __constant__ array the kernel's twin declares
// fails before anything runs (see Launch.Constants). A kernel with no twin
// is not checked for it: the simulator alone cannot tell which constants a
// Go kernel reads.
//
// Unless SimulatorOnly is set, the kernel must have a generated twin that
// is current: what the translator makes of its package's source now (see
// twincheck.go). A kernel never generated, one edited since `go generate`,
// and one the translator refuses fail Check at once, GPU or not, with the
// translator's reasons; where the Go toolchain cannot load the package (a
// test binary copied to a GPU host), t.Log says the twin was not checked.
//
// Without the cuda build tag, or where no GPU can be opened, only the
// simulator side runs; t.Log says so once per Check.
func Check(t *testing.T, test Test) {
	t.Helper()
	if _, err := kernelParams(test.Kernel); err != nil {
		t.Fatal(err)
	}
	if test.Draw == nil {
		t.Fatal("parity: Test.Draw is nil")
	}
	var gpu kernels.Backend
	if !test.SimulatorOnly {
		unchecked, err := twinCurrent(test.Kernel)
		if err != nil {
			t.Fatal(err)
		}
		if unchecked != "" {
			t.Logf("parity: the CUDA twin is not checked to be current: %s", unchecked)
		}
		if gpu, err = sharedGPU(); err != nil {
			t.Logf("parity: simulator only (%v)", err)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		l := test.Draw(rt)
		if err := checkLaunch(test, l, gpu); err != nil {
			rt.Fatal(err)
		}
	})
}

// checkLaunch runs one launch on the simulator (and the GPU, if gpu is
// not nil) and compares the outputs.
func checkLaunch(test Test, l Launch, gpu kernels.Backend) error {
	if err := constantsCovered(test.Kernel, l.Constants); err != nil {
		return err
	}
	coop, err := cooperation(test.Kernel, l.Cooperative, test.Options.Cooperative())
	if err != nil {
		return err
	}
	sb := kernels.NewSimBackend(sim.H100, test.Options.WithDetection(true))
	simOut, err := runLaunch(sb, test.Kernel, l, coop)
	var rep *sim.Report
	if errors.As(err, &rep) {
		return fmt.Errorf("the simulator reports the kernel (it has no single answer to compare):\n%v", rep)
	}
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	if test.Reference != nil {
		want := test.Reference(l)
		if len(want) != len(simOut) {
			return fmt.Errorf("Reference returned %d buffers, the kernel has %d buffer parameters", len(want), len(simOut))
		}
		for i := range want {
			if want[i] == nil {
				continue
			}
			if d := Diff(test.Rule, kernels.Result{want[i]}, kernels.Result{simOut[i]}); d != "" {
				return fmt.Errorf("buffer %d: simulator differs from Reference (-reference +sim):\n%s", i, d)
			}
		}
	}
	if gpu == nil {
		return nil
	}
	gpuOut, err := runLaunch(gpu, test.Kernel, l, coop)
	if err != nil {
		return fmt.Errorf("GPU: %w", err)
	}
	if d := Diff(test.Rule, simOut, gpuOut); d != "" {
		return fmt.Errorf("GPU differs from the simulator (-sim +gpu):\n%s", d)
	}
	return nil
}

// RunLaunch runs one launch of kernel on backend b: it writes each of
// l.Constants in full (kernels.CopyToSymbol; constants not listed keep
// what b holds), uploads each buffer argument, launches, and returns what
// every buffer holds afterwards, in the order of the buffer parameters.
// Every buffer is freed however it ends.
//
// The launch is cooperative as l.Cooperative says
// (kernels.LaunchCooperative, which b must implement); b's own options
// are not consulted, so CooperativeIfGridSync asks only the kernel's twin.
func RunLaunch(b kernels.Backend, kernel any, l Launch) (kernels.Result, error) {
	if _, err := kernelParams(kernel); err != nil {
		return nil, err // (before the twin's lookup, which panics on a nil kernel)
	}
	coop, err := cooperation(kernel, l.Cooperative, false)
	if err != nil {
		return nil, err
	}
	return runLaunch(b, kernel, l, coop)
}

// cooperative is the decision that a launch is cooperative, with the
// reason, which an error about co-residency repeats.
type cooperative struct {
	on  bool
	why string
}

// cooperation decides whether a launch of kernel is cooperative, from the
// launch's Cooperation and whether the Test's Options ask for it.
func cooperation(kernel any, c Cooperation, optionsAsk bool) (cooperative, error) {
	switch c {
	case CooperativeAlways:
		return cooperative{true, "Launch.Cooperative is CooperativeAlways"}, nil
	case CooperativeNever:
		if optionsAsk {
			return cooperative{}, errors.New("parity: Launch.Cooperative is CooperativeNever, but Test.Options ask for a cooperative launch (WithCooperative(true)); drop one of them")
		}
		if tw, err := twin.Of(kernel); err == nil && tw.GridSync {
			return cooperative{}, errors.New("parity: Launch.Cooperative is CooperativeNever, but the kernel calls grid.sync(): on an H100 (driver 580) grid.is_valid() is true in a plain launch too and the GPU takes the grid.sync() path, which the simulator (grid.sync() only in a cooperative launch, as the Programming Guide says) does not; launch it cooperatively")
		}
		return cooperative{}, nil
	case CooperativeIfGridSync:
		if optionsAsk {
			return cooperative{true, "Test.Options ask for it"}, nil
		}
		if tw, err := twin.Of(kernel); err == nil && tw.GridSync {
			return cooperative{true, "it calls grid.sync()"}, nil
		}
		return cooperative{}, nil
	}
	return cooperative{}, fmt.Errorf("parity: Launch.Cooperative is %d, none of CooperativeIfGridSync, CooperativeAlways and CooperativeNever", int(c))
}

// runLaunch is RunLaunch with the cooperation decided.
func runLaunch(b kernels.Backend, kernel any, l Launch, coop cooperative) (kernels.Result, error) {
	params, err := kernelParams(kernel)
	if err != nil {
		return nil, err
	}
	if len(l.Args) != len(params) {
		return nil, fmt.Errorf("parity: %s takes %d arguments, the launch has %d", kernels.KernelName(kernel), len(params), len(l.Args))
	}
	if err := writeConstants(b, l.Constants); err != nil {
		return nil, err
	}
	args := make([]any, len(l.Args))
	var mems []kernels.Mem
	defer func() {
		for _, m := range mems {
			b.Free(m)
		}
	}()
	for i, a := range l.Args {
		if !params[i] {
			args[i] = a
			continue
		}
		m, err := kernels.UploadSlice(b, a)
		if err != nil {
			return nil, fmt.Errorf("parity: %s: argument for %s: %w", kernels.KernelName(kernel), kernels.ParamNames(kernel)[i], err)
		}
		mems = append(mems, m)
		args[i] = m
	}
	if coop.on {
		err = kernels.LaunchCooperative(b, kernel, l.Grid, l.Block, l.SharedBytes, args...)
	} else {
		err = b.Launch(kernel, l.Grid, l.Block, l.SharedBytes, args...)
	}
	if le := (*sim.LaunchError)(nil); coop.on && errors.As(err, &le) && le.Code == sim.ErrCooperativeLaunchTooLarge {
		return nil, fmt.Errorf("parity: %s is launched cooperatively (%s), so every block of the grid must be co-resident on %s: "+
			"launch fewer or smaller blocks: %w", kernels.KernelName(kernel), coop.why, b.Name(), err)
	}
	if err != nil {
		return nil, err
	}
	out := make(kernels.Result, len(mems))
	for i, m := range mems {
		host := reflect.MakeSlice(reflect.TypeOf(l.Args[indexOfBuffer(params, i)]), m.Len(), m.Len()).Interface()
		if err := b.Read(m, host); err != nil {
			return nil, err
		}
		out[i] = host
	}
	return out, nil
}

// kernelParams says, for each parameter of the kernel function kernel,
// whether it is a buffer.
func kernelParams(kernel any) ([]bool, error) {
	v := reflect.ValueOf(kernel)
	if v.Kind() == reflect.Func && v.IsNil() {
		return nil, fmt.Errorf("parity: the kernel is a nil %T: give the kernel function itself (Saxpy)", kernel)
	}
	if v.Kind() != reflect.Func {
		return nil, fmt.Errorf("parity: the kernel is %T, not a kernel function", kernel)
	}
	ft := v.Type()
	if ft.NumOut() != 1 || ft.Out(0) != reflect.TypeFor[sim.Kernel]() {
		return nil, fmt.Errorf("parity: %s is %v, not a function returning sim.Kernel", kernels.KernelName(kernel), ft)
	}
	bufs := make([]bool, ft.NumIn())
	for i := range bufs {
		pt := ft.In(i)
		bufs[i] = pt.Kind() == reflect.Pointer && pt.Elem().PkgPath() == simPkgPath &&
			strings.HasPrefix(pt.Elem().Name(), "Buffer[")
	}
	return bufs, nil
}

var simPkgPath = reflect.TypeFor[sim.Thread]().PkgPath()

// indexOfBuffer is the argument index of the k-th buffer parameter.
func indexOfBuffer(params []bool, k int) int {
	for i, b := range params {
		if b {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}

// constant is a checked Constant: its symbol and its values padded with
// zeros to the constant's length.
type constant struct {
	name string
	full reflect.Value // []T of the constant's length
}

// checkConstants checks each Constant's types and lengths, and that no
// constant is given twice.
func checkConstants(cs []Constant) ([]constant, error) {
	out := make([]constant, len(cs))
	seen := map[any]bool{}
	for i, c := range cs {
		name, n, elem, err := kernels.CheckSymbolWrite(c.Var, c.Values)
		if err != nil {
			return nil, fmt.Errorf("parity: Launch.Constants[%d]: %w", i, err)
		}
		if seen[c.Var] {
			return nil, fmt.Errorf("parity: Launch.Constants sets constant %q twice", name)
		}
		seen[c.Var] = true
		full := reflect.MakeSlice(reflect.SliceOf(elem), n, n)
		reflect.Copy(full, reflect.ValueOf(c.Values))
		out[i] = constant{name: name, full: full}
	}
	return out, nil
}

// writeConstants writes each of cs in full on b.
func writeConstants(b kernels.Backend, cs []Constant) error {
	checked, err := checkConstants(cs)
	if err != nil {
		return err
	}
	w, ok := b.(kernels.ConstantWriter)
	if len(cs) > 0 && !ok {
		return fmt.Errorf("parity: backend %s cannot write constant memory (it has no CopyToSymbol)", b.Name())
	}
	for i, c := range checked {
		if err := w.CopyToSymbol(cs[i].Var, c.full.Interface()); err != nil {
			return fmt.Errorf("parity: constant %q: %w", c.name, err)
		}
	}
	return nil
}

// constantsCovered checks that cs sets every constant the kernel's twin
// declares (the constants the kernel reads, the functions it calls
// included). A kernel with no twin (one declared in a _test.go file) is
// not checked: the simulator alone cannot tell which constants a Go kernel
// reads, and runs it on a fresh device whose constants are zero.
func constantsCovered(kernel any, cs []Constant) error {
	if _, err := checkConstants(cs); err != nil {
		return err
	}
	tw, err := twin.Of(kernel)
	if err != nil {
		return nil
	}
	for _, k := range tw.Constants {
		if !slices.ContainsFunc(cs, func(c Constant) bool { return sameConstant(k, c.Var) }) {
			gn := k.GoName
			if gn == "" {
				gn = k.Name
			}
			return fmt.Errorf("parity: %s reads __constant__ %s (%s, %d elements of %s), which the launch does not set: "+
				"add parity.Const(%s, values) to Launch.Constants, with zeros if the kernel means to read zeros "+
				"(on the GPU, a constant the launch leaves out holds what an earlier launch wrote)",
				tw.Entry, k.Name, gn, k.Len, k.Elem, shortName(gn))
		}
	}
	return nil
}

// sameConstant reports whether v, a *sim.Constant a launch sets, is the
// constant k a twin declares: the same variable, or, for a twin
// registered without it, the same symbol.
func sameConstant(k twin.Constant, v any) bool {
	if k.Var != nil {
		return k.Var == v
	}
	named, ok := v.(interface{ Name() string })
	return ok && named.Name() == k.Name
}

// shortName is a Go name without its package: "k.taps" is "taps".
func shortName(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

var (
	gpuOnce sync.Once
	gpuDev  *cuda.Device
	gpuErr  error
)

// sharedGPU opens the GPU once per process for every Check; it stays open
// until the process exits, as the driver keeps one context per process.
func sharedGPU() (kernels.Backend, error) {
	gpuOnce.Do(func() {
		if !cuda.Available {
			gpuErr = errors.New("built without -tags cuda")
			return
		}
		gpuDev, gpuErr = cuda.Open(cuda.Config{})
	})
	if gpuErr != nil {
		return nil, gpuErr
	}
	return gpuDev, nil
}
