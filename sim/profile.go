package sim

import "time"

// Counters are a launch's event counts.
type Counters struct {
	Threads     int64
	Blocks      int64
	Loads       int64 // checked loads (with detection or profiling on)
	Stores      int64
	Atomics     int64
	Barriers    int64 // barrier arrivals, one per thread per SyncThreads
	Collectives int64 // warp collective arrivals, one per lane
	Fences      int64
}

func (c *Counters) add(o *Counters) {
	c.Threads += o.Threads
	c.Blocks += o.Blocks
	c.Loads += o.Loads
	c.Stores += o.Stores
	c.Atomics += o.Atomics
	c.Barriers += o.Barriers
	c.Collectives += o.Collectives
	c.Fences += o.Fences
}

// Profile collects what one launch did. Pass it with Options.WithProfile.
type Profile struct {
	Grid, Block Dim3
	Counters    Counters
	Elapsed     time.Duration
	stats       Counters
}

func (p *Profile) finish(l *launch, elapsed time.Duration) {
	p.Grid, p.Block = l.grid, l.block
	p.Counters = l.stats
	p.Elapsed = elapsed
}

func (w *worker) prof() bool { return w.l.prof != nil }

func (w *worker) profAtomic(m *mem, i int) {}

func (w *worker) profAccess(t *Thread, m *mem, i int, kind accKind) {
	if kind == accRead {
		w.stats.Loads++
	} else {
		w.stats.Stores++
	}
}

func (l *launch) mergeStats(w *worker) {
	l.mu.Lock()
	l.stats.add(&w.stats)
	l.mu.Unlock()
}
