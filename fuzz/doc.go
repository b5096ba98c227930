// Package fuzz holds go test -fuzz targets that run generated kernels and
// launch shapes through the simulator: no input may crash the test process
// or hang it.
package fuzz
