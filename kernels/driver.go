package kernels

import "github.com/gpusim/gpusim/sim"

// The building blocks of host drivers (Kernel.Run). Most drivers do the
// same four things: upload the case's inputs, allocate the outputs (zeroed
// where the kernel only adds to them), launch, and download the outputs,
// freeing every buffer however they end. runBuffers does that around any
// sequence of launches, launchOnce around the common single launch; a
// driver states only its buffers and its launch shape.

// cover is the 1-D grid that covers n elements with blocks of per elements
// (or threads): (n + per - 1) / per, and at least one block (CUDA refuses
// an empty grid; the kernels' bounds checks make the extra threads idle).
func cover(n, per int) int { return max(1, (n+per-1)/per) }

// orDefault is v, or def when v is zero (Case.Block 0 means the kernel's
// default).
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// f32s is Case input i as []float32.
func f32s(c Case, i int) []float32 { return c.Inputs[i].([]float32) }

// devBuf says how a driver gets one device buffer, uploaded from a host
// slice or allocated (and perhaps zeroed), and whether the buffer's final
// contents are part of the Result. Its constructors take the element type
// from the host slice or as a type argument, so the upload and download are
// typed as the buffer is.
type devBuf struct {
	upload   func(b Backend) (Mem, error) // non-nil: the buffer is a copy of a host slice
	dt       DType                        // otherwise n uninitialised elements of dt
	n        int
	zero     bool                                // set every byte to 0 after allocating
	download func(b Backend, m Mem) (any, error) // non-nil: read into the Result
}

// input is a buffer uploaded from host for the kernels to read.
func input[T sim.Storable](host []T) devBuf {
	return devBuf{upload: func(b Backend) (Mem, error) { return Upload(b, host) }}
}

// inOut is a buffer uploaded from host that the kernels update in place:
// its final contents are part of the Result.
func inOut[T sim.Storable](host []T) devBuf {
	d := input(host)
	d.download = downloadAs[T]
	return d
}

// output is n uninitialised elements of T that the kernels fill.
func output[T sim.Storable](n int) devBuf {
	return devBuf{dt: DTypeOf[T](), n: n, download: downloadAs[T]}
}

// zeroedOutput is an output the kernels add to or write only in part (a
// histogram, a strided copy): it starts as all zero bytes.
func zeroedOutput[T sim.Storable](n int) devBuf {
	d := output[T](n)
	d.zero = true
	return d
}

// scratch is n uninitialised elements of T that the kernels use but the
// Result leaves out.
func scratch[T sim.Storable](n int) devBuf { return devBuf{dt: DTypeOf[T](), n: n} }

// zeroedScratch is scratch that starts as all zero bytes, such as a mutex
// word (0 is unlocked).
func zeroedScratch[T sim.Storable](n int) devBuf {
	d := scratch[T](n)
	d.zero = true
	return d
}

func downloadAs[T sim.Storable](b Backend, m Mem) (any, error) { return Download[T](b, m) }

// runBuffers gets bufs on b in the order listed (each zeroed right after
// its allocation where asked), calls run with them in the same order, then
// downloads those that are part of the Result, in order. The first error is
// returned at once, and every buffer got is freed, last first, however it
// ends. A failed download returns the outputs read so far, the failed one
// included, with its error.
func runBuffers(b Backend, bufs []devBuf, run func(m []Mem) error) (Result, error) {
	mems := make([]Mem, 0, len(bufs))
	defer func() {
		for i := len(mems) - 1; i >= 0; i-- {
			b.Free(mems[i])
		}
	}()
	for _, d := range bufs {
		var m Mem
		var err error
		if d.upload != nil {
			m, err = d.upload(b)
		} else {
			m, err = b.Alloc(d.dt, d.n)
		}
		if err != nil {
			return nil, err
		}
		mems = append(mems, m)
		if d.zero {
			if err := b.Memset(m, 0); err != nil {
				return nil, err
			}
		}
	}
	if err := run(mems); err != nil {
		return nil, err
	}
	var res Result
	for i, d := range bufs {
		if d.download == nil {
			continue
		}
		out, err := d.download(b, mems[i])
		res = append(res, out)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// launchOnce is runBuffers around the single launch
// fn<<<grid, block, sharedBytes>>>(buffers..., scalars...): the kernel takes
// its buffers first, in the order bufs lists them, then the scalars.
func launchOnce(b Backend, fn any, grid, block sim.Dim3, sharedBytes int, bufs []devBuf, scalars ...any) (Result, error) {
	return runBuffers(b, bufs, func(m []Mem) error {
		args := make([]any, 0, len(m)+len(scalars))
		for _, x := range m {
			args = append(args, x)
		}
		return b.Launch(fn, grid, block, sharedBytes, append(args, scalars...)...)
	})
}
