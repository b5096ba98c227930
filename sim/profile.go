package sim

import (
	"math/bits"
	"slices"
	"sort"
	"time"
)

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
	// SlowSites counts source-line lookups that took a slow path: a
	// checked access or barrier whose kernel line was not one of the two
	// return addresses above sim's entry point, or any lookup that needed
	// the runtime's unwinder (see slowCaller). A performance diagnostic,
	// normally 0.
	SlowSites int64
	// Epochs counts the epochs of blocks that detected launches ran on
	// several workers and kept; EpochsUndone those undone and run again
	// on one worker (speculate.go). Both stay 0 on one worker.
	Epochs       int64 `json:",omitempty"`
	EpochsUndone int64 `json:",omitempty"`
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
	c.SlowSites += o.SlowSites
	c.Epochs += o.Epochs
	c.EpochsUndone += o.EpochsUndone
}

// Profile is what one launch did, in the terms of Nsight Compute's memory
// and launch sections. Device.LaunchProfile runs a launch with the profiler
// on and returns it. A profiled launch checks every access (as detection
// does), so it runs at the speed of a launch with detection on.
//
// # Requests
//
// A warp-level request is what one load or store instruction of one warp
// becomes on hardware. The simulator runs threads, not instructions, so it
// rebuilds requests: the k-th access of each lane of a warp at one source
// line belongs to the warp's k-th request at that line. A line that loads
// twice (c[i] = a[i] + b[i]) makes two requests per warp, as the two LDG
// instructions do.
//
// # Global memory
//
// A request touches the 32-byte sectors that hold its lanes' elements
// (buffers are 256-byte aligned, as cudaMalloc's are; a view's elements are
// where they lie in its buffer, so that a warp reading in.Offset(1) touches
// 5 sectors). Sectors per request is
// the coalescing figure: 4 for 32 consecutive float32 (one 128-byte line),
// 32 when every lane touches a sector of its own.
//
// # Shared memory
//
// Shared memory has 32 banks of 4 bytes. A request takes as many wavefronts
// as the largest number of distinct 4-byte words any bank must deliver
// (lanes reading one word share a broadcast); the ideal is one wavefront
// per 128 distinct bytes. A request of 8- or 16-byte elements is served in
// phases, half-warps or quarter-warps of at most 128 bytes, one after
// another: its wavefronts are its phases' summed and its ideal is one a
// phase (2 for a warp's float2, 4 for its float4); lanes of different
// phases never conflict, and lanes of one conflict as above. Bank
// conflicts are the wavefronts above the ideal, and the conflict degree of
// a request is its wavefront count.
//
// # Constant memory
//
// The constant cache serves a warp's load one distinct address per pass:
// a load of one element by every lane is one pass, of 32 elements 32. A
// constant line counts its passes as wavefronts, with an ideal of one a
// request; constant loads are not shared memory's, and MemStats leaves
// them out.
type Profile struct {
	// Kernel is the caller's name for the launch (the launch leaves it
	// alone); traces and reports print it.
	Kernel      string
	Device      string // spec name
	Arch        string
	Grid, Block Dim3
	// SharedStatic is the largest static shared memory a block declared,
	// SharedDynamic the launch's dynamic shared memory, in bytes.
	SharedStatic, SharedDynamic int
	// Occupancy is the theoretical occupancy of the launch's shape with its
	// shared memory (registers are unknown to the simulator unless
	// Config.Registers says).
	Occupancy Occupancy
	Counters  Counters
	Memory    MemStats
	Atomics   AtomicStats
	Sync      SyncStats
	// Lines are the memory statistics per source line, space and
	// operation, ordered by file and line.
	Lines   []LineStats
	Elapsed time.Duration

	// Timeline is the launch's execution in scheduler steps, for
	// WriteTrace. TraceBlocks bounds the blocks it records (0: the first
	// 64; negative: none), to keep traces of large grids small.
	Timeline    []TraceEvent `json:"-"`
	TraceBlocks int          `json:"-"`
	Steps       int64        // the logical clock at the end of the launch
}

