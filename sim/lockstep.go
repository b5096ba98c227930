package sim

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"runtime"
	"sync"
)

// The lockstep warp model (Options.WithWarpModel(Lockstep)) approximates
// pre-Volta warps, whose lanes share one program counter and run divergent
// paths one after the other off a SIMT stack, with three rules:
//
//  1. Atomics are warp-wide meeting points: a lane's atomic waits until every
//     eligible lane of its warp (started or not, not exited, not blocked at a
//     barrier or collective, not held back) has reached an atomic, as lanes
//     issuing together would. So every lane has issued its previous atomic
//     when a meeting completes, and rules 2 and 3 are applied then.
//  2. While some lanes of a warp spin (their last atomic changed nothing),
//     the other lanes are held back at their next atomic until the spinners
//     make progress or leave (exit, or wait at a barrier): the warp runs the
//     spinning path to its end and starves the rest.
//  3. Except where a SIMT stack would run the other lane first. The spin
//     loop is the innermost for statement around the spinners' atomic in
//     the source, in the innermost function of their call stack that has
//     one. A lane goes on if, in the same call of that function (the same
//     outer frames), its next atomic stands
//     a. inside the spin loop: a branch taken inside an iteration runs to
//     its reconvergence point (the end of the if) before the loop's back
//     edge takes the spinners round again; or
//     b. before the spin loop, in a statement of a block that holds both
//     (typically an if the spinners skipped): the spinners waited for it
//     at the statement's end, where the paths reconverge. Unless it came
//     round to it: its previous atomic stood at or after that line, within
//     a loop that holds the spin loop too.
//     With no call of that function in common, (b) is asked of the
//     caller's line that called it, and so on outwards.
//     A lane that left the spin loop (its next atomic stands after it) waits
//     at the loop's exit, and one in the other branch of an if whose
//     branch holds the spin loop is held back too: which side a SIMT stack
//     runs first is the compiler's choice, and the model takes the
//     spinning side, which deadlocks.
//
// So the pre-Volta-safe spin lock, which releases the lock inside the
// branch that took it,
//
//	for !done { if atomicCAS(&l, 0, 1) == 0 { ...; atomicExch(&l, 0); done = true } }
//
// completes (3a), and the naive one, `for atomicCAS(&l, 0, 1) != 0 {}` with
// the release after the loop, deadlocks within a warp, each as it does on a
// Pascal GPU; across warps both work. The two make the same calls into sim
// in the same order from lines in the same order: only the extent of the
// loop tells them apart, and Go keeps no control flow at run time, so rule 3
// reads the kernel's source file (go/parser, once per file) when a lane
// would be held back. Where the file cannot be read (a binary built with
// -trimpath or run away from its source) the lane is held back, as rule 2
// says, and the deadlock finding names the file.

// lockstepLanes is a warp's record, under the lockstep model, of where
// each lane's last two atomics (or volatile accesses) stood: the return
// addresses of its call stack, read at its meeting point by a frame-pointer
// walk (a few ns) and resolved to lines only when rule 3 asks.
type lockstepLanes struct {
	at [warpSize]struct {
		cur, prev lsPCs
	}
	// against is the spinning lanes for which the held-back lanes were
	// held back: they are looked at again when one of them spins no more.
	against uint32
	// unread is a source file rule 3 could not read, for the deadlock
	// finding.
	unread string
}

type lsPCs struct {
	pcs [maxFrames]uintptr
	n   int
}

func (ls *lockstepLanes) reset() {
	for i := range ls.at {
		ls.at[i].cur.n, ls.at[i].prev.n = 0, 0
	}
	ls.against, ls.unread = 0, ""
}

func (t *Thread) lockstepMeet() {
	w := t.w
	wp := &t.blk.warps[t.warp]
	if wp.ls == nil {
		wp.ls = new(lockstepLanes)
	}
	at := &wp.ls.at[t.lane]
	at.prev = at.cur
	at.cur.n = framePCs(&at.cur.pcs, maxFrames)
	wp.meet |= 1 << t.lane
	t.state = stWarp
	t.waitSite = w.sites.callerSite()
	w.lockstepCheck(t.blk, t.warp)
	t.suspend() // until the meeting completes, or later if held back
	t.state = stRunning
}

