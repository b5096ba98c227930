//go:build !race

package sim_test

// raceBuild: see race_build_test.go.
const raceBuild = false