// MemStats are a launch's warp-level memory requests.
type MemStats struct {
	GlobalLoad, GlobalStore GlobalStats
	SharedLoad, SharedStore SharedStats
}

// GlobalStats count global-memory requests and the sectors they touch.
type GlobalStats struct {
	Requests int64 // warp-level requests
	Accesses int64 // thread-level accesses
	Sectors  int64 // 32-byte sectors touched, summed over requests
	Bytes    int64 // bytes the threads asked for
}

// SectorsPerRequest is the coalescing figure: 4 for a warp reading 32
// consecutive float32, up to 32 for scattered lanes.
func (g GlobalStats) SectorsPerRequest() float64 {
	if g.Requests == 0 {
		return 0
	}
	return float64(g.Sectors) / float64(g.Requests)
}

// Efficiency is the fraction of fetched sector bytes the threads used.
func (g GlobalStats) Efficiency() float64 {
	if g.Sectors == 0 {
		return 0
	}
	return float64(g.Bytes) / float64(g.Sectors*32)
}

func (g *GlobalStats) add(o GlobalStats) {
	g.Requests += o.Requests
	g.Accesses += o.Accesses
	g.Sectors += o.Sectors
	g.Bytes += o.Bytes
}

// SharedStats count shared-memory requests and their bank conflicts.
type SharedStats struct {
	Requests        int64
	Accesses        int64
	Wavefronts      int64 // bank passes the requests needed
	IdealWavefronts int64 // passes without conflicts
	MaxDegree       int   // the worst request's wavefronts
}

// Conflicts is the number of wavefronts beyond the ideal.
func (s SharedStats) Conflicts() int64 { return s.Wavefronts - s.IdealWavefronts }

// Degree is the average wavefronts per request (1: conflict-free for
// 4-byte elements; 2: two-way conflicts).
func (s SharedStats) Degree() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Wavefronts) / float64(s.Requests)
}

func (s *SharedStats) add(o SharedStats) {
	s.Requests += o.Requests
	s.Accesses += o.Accesses
	s.Wavefronts += o.Wavefronts
	s.IdealWavefronts += o.IdealWavefronts
	s.MaxDegree = max(s.MaxDegree, o.MaxDegree)
}

// LineStats are the memory statistics of one source line, for one space
// and operation. Global lines fill Global, shared lines Shared.
type LineStats struct {
	Site    string // file:line
	Space   Space
	Op      string // "load", "store" or "atomic"
	Global  GlobalStats
	Shared  SharedStats
	Atomics int64
}

// AtomicStats count atomics and where they pile up.
type AtomicStats struct {
	// Global and Shared count atomic operations, one per thread (a
	// warp's atomicAdd is 32): the work a serialising atomic unit does,
	// not Nsight's warp-level atomic requests. LineStats.Atomics counts
	// the same way.
	Global, Shared int64
	Addresses      int // distinct elements (up to a million are tracked)
	// Hottest is the most-updated element: the contention a serialising
	// atomic unit sees. Shared arrays count over all blocks.
	Hottest AtomicAddress
}

// AtomicAddress is an element updated by atomics.
type AtomicAddress struct {
	Memory string
	Space  Space
	Index  int
	Count  int64
}

// SyncStats count barriers and warp collectives.
type SyncStats struct {
	Barriers int64 // barrier phases completed (one per block per SyncThreads)
	// BarriersWithExited counts phases some of the block's threads missed by
	// having exited: legal in CUDA, but a sign of divergent control flow.
	BarriersWithExited int64
	Collectives        int64 // warp collectives completed (one per warp per call)
	// PartialCollectives completed with a mask short of the warp's live
	// lanes: the warp was diverged at the call.
	PartialCollectives int64
}

// --- collection -----------------------------------------------------------

