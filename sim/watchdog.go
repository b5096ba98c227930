package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// This file holds what ends a launch from outside its threads: the
// context's cancellation, the time limit and the watchdog. The package
// doc's # Watchdog says what they guarantee.

// cancelGrace is how long a cancelled launch waits for a thread that
// reaches no scheduling point before abandoning it, watchdog or not.
const cancelGrace = time.Second

// launchSeq numbers launches for their goroutine labels.
var launchSeq atomic.Uint64

const labelKey = "gpusim.launch"

// supervise runs the launch's workers on a goroutine of their own and
// waits for them, for ctx, for the time limit and for the watchdog. It
// returns when the workers are done, or when it abandons them: then
// l.abandoned is set, the Hang finding recorded, and the workers' goroutine
// is left to run on (see abandon).
func (l *launch) supervise(ctx context.Context) {
	id := strconv.FormatUint(launchSeq.Add(1), 10)
	l.labels = pprof.WithLabels(context.Background(), pprof.Labels(labelKey, id))
	registerKernelLabels(l.labels) // (goroutines its kernel starts inherit them: owner.go)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run()
	}()
	wd := l.opts.Watchdog()
	cancelled := ctx.Done()
	// tick drives the watchdog: every period, wd/8 within [1ms, 1s], or
	// every second while only the context can end the launch.
	var tick <-chan time.Time
	var tk *time.Ticker
	defer func() {
		if tk != nil {
			tk.Stop()
		}
	}()
	period := time.Second
	if wd > 0 {
		period = min(max(wd/8, time.Millisecond), time.Second)
	}
	setTicks := func(p time.Duration) {
		period = p
		if tk == nil {
			tk = time.NewTicker(p)
		} else {
			tk.Reset(p)
		}
		tick = tk.C
	}
	if wd > 0 || cancelled != nil {
		setTicks(period)
	}
	// stopping starts the grace a thread that reaches no scheduling point
	// gets once the launch is stopped (cancelled, or past its time limit):
	// it is abandoned after cancelGrace even with the watchdog off, and
	// ticks come often enough to abandon it within about that, not a whole
	// slow period later.
	var beats []beatMark
	stopping := func() {
		if wd <= 0 || wd > cancelGrace {
			wd = cancelGrace
		}
		for i := range beats {
			beats[i].since = time.Now()
			beats[i].cpu, _ = processCPU()
		}
		if tick == nil || period > cancelGrace/8 {
			setTicks(cancelGrace / 8)
		}
	}
	var limit <-chan time.Time
	if tl := l.opts.timeLimit; tl > 0 {
		tm := time.NewTimer(tl)
		defer tm.Stop()
		limit = tm.C
	}
	for {
		select {
		case <-done:
			return
		case <-cancelled:
			cancelled = nil
			l.stopped = ctx.Err()
			l.halt(stopCancel)
			stopping()
		case <-limit:
			limit = nil
			l.halt(stopBudget)
			stopping()
		case now := <-tick:
			if wd <= 0 {
				continue
			}
			l.mu.Lock()
			ws := l.workers
			l.mu.Unlock()
			if len(beats) != len(ws) {
				beats = make([]beatMark, len(ws))
				cpu, _ := processCPU()
				for i := range beats {
					beats[i].since, beats[i].cpu = now, cpu
				}
			}
			for i, w := range ws {
				if w.finished.Load() {
					continue
				}
				cpu, haveCPU := processCPU()
				if b := progressMark(w); b != beats[i].beat {
					beats[i] = beatMark{beat: b, since: now, cpu: cpu}
					continue
				}
				// Stalled for wd of wall time, and for wd of the process's
				// CPU time too where the system reports it: a looping
				// thread burns a core, while a process the machine starves
				// of CPU only waits.
				// A thread blocked in the Go runtime (a channel, a
				// lock, a sleep) burns no CPU: its goroutine's state
				// tells it from a starved one.
				stalled := now.Sub(beats[i].since) >= wd
				if stalled && haveCPU && cpu-beats[i].cpu < wd {
					if blockedThread(l.labels) {
						beats[i].blocked++
					} else {
						beats[i].blocked = 0
					}
				}
				if stalled && (!haveCPU || cpu-beats[i].cpu >= wd || beats[i].blocked >= 2) {
					l.abandon(w, now.Sub(beats[i].since))
					return
				}
			}
		}
	}
}

type beatMark struct {
	beat    uint64
	since   time.Time
	cpu     time.Duration // the process's CPU time at since (processCPU)
	blocked int           // consecutive ticks past the timeout that found the thread blocked (blockedThread)
}

