// Package bad holds one kernel per construct the translator refuses; each
// refusal's line carries a want comment with a regexp of its message.
package bad

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/gpusim/gpusim/sim"
)

var hostCounter int

func ReadGlobal(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, int32(hostCounter)) // want "kernels cannot read package-level variables .*use a const, a sim.Constant .*or pass a buffer"
	}
}

func WriteGlobal(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		hostCounter += 1 // want "kernels cannot write package-level variables .*pass a buffer"
	}
}

func WriteParam(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		n = n + 1 // want "n cannot be written in the kernel body: kernel parameters are shared .*copy it first \\(n := n\\)"
		a.Store(t, 0, int32(n))
	}
}

func WritePrelude(a *sim.Buffer[int32]) sim.Kernel {
	count := 0
	return func(t *sim.Thread) {
		count++ // want "count cannot be written in the kernel body: variables declared before the kernel body"
		a.Store(t, 0, int32(count))
	}
}

func Closure(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		f := func(x int32) int32 { return x + 1 } // want "closures inside a kernel cannot run on the GPU; write a package-level function"
		a.Store(t, 0, f(1))
	}
}

func Map(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var m map[int]int32 // want "maps cannot run on the GPU; use a \\*sim.Buffer"
		a.Store(t, 0, m[0])
	}
}

func Slice(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var s []int32 // want "slices cannot be used on the GPU; use a \\*sim.Buffer"
		_ = s
	}
}

func String(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		s := "abc" // want "strings cannot be used on the GPU"
		a.Store(t, 0, int32(len(s)))
	}
}

func Interface(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var x any // want "interfaces cannot run on the GPU"
		_ = x
	}
}

func PointerToLocal(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := int32(1)
		p := &x // want "pointers other than \\*sim.Buffer cannot be used"
		a.Store(t, 0, *p)
	}
}

func Goroutine(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		go helper(t, a) // want "goroutines cannot run on the GPU"
	}
}

func helper(t *sim.Thread, a *sim.Buffer[int32]) { a.Store(t, 0, 1) }

func Channel(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var c chan int32 // want "channels cannot run on the GPU"
		_ = c
	}
}

func Select(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		select {} // want "select cannot run on the GPU"
	}
}

func Defer(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		defer a.Store(t, 0, 1) // want "defer is not translated .*call the function at each return"
	}
}

func Recover(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		recover() // want "recover is not translated"
	}
}

func Allocate(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		p := new(int32) // want "pointers other than \\*sim.Buffer"
		_ = p
		s := make([]int32, 4) // want "slices cannot be used"
		_ = s
	}
}

func Fmt(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		fmt.Println(a.Load(t, 0)) // want "fmt cannot run on the GPU"
	}
}

func OtherPackage(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		if strings.EqualFold("a", "A") { // want "calls into package strings cannot run on the GPU"
			a.Store(t, 0, 1)
		}
	}
}

func MethodValue(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		sync := t.SyncThreads // want "method values are not translated; call the method"
		sync()
	}
}

func TypeSwitch(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var x any = 1     // want "interfaces cannot run on the GPU"
		switch x.(type) { // want "type switches cannot run on the GPU"
		}
	}
}

func Complex(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		c := complex(1, 2) // want "complex numbers are not translated"
		_ = c
	}
}

type pair struct{ a, b int32 }

func Struct(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var p pair // want "structs are not translated; use separate variables or parallel buffers"
		_ = p
	}
}

func (p pair) sum() int32 { return p.a + p.b }

func Uintptr(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var u uintptr // want "uintptr and unsafe.Pointer have no meaning on the GPU"
		_ = u
	}
}

func BufferLen(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, int32(a.Len())) // want "Buffer.Len runs on the host, not in a kernel: .*pass the length as a kernel parameter"
	}
}

func SharedNonConstant(a *sim.Buffer[int32], n int) sim.Kernel {
	return func(t *sim.Thread) {
		s := sim.Shared[int32](t, "s", n) // want "a static shared array needs a constant length in CUDA; use a constant, or sim.DynamicShared"
		s.Store(t, 0, 1)
	}
}

func Order(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := a.Load(t, 0) + sim.AtomicAdd(t, a, 0, 1) // want "Go evaluates the calls of this statement left to right, C in an unspecified order"
		a.Store(t, 1, x)
	}
}

func UnmappedMath(a *sim.Buffer[float64]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, math.Gamma(a.Load(t, 1))) // want "math.Gamma has no CUDA translation"
	}
}

type meters float32

func (m meters) double() meters { return 2 * m }

func Method(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		m := meters(a.Load(t, 0))
		a.Store(t, 0, float32(m.double())) // want "methods are not translated; write double as a package-level function that takes the bad.meters"
	}
}

func Print(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		println(1) // want "printing is not translated"
	}
}

func NotAKernelBody(a *sim.Buffer[int32]) sim.Kernel { // want "does not end in return func\\(t \\*sim.Thread\\)"
	k := func(t *sim.Thread) {}
	return k
}

func BadHelperCaller(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, badHelper(3))
	}
}

func badHelper(n int32) int32 {
	var s []int32 // want "slices cannot be used on the GPU"
	_ = s
	return n
}

func SharedHelperTwice(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		x := sharedHelper(t)
		y := sharedHelper(t) // (one array, as in CUDA: allowed)
		a.Store(t, 0, x.Load(t, 0)+y.Load(t, 0))
	}
}

func sharedHelper(t *sim.Thread) *sim.Buffer[int32] {
	return sim.Shared[int32](t, "s", 32) // want "a shared array is declared by assigning the call to a new variable"
}

