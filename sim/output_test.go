package sim_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// TestOutputFormat pins the report text, as Go's runtime/race output_test
// does: each kernel's report must match its regexp.
func TestOutputFormat(t *testing.T) {
	tests := []struct {
		name   string
		block  int
		kernel func(dev *sim.Device) sim.Kernel
		re     string
	}{
		{"race", 16, func(dev *sim.Device) sim.Kernel {
			x, _ := sim.Alloc[int32](dev, "x", 1)
			x.Memset(0)
			return func(t *sim.Thread) { x.Store(t, 0, x.Load(t, 0)+1) }
		}, `^gpusim: 2 finding\(s\)
\[1\] data race on global "x"\[0\]
    read by block \(0\) thread \(1\) at sim/output_test\.go:\d+
    previous write by block \(0\) thread \(0\) at sim/output_test\.go:\d+
    \(15 occurrences of this pair of lines\)
\[2\] data race on global "x"\[0\]
    write by block \(0\) thread \(1\) at sim/output_test\.go:\d+
    previous write by block \(0\) thread \(0\) at sim/output_test\.go:\d+
    \(15 occurrences of this pair of lines\)$`},
		{"uninitialised", 4, func(dev *sim.Device) sim.Kernel {
			x, _ := sim.Alloc[float32](dev, "x", 4)
			s, _ := sim.Alloc[float32](dev, "sum", 4)
			return func(t *sim.Thread) { s.Store(t, t.ThreadIdx.X, x.Load(t, t.ThreadIdx.X)) }
		}, `^gpusim: 1 finding\(s\)
\[1\] uninitialised read on global "x"\[0\]: read before the host or any thread wrote it
    read by block \(0\) thread \(0\) at sim/output_test\.go:\d+
    \(4 occurrences at this line\)$`},
		{"out of bounds", 4, func(dev *sim.Device) sim.Kernel {
			x, _ := sim.Alloc[int32](dev, "x", 2)
			return func(t *sim.Thread) { x.Store(t, t.ThreadIdx.X-1, 1) }
		}, `^gpusim: 1 finding\(s\), launch aborted
\[1\] out-of-bounds access on global "x"\[-1\]: index -1 outside \[0,2\)
    write by block \(0\) thread \(0\) at sim/output_test\.go:\d+$`},
		{"deadlock", 2, func(dev *sim.Device) sim.Kernel {
			l, _ := sim.Alloc[uint32](dev, "lock", 1)
			l.Memset(1)
			return func(t *sim.Thread) {
				for sim.AtomicCAS(t, l, 0, 0, 1) != 0 {
				}
			}
		}, `^gpusim: 1 finding\(s\), launch aborted
\[1\] deadlock: livelock: threads spin on memory that no thread will change
    block 0, threads 0-1: spinning without progress at sim/output_test\.go:\d+ \(2 threads\)$`},
		{"pass-by barrier", 32, func(dev *sim.Device) sim.Kernel {
			x, _ := sim.Alloc[int32](dev, "x", 32)
			return func(t *sim.Thread) {
				if t.ThreadIdx.X < 16 {
					t.SyncThreads()
				}
				x.Store(t, t.ThreadIdx.X, 1)
			}
		}, `(?s)barrier divergence: thread \(16\) of block \(0\) did not arrive at the barrier: it ran on to line \d+ and exited while others wait`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			err := dev.Launch(sim.Config{Grid: sim.Dim(1), Block: sim.Dim(tc.block)}, tc.kernel(dev))
			if err == nil {
				t.Fatal("no report")
			}
			if !regexp.MustCompile(tc.re).MatchString(err.Error()) {
				t.Errorf("report does not match\n%s\n--- want ---\n%s", err, tc.re)
			}
		})
	}
}

// TestOutputFormatIndices: a report names threads and blocks of 2-D and
// 3-D launches by their coordinates as they are (a zero is a zero, not an
// extent's 1): threads (5,0) and (5,1) of block (1,0,1).
func TestOutputFormatIndices(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[int32](dev, "x", 1)
	err := dev.Launch(sim.Config{Grid: sim.Dim3{X: 2, Y: 1, Z: 2}, Block: sim.Dim2(8, 2)}, func(t *sim.Thread) {
		if t.BlockIdx == (sim.Dim3{X: 1, Y: 0, Z: 1}) && t.ThreadIdx.X == 5 {
			x.Store(t, 0, int32(t.ThreadIdx.Y))
		}
	})
	re := `write by block \(1,0,1\) thread \(5,1\) at sim/output_test\.go:\d+
    previous write by block \(1,0,1\) thread \(5\) at`
	if err == nil || !regexp.MustCompile(re).MatchString(err.Error()) {
		t.Errorf("report does not match\n%v\n--- want ---\n%s", err, re)
	}
	for _, c := range []struct {
		d    sim.Dim3
		want string
	}{{sim.Dim3{X: 5}, "(5)"}, {sim.Dim3{X: 5, Y: 1}, "(5,1)"}, {sim.Dim3{X: 1, Z: 1}, "(1,0,1)"}, {sim.Dim3{}, "(0)"}} {
		if got := c.d.IndexString(); got != c.want {
			t.Errorf("%#v.IndexString() = %s, want %s", c.d, got, c.want)
		}
	}
}

// ExampleReport shows a test turning the detectors' findings into a
// failure in one line, and inspecting them as data.
func ExampleReport() {
	dev := sim.NewDevice(sim.H100)
	x, _ := sim.Alloc[float64](dev, "x", 1)
	x.Memset(0)
	err := dev.Launch(sim.Config{Grid: sim.Dim(10), Block: sim.Dim(16)}, func(t *sim.Thread) {
		x.Store(t, 0, x.Load(t, 0)+1) // add_one: every thread races on x[0]
	})
	// In a test: if err != nil { t.Fatal(err) }
	if r, ok := err.(*sim.Report); ok {
		f := r.Of(sim.DataRace)[0]
		fmt.Println(f.Kind, f.Memory, f.Index, f.Current.Op, "vs", f.Previous.Op, f.Count)
	}
	// Output: data race x 0 read vs write 159
}
