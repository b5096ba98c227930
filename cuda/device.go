//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/gpusim/gpusim/cuda/twin"
	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/sim"
	"gorgonia.org/cu"
)

// Available reports whether this build has the CUDA backend.
const Available = true

// Device is a kernels.Backend on a real GPU through the CUDA driver API
// (gorgonia.org/cu v0.9.6). Every driver call runs on one goroutine locked
// to its OS thread, on which the device's primary context is current: the
// driver keeps the current context per thread, so calls from whatever thread
// the Go scheduler picks fail with CUDA_ERROR_INVALID_CONTEXT.
type Device struct {
	work chan func()
	done chan struct{}

	dev  cu.Device
	ctx  cu.CUContext
	info Info

	cfg      Config
	compiler *Compiler

	// Loaded modules, by module key: a generated twin's entry point, or
	// the name Config.Source gave a replacement source.
	modules map[string]cu.Module
	funcs   map[string]map[string]cu.Function // module key -> entry -> function
	builds  map[string]Build
	mems    map[*devMem]bool

	// Constant memory, touched on the driver thread only: the constants
	// each loaded module declares (its twin's), and the host's image of
	// every constant written so far, which a module loaded later gets.
	modConsts map[string][]modConst
	consts    map[any]*hostConst

	// Launch timing (TimeLaunches), touched on the driver thread only: the
	// two events are created on first use and reused for every launch.
	timing         bool
	evStart, evEnd cu.Event
	haveEvents     bool
	times          []LaunchTime
}

type devMem struct {
	ptr cu.DevicePtr
	n   int
	dt  kernels.DType
}

func (m *devMem) Len() int             { return m.n }
func (m *devMem) DType() kernels.DType { return m.dt }

// Open starts the driver thread, retains the primary context of device
// cfg.Ordinal and makes it current on that thread.
func Open(cfg Config) (*Device, error) {
	d := &Device{
		work: make(chan func()), done: make(chan struct{}), cfg: cfg,
		modules: map[string]cu.Module{},
		funcs:   map[string]map[string]cu.Function{}, builds: map[string]Build{},
		mems: map[*devMem]bool{}, modConsts: map[string][]modConst{}, consts: map[any]*hostConst{},
	}
	go d.loop()
	err := d.do(func() error {
		var err error
		// cu's package init already called cuInit(0) (and exits the
		// process if it fails).
		if d.dev, err = cu.GetDevice(cfg.Ordinal); err != nil {
			return fmt.Errorf("cuDeviceGet(%d): %w", cfg.Ordinal, err)
		}
		// Workaround: cu.NewContext/cu.Device.MakeContext call cuCtxCreate,
		// whose ABI changed in CUDA 13 (cuCtxCreate_v4 takes a
		// CUctxCreateParams*). Which symbol the binary binds depends on the
		// cuda.h it was built against; the primary context API
		// (cuDevicePrimaryCtxRetain) has not changed since CUDA 7 and is
		// also what the runtime API and compute-sanitizer expect.
		if d.ctx, err = d.dev.RetainPrimaryCtx(); err != nil {
			return fmt.Errorf("cuDevicePrimaryCtxRetain: %w", err)
		}
		if err = cu.SetCurrentContext(d.ctx); err != nil {
			return fmt.Errorf("cuCtxSetCurrent: %w", err)
		}
		if d.info.Name, err = d.dev.Name(); err != nil {
			return fmt.Errorf("cuDeviceGetName: %w", err)
		}
		if d.info.CC[0], d.info.CC[1], err = d.dev.ComputeCapability(); err != nil {
			return fmt.Errorf("cuDeviceGetAttribute(compute capability): %w", err)
		}
		if d.info.SMs, err = d.dev.Attribute(cu.MultiprocessorCount); err != nil {
			return fmt.Errorf("cuDeviceGetAttribute(multiprocessor count): %w", err)
		}
		d.info.DriverVersion = cu.Version()
		d.info.Arch = fmt.Sprintf("sm_%d%d", d.info.CC[0], d.info.CC[1])
		return nil
	})
	if err != nil {
		d.stop()
		return nil, err
	}
	if d.compiler, err = NewCompiler(cfg, d.info.Arch); err != nil {
		d.Close()
		return nil, err
	}
	d.info.NVCC = d.compiler.Version
	return d, nil
}

