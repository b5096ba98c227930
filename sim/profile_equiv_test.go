package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The profiles of a set of kernels with different access patterns, under
// several launch settings, are kept in testdata/profile.golden: a change to
// the profiler's bookkeeping (how requests are rebuilt, sectors and bank
// words counted, atomics, barriers and collectives timed) must leave every
// one of them as it is. The file was written by the profiler before its
// per-access bookkeeping was restructured (issue 17); rewrite it with
// -update-profiles only for an intended change of what the profile reports.
//
// The sites in the profiles are lines of this file: edit the kernels below
// and the golden file must be rewritten (check the diff).

var updateProfiles = flag.Bool("update-profiles", false, "rewrite testdata/profile.golden from the simulator")

const profileGolden = "testdata/profile.golden"

// equivConst is constant memory that equivKernels read.
var equivConst = NewConstant[float32]("coef", 64)

type equivKernel struct {
	name        string
	grid, block Dim3
	dynShared   int
	k           func(d *Device) Kernel
	// aborts: the launch ends in an out-of-bounds finding, which leaves
	// blocks resident with requests in flight. Where it stops depends on
	// the schedule, so only one-worker launches are compared.
	aborts bool
}

// equivHelper loads through a function of its own: the site is this line.
//
//go:noinline
func equivHelper(t *Thread, b *Buffer[float32], i int) float32 {
	return b.Load(t, i)
}

