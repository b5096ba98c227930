// Package fuzz is where gpusim's detectors and scheduler are proven: go
// test -fuzz targets, and the tests that run their seed corpora, against
// an independent reference and a brute-force oracle.
//
// # Pieces
//
//   - A kernel language every byte string decodes to (lang.go, which
//     documents the encoding): a few threads in one or two blocks and
//     warps, plain, volatile, atomic and atomic_ref accesses with memory
//     orders and scopes to four global and two shared cells, fences of
//     every scope, __syncthreads, __syncwarp, shuffles, votes, a spin
//     until a cell holds a value, branches on the thread's indices and
//     loops of constant trip counts.
//   - An interpreter (interp.go, slots_gen.go) that turns a program into
//     a sim.Kernel and records a full trace as sim runs it: every event of
//     every thread in the order sim ran them, with the values read. Each
//     instruction calls sim from source lines of its own, so findings name
//     it.
//   - A reference detector (reference.go): a deliberately simple
//     implementation of the happens-before rules sim documents, with
//     vector clocks and every access kept, that rebuilds a run from its
//     trace and decides races, barrier divergence, warp divergence,
//     invalid shuffles, uninitialised reads and deadlock, and checks every
//     value the trace shows against the language's semantics.
//   - A machine (machine.go) that runs a program without sim under a
//     chosen schedule, for the oracle that enumerates every schedule of
//     small programs (oracle_test.go).
//
// # Targets
//
// FuzzDifferential (sim against the reference under natural order and
// RandomOrder seeds), FuzzOracle (sim against every schedule of a small
// program), FuzzDeterminism (one seed, one outcome), FuzzSharedDecl,
// FuzzPanicAtBarrier and FuzzLaunchShape (robustness), FuzzKernelParity
// (the registry's simulator-vs-reference property through
// rapid.MakeFuzz). TestRobust runs the inputs that could take a process
// down in child processes. TestReplayInput re-runs a saved input named by
// GPUSIM_FUZZ_INPUT.
//
// Disagreements that a documented limit of sim explains (diff.go's limit
// constants) or that are known sim bugs (diff.go's known constants, each
// with a regression input in testdata/fuzz and a TestKnown test) are
// counted and reported, never hidden; any other fails.
package fuzz
