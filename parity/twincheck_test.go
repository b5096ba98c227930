package parity

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
)

// A generated, current twin passes; the package loads here, so it is
// checked.
func TestTwinCurrentAcceptsGeneratedTwin(t *testing.T) {
	unchecked, err := twinCurrent(usertest.ScaleFloat4)
	if err != nil || unchecked != "" {
		t.Errorf("twinCurrent = %q, %v; want a checked, current twin", unchecked, err)
	}
}

// notGenerated is a kernel of a _test.go file: the translator never reads
// it, so it has no twin.
func notGenerated(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 0, 1) }
}

// A kernel with no twin fails Check's twin check with the command to run,
// without a GPU too (it used to be logged under -v only).
func TestTwinCurrentRefusesMissingTwin(t *testing.T) {
	_, err := twinCurrent(notGenerated)
	if err == nil || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("twinCurrent = %v, want an error naming go generate", err)
	}
}
