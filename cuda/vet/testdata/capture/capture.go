// Package capture pairs kernels that write captured host variables (each
// line flagged) with the correct kernel that does the same job (nothing
// flagged).
package capture

import (
	"os"
	"sync/atomic"

	"github.com/gpusim/gpusim/sim"
)

// The example: every thread adds to one host element.
func SumBad(a *sim.Buffer[float32], hostOut []float32, n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			hostOut[0] += a.Load(t, i) // want `^kernel updates \(\+=\) hostOut, a variable declared outside the kernel: every thread of the grid writes that host memory without synchronisation, a race the simulator cannot see\. Instead, write results to a \*sim\.Buffer with Store, or combine them with an atomic such as sim\.AtomicAdd\(t, buf, i, v\)$`
		}
	}
}

func SumGood(a, out *sim.Buffer[float32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i < n {
			sim.AtomicAdd(t, out, 0, a.Load(t, i))
		}
	}
}

// A counter local to the enclosing function.
func CountBad(n int) (sim.Kernel, func() int) {
	count := 0
	k := func(t *sim.Thread) {
		if t.GlobalX() < n {
			count++ // want `kernel increments count, a variable declared outside the kernel`
		}
	}
	return k, func() int { return count }
}

func CountGood(n int, out *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		count := 0
		if t.GlobalX() < n {
			count++
		}
		sim.AtomicAdd(t, out, 0, uint32(count))
	}
}

// Plain assignment to a captured variable, and to a parameter.
func LastBad(n int) sim.Kernel {
	last := -1
	_ = last
	return func(t *sim.Thread) {
		last = t.GlobalX() // want `kernel assigns to last`
		n = 0              // want `kernel assigns to n`
	}
}

func LastGood(n int, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		last := t.GlobalX()
		if last == n-1 {
			out.Store(t, 0, int32(last))
		}
	}
}

// Writes through a captured pointer.
func FlagBad(p *int) sim.Kernel {
	return func(t *sim.Thread) {
		*p = 1 // want `kernel assigns to p, a variable`
	}
}

func FlagGood(flag *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := 0
		p := &x
		*p = 1
		flag.Store(t, 0, int32(*p))
	}
}

type stats struct {
	n     int
	vals  []int
	inner struct{ m int }
	arr   [4]int
}

func (s *stats) bump()     { s.n++ }
func (s stats) total() int { return s.n + s.inner.m }

// Struct fields, through a pointer and in a captured value.
func FieldBad(s *stats, v stats) sim.Kernel {
	return func(t *sim.Thread) {
		s.n = 2           // want `kernel assigns to s, a variable`
		v.inner.m = 3     // want `kernel assigns to v, a variable`
		v.arr[1]--        // want `kernel decrements v, a variable`
		v.vals[0] = 1     // want `kernel assigns to v, a variable`
		v.bump()          // want `kernel calls pointer method bump on v, .*: a pointer to host memory lets every thread of the grid write it without synchronisation`
		local := v        // a copy, but its vals shares v's backing array
		local.vals[1] = 4 // want `kernel assigns through local, which refers into v, a variable declared outside the kernel`
	}
}

func FieldGood(v stats, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		local := v // a copy: its own fields are the thread's
		local.n = 2
		local.inner.m = 3
		local.arr[1]--
		local.bump()
		local.vals = nil
		out.Store(t, t.GlobalX(), int32(local.total()+v.total()+v.vals[0]+v.arr[0]))
	}
}

// Maps.
func MapBad(m map[int]int) sim.Kernel {
	return func(t *sim.Thread) {
		m[t.GlobalX()] = 1 // want `kernel assigns to m`
	}
}

func MapDeleteBad(m map[int]int) sim.Kernel {
	return func(t *sim.Thread) {
		delete(m, t.GlobalX()) // want `kernel deletes from m`
	}
}

func MapClearBad(m map[int]int) sim.Kernel {
	return func(t *sim.Thread) {
		clear(m) // want `kernel clears m`
	}
}

func MapGood(m map[int]int, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), int32(m[t.GlobalX()]))
	}
}

// Package-level variables.
var (
	hits  int
	table [4]int
	log   []string
)

func GlobalBad() sim.Kernel {
	return func(t *sim.Thread) {
		hits++                  // want `kernel increments package-level variable hits`
		table[t.LaneID()%4] = 1 // want `kernel assigns to package-level variable table`
		os.Args[0] = "x"        // want `kernel assigns to package-level variable os.Args`
	}
}

func GlobalGood(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), int32(table[t.LaneID()%4]+len(os.Args)+hits))
	}
}

// Mutating builtins on captured slices.
func AppendBad(s []int, dst []int) sim.Kernel {
	return func(t *sim.Thread) {
		log = append(log, "x") // want `kernel assigns to package-level variable log`
		mine := append(s, 1)   // want `kernel appends to s`
		copy(dst, mine)        // want `kernel copies into dst`
		clear(s[:1])           // want `kernel clears s`
	}
}

