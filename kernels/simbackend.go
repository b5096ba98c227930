package kernels

import (
	"errors"
	"fmt"

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
}

func (m *simMem) Len() int     { return m.n }
func (m *simMem) DType() DType { return m.dt }

func alloc[T sim.Elem](d *sim.Device, n int) (*simMem, error) {
	b, err := sim.Alloc[T](d, fmt.Sprintf("buf%d", n), n)
	if err != nil {
		return nil, err
	}
	return &simMem{dt: DTypeOf[T](), buf: b, n: n}, nil
}

func (s *SimBackend) Alloc(dt DType, n int) (Mem, error) {
	d := s.Dev
	switch dt {
	case Int8:
		return alloc[int8](d, n)
	case Uint8:
		return alloc[uint8](d, n)
	case Int32:
		return alloc[int32](d, n)
	case Uint32:
		return alloc[uint32](d, n)
	case Int64:
		return alloc[int64](d, n)
	case Uint64:
		return alloc[uint64](d, n)
	case Float32:
		return alloc[float32](d, n)
	case Float64:
		return alloc[float64](d, n)
	}
	return nil, fmt.Errorf("kernels: unknown dtype %d", dt)
}

// Named allocates like Alloc and names the buffer for findings.
func (s *SimBackend) Named(name string, m Mem) {
	if sm, ok := m.(*simMem); ok {
		if nb, ok := sm.buf.(interface{ SetName(string) }); ok {
			nb.SetName(name)
		}
	}
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
	switch b := sm.buf.(type) {
	case *sim.Buffer[int8]:
		return copyIn(b, src)
	case *sim.Buffer[uint8]:
		return copyIn(b, src)
	case *sim.Buffer[int32]:
		return copyIn(b, src)
	case *sim.Buffer[uint32]:
		return copyIn(b, src)
	case *sim.Buffer[int64]:
		return copyIn(b, src)
	case *sim.Buffer[uint64]:
		return copyIn(b, src)
	case *sim.Buffer[float32]:
		return copyIn(b, src)
	case *sim.Buffer[float64]:
		return copyIn(b, src)
	}
	return errors.New("kernels: bad buffer")
}

func copyIn[T sim.Elem](b *sim.Buffer[T], src any) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("kernels: Write %T into a %v buffer", src, DTypeOf[T]())
	}
	return b.CopyFromHost(s)
}

func copyOut[T sim.Elem](b *sim.Buffer[T], dst any) error {
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
	switch b := sm.buf.(type) {
	case *sim.Buffer[int8]:
		return copyOut(b, dst)
	case *sim.Buffer[uint8]:
		return copyOut(b, dst)
	case *sim.Buffer[int32]:
		return copyOut(b, dst)
	case *sim.Buffer[uint32]:
		return copyOut(b, dst)
	case *sim.Buffer[int64]:
		return copyOut(b, dst)
	case *sim.Buffer[uint64]:
		return copyOut(b, dst)
	case *sim.Buffer[float32]:
		return copyOut(b, dst)
	case *sim.Buffer[float64]:
		return copyOut(b, dst)
	}
	return errors.New("kernels: bad buffer")
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

func (s *SimBackend) Launch(fn *Func, grid, block sim.Dim3, sharedBytes int, args ...any) error {
	simArgs := make([]any, len(args))
	for i, a := range args {
		if m, ok := a.(Mem); ok {
			sm, err := s.mem(m)
			if err != nil {
				return err
			}
			simArgs[i] = sm.buf
		} else {
			simArgs[i] = a
		}
	}
	opts := s.Options
	var prof *sim.Profile
	if s.Profiles != nil {
		prof = new(sim.Profile)
		opts = opts.WithProfile(prof)
	}
	err := s.Dev.Launch(sim.Config{Grid: grid, Block: block, SharedBytes: sharedBytes, Options: opts}, fn.Body(simArgs))
	if prof != nil {
		*s.Profiles = append(*s.Profiles, prof)
	}
	var r *sim.Report
	if errors.As(err, &r) {
		s.Reports = append(s.Reports, r)
		return fmt.Errorf("%s: %w", fn.Name, r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", fn.Name, err)
	}
	return nil
}