// profWorker is one worker's profiling state, merged into the Profile when
// the worker ends.
type profWorker struct {
	clock   int64
	blocks  map[*block]*profBlock
	lines   map[lineKey]*LineStats
	mem     MemStats
	atomics AtomicStats
	hot     map[atomicKey]int64
	sync    SyncStats
	static  int
	trace   []TraceEvent
	tblocks int
	// Retired blocks' and sequences' records, for reuse: a profiled launch
	// allocates nothing per block once these are warm.
	seqFree []*laneSeq
	pbFree  []*profBlock
	// last is the block of the last lookup: consecutive accesses come from
	// one block, so most lookups skip the map.
	lastB  *block
	lastPB *profBlock
	// fastB is lastB when it is not traced (nil otherwise), and fastPW its
	// warps: profAccess's fast path needs nothing else.
	fastB  *block
	fastPW []profWarp
}

type lineKey struct {
	s     site
	space Space
	op    uint8
}

const (
	opLoad uint8 = iota
	opStore
	opAtomic
)

var profOpNames = [...]string{"load", "store", "atomic"}

type atomicKey struct {
	m *mem
	i int
}

// profBlock is a resident block's requests in flight and its warps'
// timeline.
//
// A request is the k-th access of each lane of a warp at one line and op
// (see Profile). Lanes that have so far made the same accesses, in the
// same order, put their j-th access into the same request: the warp's
// converged lanes share one sequence of requests (profWarp.slots), and an
// access that goes on along it costs a comparison. A lane whose access
// differs from the sequence's (a divergent branch) leaves it for good and
// numbers its accesses per line and op in seqs; the warp's shared requests
// are then entered in seqs too, so that both kinds of lane find the one
// request of each line, op and number.
type profBlock struct {
	pw    []profWarp
	seqs  map[seqKey]*laneSeq // the requests of warps with divergent lanes
	warps []warpTrace         // nil when the block is not traced
	// recent is a small direct-mapped cache in front of seqs: a warp's
	// lanes go through the same few lines in turn.
	recent [16]struct {
		k   seqKey
		seq *laneSeq
	}
}

// profWarp is one warp's requests. For each lane outside div, the lane's
// accesses so far are those of slots[:pos[lane]], and its j-th access
// belongs to slots[j]. extra holds the requests that only divergent lanes
// have made so far.
type profWarp struct {
	pos    [warpSize]int32
	slots  []request
	extra  []request
	div    uint32 // lanes that left the shared sequence
	mapped bool   // seqs holds this warp's requests
}

// seqKey names a warp's access sequence at one line and op, packed in a
// word: map lookups on it hash 8 bytes (a struct key cost a third of a
// profiled access in hashing).
type seqKey uint64

func makeSeqKey(warp int, s site, op uint8) seqKey {
	return seqKey(uint64(s)<<32 | uint64(uint32(warp))<<8 | uint64(op))
}

func (k seqKey) site() site { return site(k >> 32) }
func (k seqKey) op() uint8  { return uint8(k) }

// laneSeq numbers the accesses of each divergent lane at one line and op;
// reqs[k] names the warp's k-th request there (a slot, or ^i for extra[i]),
// and the first shared of them are the shared sequence's.
type laneSeq struct {
	n      [warpSize]int32
	shared int32
	reqs   []int32
}

// request is a warp-level request: the lanes in it and what each lane
// touched, nw[lane] keys from key[lane] on (the 32-byte sectors of a
// global access, the 4-byte words of the element otherwise). The first
// access's memory says the request's space and element size.
type request struct {
	k     seqKey
	m     *mem
	lanes uint32
	wide  bool // some lane's nw is not 1
	nw    [warpSize]uint8
	key   [warpSize]int64
	// line is the statistics of the line, space and op lk, kept from the
	// request's last use: a block's requests are those of the block before.
	line *LineStats
	lk   lineKey
}

func (w *worker) prof() bool { return w.l.prof != nil }

func (w *worker) pstate() *profWorker {
	if w.pw == nil {
		n := w.l.prof.TraceBlocks
		if n == 0 {
			n = 64
		}
		w.pw = &profWorker{blocks: map[*block]*profBlock{}, lines: map[lineKey]*LineStats{},
			hot: map[atomicKey]int64{}, tblocks: n}
	}
	return w.pw
}

func (p *profWorker) block(w *worker, b *block) *profBlock {
	if b == p.lastB {
		return p.lastPB
	}
	return p.newBlock(b)
}

