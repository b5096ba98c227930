package ok

import "github.com/gpusim/gpusim/sim"

// IfElse: init statements and else-if chains.
func IfElse(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		if i := t.GlobalX(); i >= n {
			return
		} else if v := a.Load(t, i); v < 0 {
			a.Store(t, i, -v)
		} else if v == 0 {
			a.Store(t, i, 1)
		} else {
			a.Store(t, i, v*2)
		}
	}
}

// ForForms: the three-clause loop, the condition-only loop and the infinite
// loop left by break.
func ForForms(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		var sum int32
		for i := 0; i < n; i++ {
			sum += a.Load(t, i)
		}
		j := 1
		for j < n {
			j *= 2
		}
		k := 0
		for {
			k++
			if k > 10 {
				break
			}
		}
		for s := n / 2; s > 0; s >>= 1 {
			sum += int32(s)
		}
		for s := 1; s < n; s *= 2 {
			sum += int32(s)
		}
		for s := 0; s < n; s++ {
			s += 2 // the body writes the counter: no range is proved
		}
		a.Store(t, 0, sum+int32(j+k))
	}
}

// RangeInt: range over an integer, with and without the index.
func RangeInt(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		var sum int32
		for i := range n {
			sum += int32(i)
		}
		for range 3 {
			sum++
		}
		for i := range int32(5) {
			sum += i
		}
		a.Store(t, 0, sum)
	}
}

// Switch: tag and tagless switches, several values per case, default in the
// middle, an init statement, break out of the switch and continue of the
// loop around it.
func Switch(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		var acc int32
		for i := 0; i < n; i++ {
			switch v := a.Load(t, i); v {
			case 1, 2:
				acc++
			default:
				acc--
			case 3:
				if acc > 100 {
					break
				}
				acc += 3
			case 4:
				continue
			}
			switch {
			case acc < 0:
				acc = 0
			case acc > 1000:
				acc = 1000
			}
		}
		a.Store(t, 0, acc)
	}
}

// Fallthrough runs the next case's body.
func Fallthrough(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		v := a.Load(t, 0)
		r := int32(0)
		switch v {
		case 0:
			r += 1
			fallthrough
		case 1:
			r += 10
		case 2:
			r += 100
			fallthrough
		default:
			r += 1000
		}
		a.Store(t, 1, r)
	}
}

// Labels: labeled break and continue of an outer loop, and goto.
func Labels(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		count := int32(0)
	outer:
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j > i {
					continue outer
				}
				if a.Load(t, i*n+j) < 0 {
					break outer
				}
				count++
			}
		}
		k := 0
	again:
		k++
		if k < 3 {
			goto again
		}
		a.Store(t, 0, count+int32(k))
	}
}

// Shadow: an inner x := x + 1 is a new variable; keyword names are renamed.
func Shadow(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0)
		if x > 0 {
			x := x + 1
			a.Store(t, 1, x)
		}
		new, this, float, class, threadIdx := 1, 2, 3, 4, 5
		a.Store(t, 2, x+int32(new+this+float+class+threadIdx))
	}
}

// Assignments: parallel swap, op-assign, ++ and --, blank assignment.
func Assignments(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y := a.Load(t, 0), a.Load(t, 1)
		x, y = y, x
		x += 3
		y -= 2
		x *= y
		x /= 2
		x %= 7
		x <<= 1
		x >>= 1
		x |= 8
		x &= 0xff
		x ^= 3
		x++
		y--
		_ = a.Load(t, 2)
		a.Store(t, 3, x+y)
	}
}

// Panic stops the kernel with an error, as __trap does.
func Panic(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		i := t.GlobalX()
		if i >= n {
			panic("index out of range")
		}
		a.Store(t, i, 1)
	}
}

// twoResults gives a helper's two results for TwoPhaseAssign.
func twoResults(x int32) (int, int32) { return int(x) & 3, x * 2 }

// TwoPhaseAssign: Go evaluates the index operands on the left of an
// assignment, and the values on the right, before assigning any target,
// so i, a[i] = 1, 2 stores to a[old i]; the tuple form, an index read
// through an element the statement assigns, a vector field of an array
// element and a range clause assigning a[k] do likewise.
func TwoPhaseAssign(in, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var a [4]int32
		var vs [4]sim.Int2
		i := 0
		i, a[i] = 1, 2
		k := 0
		k, a[k+1] = twoResults(in.Load(t, 0))
		a[0], a[a[0]&3] = 3, 4
		i, vs[i].X = 2, 5
		var b [4]int32
		for k, b[k] = range a {
		}
		a[i], i = 6, 3
		out.Store(t, 0, a[0]+a[1]+a[2]+a[3]+b[0]+vs[1].X+int32(i+k))
	}
}
