//go:build !linux

package sim

// populate is a no-op here: see populate_linux.go.
func populate([]cell) {}
