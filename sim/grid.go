package sim

import "fmt"

// Grid synchronisation and the cooperative launch.
//
// grid.sync() (GridGroup.Sync) is legal only in a cooperative launch
// (Options.WithCooperative, cudaLaunchCooperativeKernel), which the device
// refuses, before anything runs, when the grid has more blocks than can be
// co-resident: blocks per SM by the occupancy rules (threads, blocks,
// registers and shared memory: Spec.CalcOccupancy) times the SM count.

// ErrCooperativeLaunchTooLarge is cudaErrorCooperativeLaunchTooLarge: "too
// many blocks in cooperative launch".
const ErrCooperativeLaunchTooLarge ErrorCode = 720

// CooperativeLimit is the largest grid, in blocks, a cooperative launch of
// cfg's shape may have on the device, as cudaLaunchCooperativeKernel
// decides it: SMs x the blocks per SM that CalcOccupancy gives for
// cfg.Block's threads, cfg.Registers registers per thread and
// cfg.SharedBytes + staticShared bytes of shared memory.
//
// The simulator does not compile kernels, so it knows neither their
// registers nor their static shared memory. Registers 0 (unknown) is no
// limit, as if the kernel needed few enough that threads bound residency
// first; pass the compiled kernel's count (cudaFuncAttributes.numRegs) in
// Config.Registers to get the driver's answer. staticShared is the
// kernel's static shared memory in bytes (cudaFuncAttributes.sharedSizeBytes);
// a cooperative launch takes it as 0 (see Options.WithCooperative).
func (d *Device) CooperativeLimit(cfg Config, staticShared int) (int, error) {
	if d == nil {
		return 0, d.usable("CooperativeLimit")
	}
	o, err := d.spec.CalcOccupancy(cfg.Block.norm().Size(), cfg.Registers, cfg.SharedBytes+staticShared)
	if err != nil {
		return 0, err
	}
	return o.BlocksPerSM * d.spec.SMs, nil
}

// cooperativeCheck refuses a cooperative launch whose grid cannot be
// co-resident.
func (d *Device) cooperativeCheck(cfg Config) error {
	limit, err := d.CooperativeLimit(cfg, 0)
	if err != nil {
		return err
	}
	if n := cfg.Grid.norm().Size(); n > limit {
		return &LaunchError{Code: ErrCooperativeLaunchTooLarge, Limit: "cooperative grid",
			Detail: fmt.Sprintf("%d blocks, at most %d co-resident (%d SMs x %d blocks of %d threads, %d registers, %d bytes of shared memory)",
				n, limit, d.spec.SMs, limit/d.spec.SMs, cfg.Block.norm().Size(), cfg.Registers, cfg.SharedBytes)}
	}
	return nil
}

// GridGroup is cg::grid_group, the whole grid of a launch.
type GridGroup struct{ t *Thread }

// ThisGrid is cg::this_grid().
func ThisGrid(t *Thread) GridGroup { return GridGroup{t} }

// IsValid is grid.is_valid(): whether the launch is cooperative, so that
// Sync may be called, as the Programming Guide has it. On an H100 (driver
// 580, CUDA 13) it was measured true in a plain launch too, the GPU then
// taking the kernel's grid.sync() path; parity refuses to compare plain
// launches of kernels that call grid.sync() (parity.CooperativeNever).
func (g GridGroup) IsValid() bool { return g.t.w.l.opts.cooperative }

// ThreadRank is grid.thread_rank(): the caller's rank in the grid, block by
// block.
func (g GridGroup) ThreadRank() int { return g.t.blk.linear*g.t.w.l.tpb + g.t.tid }

// NumThreads is grid.num_threads().
func (g GridGroup) NumThreads() int { return g.t.w.l.nblocks * g.t.w.l.tpb }

// Size is grid.size().
func (g GridGroup) Size() int { return g.NumThreads() }

// BlockRank is grid.block_rank(): the linear blockIdx.
func (g GridGroup) BlockRank() int { return g.t.blk.linear }

// NumBlocks is grid.num_blocks().
func (g GridGroup) NumBlocks() int { return g.t.w.l.nblocks }

// BlockIndex is grid.block_index(), blockIdx.
func (g GridGroup) BlockIndex() Dim3 { return g.t.BlockIdx }

// DimBlocks is grid.dim_blocks(), gridDim.
func (g GridGroup) DimBlocks() Dim3 { return g.t.GridDim }

func (g GridGroup) info() groupInfo { return groupInfo{g.t, 0, g.t.w.l.tpb} }

// gridBarrier is a cooperative launch's grid barrier: one leader per block
// arrives, and the last releases them all.
type gridBarrier struct {
	arrived int
	gen     uint64
	rel     *vclock // detection: what the generation's leaders released
	last    *vclock // what the last completed generation released
}

// Sync is grid.sync(): every thread of the grid waits until all have
// arrived (threads that exited count as arrived, blocks whose threads all
// exited do not: the grid waits for them forever, as on a GPU), and every
// access before it, in any thread, is ordered before every access after
// it. As CUDA implements it: a __syncthreads, then one thread per block
// arrives at the grid barrier and waits, then a __syncthreads. Waiting
// leaders are parked as spinners, so the scheduler admits the blocks not
// yet resident. Outside a cooperative launch it panics, which the launch
// reports as a KernelPanic.
//
// It is never inlined: the barriers it calls read its caller's line.
//
//go:noinline
func (g GridGroup) Sync() {
	t := g.t
	w := t.w
	if !w.l.opts.cooperative {
		panic("grid.sync() outside a cooperative launch: launch with Options.WithCooperative(true), as cudaLaunchCooperativeKernel")
	}
	t.barrier(barPlain, false)
	if t.gridLeader() {
		t.gridArrive()
	}
	t.barrier(barPlain, false)
}

// gridLeader reports whether t is its block's first thread that has not
// exited, the one that arrives at the grid barrier for the block.
func (t *Thread) gridLeader() bool {
	for k := range t.blk.threads {
		if t.blk.threads[k].state != stDone {
			return k == t.tid
		}
	}
	return false
}

// gridArrive is the leader's part of grid.sync: it releases what its block
// did (it follows a __syncthreads), waits for every block's leader, and
// acquires what they released (a __syncthreads follows, passing it to the
// block).
func (t *Thread) gridArrive() {
	w := t.w
	l := w.l
	gb := &l.coopState().grid
	s := w.sites.callerSite()
	h := &t.x.hb
	if l.detect {
		h.markRelease(false, t.blk.phase)
		if gb.rel == nil {
			gb.rel = newVClock()
		}
		gb.rel.join(h.vc)
		gb.rel.threads[t.gid] = max(gb.rel.threads[t.gid], h.clock)
		gb.rel.blocks[t.blk.linear] = max(gb.rel.blocks[t.blk.linear], t.blk.phase)
		h.fenced = false
	}
	gen := gb.gen
	gb.arrived++
	w.progress++
	if w.parallel {
		l.progress.Add(1)
	}
	if gb.arrived == l.nblocks {
		gb.arrived = 0
		gb.gen++
		gb.last, gb.rel = gb.rel, nil
	}
	for gb.gen == gen {
		t.waitSite = s
		t.state, t.waitFor = stSpinning, waitGridSync
		w.spinq = append(w.spinq, t)
		t.suspend()
		t.state = stRunning
	}
	if l.detect && gb.last != nil {
		h.ownVC().join(gb.last)
		t.blk.acquired = true
	}
}
