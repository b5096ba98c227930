package parity

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReportOccupancySection(t *testing.T) {
	r := NewReport()
	r.OccSpec, r.OccProbes = "sim's NVIDIA H100 SXM spec (sm_90)", "block sizes 32 to 1024"
	r.AddOccupancy(OccupancyRow{Kernel: "vec_add", Entry: "vec_add", Regs: 16, MaxThreads: 1024, Configs: 96,
		Limiters: map[string]int{"warps": 60, "blocks": 20, "shared memory": 16}})
	r.AddOccupancy(OccupancyRow{Kernel: "matmul_tiled32", Entry: "matmul_tiled", Regs: 40, StaticShared: 8192,
		MaxThreads: 1024, Configs: 96, Mismatches: 2, First: "block=1024 ...: driver 1 blocks/SM; sim 2 | x",
		Limiters: map[string]int{"registers": 96}})
	var b strings.Builder
	r.Write(&b)
	out := b.String()
	for _, want := range []string{
		"## Occupancy: sim.Spec.CalcOccupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor",
		"The device's per-SM and per-block limits equal the spec's.",
		"| matmul_tiled32 | matmul_tiled | 40 | 8192 | 0 | 1024 | 96 | registers 96 | **2**: block=1024 ...: driver 1 blocks/SM; sim 2 \\| x |",
		"| vec_add | vec_add | 16 | 0 | 0 | 1024 | 96 | warps 60, blocks 20, shared memory 16 | 0 |",
		"2 entry points, 192 configurations, 2 mismatches.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "| matmul_tiled32 |") > strings.Index(out, "| vec_add |") {
		t.Error("occupancy rows are not sorted by kernel")
	}
}

func TestOneLineKeepsUTF8(t *testing.T) {
	s := strings.Repeat("a", 9) + "\u00a0tail"
	for n := 1; n < len(s); n++ {
		if got := oneLine(s, n); !utf8.ValidString(got) {
			t.Fatalf("oneLine(%q, %d) = %q: not valid UTF-8", s, n, got)
		}
	}
}
