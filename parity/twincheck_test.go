package parity

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/parity/internal/usertest"
	"github.com/gpusim/gpusim/sim"
)

// A generated, current twin passes: checked where the go command can load
// its package, taken as it is (with the reason) where it cannot, as on a
// GPU host that runs a copied test binary.
func TestTwinCurrentAcceptsGeneratedTwin(t *testing.T) {
	unchecked, err := twinCurrent(usertest.ScaleFloat4)
	if err != nil {
		t.Fatalf("twinCurrent: %v", err)
	}
	_, noGo := exec.LookPath("go")
	switch {
	case noGo == nil && unchecked != "":
		t.Errorf("the go command is here, yet the twin was not checked: %s", unchecked)
	case noGo != nil && !strings.Contains(unchecked, "go"):
		t.Errorf("without the go command, want the reason it was not checked; got %q", unchecked)
	}
}

// notGenerated is a kernel of a _test.go file: the translator never reads
// it, so it has no twin.
func notGenerated(a *sim.Buffer[float32]) sim.Kernel {
	return func(t *sim.Thread) { a.Store(t, 0, 1) }
}

// A kernel of a test file, which has no twin, fails Check's twin check
// without a GPU too, naming the test file and what to do (move it, or set
// SimulatorOnly; go generate cannot help).
func TestTwinCurrentRefusesMissingTwin(t *testing.T) {
	_, err := twinCurrent(notGenerated)
	if err == nil || !strings.Contains(err.Error(), "twincheck_test.go, a test file") || !strings.Contains(err.Error(), "SimulatorOnly") {
		t.Errorf("twinCurrent = %v, want an error naming the test file and SimulatorOnly", err)
	}
}