// lockstepCheck completes the warp's meeting when every eligible lane is
// there. Every lane has then issued its previous atomic, so that whether it
// spins is known: rules 2 and 3 decide which of the others are held back,
// and the rest issue. It also lets held-back lanes rejoin the meeting where
// a spinner has left: one that waits at a barrier has left its loop and
// spins no more (an exiting one, warpExit has cleared already).
func (w *worker) lockstepCheck(b *block, warpIdx int) {
	wp := &b.warps[warpIdx]
	first := warpIdx * warpSize
	if wp.held != 0 {
		for m := wp.spinning; m != 0; m &= m - 1 {
			if lane := trailing(m); b.threads[first+lane].state == stBarrier {
				wp.spinning &^= 1 << lane
			}
		}
		w.lockstepRecheck(b, warpIdx)
	}
	if wp.meet == 0 {
		return
	}
	eligible := uint32(0)
	for m := wp.present &^ wp.exited &^ wp.held; m != 0; m &= m - 1 {
		lane := trailing(m)
		t := &b.threads[first+lane]
		if t.state == stBarrier || (t.state == stWarp && wp.meet&(1<<lane) == 0) {
			continue
		}
		eligible |= 1 << lane
	}
	if wp.meet&eligible != eligible {
		return
	}
	if wp.spinning != 0 {
		for m := wp.meet &^ wp.spinning; m != 0; m &= m - 1 {
			lane := trailing(m)
			if !w.passesSpinners(b, warpIdx, lane) {
				wp.meet &^= 1 << lane
				wp.held |= 1 << lane
				wp.ls.against |= wp.spinning
				b.threads[first+lane].state = stLockstep
			}
		}
	}
	for m := wp.meet; m != 0; m &= m - 1 {
		t := &b.threads[first+trailing(m)]
		t.state = stRunnable
		w.runq = append(w.runq, t)
	}
	wp.meet = 0
}

// spinDone records that t's atomic changed memory: it no longer spins, and
// the held-back lanes that no spinner holds back now rejoin the meeting.
func (t *Thread) spinDone() {
	if t.w.l.opts.warpModel != Lockstep {
		return
	}
	wp := &t.blk.warps[t.warp]
	wp.spinning &^= 1 << t.lane
	if wp.held != 0 {
		t.w.lockstepCheck(t.blk, t.warp)
	}
}

// lockstepRecheck returns the held-back lanes of a warp to its meeting once
// a lane that spun when they were held back spins no more: all of them
// when no lane spins, otherwise those that rule 3 now lets pass.
func (w *worker) lockstepRecheck(b *block, warpIdx int) {
	wp := &b.warps[warpIdx]
	if wp.ls.against&^wp.spinning == 0 {
		return // every lane they were held back for still spins
	}
	first := warpIdx * warpSize
	for m := wp.held; m != 0; m &= m - 1 {
		lane := trailing(m)
		if wp.spinning != 0 && !w.passesSpinners(b, warpIdx, lane) {
			continue
		}
		wp.held &^= 1 << lane
		wp.meet |= 1 << lane
		b.threads[first+lane].state = stWarp
	}
	wp.ls.against = wp.spinning
}

// passesSpinners reports whether rule 3 lets lane, at an atomic, go on
// while lanes of its warp spin: a SIMT stack would run it before each of
// them.
func (w *worker) passesSpinners(b *block, warpIdx, lane int) bool {
	wp := &b.warps[warpIdx]
	at := &wp.ls.at[lane]
	h := stackFrames(at.cur)
	if len(h.frames) == 0 {
		return false
	}
	prev := stackFrames(at.prev)
	var seen []lsStack // spinners' stacks already found to let h pass
next:
	for m := wp.spinning; m != 0; m &= m - 1 {
		s := w.spinnerStack(b, warpIdx, trailing(m))
		for _, d := range seen {
			if d.equal(s) {
				continue next
			}
		}
		pass, unread := runsFirst(h, prev, s)
		if unread != "" {
			wp.ls.unread = unread
		}
		if !pass {
			return false
		}
		seen = append(seen, s)
	}
	return true
}

// spinnerStack is the stack of a spinning lane's last atomic. A lane that
// spins on loads (the spin watch caught it, not a failed atomic) has only
// its spinning line.
func (w *worker) spinnerStack(b *block, warpIdx, lane int) lsStack {
	s := stackFrames(b.warps[warpIdx].ls.at[lane].cur)
	if ws := b.threads[warpIdx*warpSize+lane].waitSite; ws != 0 {
		si := ws.info()
		f := lsFrame{si.file, si.fn, si.line}
		if len(s.frames) == 0 || s.frames[0] != f {
			return lsStack{frames: []lsFrame{f}}
		}
	}
	return s
}

// lsFrame is a kernel-code frame of a lane's call stack.
type lsFrame struct {
	file, fn string
	line     int
}

// lsStack is a lane's kernel-code frames, innermost first; whole says the
// walk reached the kernel's caller, so that no frame is missing.
type lsStack struct {
	frames []lsFrame
	whole  bool
}

func (s lsStack) equal(o lsStack) bool {
	if s.whole != o.whole || len(s.frames) != len(o.frames) {
		return false
	}
	for i := range s.frames {
		if s.frames[i] != o.frames[i] {
			return false
		}
	}
	return true
}

