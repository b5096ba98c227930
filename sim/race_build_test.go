//go:build race

package sim_test

// raceBuild is set when the tests run under the race detector, which makes
// every goroutine (every suspended simulated thread has one) some kilobytes
// larger and every coroutine switch several times slower: tests of very
// large grids run a smaller grid there.
const raceBuild = true