func equivKernels() []equivKernel {
	f32 := func(d *Device, name string, n int) *Buffer[float32] {
		b, _ := Alloc[float32](d, name, n)
		b.Memset(1)
		return b
	}
	return []equivKernel{
		{"abort", Dim(6), Dim(64), 0, func(d *Device) Kernel {
			a, c := f32(d, "a", 6*64), f32(d, "c", 6*64)
			return func(t *Thread) {
				i := t.GlobalX()
				v := a.Load(t, i)
				t.SyncThreads()
				if t.BlockIdx.X == 3 && t.ThreadIdx.X == 40 {
					i = -1 // out of bounds: the launch aborts
				}
				c.Store(t, i, v+a.Load(t, (i+1)%(6*64)))
			}
		}, true},
		{"coalesced-tail", Dim(5), Dim(128), 0, func(d *Device) Kernel {
			n := 5*128 - 37 // the last warps are partly past the end
			a, b, c := f32(d, "a", n), f32(d, "b", n), f32(d, "c", n)
			return func(t *Thread) {
				i := t.GlobalX()
				if i < n {
					c.Store(t, i, a.Load(t, i)+b.Load(t, i))
				}
			}
		}, false},
		{"strided", Dim(3), Dim(96), 0, func(d *Device) Kernel {
			a, c := f32(d, "a", 3*96*33), f32(d, "c", 3*96*5)
			return func(t *Thread) {
				i := t.GlobalX()
				c.Store(t, i*5, a.Load(t, i*33)+a.Load(t, (i*7)%(3*96*33)))
			}
		}, false},
		{"scatter-loop", Dim(4), Dim(64), 0, func(d *Device) Kernel {
			n := 4096
			a, c := f32(d, "a", n), f32(d, "c", 4*64)
			return func(t *Thread) {
				var s float32
				// A lane-dependent trip count: later requests have fewer lanes.
				for k := 0; k < 3+t.LaneID()%5; k++ {
					s += a.Load(t, (t.GlobalX()*k*k+k*64)%n)
				}
				c.Store(t, t.GlobalX(), s)
			}
		}, false},
		{"divergent", Dim(2), Dim(100), 0, func(d *Device) Kernel {
			a, b, c := f32(d, "a", 256), f32(d, "b", 256), f32(d, "c", 256)
			return func(t *Thread) {
				i := t.GlobalX()
				src := a
				if t.LaneID()%3 == 1 {
					src = b // one line, two buffers
				}
				v := src.Load(t, i)
				if t.LaneID()&4 != 0 {
					v += a.Load(t, 255-i)
					c.Store(t, i, v)
					return
				}
				if t.LaneID() < 8 {
					v += equivHelper(t, b, i/2)
				}
				c.Store(t, i, v)
			}
		}, false},
		{"divergent-barrier", Dim(2), Dim(64), 0, func(d *Device) Kernel {
			a, b, c := f32(d, "a", 128), f32(d, "b", 128), f32(d, "c", 128)
			return func(t *Thread) {
				i, l := t.GlobalX(), t.LaneID()
				var v float32
				// Lanes 1, 5, 9, ... load b at the first step and a at the
				// second, the others the other way round: the lanes that
				// left the warp's common path make the line's first
				// request before the others do.
				for step := 0; step < 2; step++ {
					if (step == 0) == (l%4 == 1) {
						v += b.Load(t, (i+step)%128)
					} else {
						v += a.Load(t, i)
					}
					t.SyncThreads()
				}
				c.Store(t, i, v)
			}
		}, false},
		{"shared-banks", Dim(2), Dim(64), 0, func(d *Device) Kernel {
			out := f32(d, "out", 128)
			return func(t *Thread) {
				const region = 32 * 33 // a warp's words for one stride
				s := Shared[float32](t, "s", 2*4*region)
				dd := Shared[float64](t, "dd", 64)
				bb := Shared[uint8](t, "bb", 64)
				l, w := t.LaneID(), t.WarpID()
				for k, stride := range []int{1, 2, 32, 33} {
					s.Store(t, (w*4+k)*region+l*stride, float32(l))
				}
				dd.Store(t, t.ThreadIdx.X, 1)
				bb.Store(t, t.ThreadIdx.X, 1)
				t.SyncThreads()
				v := s.Load(t, (w*4+1)*region+l*2) + s.Load(t, 7) // conflicts, broadcast
				v += float32(dd.Load(t, (t.ThreadIdx.X*3)%64)) + float32(bb.Load(t, 63-t.ThreadIdx.X))
				out.Store(t, t.GlobalX(), v)
			}
		}, false},
		{"transpose-2d", Dim2(2, 2), Dim2(16, 8), 0, func(d *Device) Kernel {
			in, out := f32(d, "in", 32*16), f32(d, "out", 32*16)
			return func(t *Thread) {
				tile := Shared2D[float32](t, "tile", 16, 16)
				x, y := t.GlobalX(), t.GlobalY()
				tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
				tile.Store(t, ty*16+tx, in.Load(t, y*32+x))
				tile.Store(t, (ty+8)*16+tx, 2)
				t.SyncThreads()
				out.Store(t, x*16+y, tile.Load(t, tx*16+ty))
			}
		}, false},
		{"atomics", Dim(3), Dim(160), 0, func(d *Device) Kernel {
			h, _ := Alloc[uint32](d, "hist", 8)
			h.Memset(0)
			g, _ := Alloc[int32](d, "flag", 1)
			g.Memset(0)
			return func(t *Thread) {
				sh := Shared[int32](t, "sh", 4)
				if t.ThreadIdx.X < 4 {
					sh.Store(t, t.ThreadIdx.X, 0)
				}
				t.SyncThreads()
				AtomicAdd(t, h, t.ThreadIdx.X%3, 1)
				AtomicAdd(t, sh, t.LaneID()%4, 2)
				AtomicCAS(t, g, 0, 0, int32(t.BlockIdx.X))
				if t.ThreadIdx.X >= 150 {
					return
				}
				t.SyncThreads()
				_ = sh.Load(t, t.ThreadIdx.X%4)
			}
		}, false},
		{"collectives", Dim(2), Dim(96), 0, func(d *Device) Kernel {
			a, c := f32(d, "a", 192), f32(d, "c", 192)
			return func(t *Thread) {
				i := t.GlobalX()
				v := a.Load(t, i)
				for off := 16; off > 0; off /= 2 {
					v += ShflDownSync(t, FullMask, v, off)
				}
				if t.LaneID() < 16 {
					_ = t.BallotSync(0xffff, v > 3) // a partial mask
				}
				if t.LaneID() == 0 {
					c.Store(t, i, v)
				}
			}
		}, false},
		{"views-const-dyn", Dim(2), Dim(64), 256 * 4, func(d *Device) Kernel {
			a := f32(d, "a", 2*64*4+16)
			c := f32(d, "c", 2*64)
			v4 := Reinterpret[Float4](a)
			hv := Reinterpret[Half](a)
			equivConst.CopyFromHost(d, make([]float32, 64))
			return func(t *Thread) {
				dyn := DynamicShared[float32](t, "dyn")
				i := t.GlobalX()
				q := v4.Load(t, i)
				h := hv.Load(t, 3*i+1) // a Half view of the same bytes
				dyn.Store(t, t.ThreadIdx.X*4, q.X+Half2Float(h))
				t.SyncThreads()
				c.Store(t, i, dyn.Load(t, (t.ThreadIdx.X*4+4)%256)+equivConst.Load(t, t.LaneID()/4))
			}
		}, false},
	}
}

type equivConfig struct {
	name string
	opts Options
	// timeline: the launch is deterministic (one worker), so the trace and
	// the step count are compared too.
	timeline bool
	// traceBlocks is Profile.TraceBlocks: the profiler takes another path
	// for the accesses of blocks it does not trace.
	traceBlocks int
}