// newBlock is block past the last block's: it finds b's record, or makes
// one.
func (p *profWorker) newBlock(b *block) *profBlock {
	pb := p.blocks[b]
	if pb == nil {
		if n := len(p.pbFree); n > 0 {
			pb = p.pbFree[n-1]
			p.pbFree = p.pbFree[:n-1]
		} else {
			pb = &profBlock{seqs: map[seqKey]*laneSeq{}}
		}
		if cap(pb.pw) < len(b.warps) {
			pb.pw = make([]profWarp, len(b.warps))
		}
		pb.pw = pb.pw[:len(b.warps)]
		if b.linear < p.tblocks {
			pb.warps = make([]warpTrace, len(b.warps))
			for i := range pb.warps {
				pb.warps[i].start = -1
			}
		}
		p.blocks[b] = pb
	}
	p.lastB, p.lastPB = b, pb
	p.fastB, p.fastPW = nil, nil
	if pb.warps == nil {
		p.fastB, p.fastPW = b, pb.pw
	}
	return pb
}

// profAccess enters a checked load or store in its warp's request. The
// usual access, of a lane going on along its warp's shared sequence in an
// untraced block, takes the path written out here, which calls nothing
// (values live across a call were spilled on every access);
// profAccessSlow takes the rest.
func (w *worker) profAccess(t *Thread, m *mem, i int, kind accKind, s site) {
	op := opStore
	if kind == accRead {
		w.stats.Loads++
		op = opLoad
	} else {
		w.stats.Stores++
	}
	p := w.pw
	if p == nil || t.blk != p.fastB {
		w.profAccessSlow(t, m, i, op, s)
		return
	}
	lane := t.lane & (warpSize - 1)
	wp := &p.fastPW[t.warp]
	j, slots := int(wp.pos[lane]), wp.slots
	if wp.div&(1<<lane) != 0 || j >= len(slots) || slots[j].k != makeSeqKey(t.warp, s, op) {
		w.profAccessSlow(t, m, i, op, s)
		return
	}
	p.clock++
	wp.pos[lane] = int32(j + 1)
	slots[j].note(lane, m, i)
}

//go:noinline
func (w *worker) profAccessSlow(t *Thread, m *mem, i int, op uint8, s site) {
	p := w.pstate()
	p.clock++
	pb := p.block(w, t.blk)
	pb.event(t, p.clock)
	lane := t.lane & (warpSize - 1)
	k := makeSeqKey(t.warp, s, op)
	wp := &pb.pw[t.warp]
	var r *request
	if j := int(wp.pos[lane]); wp.div&(1<<lane) == 0 && j < len(wp.slots) && wp.slots[j].k == k {
		wp.pos[lane]++
		r = &wp.slots[j]
	} else {
		r = pb.request(p, wp, k, lane, m)
	}
	r.note(lane, m, i)
}

// note enters lane's access of element i of m in the request.
func (r *request) note(lane int, m *mem, i int) {
	r.lanes |= 1 << lane
	// i is within m (slowAccess checked it): off is not negative. It
	// counts from the allocation's start (a view's element 0 is vbyte
	// into it), which is 256-byte aligned in global memory: sectors and
	// banks are the allocation's.
	off := uint64(m.vbyte) + uint64(i)*uint64(m.elemSize)
	if m.space == GlobalSpace {
		// An element lies in one sector, unless it is a 12-byte vector
		// (Float3, Int3: 4-byte aligned) that crosses into the next.
		s0, s1 := off/32, (off+uint64(m.elemSize)-1)/32
		r.key[lane], r.nw[lane] = int64(m.id)<<40|int64(s0), uint8(s1-s0+1)
		if s1 != s0 {
			r.wide = true
		}
	} else {
		r.key[lane], r.nw[lane] = int64(off/4), uint8((m.elemSize+3)/4)
		if m.elemSize > 4 {
			r.wide = true
		}
	}
}