func (d *Device) loop() {
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
	for {
		select {
		case f := <-d.work:
			f()
		case <-d.done:
			return
		}
	}
}

// do runs f on the driver thread and waits for it.
func (d *Device) do(f func() error) error {
	errc := make(chan error, 1)
	select {
	case d.work <- func() { errc <- f() }:
	case <-d.done:
		return errors.New("cuda: device closed")
	}
	return <-errc
}

func (d *Device) stop() {
	select {
	case <-d.done:
	default:
		close(d.done)
	}
}

// Close frees what is left, unloads the modules, releases the primary
// context and ends the driver thread.
func (d *Device) Close() error {
	var errs []error
	err := d.do(func() error {
		for m := range d.mems {
			if m.ptr != 0 {
				if err := cu.MemFree(m.ptr); err != nil {
					errs = append(errs, fmt.Errorf("cuMemFree: %w", err))
				}
			}
		}
		d.mems = nil
		for k, m := range d.modules {
			if err := m.Unload(); err != nil {
				errs = append(errs, fmt.Errorf("cuModuleUnload(%s): %w", k, err))
			}
		}
		d.modules = nil
		d.modConsts, d.consts = nil, nil
		if d.haveEvents {
			for _, ev := range []*cu.Event{&d.evStart, &d.evEnd} {
				if err := cu.DestroyEvent(ev); err != nil {
					errs = append(errs, fmt.Errorf("cuEventDestroy: %w", err))
				}
			}
			d.haveEvents = false
		}
		if err := d.dev.ReleasePrimaryCtx(); err != nil {
			errs = append(errs, fmt.Errorf("cuDevicePrimaryCtxRelease: %w", err))
		}
		return nil
	})
	d.stop()
	return errors.Join(append(errs, err)...)
}

// Info describes the device.
func (d *Device) Info() Info { return d.info }

// Builds returns how each twin loaded so far was compiled.
func (d *Device) Builds() map[string]Build {
	out := make(map[string]Build, len(d.builds))
	for k, b := range d.builds {
		out[k] = b
	}
	return out
}

func (d *Device) Name() string { return "cuda (" + d.info.Name + ")" }

// source is the CUDA a launch of the kernel whose twin is tw runs: the
// module key, the source and its entry point's name. It is tw's generated
// source unless Config.Source replaces it.
func (d *Device) source(tw *twin.Twin) (key string, src []byte, entry string) {
	if d.cfg.Source != nil {
		if name, src, entry := d.cfg.Source(tw); src != nil {
			return name, src, entry
		}
	}
	return tw.Module(), []byte(tw.Source), tw.Entry
}

// function compiles (or takes from the cache) and loads the CUDA of
// kernel, a kernel function, and returns its twin and entry point.
func (d *Device) function(kernel any) (*twin.Twin, cu.Function, string, error) {
	tw, err := twin.Of(kernel)
	if err != nil {
		return nil, cu.Function{}, "", fmt.Errorf("cuda: %w", err)
	}
	key, src, entry := d.source(tw)
	fn, err := d.entry(key, src, entry, tw)
	return tw, fn, entry, err
}

// entry loads the module key (compiled from src, the CUDA of tw or a
// replacement of it) and returns its entry point.
func (d *Device) entry(key string, src []byte, entry string, tw *twin.Twin) (cu.Function, error) {
	if err := d.load(key, src, tw); err != nil {
		return cu.Function{}, err
	}
	fn, ok := d.funcs[key][entry]
	if !ok {
		return cu.Function{}, fmt.Errorf("cuda: %s declares no entry point %q", key, entry)
	}
	return fn, nil
}