// frameIn returns the index of s's frame in the call of function f that
// frame i of o stands in: the same function, reached through the same
// outer frames. Where either walk stopped short of the kernel's caller,
// the innermost frame of s in f is taken, and the outer frames both have
// must agree. -1: none.
func (s lsStack) frameIn(o lsStack, i int) int {
	f := o.frames[i]
	j := -1
	if s.whole && o.whole {
		j = len(s.frames) - len(o.frames) + i // as many outer frames
	} else {
		for k := range s.frames {
			if s.frames[k].fn == f.fn && s.frames[k].file == f.file {
				j = k
				break
			}
		}
	}
	if j < 0 || s.frames[j].fn != f.fn || s.frames[j].file != f.file {
		return -1
	}
	for k := 1; i+k < len(o.frames) && j+k < len(s.frames); k++ {
		if o.frames[i+k] != s.frames[j+k] {
			return -1
		}
	}
	return j
}

// runsFirst is rule 3 for one spinner: whether h, a lane's stack at its next
// atomic (prev at the atomic before), runs before the spinner, at stack s,
// leaves its loop. unread names a source file that could not be read.
func runsFirst(h, prev lsStack, s lsStack) (pass bool, unread string) {
	loopAt := -1
	var loop lineSpan
	for i, f := range s.frames {
		l, found, ok := loopAround(f.file, lineSpan{f.line, f.line})
		if !ok {
			return false, f.file
		}
		if found {
			loopAt, loop = i, l
			break
		}
	}
	if loopAt < 0 {
		return false, "" // no loop in sight: rule 2
	}
	for i := loopAt; i < len(s.frames); i++ {
		j := h.frameIn(s, i)
		if j < 0 {
			// Not in the same call of this function: its caller decides,
			// at the line that called it.
			if i+1 < len(s.frames) {
				loop = lineSpan{s.frames[i+1].line, s.frames[i+1].line}
			}
			continue
		}
		f := s.frames[i]
		rel, ok := relate(f.file, h.frames[j].line, loop, i == loopAt)
		if !ok {
			return false, f.file
		}
		switch rel {
		case relInside:
			return true, "" // 3a
		case relBefore:
			// 3b, unless h came round to it: its previous atomic in this
			// call stood at or after its line, and a loop around both
			// holds the spin loop too.
			if k := prev.frameIn(s, i); k >= 0 {
				p, q := h.frames[j].line, prev.frames[k].line
				if q >= p {
					back, found, _ := loopAround(f.file, lineSpan{p, q})
					if !found || back.has(loop) {
						return false, ""
					}
				}
			}
			return true, ""
		}
		return false, ""
	}
	return false, ""
}

// stackFrames resolves return addresses recorded by framePCs into the
// kernel-code frames they hold, inlined calls expanded (a one-line helper
// the compiler inlined into the kernel is a frame of its own, as in the
// source). Results are cached: a warp's lanes stand at a handful of stacks.
func stackFrames(p lsPCs) lsStack {
	key := p.pcs
	clear(key[p.n:])
	lockstepStacks.Lock()
	st, ok := lockstepStacks.m[key]
	lockstepStacks.Unlock()
	if ok {
		return st
	}
	m := p.n
	for m > 0 && key[m-1] == 0 {
		m--
	}
	if m > 0 {
		frames := runtime.CallersFrames(append(key[:m:m], 0))
		for {
			f, more := frames.Next()
			if f.Function == runThreadFunc {
				st.whole = true
				break
			}
			if f.Function != "" && !passedFrame(f) {
				st.frames = append(st.frames, lsFrame{f.File, f.Function, f.Line})
			}
			if !more {
				break
			}
		}
	}
	lockstepStacks.Lock()
	if lockstepStacks.m == nil {
		lockstepStacks.m = map[[maxFrames]uintptr]lsStack{}
	}
	lockstepStacks.m[key] = st
	lockstepStacks.Unlock()
	return st
}

var lockstepStacks struct {
	sync.Mutex
	m map[[maxFrames]uintptr]lsStack
}

// lineSpan is the lines of a source construct, first to last.
type lineSpan struct{ lo, hi int }

func (s lineSpan) has(o lineSpan) bool { return s.lo <= o.lo && o.hi <= s.hi }

// inner reports whether s lies inside o, of two spans that both hold a line
// (nested constructs, or one the other): the innermost starts last.
func (s lineSpan) inner(o lineSpan) bool { return s.lo > o.lo || s.lo == o.lo && s.hi <= o.hi }

// srcFile is what rule 3 knows of a source file: its syntax tree, its
// functions (declared and literal) and its for statements, each with its
// innermost function.
type srcFile struct {
	ok    bool // the file was read and parsed
	fset  *token.FileSet
	file  *ast.File
	funcs []lineSpan
	loops []struct {
		lineSpan
		fn int // index into funcs; -1 outside any
	}
}

