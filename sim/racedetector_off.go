//go:build !race

package sim

// raceDetector: see racedetector_on.go.
const raceDetector = false
