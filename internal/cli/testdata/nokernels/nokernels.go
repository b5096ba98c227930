// Package nokernels has no kernel, for the test of gpusim cuda -o's
// message on a package without one.
package nokernels

// Twice is a host function.
func Twice(x int) int { return 2 * x }