// request finds the request of a lane's access past the shared sequence's
// fast path: the lane extends the sequence, leaves it, or has left it.
//
// A request's memory is that of the access that makes it: the first.
func (pb *profBlock) request(p *profWorker, wp *profWarp, k seqKey, lane int, m *mem) *request {
	if wp.div&(1<<lane) == 0 {
		j := int(wp.pos[lane])
		if j == len(wp.slots) {
			// The first of the converged lanes to go this far.
			wp.pos[lane]++
			return pb.extend(p, wp, k, m)
		}
		pb.diverge(p, wp, lane, j)
	}
	seq := pb.seq(p, k)
	n := int(seq.n[lane])
	seq.n[lane]++
	if n < len(seq.reqs) {
		if ref := seq.reqs[n]; ref >= 0 {
			return &wp.slots[ref]
		} else {
			return &wp.extra[^ref]
		}
	}
	// A request no converged lane has made yet.
	wp.extra = append(wp.extra, request{k: k, m: m})
	seq.reqs = append(seq.reqs, ^int32(len(wp.extra)-1))
	return &wp.extra[len(wp.extra)-1]
}

// extend appends a request with key k to the warp's shared sequence.
func (pb *profBlock) extend(p *profWorker, wp *profWarp, k seqKey, m *mem) *request {
	n := len(wp.slots)
	if n < cap(wp.slots) {
		wp.slots = wp.slots[:n+1]
	} else {
		wp.slots = append(wp.slots, request{})
	}
	r := &wp.slots[n]
	r.k, r.m, r.lanes, r.wide = k, m, 0, false
	if wp.mapped {
		seq := pb.seq(p, k)
		c := int(seq.shared)
		seq.shared++
		if c < len(seq.reqs) {
			// Divergent lanes made the request first (reqs[c] is an
			// extra one): it moves into the slot.
			x := &wp.extra[^seq.reqs[c]]
			*r = *x
			x.m, x.lanes = nil, 0
			seq.reqs[c] = int32(n)
		} else {
			seq.reqs = append(seq.reqs, int32(n))
		}
	}
	return r
}

// diverge takes lane out of its warp's shared sequence at position j: the
// lane's numbers per line and op become those of slots[:j].
func (pb *profBlock) diverge(p *profWorker, wp *profWarp, lane, j int) {
	if !wp.mapped {
		wp.mapped = true
		for n := range wp.slots {
			seq := pb.seq(p, wp.slots[n].k)
			seq.reqs = append(seq.reqs, int32(n))
			seq.shared++
		}
	}
	for n := range wp.slots[:j] {
		pb.seq(p, wp.slots[n].k).n[lane]++
	}
	wp.div |= 1 << lane
}

// seq returns the sequence of key k, making it on first use.
func (pb *profBlock) seq(p *profWorker, k seqKey) *laneSeq {
	e := &pb.recent[(k^k>>29^k>>8)&15]
	if e.seq != nil && e.k == k {
		return e.seq
	}
	seq := pb.seqs[k]
	if seq == nil {
		if n := len(p.seqFree); n > 0 {
			seq = p.seqFree[n-1]
			p.seqFree = p.seqFree[:n-1]
		} else {
			seq = &laneSeq{}
		}
		pb.seqs[k] = seq
	}
	e.k, e.seq = k, seq
	return seq
}

// flush retires the requests of a block that has finished and readies its
// record for reuse.
func (p *profWorker) flush(pb *profBlock) {
	for i := range pb.pw {
		wp := &pb.pw[i]
		for n := range wp.slots {
			p.account(&wp.slots[n])
		}
		for n := range wp.extra {
			p.account(&wp.extra[n])
		}
		for n := range wp.slots {
			wp.slots[n].m = nil
		}
		wp.slots, wp.extra = wp.slots[:0], wp.extra[:0]
		wp.pos = [warpSize]int32{}
		wp.div, wp.mapped = 0, false
	}
	if len(pb.seqs) > 0 {
		for _, seq := range pb.seqs {
			seq.n, seq.shared, seq.reqs = [warpSize]int32{}, 0, seq.reqs[:0]
			p.seqFree = append(p.seqFree, seq)
		}
		clear(pb.seqs)
	}
	pb.recent = [16]struct {
		k   seqKey
		seq *laneSeq
	}{}
	pb.warps = nil
}

