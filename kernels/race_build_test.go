//go:build race

package kernels_test

// raceBuild is set under the Go race detector, where the simulator runs
// detection on one worker.
const raceBuild = true
