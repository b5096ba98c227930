package ok

import "github.com/gpusim/gpusim/sim"

// LocalArray: a fixed-size array, bounds-checked, with a range over its values.
func LocalArray(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		var v [8]float32
		for i := range v {
			v[i] = a.Load(t, i)
		}
		w := v // a copy
		w[0] = 100
		var sum float32
		for _, x := range v {
			sum += x
		}
		a.Store(t, 8, sum+w[0])
	}
}

// Matrix: a two-dimensional array and an array literal.
func Matrix(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		var m [4][4]float32
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				m[i][j] = a.Load(t, i*4+j)
			}
		}
		id := [4]float32{1, 0, 0, 0}
		m[0] = id
		taps := [...]int32{2: 7, 0: 1}
		a.Store(t, 16, m[0][0]+m[3][3]+float32(taps[2]+taps[1]))
	}
}

// ArrayValues: arrays are values when passed, returned and compared.
func ArrayValues(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var x [4]int32
		for i := range 4 {
			x[i] = a.Load(t, i)
		}
		y := bump(x)
		if x != y && x[0] == a.Load(t, 0) {
			a.Store(t, 4, y[0])
		}
	}
}

// bump returns a copy of x with every element incremented; x is unchanged.
func bump(x [4]int32) [4]int32 {
	for i := range x {
		x[i]++
	}
	return x
}

// ByteArray: arrays of every element type are the same template.
func ByteArray(a *sim.Buffer[uint8]) sim.Kernel {
	return func(t *sim.Thread) {
		var h [16]uint8
		var f [2]float64
		var b [3]bool
		h[a.Load(t, 0)&15]++
		f[1] = 2
		b[2] = true
		if b[2] {
			a.Store(t, 1, h[0]+uint8(f[1]))
		}
	}
}

// claimRow takes a ticket (an atomic) and returns an array.
func claimRow(t *sim.Thread, c *sim.Buffer[uint32]) [4]int32 {
	old := sim.AtomicAdd(t, c, 0, 1)
	return [4]int32{int32(old), 0, 0, 0}
}

// RangeCalls ranges, key only, over arrays made by calls: len(x) is then
// not a constant, so Go evaluates x once before the loop (Go spec, Length
// and capacity): each thread adds 1 to c[0] and c[1]. A conversion is no
// call: the range over [4]int32(v) evaluates nothing.
func RangeCalls(out *sim.Buffer[int32], c *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		n := int32(0)
		for i := range claimRow(t, c) {
			n += int32(i)
		}
		for range [2]uint32{sim.AtomicAdd(t, c, 1, 1), 0} {
			n++
		}
		var v [4]int32
		for range [4]int32(v) {
			n++
		}
		out.Store(t, t.ThreadIdx.X, n)
	}
}
