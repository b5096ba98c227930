package sim

import "fmt"

// Dim3 is CUDA's dim3: a 1-, 2- or 3-dimensional extent or index.
// A zero Y or Z in a launch extent means 1, as in CUDA where dim3(n) is (n,1,1).
type Dim3 struct{ X, Y, Z int }

// Dim returns the 1-D extent (x,1,1).
func Dim(x int) Dim3 { return Dim3{x, 1, 1} }

// Dim2 returns the 2-D extent (x,y,1).
func Dim2(x, y int) Dim3 { return Dim3{x, y, 1} }

// norm fills zero Y and Z with 1, so Dim3{X: 256} means 256 threads.
func (d Dim3) norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Size is X*Y*Z.
func (d Dim3) Size() int { d = d.norm(); return d.X * d.Y * d.Z }

// String formats d as an extent, reading a zero Y or Z as 1 and leaving
// out trailing 1s: (256), (16,16). For an index, where a zero is a zero,
// use IndexString.
func (d Dim3) String() string {
	d = d.norm()
	switch {
	case d.Y == 1 && d.Z == 1:
		return fmt.Sprintf("(%d)", d.X)
	case d.Z == 1:
		return fmt.Sprintf("(%d,%d)", d.X, d.Y)
	}
	return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z)
}

// IndexString formats d as a thread or block index: its coordinates as
// they are, leaving out trailing zeros: (5), (5,1), (1,0,1). Threads (5,0)
// and (5,1) of a 2-D block print as (5) and (5,1), where String would give
// (5) for both.
func (d Dim3) IndexString() string {
	switch {
	case d.Y == 0 && d.Z == 0:
		return fmt.Sprintf("(%d)", d.X)
	case d.Z == 0:
		return fmt.Sprintf("(%d,%d)", d.X, d.Y)
	}
	return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z)
}

// unlinear turns a linear index (x fastest, as CUDA numbers threads) into coordinates within d.
func (d Dim3) unlinear(i int) Dim3 {
	return Dim3{i % d.X, (i / d.X) % d.Y, i / (d.X * d.Y)}
}
