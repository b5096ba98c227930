// Package vet is gpusim's go/analysis Analyzer, named "gpusim": the checks
// `go vet` runs on kernels, through the gpusimvet command:
//
//	go install github.com/gpusim/gpusim/cmd/gpusimvet
//	go vet -vettool=$(which gpusimvet) ./...
//
// It reports two things: kernels the CUDA translator cannot translate, and
// kernels that write host variables they capture. Either check can be
// turned off with -translate=false or -capture=false.
//
// # Kernels that cannot be translated
//
// Every kernel of the package's non-test files (a function returning
// sim.Kernel, in the form package cuda/translate documents) is run through
// the translator that writes its CUDA twin, and every construct it refuses
// (slices, maps, strings, fmt, closures, package-level variables, calls
// into packages other than sim, math and math/bits, ...) is reported at its
// position with the translator's message: why, in one sentence, and what to
// write instead, after "cannot translate to CUDA: ". A kernel vet passes is
// a kernel the translator turns into CUDA. Test files are not translated,
// as go build does not compile them; a write that both checks refuse is
// reported once, by the capture check.
//
// # Captured host variables
//
// A kernel is a func(*sim.Thread) literal; the simulator calls it once for
// every thread of the grid. Reading a variable the literal captures is how
// kernel parameters work. Writing one is not: every thread writes the same
// host memory without synchronisation, a race the simulator's detectors
// cannot see (they watch sim.Buffer elements only), and host memory does not
// exist on a GPU. The analyzer reports, at the written expression, every
//
//   - assignment, op-assignment (hostOut[0] += 1), increment or decrement
//     (count++), and range assignment (for k, v = range ...);
//   - address-taking (&total, &arr[i]), explicit or implied by calling a
//     pointer method on an addressable value (v.bump());
//   - call of a mutating builtin: delete, clear, copy into, append to (the
//     backing array may be written in place; s[i:j:j] has no spare capacity
//     and is not reported);
//
// whose target is rooted in a variable declared outside the kernel literal:
// a package-level variable (of any package: os.Args[0] = ""), or a parameter
// or local of an enclosing function. Writes through such a variable count
// (captured slices, maps, pointers, struct fields, array elements: *p = 1,
// s.f = 2, m[k] = v), and so do writes through a variable of the kernel that
// was given a reference into host memory (row := grid[y]; row[x] = 1, or a
// range value over a captured slice of slices).
//
// Not reported: reads of captured variables; writes to variables declared
// inside the literal (locals, local arrays, copies of captured values:
// local := v; local.n = 2); the sim API (Buffer.Store, sim.AtomicAdd and
// the other atomics, Shared); and host memory reached only through package
// sync or sync/atomic (atomic.AddInt64(&n, 1), an atomic.Int64's Add),
// which synchronise the threads: they are not a race, though they cannot
// run on a GPU either.
//
// The same check covers every other function that runs on simulated
// threads: a function literal or declaration with a *sim.Thread parameter
// (a device helper), and any function of the package a kernel or device
// helper calls, directly or through other calls. For a declared function
// only package-level variables are outside it.
//
// The check is syntactic and local to a package: a captured slice handed to
// a function of another package, or to a closure defined outside the
// kernel, which then writes it, is not seen.
//
// Each report says why in one sentence and what to write instead: a
// *sim.Buffer written with Store, or an atomic such as sim.AtomicAdd.
package vet