// halt stops the launch at its threads' next scheduling points (thread
// starts, barriers, collectives, atomics, fences, spin checks).
func (l *launch) halt(reason int32) {
	l.stop.CompareAndSwap(0, reason)
	l.aborted.Store(true)
}

// abandon gives up on worker w, whose current thread has run for quiet
// without calling into sim: it records a Hang finding naming the thread
// and the line it runs (sampled from its goroutine's stack), marks the
// launch abandoned and leaves its goroutines behind. The stray thread's
// next Load or Store unwinds it (its budget is spent here, see halt);
// until then it runs on, and a thread that never calls into sim runs until
// the process exits. The Device is marked unusable by LaunchContext, so
// that nothing the stray thread may still write is read as a later
// launch's result.
func (l *launch) abandon(w *worker, quiet time.Duration) {
	l.halt(stopHang)
	l.mu.Lock()
	flushStrayRepeats(l, w)
	l.abandoned = true // (mergeStats reads it)
	l.mu.Unlock()
	blk, thr, ok := peekRunning(w)
	where := sampleStuck(l.labels)
	// What gave up on it: the watchdog, or the grace after the context's
	// end or the time limit (halt keeps the first reason).
	why := "the watchdog's timeout, Options.WithWatchdog"
	switch l.stop.Load() {
	case stopCancel:
		why = "the grace after the launch's context ended"
	case stopBudget:
		why = "the grace after the launch's time limit, Options.WithTimeLimit"
	}
	f := Finding{Kind: Hang,
		Detail: fmt.Sprintf("the thread ran %v without calling into sim (%s); the launch is abandoned and the Device unusable: the thread's goroutine runs on until it next calls into sim, or until the process exits",
			quiet.Round(time.Millisecond), why)}
	if ok {
		f.Current = Access{Block: blk, Thread: thr, Op: "running", Site: where}
	} else {
		f.Current = Access{Op: "running", Site: where}
	}
	if where == "" {
		f.Detail += " (its line could not be sampled)"
	}
	l.addFinding(f)
	spendBudget(w)
	d := l.dev
	d.mu.Lock()
	d.hungAt = f.Current.String()
	d.mu.Unlock()
}

// progressMark is a number that changes whenever worker w's threads call
// into sim: its scheduling turns and calls counted by tick, its thread
// exits, its beat. turns and stats.Threads are the worker's own counters,
// incremented without synchronisation on paths too hot for an atomic add
// (every thread exit, every barrier); they are read here without it,
// deliberately: a word read may be late, never torn, on the machines Go
// runs on, and a late value only delays the watchdog by a tick.
//
//go:norace
func progressMark(w *worker) uint64 {
	return uint64(w.turns) + uint64(w.stats.Threads) + w.beat.Load()
}

// peekRunning returns the thread worker w last started or resumed, which
// is the one running when the watchdog calls. It reads the worker's and
// the thread's fields without synchronisation, deliberately: the worker's
// goroutine is inside a kernel thread that has not called into sim for
// the watchdog's timeout, and has not written them since.
//
//go:norace
func peekRunning(w *worker) (blk, thr Dim3, ok bool) {
	t := w.cur
	if t == nil {
		return Dim3{}, Dim3{}, false
	}
	return t.BlockIdx, t.ThreadIdx, true
}

// flushStrayRepeats adds the races worker w counted without the lock
// (repeatedRace) to the findings, as mergeStats would have had the launch
// ended: an abandoned launch's worker never merges. Unsynchronised for the
// reason peekRunning is; a stray thread that calls into sim again is
// stopped there, before it counts another race.
//
//go:norace
func flushStrayRepeats(l *launch, w *worker) {
	for j := range w.repeats {
		if r := &w.repeats[j]; r.n > 0 {
			l.findings.list[r.i].Count += int(r.n)
			r.n = 0
		}
	}
}

// spendBudget makes the stray thread's next Load or Store take the slow
// path, where halt unwinds it. Unsynchronised for the reason peekRunning
// is; a lost write only delays the unwinding to the thread's next
// periodic check.
//
//go:norace
func spendBudget(w *worker) {
	if t := w.cur; t != nil {
		t.budget = math.MinInt32
	}
}

// sampleStuck finds the kernel line a thread of the launch labelled ctx's
// labels is running, from a goroutine profile: the launch's coroutines
// carry its label, and the one that is not parked in a coroutine switch is
// the running thread. The line is the innermost frame outside the runtime
// and sim. It returns "" if none is found.
func sampleStuck(labels context.Context) string {
	where, _ := sampleThread(labels)
	return where
}

