package kernels

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

// SimBackend runs drivers on the simulator. Launch options (schedule, seed,
// detection) come from Options; every launch's report is kept in Reports and
// the first one is returned as the launch's error, so a driver stops at the
// first faulty launch as it would after a CUDA error.
type SimBackend struct {
	Dev     *sim.Device
	Options sim.Options
	// Reports collects the findings of every launch, in launch order.
	Reports []*sim.Report
	// Profiles, when non-nil, receives one profile per launch.
	Profiles *[]*sim.Profile

	allocs int // allocations so far, numbering provisional buffer names
}

// NewSimBackend returns a backend on a fresh device of the given spec.
func NewSimBackend(spec sim.Spec, opts sim.Options) *SimBackend {
	return &SimBackend{Dev: sim.NewDevice(spec), Options: opts}
}

func (s *SimBackend) Name() string { return "sim (" + s.Dev.Spec().Name + ")" }

type simMem struct {
	dt  DType
	buf any // *sim.Buffer[T]
	n   int
	// named is set by Named: the buffer keeps that name instead of taking
	// its parameter's at each launch.
	named bool
	// write and read copy between buf and a host []T of the same T, which
	// they check; they are made with buf, which knows its T.
	write, read func(host any) error
}

func (m *simMem) Len() int     { return m.n }
func (m *simMem) DType() DType { return m.dt }

// alloc allocates a buffer whose name ("alloc<k>", the backend's k-th
// allocation) shows only in host-side errors before its first launch: a
// launch renames it after its parameter (see Launch).
func alloc[T sim.Storable](d *sim.Device, name string, n int) (*simMem, error) {
	b, err := sim.Alloc[T](d, name, n)
	if err != nil {
		return nil, err
	}
	return &simMem{dt: DTypeOf[T](), buf: b, n: n,
		write: func(src any) error { return copyIn(b, src) },
		read:  func(dst any) error { return copyOut(b, dst) }}, nil
}

func (s *SimBackend) Alloc(dt DType, n int) (Mem, error) {
	if !dt.Valid() {
		return nil, fmt.Errorf("kernels: unknown dtype %d", dt)
	}
	s.allocs++
	return dtypes[dt].alloc(s.Dev, fmt.Sprintf("alloc%d", s.allocs), n)
}

// Named gives m a fixed name for findings, which launches then leave alone
// instead of naming m after the parameter it is passed as.
func (s *SimBackend) Named(name string, m Mem) {
	if sm, ok := m.(*simMem); ok {
		setName(sm, name)
		sm.named = true
	}
}

func setName(sm *simMem, name string) {
	sm.buf.(interface{ SetName(string) }).SetName(name)
}

func (s *SimBackend) mem(m Mem) (*simMem, error) {
	sm, ok := m.(*simMem)
	if !ok {
		return nil, fmt.Errorf("kernels: %T is not a simulator buffer", m)
	}
	return sm, nil
}

type hostCopier interface {
	Memset(byte) error
}

func (s *SimBackend) Write(m Mem, src any) error {
	sm, err := s.mem(m)
	if err != nil {
		return err
	}
	return sm.write(src)
}

func copyIn[T sim.Storable](b *sim.Buffer[T], src any) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("kernels: Write %T into a %v buffer", src, DTypeOf[T]())
	}
	return b.CopyFromHost(s)
}

func copyOut[T sim.Storable](b *sim.Buffer[T], dst any) error {
	s, ok := dst.([]T)
	if !ok {
		return fmt.Errorf("kernels: Read a %v buffer into %T", DTypeOf[T](), dst)
	}
	return b.CopyToHost(s)
}

func (s *SimBackend) Read(m Mem, dst any) error {
	sm, err := s.mem(m)
	if err != nil {
		return err
	}
	return sm.read(dst)
}

func (s *SimBackend) Memset(m Mem, v byte) error {
	sm, err := s.mem(m)
	if err != nil {
		return err
	}
	return sm.buf.(hostCopier).Memset(v)
}

func (s *SimBackend) Free(m Mem) {
	if sm, ok := m.(*simMem); ok {
		if f, ok := sm.buf.(interface{ Free() }); ok {
			f.Free()
		}
	}
}

// Launch runs kernel on the simulator: it calls the kernel function with
// the launch's buffers and scalars and launches the body it returns. Before
// it starts, each buffer argument is named after the parameter it is passed
// as (ParamNames), so that this launch's findings print "g_idata"[3]: the
// name is the one in the code the reader has open, also when a driver
// passes one buffer as different parameters in turn (reduce_full's partials
// are g_odata of one pass and g_idata of the next). A buffer passed as
// several parameters of one launch is named after all of them, "in/out".
// Buffers given a name with Named keep it.
func (s *SimBackend) Launch(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	return s.launch(kernel, grid, block, sharedBytes, false, args)
}

// LaunchCooperative is Launch as cudaLaunchCooperativeKernel: the launch
// is cooperative (sim.Options.WithCooperative), so grid.sync() is legal in
// it, and a grid larger than the device holds co-resident is refused with
// sim.ErrCooperativeLaunchTooLarge before anything runs.
func (s *SimBackend) LaunchCooperative(kernel any, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	return s.launch(kernel, grid, block, sharedBytes, true, args)
}

func (s *SimBackend) launch(kernel any, grid, block sim.Dim3, sharedBytes int, cooperative bool, args []any) error {
	fv, err := kernelFunc(kernel)
	if err != nil {
		return err
	}
	name, params := KernelName(kernel), ParamNames(kernel)
	ft := fv.Type()
	if len(args) != ft.NumIn() {
		return fmt.Errorf("%s: launched with %d arguments for parameters [%s]", name, len(args), strings.Join(params, ", "))
	}
	in := make([]reflect.Value, len(args))
	var bufs []*simMem
	names := map[*simMem][]string{}
	for i, a := range args {
		pt := ft.In(i)
		if m, ok := a.(Mem); ok {
			sm, err := s.mem(m)
			if err != nil {
				return fmt.Errorf("%s: argument for %s: %w", name, params[i], err)
			}
			bv := reflect.ValueOf(sm.buf)
			if bv.Type() != pt {
				return fmt.Errorf("%s: argument for %s: a %v buffer for a %v parameter", name, params[i], sm.dt, pt)
			}
			in[i] = bv
			if _, seen := names[sm]; !seen {
				bufs = append(bufs, sm)
			}
			names[sm] = append(names[sm], params[i])
			continue
		}
		v, err := scalarArg(a, pt)
		if err != nil {
			return fmt.Errorf("%s: argument for %s: %w", name, params[i], err)
		}
		in[i] = v
	}
	for _, sm := range bufs {
		if !sm.named {
			setName(sm, strings.Join(names[sm], "/"))
		}
	}
	body := fv.Call(in)[0].Interface().(sim.Kernel)
	opts := s.Options
	if cooperative {
		opts = opts.WithCooperative(true)
	}
	cfg := sim.Config{Grid: grid, Block: block, SharedBytes: sharedBytes, Options: opts}
	if s.Profiles != nil {
		var prof *sim.Profile
		prof, err = s.Dev.LaunchProfile(cfg, body)
		if prof != nil {
			*s.Profiles = append(*s.Profiles, prof)
		}
	} else {
		err = s.Dev.Launch(cfg, body)
	}
	var r *sim.Report
	if errors.As(err, &r) {
		s.Reports = append(s.Reports, r)
		return fmt.Errorf("%s: %w", name, r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
