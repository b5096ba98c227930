package sim_test

// Reports stay small and quick whatever the grid: deadlocks and livelocks
// group threads by state and line into ranges, findings beyond the
// report's capacity are counted by distinct finding.

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusim/gpusim/sim"
)

// The case: 300 blocks of 1024 threads spinning on a flag nobody
// sets. 264 blocks are resident (132 SMs x 2), 36 never start. The report
// is one line for all 270336 threads, and the work to reach it is a few
// dozen accesses per thread (it was 98 s and 19.6 MB). The wall-clock
// bound is generous for a loaded 2-core machine; the access counts are the
// real check. Under the race detector, whose goroutines are heavier, the
// grid is 30 blocks (all resident) of 1024 threads.
func TestDeadlockReport300x1024GroupedAndQuick(t *testing.T) {
	// maxPolls bounds the spins per thread: the first block's threads spin
	// 4096 times before they are first checked; the later ones a few
	// dozen times, more rounds the fewer they are (see stuckRounds). Plain
	// loads alone wait for 2^26 polls in all, 2^23 in race builds (a long
	// read-only loop looks the same, see plainSpinAccesses): some 250 per
	// thread here, in turns of at least 32.
	blocks, resident, maxAtomic, maxPlain := 300, 264, int64(200), int64(1000)
	if raceBuild {
		blocks, resident, maxAtomic, maxPlain = 30, 30, 1000, 1000
	}
	cases := []struct {
		name     string
		o        sim.Options
		spin     func(th *sim.Thread, flag *sim.Buffer[int32], n *int64)
		marker   string
		maxPolls int64
	}{
		{"load spin, detection on", sim.Options{}, func(th *sim.Thread, flag *sim.Buffer[int32], n *int64) {
			for flag.Load(th, 0) == 0 { //@bigLoad
				*n++
			}
		}, "bigLoad", maxPlain},
		{"atomic spin, detection off", sim.Options{}.WithDetection(false), func(th *sim.Thread, flag *sim.Buffer[int32], n *int64) {
			for sim.AtomicCAS(th, flag, 0, 1, 2) != 1 { //@bigCAS
				*n++
			}
		}, "bigCAS", maxAtomic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			defer dev.Close()
			flag, _ := sim.Alloc[int32](dev, "flag", 1)
			flag.Memset(0)
			var polls atomic.Int64
			start := time.Now()
			r := report(t, dev, cfg1(blocks, 1024, tc.o), func(th *sim.Thread) {
				var n int64
				// The spinners are unwound when the deadlock ends the
				// launch: the deferred call counts their polls.
				defer func() { polls.Add(n) }()
				tc.spin(th, flag, &n)
			})
			el := time.Since(start)
			f := only(t, r, sim.Deadlock)
			want := sim.StateGroup{Blocks: sim.Span{First: 0, Last: resident - 1}, Threads: []sim.Span{{First: 0, Last: 1023}},
				At: "spinning without progress", Site: at(t, tc.marker), Count: resident * 1024}
			if len(f.Groups) != 1 || fmt.Sprint(f.Groups[0]) != fmt.Sprint(want) {
				t.Errorf("groups %v, want [%v]", f.Groups, want)
			}
			if never := blocks - resident; never > 0 && !strings.Contains(f.Detail, fmt.Sprintf("%d of the grid's %d blocks never started", never, blocks)) {
				t.Errorf("detail %q", f.Detail)
			}
			if n := len(r.Error()); n > 1024 {
				t.Errorf("report of %d bytes:\n%v", n, r)
			}
			per := polls.Load() / int64(resident*1024)
			if per > tc.maxPolls || per == 0 {
				t.Errorf("%d polls per thread before the deadlock was reported, want at most %d", per, tc.maxPolls)
			}
			t.Logf("%v, %d polls per thread", el, per)
			if el > 60*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

// However the live threads are spread, the report lists at most a couple
// of dozen groups of at most eight ranges each, and says how many threads
// it left out: here every block has its own pattern of spinning and
// waiting threads, striped thread by thread.
func TestDeadlockReportBoundedWhateverThePattern(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	flag, _ := sim.Alloc[int32](dev, "flag", 1)
	flag.Memset(0)
	const blocks, threads = 64, 256
	r := report(t, dev, cfg1(blocks, threads, sim.Options{}.WithDetection(false)), func(th *sim.Thread) {
		i := th.ThreadIdx.X
		if i%2 == 0 || i < th.BlockIdx.X {
			for flag.Load(th, 0) == 0 {
			}
		}
		th.SyncThreads()
	})
	f := only(t, r, sim.Deadlock)
	if len(f.Groups) > 24 || len(r.Error()) > 8192 {
		t.Errorf("%d groups, %d bytes:\n%v", len(f.Groups), len(r.Error()), r)
	}
	n, ranges := 0, 0
	for _, g := range f.Groups {
		n += g.Count
		ranges += len(g.Threads)
		if len(g.Threads) > 8 {
			t.Errorf("group with %d ranges listed", len(g.Threads))
		}
	}
	var left, groups int
	if _, err := fmt.Sscanf(f.Detail[strings.LastIndex(f.Detail, "; ")+2:], "%d more threads in %d more groups", &left, &groups); err != nil {
		t.Fatalf("the detail should count the threads left out: %q", f.Detail)
	}
	if n+left != blocks*threads || groups == 0 {
		t.Errorf("%d threads in groups and %d left out, want %d in all", n, left, blocks*threads)
	}
	if len(f.Waiting) > 24*256 {
		t.Errorf("%d waiting threads listed", len(f.Waiting))
	}
}

// Report.Dropped counts the distinct findings beyond the report's
// capacity, not their occurrences: 1050 buffers each read uninitialised by
// four threads make 1050 distinct findings of four occurrences each.
func TestReportDroppedCountsDistinctFindings(t *testing.T) {
	dev := sim.NewDevice(sim.H100)
	const n = 1050
	bufs := make([]*sim.Buffer[int32], n)
	for i := range bufs {
		bufs[i], _ = sim.Alloc[int32](dev, fmt.Sprintf("b%d", i), 4)
	}
	r := report(t, dev, cfg1(1, 4, sim.Options{}), func(th *sim.Thread) {
		for _, b := range bufs {
			b.Load(th, th.ThreadIdx.X)
		}
	})
	if len(r.Findings) != 1000 || r.Dropped != 50 {
		t.Errorf("%d findings listed, %d dropped; want 1000 and 50 (distinct findings, not occurrences)", len(r.Findings), r.Dropped)
	}
	if r.Findings[0].Count != 4 {
		t.Errorf("count %d, want 4", r.Findings[0].Count)
	}
}

// JSON carries finding kinds and memory spaces by name, and reads them back.
func TestJSONKindsAndSpacesAsStrings(t *testing.T) {
	f := sim.Finding{Kind: sim.DataRace, Space: sim.SharedSpace, Memory: "tile"}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Kind":"data race"`) || !strings.Contains(string(b), `"Space":"shared"`) {
		t.Errorf("JSON %s", b)
	}
	var back sim.Finding
	if err := json.Unmarshal(b, &back); err != nil || back.Kind != sim.DataRace || back.Space != sim.SharedSpace {
		t.Errorf("read back %+v, %v", back, err)
	}
	for k := sim.DataRace; k <= sim.ForeignBuffer; k++ {
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
}