// account adds a request to its line's and the launch's statistics.
func (p *profWorker) account(r *request) {
	if r.lanes == 0 { // an extra request that moved into a slot
		return
	}
	k := r.k
	lk := lineKey{s: k.site(), space: r.m.space, op: k.op()}
	ls := r.line
	if ls == nil || r.lk != lk {
		if ls = p.lines[lk]; ls == nil {
			ls = &LineStats{Site: k.site().String(), Space: r.m.space, Op: profOpNames[k.op()]}
			p.lines[lk] = ls
		}
		r.line, r.lk = ls, lk
	}
	lanes := int64(bits.OnesCount32(r.lanes))
	if r.m.space == ConstantSpace {
		// One pass per distinct element: its line only (see Profile).
		var buf [warpSize]int64
		keys := buf[:0]
		for l := r.lanes; l != 0; l &= l - 1 {
			keys = append(keys, r.key[bits.TrailingZeros32(l)])
		}
		slices.Sort(keys)
		n := len(slices.Compact(keys))
		ls.Shared.add(SharedStats{Requests: 1, Accesses: lanes, Wavefronts: int64(n), IdealWavefronts: 1, MaxDegree: n})
		return
	}
	global := r.m.space == GlobalSpace
	// The distinct sectors or words, and the most distinct words one bank
	// holds: counted in one pass when the lanes' keys ascend (coalesced
	// and strided requests), else sorted first. A shared request of 8- or
	// 16-byte elements is served in phases of 16 or 8 lanes (128 bytes
	// each), one after the other: its wavefronts are the phases' sum, and
	// lanes of different phases never conflict.
	var distinct, deg, ideal int
	sorted := false
	if !r.wide {
		if global {
			distinct, sorted = ascendingDistinct(r)
		} else {
			distinct, deg, sorted = ascendingBanks(r)
			ideal = (distinct*4 + 127) / 128
		}
	}
	if !sorted {
		phase := warpSize
		if !global {
			phase = sharedPhase(r.m.elemSize)
		}
		for lo := 0; lo < warpSize; lo += phase {
			var buf [4 * warpSize]int64
			keys := buf[:0]
			for l := r.lanes & phaseMask(lo, phase); l != 0; l &= l - 1 {
				lane := bits.TrailingZeros32(l)
				for x, end := r.key[lane], r.key[lane]+int64(r.nw[lane]); x < end; x++ {
					keys = append(keys, x)
				}
			}
			if len(keys) == 0 {
				continue
			}
			slices.Sort(keys)
			var banks [32]int
			n, d := 0, 0
			for j, x := range keys {
				if j == 0 || x != keys[j-1] {
					n++
					banks[x&31]++
					d = max(d, banks[x&31])
				}
			}
			distinct, deg, ideal = distinct+n, deg+d, ideal+(n*4+127)/128
		}
	}
	if global {
		g := GlobalStats{Requests: 1, Accesses: lanes, Sectors: int64(distinct), Bytes: lanes * int64(r.m.elemSize)}
		ls.Global.add(g)
		if k.op() == opLoad {
			p.mem.GlobalLoad.add(g)
		} else {
			p.mem.GlobalStore.add(g)
		}
		return
	}
	s := SharedStats{Requests: 1, Accesses: lanes, Wavefronts: int64(deg), IdealWavefronts: int64(ideal), MaxDegree: deg}
	ls.Shared.add(s)
	if k.op() == opLoad {
		p.mem.SharedLoad.add(s)
	} else {
		p.mem.SharedStore.add(s)
	}
}

// sharedPhase is the lanes of a shared request of elements of size bytes
// that the banks serve together: a half-warp for 8-byte elements, a
// quarter-warp for 16-byte ones (128 bytes either way), else the warp.
func sharedPhase(size int) int {
	switch size {
	case 8:
		return warpSize / 2
	case 16:
		return warpSize / 4
	}
	return warpSize
}