func AppendGood(s []int, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var mine []int
		mine = append(mine, s...)
		grown := append(s[:len(s):len(s)], 1) // no spare capacity: a copy
		copy(mine, s)
		clear(mine)
		out.Store(t, t.GlobalX(), int32(len(mine)+len(grown)))
	}
}

// Address-taking.
func AddrBad(total int64, arr [4]int) sim.Kernel {
	return func(t *sim.Thread) {
		q := &total  // want `kernel takes the address of total, .*: a pointer to host memory lets every thread`
		p := &arr[1] // want `kernel takes the address of arr`
		_, _ = p, q
	}
}

// Host memory touched only through sync/atomic is synchronised, not raced
// on (it cannot run on a GPU either: the translate check refuses the call).
func HostAtomicNotFlagged(total int64, calls *atomic.Int64, ops atomic.Int64) sim.Kernel {
	return func(t *sim.Thread) {
		atomic.AddInt64(&total, 1)
		calls.Add(1)
		ops.Add(1)
	}
}

func AddrGood(arr [4]int, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		local := arr
		p := &local[1]
		*p = 7
		out.Store(t, t.GlobalX(), int32(local[1]+arr[1]))
	}
}

// Aliases: a local that holds a reference into host memory.
func AliasBad(grid [][]float32, rows [][]float32, ptrs []*int) sim.Kernel {
	return func(t *sim.Thread) {
		row := grid[t.GlobalY()]
		row[t.GlobalX()] = 1 // want `kernel assigns through row, which refers into grid`
		for _, r := range rows {
			r[0] = 2 // want `kernel assigns through r, which refers into rows`
		}
		q := ptrs[0]
		*q = 3 // want `kernel assigns through q, which refers into ptrs`
	}
}

func AliasGood(grid [][]float32, out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		row := grid[t.GlobalY()]
		v := row[t.GlobalX()]
		v *= 2
		row = nil // the local itself, not host memory
		for _, r := range grid {
			v += r[0]
		}
		out.Store(t, t.GlobalX(), v+float32(len(row)))
	}
}

// A closure inside the kernel is part of the kernel.
func NestedBad(hostOut []int) sim.Kernel {
	return func(t *sim.Thread) {
		set := func(i int) {
			hostOut[i] = 1 // want `kernel assigns to hostOut`
		}
		set(t.GlobalX())
	}
}

func NestedGood(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		acc := 0
		add := func(i int) { acc += i }
		add(t.GlobalX())
		out.Store(t, t.GlobalX(), int32(acc))
	}
}

// Range with assignment to captured variables.
func RangeBad(xs []int, key, val int) sim.Kernel {
	return func(t *sim.Thread) {
		for key, val = range xs { // want `kernel assigns to key` `kernel assigns to val`
		}
	}
}

// A generic kernel, and a kernel assigned to a sim.Kernel variable.
func GenericBad[T int32 | float32](hostOut []T) sim.Kernel {
	var k sim.Kernel = func(t *sim.Thread) {
		hostOut[t.GlobalX()] = 1 // want `kernel assigns to hostOut`
	}
	return k
}

func GenericGood[T int32 | float32](out *sim.Buffer[T]) sim.Kernel {
	var k sim.Kernel = func(t *sim.Thread) {
		out.Store(t, t.GlobalX(), 1)
	}
	return k
}

// Device functions: anything that takes the thread runs on every thread.
var errors int

func recordBad(t *sim.Thread, v float32) {
	if v < 0 {
		errors++ // want `device function recordBad increments package-level variable errors`
	}
}

func recordGood(t *sim.Thread, errs *sim.Buffer[uint32], v float32) {
	if v < 0 {
		v = 0 // its own parameter
		sim.AtomicAdd(t, errs, 0, 1)
	}
}

// Helpers called from a kernel run on every thread too.
func noteBad(i int) int {
	hits += i // want `helper noteBad \(called from device code\) updates \(\+=\) package-level variable hits`
	return i
}

func noteGood(i int) int {
	i *= 2
	return i
}

func HelpersBad(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		recordBad(t, a.Load(t, t.GlobalX()))
		noteBad(t.GlobalX())
	}
}

func HelpersGood(a *sim.Buffer[float32], errs *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		recordGood(t, errs, a.Load(t, t.GlobalX()))
		a.Store(t, t.GlobalX(), float32(noteGood(t.GlobalX())))
	}
}

// A device function literal with more parameters than the thread.
func LiteralBad(hostOut []int) func(*sim.Thread, int) {
	return func(t *sim.Thread, i int) {
		hostOut[i] = t.GlobalX() // want `device function literal assigns to hostOut`
	}
}

// Host code may write host variables: it runs once.
func Host(n int) []int {
	hits++
	out := make([]int, n)
	each := func(i int) { out[i] = i; hits++ }
	for i := range n {
		each(i)
	}
	return out
}