// load compiles and loads the module key once, and writes into it the
// constants tw declares that the host has written.
func (d *Device) load(key string, src []byte, tw *twin.Twin) error {
	if _, ok := d.modules[key]; ok {
		return nil
	}
	image, b, err := d.compiler.Compile(key, src)
	if err != nil {
		return err
	}
	return d.do(func() error {
		// cu.LoadData copies the image with C.CString, which copies all
		// len(image) bytes (NULs included) and appends one: fine for a
		// cubin, whose ELF header gives its size.
		mod, err := cu.LoadData(string(image))
		if err != nil {
			return fmt.Errorf("cuModuleLoadData(%s.cubin): %w", key, err)
		}
		fns := map[string]cu.Function{}
		for _, e := range EntryPoints(src) {
			fn, err := mod.Function(e)
			if err != nil {
				mod.Unload()
				return fmt.Errorf("cuModuleGetFunction(%s, %q): %w (is it extern \"C\"?)", key, e, err)
			}
			fns[e] = fn
		}
		mcs, err := d.bindConstants(key, mod, tw, key != tw.Module())
		if err != nil {
			mod.Unload()
			return err
		}
		d.modules[key] = mod
		d.funcs[key] = fns
		d.builds[key] = b
		d.modConsts[key] = mcs
		return nil
	})
}

func (d *Device) mem(m kernels.Mem) (*devMem, error) {
	dm, ok := m.(*devMem)
	if !ok {
		return nil, fmt.Errorf("cuda: %T is not a device buffer", m)
	}
	if !d.mems[dm] {
		return nil, errors.New("cuda: buffer was freed")
	}
	return dm, nil
}

