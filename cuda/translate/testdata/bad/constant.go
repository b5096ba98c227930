package bad

import (
	"github.com/gpusim/gpusim/cuda/translate/testdata/ok"
	"github.com/gpusim/gpusim/sim"
)

// Constant memory the translator cannot declare, or a kernel cannot use.

var (
	weights   = sim.NewConstant[float32]("weights", 4)
	alias     = weights
	dynLen    = sim.NewConstant[float32]("dynLen", hostLen())
	dynName   = sim.NewConstant[float32](hostName, 4)
	keyword   = sim.NewConstant[float32]("min", 4)
	dashed    = sim.NewConstant[float32]("my-taps", 4)
	empty     = sim.NewConstant[int32]("empty", 0)
	dupA      = sim.NewConstant[int32]("dup", 1)
	dupB      = sim.NewConstant[int32]("dup", 1)
	reassign  = sim.NewConstant[int32]("reassign", 1)
	clashName = sim.NewConstant[int32]("clashHelper", 1)
)

var hostName = "dyn"

func hostLen() int { return 4 }

func init() { reassign = sim.NewConstant[int32]("reassign", 2) }

func clashHelper(t *sim.Thread) int32 { return 1 }

func ConstantStore(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		weights.Store(t, 0, 1) // want "constant memory is read-only in kernels .*write it from the host"
		out.Store(t, 0, weights.Load(t, 0))
	}
}

func ConstantDecls(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, alias.Load(t, 0))   // want "constant variable alias is not initialised by a call of sim.NewConstant"
		out.Store(t, 1, dynLen.Load(t, 0))  // want "the length of constant dynLen is not a constant"
		out.Store(t, 2, dynName.Load(t, 0)) // want "the name of constant dynName is not a constant string"
		out.Store(t, 3, keyword.Load(t, 0)) // want "constant keyword is named \"min\", a name C, CUDA or the generated code already uses"
		out.Store(t, 4, dashed.Load(t, 0))  // want "constant dashed is named \"my-taps\", which is not a C identifier"
	}
}

func ConstantMore(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, empty.Load(t, 0))     // want "constant empty has 0 elements"
		out.Store(t, 1, dupB.Load(t, 0))      // want "constant \"dup\" is also declared by dupA"
		out.Store(t, 2, reassign.Load(t, 0))  // want "constant variable reassign is assigned at .*never assign it"
		out.Store(t, 3, clashName.Load(t, 0)) // want "constant clashName is named \"clashHelper\", as is a function the kernel calls"
		out.Store(t, 4, clashHelper(t))
		out.Store(t, 5, dupA.Load(t, 0))
	}
}

func ConstantParam(c *sim.Constant[float32], out *sim.Buffer[float32]) sim.Kernel { // want "kernel parameter c: a \\*sim.Constant names a file-scope __constant__ array"
	return func(t *sim.Thread) {
		out.Store(t, 0, c.Load(t, 0))
	}
}

func ConstantCopy(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		c := weights // want "a \\*sim.Constant names a file-scope __constant__ array in CUDA, not a value"
		out.Store(t, 0, c.Load(t, 0))
	}
}

func ConstantOtherPackage(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, ok.Gains.Load(t, 0)) // want "a constant of another package is not translated"
	}
}

func ConstantHostOnly(out *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) {
		weights.CopyFromHostAt(nil, 0, nil) // want "Constant.CopyFromHostAt runs on the host, not in a kernel"
	}
}

var entryClash = sim.NewConstant[int32]("ConstantEntryClash", 4)

func ConstantEntryClash(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, entryClash.Load(t, 0)) // want "constant entryClash is named \"ConstantEntryClash\", as is the kernel's entry point"
	}
}

func readClash(t *sim.Thread) int32 { return clashName.Load(t, 1) } // want "constant clashName is named \"clashHelper\", as is a function the kernel calls"

func ConstantClashInHelper(out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		out.Store(t, 0, readClash(t))
		out.Store(t, 1, clashHelper(t))
	}
}