// sampleThread is sampleStuck, and reports too whether the thread is
// blocked in the Go runtime (on a channel, a lock, a sleep: parked, not
// running) rather than running.
func sampleThread(labels context.Context) (where string, blocked bool) {
	id, _ := pprof.Label(labels, labelKey)
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return "", false
	}
	want := fmt.Sprintf("%q:%q", labelKey, id)
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, want) {
			continue
		}
		if where, ok, blocked := runningLine(rec); ok {
			return where, blocked
		}
	}
	return "", false
}

// parkedByUser reports whether a goroutine whose stack's PCs (hex, innermost
// first) are pcs is parked by the runtime in a wait of the kernel's own
// making: a channel, a select, a sleep, a lock, a condition. (A wait for
// the garbage collector's assist, or a preemption, is not one.)
func parkedByUser(pcs []string) bool {
	if len(pcs) < 3 {
		return false
	}
	name := func(s string) string {
		pc, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			return ""
		}
		if f := runtime.FuncForPC(uintptr(pc) - 1); f != nil {
			return f.Name()
		}
		return ""
	}
	if name(pcs[0]) != "runtime.gopark" {
		return false
	}
	caller := name(pcs[1])
	if caller == "runtime.goparkunlock" {
		caller = name(pcs[2])
	}
	switch caller {
	case "runtime.chanrecv", "runtime.chansend", "runtime.selectgo", "runtime.block",
		"time.Sleep", "runtime.semacquire1", "runtime.notifyListWait", "runtime.netpollblock":
		return true
	}
	return false
}

// blockedThread reports whether the launch's running thread is parked by
// the Go runtime in kernel code (see runningLine).
func blockedThread(labels context.Context) bool {
	_, blocked := sampleThread(labels)
	return blocked
}

// runningLine reads one record of a goroutine profile (debug=1): if its
// goroutines are running kernel code rather than parked in a coroutine
// switch, it returns the innermost kernel line, and whether the goroutine
// is parked by the runtime in kernel code (its innermost frame, the first
// PC of the record's "@" line, which the frames below leave out, is
// runtime.gopark: a channel, a lock, a sleep).
func runningLine(rec string) (where string, ok, blocked bool) {
	lib := "" // where: the innermost frame outside the standard library; lib: in it
	inKernel := false
	for _, line := range strings.Split(rec, "\n") {
		if _, pcs, found := strings.Cut(line, " @ "); found && !strings.HasPrefix(line, "#") {
			blocked = parkedByUser(strings.Fields(pcs))
			continue
		}
		if !strings.HasPrefix(line, "#\t") {
			continue
		}
		f := strings.Fields(line[2:])
		if len(f) < 3 {
			continue
		}
		fn, file := f[1], f[2]
		if i := strings.LastIndexByte(fn, '+'); i > 0 {
			fn = fn[:i]
		}
		switch {
		case strings.HasPrefix(fn, "runtime.coroswitch"), strings.HasPrefix(fn, "iter.Pull"):
			if where == "" {
				return "", false, false // parked: a suspended or idle coroutine
			}
		case fn == runThreadFunc:
			inKernel = true
		case where == "" && !strings.HasPrefix(fn, "runtime.") &&
			!(strings.HasPrefix(fn, simPkg) && !strings.Contains(file, "_test.go")):
			i := strings.LastIndexByte(file, ':')
			if i <= 0 {
				continue
			}
			n, err := strconv.Atoi(file[i+1:])
			if err != nil {
				continue
			}
			s := fmt.Sprintf("%s:%d", shortFile(file[:i]), n)
			if stdlib(fn, file[:i]) {
				if lib == "" {
					lib = s // sync/atomic's Load, say: the kernel's line is further out
				}
				continue
			}
			where = s
		}
	}
	if where == "" {
		where = lib
	}
	return where, inKernel && where != "", blocked && inKernel
}

// stdlib reports whether function fn (as a goroutine profile names it),
// defined in file, is in the standard library: file is under GOROOT's src,
// or, where GOROOT or the file's path is not known (a -trimpath build),
// fn's import path's first element has no dot and it is not package main.
// (A module path without a dot, as `go mod init myapp` makes, is told
// apart by its file.)
func stdlib(fn, file string) bool {
	if root := runtime.GOROOT(); root != "" && filepath.IsAbs(file) {
		return strings.HasPrefix(filepath.ToSlash(file), filepath.ToSlash(root)+"/src/")
	}
	path := fn
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if j := strings.IndexByte(path[i:], '.'); j >= 0 {
			path = path[:i+j]
		}
	} else if j := strings.IndexByte(path, '.'); j >= 0 {
		path = path[:j]
	}
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && path != "main"
}
