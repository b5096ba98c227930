//go:build cuda

package parity

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpusim/gpusim/kernels"
	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
)

// On the GPU, the Checks of usertypes_test.go run each usertest kernel's
// twin on the device too (TestMain makes dev Check's GPU) and compare
// every buffer, of every element type, with the simulator's. The tests
// below check the host side of that on the device: the bytes of every
// element type survive a round trip, and constant memory holds what each
// launch sets, not what an earlier one left.

// TestDeviceEveryElementType writes a buffer of every element type to the
// GPU and reads it back: the bytes must come back as they went, the CUDA
// array's layout (kernels.HostBytes) being Go's.
func TestDeviceEveryElementType(t *testing.T) {
	for dt := kernels.Int8; dt.Valid(); dt++ {
		host := reflect.MakeSlice(reflect.SliceOf(dt.GoType()), 7, 7).Interface()
		_, in, _ := kernels.HostBytes(host)
		for i := range in {
			in[i] = byte(5*i + 3)
		}
		m, err := kernels.UploadSlice(dev, host)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		got, err := kernels.DownloadSlice(dev, m)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		if _, out, _ := kernels.HostBytes(got); !bytes.Equal(out, in) {
			t.Errorf("%v: read back % x, wrote % x", dt, out, in)
		}
		if err := dev.Memset(m, 0x5a); err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		got, _ = kernels.DownloadSlice(dev, m)
		if _, out, _ := kernels.HostBytes(got); !bytes.Equal(out, bytes.Repeat([]byte{0x5a}, 7*dt.Size())) {
			t.Errorf("%v: after Memset(0x5a): % x", dt, out)
		}
		dev.Free(m)
	}
}

// TestDeviceConstantsEachLaunch runs the constant-memory kernel on the GPU
// and the simulator with one set of constants, then with another that
// gives fewer taps: the GPU must hold zeros past them, as the simulator's
// fresh device does, not the first launch's taps.
func TestDeviceConstantsEachLaunch(t *testing.T) {
	in := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	launch := func(taps []float32, off []sim.Float4, bias float32) Launch {
		return Launch{Grid: sim.Dim(1), Block: sim.Dim(32), Args: []any{in, make([]float32, len(in)), len(in)},
			Constants: []Constant{
				Const(usertest.Taps, taps),
				Const(usertest.Offset, off),
				Const(usertest.HalfBias, []sim.Half{sim.Float2Half(bias)}),
			}}
	}
	for i, l := range []Launch{
		launch([]float32{0.5, -1, 2, 0.25, 3}, []sim.Float4{sim.MakeFloat4(1, 2, 3, 4), sim.MakeFloat4(-1, -2, -3, -4)}, 0.5),
		launch([]float32{1, 1}, nil, -2),
		launch(nil, []sim.Float4{sim.MakeFloat4(0.5, 0, 0, 0)}, 0),
	} {
		want := stencilRef(l)[1]
		for _, b := range []kernels.Backend{newSim(), dev} {
			got, err := RunLaunch(b, usertest.Stencil, l)
			if err != nil {
				t.Fatalf("launch %d on %s: %v", i, b.Name(), err)
			}
			if d := Diff(kernels.Rule{}, kernels.Result{want}, kernels.Result{got[1]}); d != "" {
				t.Errorf("launch %d on %s differs from the reference (-reference +%s):\n%s", i, b.Name(), b.Name(), d)
			}
		}
	}
}