func PanicFormat(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		panic(fmt.Sprint(1)) // want "panic's argument must be a constant or a value of a kernel type"
	}
}

func RangeBuffer(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		for i := range 4 {
			a.Store(t, i, 0)
		}
		for range a.Len() { // want "Buffer.Len runs on the host"
		}
	}
}

func KernelThreadParam(t0 *sim.Thread) sim.Kernel { // want "kernel parameter t0: a kernel function does not take the thread"
	return func(t *sim.Thread) {}
}

func ArrayParam(a [4]int32) sim.Kernel { // want "kernel parameter a: arrays are not passed to kernels"
	return func(t *sim.Thread) {}
}

func StatementBeforeBody(a *sim.Buffer[int32]) sim.Kernel {
	if a == nil { // want "only declarations may precede the kernel body"
		panic("nil")
	}
	return func(t *sim.Thread) {}
}

func Dim3Value(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		d := t.BlockDim // want "BlockDim is a Dim3 value, which kernels do not hold"
		_ = d
	}
}

func VectorParam(out *sim.Buffer[sim.Float4], bias sim.Float4) sim.Kernel { // want "kernel parameter bias: a sim.Float4 is not passed to a kernel by value .*pass its fields as separate parameters"
	return func(t *sim.Thread) {
		v := out.Load(t, 0)
		v.X += bias.X // refused at the parameter: no second diagnostic
		out.Store(t, 0, v)
	}
}

func HalfParam(out *sim.Buffer[sim.Half], h sim.Half) sim.Kernel { // want "kernel parameter h: a sim.Half is not passed to a kernel by value .*pass its bits as a uint16 and convert them in the body with sim.UshortAsHalf"
	return func(t *sim.Thread) { out.Store(t, 0, h) }
}

func variadicHelper(vs ...float32) float32 { // want "variadicHelper is variadic, which is not translated .*take a fixed number of parameters"
	var s float32
	for _, v := range vs { // refused at the parameter: no second diagnostic
		s += v
	}
	return s
}

func Variadic(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 0, variadicHelper(1, 2, 3)) }
}

// One construct, one diagnostic: the value's, not the variable's too.
func OneDiagnostic(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		var arr [4]float32
		s := arr[:] // want "slices cannot be used on the GPU"
		a.Store(t, 0, s[0])
	}
}

func threadArg(t *sim.Thread, x int32) int32 { return x }

func NilThread(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		a.Store(t, 0, threadArg(nil, 1)) // want "parameter t of threadArg takes the thread, .*pass the kernel body's thread itself"
	}
}

func VolatileVector(v *sim.Buffer[sim.Float4]) sim.Kernel {
	return func(t *sim.Thread) {
		a := v.LoadVolatile(t, 0) // want "a volatile access of a vector element \\(float4\\) has no CUDA form"
		v.StoreVolatile(t, 1, a)  // want "a volatile access of a vector element \\(float4\\) has no CUDA form"
	}
}

func LibraryTuple(a *sim.Buffer[uint32]) sim.Kernel {
	return func(t *sim.Thread) {
		hi, lo := bits.Mul32(a.Load(t, 0), 7) // want "bits.Mul32 gives several values and has no CUDA form"
		a.Store(t, 1, hi^lo)
	}
}

func BitsWithoutForm(a *sim.Buffer[uint32], b *sim.Buffer[uint8], h *sim.Buffer[uint16]) sim.Kernel {
	return func(t *sim.Thread) {
		x, y, z := a.Load(t, 0), b.Load(t, 0), h.Load(t, 0)
		a.Store(t, 1, bits.RotateLeft32(x, 7))              // want "bits.RotateLeft32 has no CUDA translation; write the rotation with shifts, x<<s \\| x>>\\(32-s\\) with s := uint\\(k\\) & 31"
		a.Store(t, 2, uint32(bits.RotateLeft(uint(x), -3))) // want "bits.RotateLeft has no CUDA translation; write the rotation with shifts, x<<s \\| x>>\\(64-s\\) with s := uint\\(k\\) & 63"
		a.Store(t, 3, bits.ReverseBytes32(x))               // want "bits.ReverseBytes32 has no CUDA translation; write it with shifts and masks"
		a.Store(t, 4, uint32(bits.LeadingZeros8(y)))        // want "bits.LeadingZeros8 has no CUDA translation; use the 32-bit form, bits.LeadingZeros32\\(uint32\\(x\\)\\) - 24"
		a.Store(t, 5, uint32(bits.TrailingZeros16(z)))      // want "bits.TrailingZeros16 has no CUDA translation; use the 32-bit form, min\\(bits.TrailingZeros32\\(uint32\\(x\\)\\), 16\\)"
		a.Store(t, 6, uint32(bits.Reverse8(y)))             // want "bits.Reverse8 has no CUDA translation; use the 32-bit form, uint8\\(bits.Reverse32\\(uint32\\(x\\)\\) >> 24\\)"
		a.Store(t, 7, uint32(bits.OnesCount16(z)))          // want "bits.OnesCount16 has no CUDA translation; use the 32-bit form, bits.OnesCount32\\(uint32\\(x\\)\\)"
		a.Store(t, 8, bits.Rem32(x, x, 7))                  // want "bits.Rem32 has no CUDA translation; use OnesCount, .*or write the computation out"
	}
}

func LenOfCalledRow(a *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		var m [2][3]int32
		a.Store(t, 1, int32(len(m[a.Load(t, 0)]))) // want "len of an array is only translated where Go makes it a constant, and the operand calls a function"
	}
}