func (src *srcFile) span(n ast.Node) lineSpan {
	return lineSpan{src.fset.Position(n.Pos()).Line, src.fset.Position(n.End()).Line}
}

var lockstepSources struct {
	sync.Mutex
	files map[string]*srcFile
}

func sourceOf(file string) *srcFile {
	lockstepSources.Lock()
	defer lockstepSources.Unlock()
	src := lockstepSources.files[file]
	if src == nil {
		src = parseSource(file)
		if lockstepSources.files == nil {
			lockstepSources.files = map[string]*srcFile{}
		}
		lockstepSources.files[file] = src
	}
	return src
}

func parseSource(file string) *srcFile {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return &srcFile{}
	}
	src := &srcFile{ok: true, fset: fset, file: af}
	var fns []int        // the functions around the node being visited
	var stack []ast.Node // the nodes being visited
	ast.Inspect(af, func(n ast.Node) bool {
		if n == nil {
			switch stack[len(stack)-1].(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				fns = fns[:len(fns)-1]
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			src.funcs = append(src.funcs, src.span(n))
			fns = append(fns, len(src.funcs)-1)
		case *ast.ForStmt, *ast.RangeStmt:
			fn := -1
			if len(fns) > 0 {
				fn = fns[len(fns)-1]
			}
			src.loops = append(src.loops, struct {
				lineSpan
				fn int
			}{src.span(n), fn})
		}
		return true
	})
	return src
}

// loopAround returns the innermost for statement around the lines of at in
// file that belongs to the innermost function around them (a loop around a
// function literal is not the literal's); ok is false when the file cannot
// be read or parsed.
func loopAround(file string, at lineSpan) (loop lineSpan, found, ok bool) {
	src := sourceOf(file)
	if !src.ok {
		return lineSpan{}, false, false
	}
	fn := -1
	for i, f := range src.funcs {
		if f.has(at) && (fn < 0 || f.inner(src.funcs[fn])) {
			fn = i
		}
	}
	for _, l := range src.loops {
		if l.fn == fn && l.has(at) && (!found || l.inner(loop)) {
			loop, found = l.lineSpan, true
		}
	}
	return loop, found, true
}

type relation uint8

const (
	relOther  relation = iota
	relInside          // the line stands inside the loop
	relBefore          // in a statement before the target's, in one block
)

// relate places line against target (a loop when isLoop, else a line that
// calls the function the spinners are in): inside it, before it in a block
// that holds both, or otherwise (after it, in another branch of an if or
// switch that holds it, in a loop's header).
func relate(file string, line int, target lineSpan, isLoop bool) (relation, bool) {
	src := sourceOf(file)
	if !src.ok {
		return relOther, false
	}
	at := lineSpan{line, line}
	if isLoop && target.has(at) {
		return relInside, true
	}
	// The innermost node that holds both.
	var common ast.Node
	ast.Inspect(src.file, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if sp := src.span(n); sp.has(at) && sp.has(target) {
			common = n
			return true
		}
		return false
	})
	var list []ast.Stmt
	switch n := common.(type) {
	case *ast.BlockStmt:
		list = n.List
	case *ast.CaseClause:
		list = n.Body
	case *ast.CommClause:
		list = n.Body
	default:
		return relOther, true
	}
	mine, theirs := -1, -1
	for k, st := range list {
		sp := src.span(st)
		if sp.has(at) && mine < 0 {
			mine = k
		}
		if sp.has(target) {
			theirs = k
		}
	}
	if mine >= 0 && theirs >= 0 && mine < theirs {
		return relBefore, true
	}
	return relOther, true
}

// lockstepDetail is a deadlock finding's detail under the lockstep model:
// where lanes are held back for spinning warp-mates, what the model did.
func (w *worker) lockstepDetail(detail string, spinning bool) string {
	held, unread := false, ""
	for _, b := range w.blocks {
		for k := range b.threads[:b.started] {
			held = held || b.threads[k].state == stLockstep
		}
		for i := range b.warps {
			if ls := b.warps[i].ls; ls != nil && ls.unread != "" && b.warps[i].held != 0 {
				unread = ls.unread
			}
		}
	}
	if !held || !spinning {
		return detail + " (lockstep warp model)"
	}
	s := "livelock (lockstep warp model): lanes spin in a loop while warp-mates are held back at an atomic outside it: " +
		"a pre-Volta warp runs its spinning lanes until they leave the loop, so a held-back lane that would change what they wait for " +
		"(a lock's holder on its way to release it after the spin loop) never gets to; release a lock inside the loop, in the branch that took it"
	if unread != "" {
		s += fmt.Sprintf(" (%s could not be read, so an atomic inside the loop was not told from one outside it)", shortFile(unread))
	}
	return s
}
