package translate

import "testing"

// BenchmarkTranslate times Translate over testdata/ok (about 45 kernels and
// their helpers), loading excluded; ns/kernel is the cost of one entry point.
func BenchmarkTranslate(b *testing.B) {
	p := loadPkg(b, "./testdata/ok")
	n := 0
	for b.Loop() {
		res := Translate(p.Fset, p.Syntax, p.Types, p.TypesInfo)
		n = len(res.Kernels)
	}
	if n == 0 {
		b.Fatal("no kernels")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/kernel")
	b.ReportMetric(float64(n), "kernels")
}