// phaseMask is the lanes lo to lo+n-1 (n a power of two up to warpSize).
func phaseMask(lo, n int) uint32 {
	return uint32(uint64(1)<<n-1) << lo
}

// ascendingDistinct counts the distinct keys of a request (of at least one
// lane) whose lanes each hold one, if they do not descend from lane to lane.
func ascendingDistinct(r *request) (distinct int, ok bool) {
	if r.lanes == 1<<warpSize-1 { // every lane: no mask to walk
		prev := r.key[0]
		distinct = 1
		for _, x := range r.key[1:] {
			if x < prev {
				return 0, false
			}
			if x != prev {
				distinct++
			}
			prev = x
		}
		return distinct, true
	}
	prev := r.key[bits.TrailingZeros32(r.lanes)]
	distinct = 1
	for l := r.lanes & (r.lanes - 1); l != 0; l &= l - 1 {
		x := r.key[bits.TrailingZeros32(l)]
		if x < prev {
			return 0, false
		}
		if x != prev {
			distinct++
		}
		prev = x
	}
	return distinct, true
}

// ascendingBanks is ascendingDistinct for words of shared memory, with the
// most distinct words one bank holds.
func ascendingBanks(r *request) (distinct, deg int, ok bool) {
	var banks [32]int
	prev := r.key[bits.TrailingZeros32(r.lanes)]
	distinct, deg, banks[prev&31] = 1, 1, 1
	for l := r.lanes & (r.lanes - 1); l != 0; l &= l - 1 {
		x := r.key[bits.TrailingZeros32(l)]
		if x < prev {
			return 0, 0, false
		}
		if x != prev {
			distinct++
			banks[x&31]++
			deg = max(deg, banks[x&31])
		}
		prev = x
	}
	return distinct, deg, true
}

const maxAtomicAddrs = 1 << 20

func (w *worker) profAtomic(m *mem, i int, s site) {
	p := w.pstate()
	if m.space == GlobalSpace {
		p.atomics.Global++
	} else {
		p.atomics.Shared++
	}
	k := atomicKey{m, i}
	if c, ok := p.hot[k]; ok || len(p.hot) < maxAtomicAddrs {
		p.hot[k] = c + 1
	}
	lk := lineKey{s: s, space: m.space, op: opAtomic}
	ls := p.lines[lk]
	if ls == nil {
		ls = &LineStats{Site: lk.s.String(), Space: m.space, Op: "atomic"}
		p.lines[lk] = ls
	}
	ls.Atomics++
	p.clock++
}

// profCollective counts a completed warp collective.
func (w *worker) profCollective(b *block, wp *warp, c *collective) {
	p := w.pstate()
	p.clock++
	p.sync.Collectives++
	if c.mask != wp.present&^wp.exited {
		p.sync.PartialCollectives++
	}
	if pb := p.block(w, b); pb.warps != nil {
		first := c.first.warp
		p.trace = append(p.trace, TraceEvent{Name: c.kind.String(), Cat: "collective", Ph: "i", Ts: p.clock,
			Pid: 0, Tid: b.linear*len(b.warps) + first, S: "t", Args: map[string]any{"site": c.site.String(), "mask": c.mask}})
	}
}

// profRetire flushes a finished block's requests.
func (w *worker) profRetire(b *block) {
	p := w.pstate()
	p.static = max(p.static, b.staticB)
	if pb := p.blocks[b]; pb != nil {
		p.flush(pb)
		delete(p.blocks, b)
		p.pbFree = append(p.pbFree, pb)
	}
	if p.lastB == b {
		p.lastB, p.lastPB = nil, nil
		p.fastB, p.fastPW = nil, nil
	}
}

