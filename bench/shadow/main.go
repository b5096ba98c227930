// Command shadow measures what detection costs in memory and in its first
// launch: a float32 vector add of -n elements (block 256) launched twice
// with detection on, the first launch allocating and faulting in the
// shadow memory, the second warm. Run it under /usr/bin/time -v for the
// peak RSS; scripts/bench-shadow.sh does, at 10M and 100M elements, and
// compares the peak with the buffers' bytes.
//
// The buffers are filled in chunks through views, so that no host copy of
// them inflates the peak.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gpusim/gpusim/sim"
)

func vectorAdd(a, b, c *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			c.Store(t, i, a.Load(t, i)+b.Load(t, i))
		}
	}
}

type result struct {
	N           int     `json:"n"`
	BufferBytes int64   `json:"buffer_bytes"`
	Detect      bool    `json:"detect"`
	FirstS      float64 `json:"first_launch_s"`
	WarmS       float64 `json:"warm_launch_s"`
	FirstOverW  float64 `json:"first_over_warm"`
	GoHeapBytes uint64  `json:"go_heap_bytes"`
}

func main() {
	n := flag.Int("n", 10_000_000, "elements per buffer")
	detect := flag.Bool("detect", true, "detection on")
	flag.Parse()
	if err := run(*n, *detect); err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		os.Exit(1)
	}
}

func run(n int, detect bool) error {
	dev := sim.NewDevice(sim.H100)
	defer dev.Close()
	bufs := make([]*sim.Buffer[float32], 3)
	for k, name := range []string{"a", "b", "c"} {
		b, err := sim.Alloc[float32](dev, name, n)
		if err != nil {
			return err
		}
		bufs[k] = b
	}
	const chunk = 1 << 20
	host := make([]float32, chunk)
	for off := 0; off < n; off += chunk {
		m := min(chunk, n-off)
		for i := range host[:m] {
			host[i] = float32(off + i)
		}
		for _, b := range bufs[:2] {
			if err := b.View(off, m).CopyFromHost(host[:m]); err != nil {
				return err
			}
		}
	}
	host = nil
	opts := sim.Options{}.WithDetection(detect).WithShadowBudget(-1)
	cfg := sim.Config{Grid: sim.Dim((n + 255) / 256), Block: sim.Dim(256), Options: opts}
	k := vectorAdd(bufs[0], bufs[1], bufs[2], n)
	var times [2]float64
	for i := range times {
		start := time.Now()
		if err := dev.Launch(cfg, k); err != nil {
			return err
		}
		times[i] = time.Since(start).Seconds()
	}
	probe := make([]float32, 1)
	if err := bufs[2].View(n-1, 1).CopyToHost(probe); err != nil {
		return err
	}
	if want := 2 * float32(n-1); probe[0] != want {
		return fmt.Errorf("c[%d] = %v, want %v", n-1, probe[0], want)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return json.NewEncoder(os.Stdout).Encode(result{N: n, BufferBytes: int64(3 * 4 * n), Detect: detect,
		FirstS: times[0], WarmS: times[1], FirstOverW: times[0] / times[1], GoHeapBytes: ms.HeapSys})
}
