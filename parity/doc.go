// Package parity checks that the simulator and a real GPU agree: every
// registry kernel's host driver runs on kernels.SimBackend and on the CUDA
// backend (package cuda, build tag cuda) over generated cases and launch
// shapes, and the results are compared under the kernel's Rule; the
// simulator's detectors are compared with compute-sanitizer's tools.
//
// Check does the same for a user's kernel (Test, Launch): buffers of every
// element type a sim.Buffer holds, vectors and halves included, copied with
// CUDA's layout and compared under the Test's Rule, constant memory
// written on both backends from Launch.Constants, and a kernel calling
// grid.sync() launched cooperatively on both (Launch.Cooperative).
//
// Without the cuda tag only the checks that need no GPU run: every kernel
// has a CUDA twin declaring its entry points, a small property over the
// registry on the simulator, and the simulator side of the Checks of the
// user kernels in internal/usertest (every element type, constant memory).
// See scripts/build-parity.sh for the GPU build.
package parity