// mergeStats adds a finished worker's counters and profile to the launch.
//
// The counters of an abandoned launch's workers are not merged: the
// launch has returned, and its Profile is the caller's.
func (l *launch) mergeStats(w *worker) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.abandoned {
		return
	}
	w.stats.SlowSites = w.sites.slow
	l.stats.add(&w.stats)
	l.flushRepeats(w)
	l.gatherGuesses(w)
	p := w.pw
	if p == nil || l.prof == nil {
		return
	}
	for _, pb := range p.blocks { // blocks an abort left resident
		p.flush(pb)
	}
	pr := l.prof
	pr.Memory.GlobalLoad.add(p.mem.GlobalLoad)
	pr.Memory.GlobalStore.add(p.mem.GlobalStore)
	pr.Memory.SharedLoad.add(p.mem.SharedLoad)
	pr.Memory.SharedStore.add(p.mem.SharedStore)
	pr.Sync.Barriers += p.sync.Barriers
	pr.Sync.BarriersWithExited += p.sync.BarriersWithExited
	pr.Sync.Collectives += p.sync.Collectives
	pr.Sync.PartialCollectives += p.sync.PartialCollectives
	pr.Atomics.Global += p.atomics.Global
	pr.Atomics.Shared += p.atomics.Shared
	pr.Atomics.Addresses += len(p.hot)
	for k, c := range p.hot {
		h := &pr.Atomics.Hottest
		if c > h.Count || c == h.Count && (k.m.name < h.Memory || k.m.name == h.Memory && k.i < h.Index) {
			*h = AtomicAddress{Memory: k.m.name, Space: k.m.space, Index: k.i, Count: c}
		}
	}
	pr.SharedStatic = max(pr.SharedStatic, p.static)
	pr.Timeline = append(pr.Timeline, p.trace...)
	pr.Steps = max(pr.Steps, p.clock)
	for _, ls := range p.lines {
		merged := false
		for i := range pr.Lines {
			x := &pr.Lines[i]
			if x.Site == ls.Site && x.Space == ls.Space && x.Op == ls.Op {
				x.Global.add(ls.Global)
				x.Shared.add(ls.Shared)
				x.Atomics += ls.Atomics
				merged = true
				break
			}
		}
		if !merged {
			pr.Lines = append(pr.Lines, *ls)
		}
	}
}

// LaunchProfile is Launch with the profiler on: it runs k as Launch does
// and returns the launch's Profile with Launch's error. The profile is
// filled in whatever the error (findings, an abort), and is nil only when
// nothing ran (a refused launch). After a launch the watchdog abandoned
// (a Hang finding), it has the launch's shape, occupancy and time but no
// counts: they stay with the workers the stray thread may still be
// running.
func (d *Device) LaunchProfile(cfg Config, k Kernel) (*Profile, error) {
	p := new(Profile)
	cfg.Options.profile = p
	err := d.Launch(cfg, k)
	if p.Grid == (Dim3{}) { // finish never ran: the launch did not start
		return nil, err
	}
	return p, err
}

func (p *Profile) finish(l *launch, elapsed time.Duration) {
	p.Device, p.Arch = l.spec.Name, l.spec.Arch
	p.Grid, p.Block = l.grid, l.block
	p.SharedDynamic = l.dynSh
	if !l.abandoned {
		// (The stray thread's launch goroutine may still count epochs.)
		p.Counters = l.stats
	}
	p.Elapsed = elapsed
	if o, err := l.spec.CalcOccupancy(l.tpb, 0, p.SharedStatic+p.SharedDynamic); err == nil {
		p.Occupancy = o
	}
	sort.SliceStable(p.Lines, func(i, j int) bool {
		a, b := &p.Lines[i], &p.Lines[j]
		if a.Site != b.Site {
			return siteLess(a.Site, b.Site)
		}
		if a.Space != b.Space {
			return a.Space < b.Space
		}
		return a.Op < b.Op
	})
	sort.SliceStable(p.Timeline, func(i, j int) bool { return p.Timeline[i].Ts < p.Timeline[j].Ts })
}

// siteLess orders "file:line" by file, then numerically by line.
func siteLess(a, b string) bool {
	fa, la := splitSite(a)
	fb, lb := splitSite(b)
	if fa != fb {
		return fa < fb
	}
	return la < lb
}

func splitSite(s string) (string, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			n := 0
			for _, c := range s[i+1:] {
				if c < '0' || c > '9' {
					return s, 0
				}
				n = n*10 + int(c-'0')
			}
			return s[:i], n
		}
	}
	return s, 0
}
