// Package parity checks that the simulator and a real GPU agree: every
// registry kernel's host driver runs on kernels.SimBackend and on the CUDA
// backend (package cuda, build tag cuda) over generated cases and launch
// shapes, and the results are compared under the kernel's Rule; the
// simulator's detectors are compared with compute-sanitizer's tools.
//
// Without the cuda tag only the checks that need no GPU run: every kernel
// has a CUDA twin declaring its entry points, and a small property over the
// registry on the simulator. See scripts/build-parity.sh for the GPU build.
package parity