func (d *Device) Alloc(dt kernels.DType, n int) (kernels.Mem, error) {
	if !dt.Valid() {
		return nil, fmt.Errorf("cuda: unknown dtype %d", dt)
	}
	if n < 0 {
		return nil, fmt.Errorf("cuda: Alloc of %d elements", n)
	}
	m := &devMem{n: n, dt: dt}
	err := d.do(func() error {
		if n > 0 { // cuMemAlloc(0) is an error; an empty buffer has no memory
			p, err := cu.MemAlloc(int64(n * dt.Size()))
			if err != nil {
				return fmt.Errorf("cuMemAlloc(%d × %v): %w", n, dt, err)
			}
			m.ptr = p
		}
		d.mems[m] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// hostBytes returns the address of a host slice of dtype dt, and its
// length in elements. s may be a []T of any element type a sim.Buffer
// holds: Go lays each out as CUDA does (kernels.HostBytes), so its bytes
// are copied as they are.
func hostBytes(dt kernels.DType, s any) (unsafe.Pointer, int, error) {
	got, b, err := kernels.HostBytes(s)
	if err != nil {
		return nil, 0, fmt.Errorf("cuda: %w", err)
	}
	if got != dt {
		return nil, 0, fmt.Errorf("cuda: %T does not match a %v buffer", s, dt)
	}
	return unsafe.Pointer(unsafe.SliceData(b)), len(b) / dt.Size(), nil
}

// Write copies src into the start of m, as SimBackend does.
func (d *Device) Write(m kernels.Mem, src any) error {
	dm, err := d.mem(m)
	if err != nil {
		return err
	}
	p, n, err := hostBytes(dm.dt, src)
	if err != nil {
		return err
	}
	if n > dm.n {
		return fmt.Errorf("cuda: Write of %d elements into a buffer of %d", n, dm.n)
	}
	if n == 0 {
		return nil
	}
	return d.do(func() error {
		if err := cu.MemcpyHtoD(dm.ptr, p, int64(n*dm.dt.Size())); err != nil {
			return fmt.Errorf("cuMemcpyHtoD(%d bytes): %w", n*dm.dt.Size(), err)
		}
		return nil
	})
}

// Read copies the start of m into dst.
func (d *Device) Read(m kernels.Mem, dst any) error {
	dm, err := d.mem(m)
	if err != nil {
		return err
	}
	p, n, err := hostBytes(dm.dt, dst)
	if err != nil {
		return err
	}
	if n > dm.n {
		return fmt.Errorf("cuda: Read of %d elements from a buffer of %d", n, dm.n)
	}
	if n == 0 {
		return nil
	}
	return d.do(func() error {
		if err := cu.MemcpyDtoH(p, dm.ptr, int64(n*dm.dt.Size())); err != nil {
			return fmt.Errorf("cuMemcpyDtoH(%d bytes): %w", n*dm.dt.Size(), err)
		}
		return nil
	})
}

func (d *Device) Memset(m kernels.Mem, v byte) error {
	dm, err := d.mem(m)
	if err != nil {
		return err
	}
	if dm.n == 0 {
		return nil
	}
	return d.do(func() error {
		if err := cu.MemsetD8(dm.ptr, v, int64(dm.n*dm.dt.Size())); err != nil {
			return fmt.Errorf("cuMemsetD8: %w", err)
		}
		return nil
	})
}

func (d *Device) Free(m kernels.Mem) {
	dm, ok := m.(*devMem)
	if !ok || !d.mems[dm] {
		return
	}
	d.do(func() error {
		if dm.ptr != 0 {
			cu.MemFree(dm.ptr) // nothing to do with an error here
		}
		delete(d.mems, dm)
		return nil
	})
}

// packArgs turns launch arguments into the kernelParams array the driver
// wants: one pointer to each argument's value, converted to the C type of
// the twin's parameter (a value that does not fit is an error, as it is on
// the simulator).
//
// Workaround: cu v0.9.6's Function.Launch copies each parameter into C
// memory as *(*uint64)(kernelParams[i]), an 8-byte read whatever the
// parameter's size. A pointer to a lone int32 or float32 would make it read
// 4 bytes past the value. Each argument therefore gets an 8-byte slot: a
// smaller scalar sits in the slot's low bytes (little-endian, so the pointer
// to the slot is also a pointer to the value, which is all the driver reads
// for the parameter), a device pointer is stored as its cu.DevicePtr
// (uintptr) value.
func (d *Device) packArgs(tw *twin.Twin, args []any) ([]unsafe.Pointer, error) {
	if len(args) != len(tw.Params) {
		return nil, fmt.Errorf("%s: launched with %d arguments for %d parameters", tw.Entry, len(args), len(tw.Params))
	}
	slots := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		p := tw.Params[i]
		if p.Buffer() {
			m, ok := a.(kernels.Mem)
			if !ok {
				return nil, fmt.Errorf("%s: argument %s: %T for a buffer parameter", tw.Entry, p.Name, a)
			}
			dm, err := d.mem(m)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %s: %w", tw.Entry, p.Name, err)
			}
			if dm.dt.String() != p.Elem {
				return nil, fmt.Errorf("%s: argument %s: a %v buffer for a %s parameter", tw.Entry, p.Name, dm.dt, p.GoType)
			}
			*(*cu.DevicePtr)(unsafe.Pointer(&slots[i])) = dm.ptr
		} else {
			bits, err := scalarBits(a, p.CType)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %s: %w", tw.Entry, p.Name, err)
			}
			slots[i] = bits
		}
		params[i] = unsafe.Pointer(&slots[i])
	}
	return params, nil
}

// Launch runs kernel<<<grid, block, sharedBytes>>>(args...), kernel being
// a kernel function with a generated twin, and synchronizes, so that a fault
// in the kernel is returned by the launch that caused it.
func (d *Device) Launch(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	return d.launch(kernel, grid, block, sharedBytes, false, args)
}

// LaunchCooperative is Launch through cuLaunchCooperativeKernel
// (cudaLaunchCooperativeKernel): every block is co-resident, so that
// grid.sync() is legal, and a grid larger than the device holds
// co-resident is refused before anything runs, as a *sim.LaunchError with
// sim.ErrCooperativeLaunchTooLarge, the simulator's error for the same
// request. It makes *Device a kernels.CooperativeLauncher.
func (d *Device) LaunchCooperative(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	return d.launch(kernel, grid, block, sharedBytes, true, args)
}

