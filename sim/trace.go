package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
)

// TraceEvent is one Chrome trace event (the JSON format chrome://tracing and
// Perfetto read). Time is the launch's logical clock: one step per memory
// access, atomic, barrier arrival, collective and thread exit of the worker
// that ran the warp, so a trace shows the simulator's schedule, not
// hardware time.
//
// A traced warp has a "run" slice from its first step after a start or a
// barrier until its last live lane arrives at the next barrier or exits,
// and a "SyncThreads" slice while it waits for the rest of its block;
// collectives are instant events. Tid numbers warps across the grid:
// block*warpsPerBlock + warp.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  int64          `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// warpTrace is a traced warp's state: when its current run began, how many
// lanes wait at the barrier, since when.
type warpTrace struct {
	start     int64 // -1: not running
	arrived   int
	waitStart int64
	exited    int
}

// event notes that a lane of t's warp ran at step now.
func (pb *profBlock) event(t *Thread, now int64) {
	if pb.warps != nil {
		if ws := &pb.warps[t.warp]; ws.start < 0 {
			ws.start = now
		}
	}
}

func (p *profWorker) span(b *block, warp int, name, cat string, from, to int64, args map[string]any) {
	p.trace = append(p.trace, TraceEvent{Name: name, Cat: cat, Ph: "X", Ts: from, Dur: max(to-from, 1),
		Tid: b.linear*len(b.warps) + warp, Args: args})
}

// endRun closes the warp's run slice if every live lane has stopped.
func (p *profWorker) endRun(b *block, pb *profBlock, warp int) {
	ws := &pb.warps[warp]
	live := bits.OnesCount32(b.warps[warp].present) - ws.exited
	if ws.start >= 0 && (live == 0 || ws.arrived == live) {
		p.span(b, warp, "run", "run", ws.start, p.clock, nil)
		ws.start = -1
		ws.waitStart = p.clock
	}
}

// profArrive records t's arrival at a barrier.
func (w *worker) profArrive(t *Thread) {
	p := w.pstate()
	p.clock++
	pb := p.block(w, t.blk)
	if pb.warps == nil {
		return
	}
	pb.event(t, p.clock)
	pb.warps[t.warp].arrived++
	p.endRun(t.blk, pb, t.warp)
}

// profRelease records a barrier phase completing.
func (w *worker) profRelease(b *block) {
	p := w.pstate()
	p.sync.Barriers++
	if b.bar.waiting < len(b.threads) {
		p.sync.BarriersWithExited++
	}
	pb := p.block(w, b)
	if pb.warps == nil {
		return
	}
	for i := range pb.warps {
		ws := &pb.warps[i]
		if ws.arrived == 0 {
			continue
		}
		p.span(b, i, barNames[b.bar.kind], "barrier", ws.waitStart, p.clock, map[string]any{"site": b.bar.site.String()})
		ws.arrived = 0
		ws.start = -1
	}
}

// profExit records a thread's exit.
func (w *worker) profExit(t *Thread) {
	p := w.pstate()
	p.clock++
	pb := p.block(w, t.blk)
	if pb.warps == nil {
		return
	}
	pb.event(t, p.clock)
	pb.warps[t.warp].exited++
	p.endRun(t.blk, pb, t.warp)
}

// WriteTrace writes launches as one Chrome trace-event JSON document: each
// launch is a process, placed after the previous one on the logical clock,
// and each traced warp a thread of it.
func WriteTrace(w io.Writer, launches ...*Profile) error {
	if w == nil {
		return fmt.Errorf("sim: WriteTrace: nil io.Writer")
	}
	for n, p := range launches {
		if p == nil {
			return fmt.Errorf("sim: WriteTrace: launch %d is a nil *Profile (a refused launch's)", n+1)
		}
	}
	var evs []TraceEvent
	var offset int64
	for n, p := range launches {
		pid := n + 1
		name := p.Kernel
		if name == "" {
			name = "kernel"
		}
		evs = append(evs, TraceEvent{Name: "process_name", Ph: "M", Pid: pid,
			Args: map[string]any{"name": fmt.Sprintf("launch %d: %s<<<%v, %v>>>", pid, name, p.Grid, p.Block)}})
		wpb := (p.Block.Size() + warpSize - 1) / warpSize
		named := map[int]bool{}
		for _, e := range p.Timeline {
			e.Pid = pid
			e.Ts += offset
			if !named[e.Tid] {
				named[e.Tid] = true
				evs = append(evs, TraceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: e.Tid,
					Args: map[string]any{"name": fmt.Sprintf("block %v warp %d", p.Grid.unlinear(e.Tid/wpb), e.Tid%wpb)}})
			}
			evs = append(evs, e)
		}
		offset += p.Steps + 10
	}
	return json.NewEncoder(w).Encode(struct {
		TraceEvents     []TraceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{evs, "ns"})
}
