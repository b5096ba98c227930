//go:build !race

package kernels_test

// raceBuild: see race_build_test.go.
const raceBuild = false