func (d *Device) launch(kernel any, grid, block sim.Dim3, sharedBytes int, cooperative bool, args []any) error {
	tw, f, entry, err := d.function(kernel)
	if err != nil {
		return err
	}
	params, err := d.packArgs(tw, args)
	if err != nil {
		return err
	}
	g, b := norm(grid), norm(block)
	return d.do(func() error {
		if sharedBytes > 48<<10 {
			// Dynamic shared memory above 48 KiB must be opted into per function.
			if err := setMaxDynamicShared(f, sharedBytes); err != nil {
				return fmt.Errorf("cuFuncSetAttribute(%s, max dynamic shared %d): %w", entry, sharedBytes, err)
			}
		}
		if d.timing {
			if err := d.evStart.Record(cu.Stream{}); err != nil {
				return fmt.Errorf("cuEventRecord before %s: %w", entry, err)
			}
		}
		start := time.Now()
		if cooperative {
			if err := d.launchCooperative(f, g, b, sharedBytes, params); err != nil {
				return fmt.Errorf("cuLaunchCooperativeKernel(%s<<<%v, %v, %d>>>): %w", entry, grid, block, sharedBytes, err)
			}
		} else if err := f.Launch(g.X, g.Y, g.Z, b.X, b.Y, b.Z, sharedBytes, cu.Stream{}, params); err != nil {
			return fmt.Errorf("cuLaunchKernel(%s<<<%v, %v, %d>>>): %w", entry, grid, block, sharedBytes, err)
		}
		if d.timing {
			if err := d.evEnd.Record(cu.Stream{}); err != nil {
				return fmt.Errorf("cuEventRecord after %s: %w", entry, err)
			}
		}
		if err := cu.Synchronize(); err != nil {
			return fmt.Errorf("cuCtxSynchronize after %s: %w", entry, err)
		}
		host := time.Since(start)
		if d.timing {
			// Both events have completed: the context is synchronised.
			ms, err := d.evStart.Elapsed(d.evEnd)
			if err != nil {
				return fmt.Errorf("cuEventElapsedTime(%s): %w", entry, err)
			}
			d.times = append(d.times, LaunchTime{Func: entry,
				GPU: time.Duration(ms * float64(time.Millisecond)), Host: host})
		}
		return nil
	})
}

// TimeLaunches turns launch timing on or off and forgets the times
// recorded so far. While it is on, every Launch records a LaunchTime: two
// CUDA events recorded on the launch's stream around cuLaunchKernel give
// the kernel's GPU time, and the host clock the time from cuLaunchKernel to
// the end of the synchronisation that follows it (the second event's
// record included). Launch synchronises either way, so timing adds only the
// two cuEventRecord calls and one cuEventElapsedTime per launch.
func (d *Device) TimeLaunches(on bool) error {
	return d.do(func() error {
		if on && !d.haveEvents {
			var err error
			if d.evStart, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
				return fmt.Errorf("cuEventCreate: %w", err)
			}
			if d.evEnd, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
				cu.DestroyEvent(&d.evStart)
				return fmt.Errorf("cuEventCreate: %w", err)
			}
			d.haveEvents = true
		}
		d.timing, d.times = on, nil
		return nil
	})
}

// LaunchTimes returns the launches timed since TimeLaunches or the last
// LaunchTimes, in launch order, and forgets them.
func (d *Device) LaunchTimes() []LaunchTime {
	var out []LaunchTime
	d.do(func() error {
		out, d.times = d.times, nil
		return nil
	})
	return out
}

func norm(d sim.Dim3) sim.Dim3 {
	if d.X == 0 {
		d.X = 1
	}
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

var (
	_ kernels.Backend        = (*Device)(nil)
	_ kernels.ConstantWriter = (*Device)(nil)
)
