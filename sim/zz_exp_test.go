package sim_test

import (
	"testing"

	"github.com/gpusim/gpusim/sim"
)

func BenchmarkZZVecProfile(b *testing.B) {
	s := newVecAdd(1_000_000)
	withProcs(1, func() {
		for b.Loop() {
			var p sim.Profile
			s.launch(b, sim.Options{}.WithDetection(false).WithProfile(&p))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.n), "ns/thread")
	})
}

func BenchmarkZZVecDetect(b *testing.B) {
	s := newVecAdd(1_000_000)
	withProcs(1, func() {
		for b.Loop() {
			s.launch(b, sim.Options{})
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.n), "ns/thread")
	})
}