var equivConfigs = []equivConfig{
	{"w1", Options{}.WithWorkers(1).WithDetection(false), true, 0},
	{"w1-detect", Options{}.WithWorkers(1), true, 0},
	{"w1-lockstep", Options{}.WithWorkers(1).WithDetection(false).WithWarpModel(Lockstep), true, 0},
	{"w1-trace1", Options{}.WithWorkers(1).WithDetection(false), true, 1},
	{"w1-untraced", Options{}.WithWorkers(1).WithDetection(false), true, -1},
	{"w1-untraced-lockstep", Options{}.WithWorkers(1).WithDetection(false).WithWarpModel(Lockstep), true, -1},
	{"w3", Options{}.WithWorkers(3).WithDetection(false), false, 0},
	{"w3-untraced", Options{}.WithWorkers(3).WithDetection(false), false, -1},
}

// profileDigest is what the golden file holds of a profile: everything but
// the elapsed time, with the timeline as its length and hash.
func profileDigest(t *testing.T, p *Profile, timeline bool) string {
	t.Helper()
	q := *p
	q.Elapsed = 0
	tl := q.Timeline
	q.Timeline = nil
	if !timeline {
		// Several workers: the step count is the largest worker's clock,
		// and the atomic address tallies depend on which worker ran which
		// block (mergeStats adds the workers' distinct-address counts and
		// keeps the hottest of each worker's own counts).
		q.Steps = 0
		q.Atomics.Addresses, q.Atomics.Hottest = 0, AtomicAddress{}
	}
	js, err := json.MarshalIndent(q, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(js)
	if timeline {
		var tr bytes.Buffer
		if err := WriteTrace(&tr, p); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\ntimeline: %d events, trace sha256 %x", len(tl), sha256.Sum256(tr.Bytes()))
	}
	return b.String()
}

// TestProfileGolden compares the profiles of equivKernels with the golden
// file.
func TestProfileGolden(t *testing.T) {
	got := map[string]string{}
	var order []string
	for _, k := range equivKernels() {
		for _, c := range equivConfigs {
			if k.aborts && !c.timeline {
				continue
			}
			d := NewDevice(H100)
			p := &Profile{TraceBlocks: c.traceBlocks}
			cfg := Config{Grid: k.grid, Block: k.block, SharedBytes: k.dynShared, Options: c.opts.WithProfile(p)}
			if err := d.Launch(cfg, k.k(d)); (err != nil) != k.aborts {
				t.Fatalf("%s/%s: error %v", k.name, c.name, err)
			}
			name := k.name + "/" + c.name
			got[name] = profileDigest(t, p, c.timeline)
			order = append(order, name)
		}
	}
	if *updateProfiles {
		var b strings.Builder
		for _, name := range order {
			fmt.Fprintf(&b, "=== %s\n%s\n", name, got[name])
		}
		if err := os.WriteFile(profileGolden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(profileGolden)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, part := range strings.Split(string(data), "=== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		want[name] = strings.TrimSuffix(body, "\n")
	}
	for _, name := range order {
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s: not in %s", name, profileGolden)
		case w != got[name]:
			t.Errorf("%s: the profile changed:\n%s", name, firstDiff(got[name], w))
		}
	}
	if len(want) != len(order) {
		t.Errorf("%s holds %d profiles, the test made %d", profileGolden, len(want), len(order))
	}
}

// firstDiff shows the first line where got and want differ, with context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(i-6, 0)
	ctx := func(l []string) string { return strings.Join(l[from:min(i+3, len(l))], "\n") }
	return fmt.Sprintf("line %d\n--- got\n%s\n--- want\n%s", i+1, ctx(g), ctx(w))
}

// TestProfileRandomAccesses checks the profile's memory statistics against
// a model that rebuilds the requests from a log the kernel keeps of its own
// accesses: each thread makes a random sequence of accesses (lines,
// patterns and counts differ between lanes, so warps diverge in every way)
// in rounds separated by barriers.
func TestProfileRandomAccesses(t *testing.T) {
	type acc struct {
		line, k int // the access's case (one line each) and its number there
		key     int64
		nw      int
	}
	const (
		rounds = 3
		ncase  = 7
		nGlob  = 4096
		nSh    = 256
		grid   = 3
	)
	for _, seed := range []uint64{1, 2, 3} {
		for _, c := range []struct {
			name        string
			opts        Options
			traceBlocks int
			block       int
		}{
			{"w1", Options{}.WithWorkers(1), 0, 96},
			{"w1-untraced", Options{}.WithWorkers(1), -1, 80},
			{"w1-lockstep-untraced", Options{}.WithWorkers(1).WithWarpModel(Lockstep), -1, 96},
			{"w3-untraced", Options{}.WithWorkers(3), -1, 80},
		} {
			d := NewDevice(H100)
			ga, _ := Alloc[float32](d, "ga", nGlob)
			ga.Memset(0)
			gb, _ := Alloc[float32](d, "gb", nGlob)
			gd, _ := Alloc[float64](d, "gd", nGlob)
			gd.Memset(0)
			logs := make([][]acc, grid*c.block)
			k := func(t *Thread) {
				sa := Shared[float32](t, "sa", nSh)
				sd := Shared[float64](t, "sd", nSh)
				sc := Shared[uint8](t, "sc", nSh)
				l, gid := t.LaneID(), t.GlobalX()
				rng := rand.New(rand.NewPCG(seed, uint64(gid)))
				var counts [ncase]int
				log := &logs[gid]
				note := func(line int, key int64, nw int) {
					*log = append(*log, acc{line, counts[line], key, nw})
					counts[line]++
				}
				for round := 0; round < rounds; round++ {
					for n := rng.IntN(5); n > 0; n-- {
						// An index: coalesced, strided, a broadcast or
						// scattered, by lane.
						var idx int
						switch rng.IntN(4) {
						case 0:
							idx = l + 32*round
						case 1:
							idx = l * (1 + round*16)
						case 2:
							idx = 5
						default:
							idx = rng.IntN(1 << 20)
						}
						g, s := idx%nGlob, idx%nSh
						switch line := rng.IntN(ncase); line {
						case 0:
							_ = ga.Load(t, g)
							note(line, int64(g*4/32), 1)
						case 1:
							// Each block stores to its own part of gb: blocks
							// on other workers run on other goroutines.
							g = t.BlockIdx.X*(nGlob/grid) + idx%(nGlob/grid)
							gb.Store(t, g, 1)
							note(line, int64(g*4/32), 1)
						case 2:
							_ = gd.Load(t, g)
							note(line, int64(g*8/32), 1)
						case 3:
							_ = sa.Load(t, s)
							note(line, int64(s), 1)
						case 4:
							sa.Store(t, s, 2)
							note(line, int64(s), 1)
						case 5:
							_ = sd.Load(t, s)
							note(line, int64(s*2), 2)
						case 6:
							sc.Store(t, s, 3)
							note(line, int64(s/4), 1)
						}
					}
					t.SyncThreads()
				}
			}
			p := &Profile{TraceBlocks: c.traceBlocks}
			cfg := Config{Grid: Dim(grid), Block: Dim(c.block), Options: c.opts.WithDetection(false).WithProfile(p)}
			if err := d.Launch(cfg, k); err != nil {
				t.Fatal(err)
			}

			// The model: a request per block, warp, line and number. Its
			// keys are kept by phase: the 8-byte shared loads (line 5)
			// are served a half-warp at a time.
			type rkey struct{ block, warp, line, k int }
			type req struct {
				lanes int
				keys  map[int64]bool
				phase [2]map[int64]bool
			}
			reqs := map[rkey]*req{}
			for gid, log := range logs {
				b, tid := gid/c.block, gid%c.block
				for _, a := range log {
					rk := rkey{b, tid / 32, a.line, a.k}
					r := reqs[rk]
					if r == nil {
						r = &req{keys: map[int64]bool{}, phase: [2]map[int64]bool{{}, {}}}
						reqs[rk] = r
					}
					r.lanes++
					ph := 0
					if a.line == 5 {
						ph = tid % 32 / 16
					}
					for w := 0; w < a.nw; w++ {
						r.keys[a.key+int64(w)] = true
						r.phase[ph][a.key+int64(w)] = true
					}
				}
			}
			var want MemStats
			elem := [ncase]int64{4, 4, 8, 4, 4, 8, 1}
			for rk, r := range reqs {
				lanes := int64(r.lanes)
				switch rk.line {
				case 0, 1, 2:
					g := GlobalStats{Requests: 1, Accesses: lanes, Sectors: int64(len(r.keys)), Bytes: lanes * elem[rk.line]}
					if rk.line == 1 {
						want.GlobalStore.add(g)
					} else {
						want.GlobalLoad.add(g)
					}
				default:
					deg, ideal := 0, 0
					for _, keys := range r.phase {
						var banks [32]int
						d := 0
						for w := range keys {
							banks[w&31]++
							d = max(d, banks[w&31])
						}
						deg, ideal = deg+d, ideal+(len(keys)*4+127)/128
					}
					s := SharedStats{Requests: 1, Accesses: lanes, Wavefronts: int64(deg),
						IdealWavefronts: int64(ideal), MaxDegree: deg}
					if rk.line == 3 || rk.line == 5 {
						want.SharedLoad.add(s)
					} else {
						want.SharedStore.add(s)
					}
				}
			}
			if p.Memory != want {
				t.Errorf("seed %d, %s: memory statistics\n%+v\nwant (the model's)\n%+v", seed, c.name, p.Memory, want)
			}
		}
	}
}
