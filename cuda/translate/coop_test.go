package translate

import (
	"strings"
	"testing"
)

// TestShimCatchesWrongCooperativeCalls: the shim's model of
// cooperative_groups.h and cuda/atomic rejects what CUDA rejects, so that
// TestClangCompiles means something for the cooperative twins.
func TestShimCatchesWrongCooperativeCalls(t *testing.T) {
	cc := clang(t)
	dir := t.TempDir()
	const pre = "namespace cg = cooperative_groups;\nextern \"C\" __global__ void k(float *p, int *q) { cg::thread_block b = cg::this_thread_block(); cg::thread_block_tile<32> w = cg::tiled_partition<32>(b); "
	for name, body := range map[string]string{
		"reduce_op_type":     "q[0] = cg::reduce(w, q[1], cg::plus<float>());",
		"bit_and_float":      "p[0] = cg::reduce(w, p[1], cg::bit_and<float>());",
		"shfl_short":         "q[0] = w.shfl((short)q[1], 0);",
		"tile_64":            "cg::thread_block_tile<64> t = cg::tiled_partition<64>(b);",
		"tile_from_smaller":  "cg::thread_block_tile<8> e = cg::tiled_partition<8>(w); cg::thread_block_tile<16> s = cg::tiled_partition<16>(e);",
		"block_meta_rank":    "q[0] = b.meta_group_rank();",
		"group_meta_rank":    "cg::thread_group g = cg::tiled_partition(b, 4U); q[0] = g.meta_group_rank();",
		"grid_shfl":          "q[0] = cg::this_grid().shfl(q[1], 0);",
		"coalesced_zero":     "cg::coalesced_group c; c.sync();",
		"atomic_ref_or_flt":  "cuda::atomic_ref<float, cuda::thread_scope_device> a(p[0]); a.fetch_or(1.0f, cuda::memory_order_relaxed);",
		"atomic_ref_short":   "cuda::atomic_ref<short, cuda::thread_scope_device> a(*(short *)q);",
		"atomic_ref_assign":  "cuda::atomic_ref<int, cuda::thread_scope_device> a(q[0]), c(q[1]); a = c;",
		"atomic_ref_int_ord": "cuda::atomic_ref<int, cuda::thread_scope_device> a(q[0]); a.load(2);",
		"labeled_grid":       "cg::coalesced_group c = cg::labeled_partition(cg::this_grid(), 1);",
	} {
		src := pre + body + " }\n"
		if out, err := compileCUDA(t, cc, dir, name, src); err == nil {
			t.Errorf("%s compiled; the shim should reject it:\n%s", name, src)
		} else if !strings.Contains(out+err.Error(), "error") {
			t.Errorf("%s: clang failed without an error message: %v", name, err)
		}
	}
	// And the forms the translator writes compile.
	ok := pre + `cg::thread_block_tile<8> e = cg::tiled_partition<8>(w);
	q[0] = cg::reduce(e, q[1], cg::less<int>()) + cg::exclusive_scan(w, q[2], cg::bit_or<int>());
	cg::coalesced_group c = cg::binary_partition(w, q[3] > 0);
	p[0] = cg::inclusive_scan(c, p[1], cg::plus<float>()) + c.shfl_down(p[2], 1U);
	cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> a(*(unsigned long long *)q);
	a.fetch_xor(1ULL, cuda::memory_order_seq_cst);
	cg::this_grid().sync(); }
`
	if out, err := compileCUDA(t, cc, dir, "ok", ok); err != nil {
		t.Errorf("the translator's forms do not compile through the shim: %v\n%s", err, out)
	}
}

// TestGridSyncMarksTheTwin: a kernel that calls grid.sync(), itself or
// through helpers, has Twin.GridSync set (parity launches it
// cooperatively), and WriteGo carries the mark; kernels that use other
// groups, the grid's queries included, do not.
func TestGridSyncMarksTheTwin(t *testing.T) {
	res := loadOK(t)
	want := map[string]bool{"GridPhases": true, "GridSyncInHelper": true, "TileCollectives": false, "Coalesced": false, "TileHelper": false, "VectorAdd": false}
	got := map[string]bool{}
	for _, k := range res.Kernels {
		if _, ok := want[k.Twin.Entry]; ok {
			got[k.Twin.Entry] = k.Twin.GridSync
		}
		if k.Twin.GridSync != want[k.Twin.Entry] {
			t.Errorf("%s: GridSync %v, want %v", k.Twin.Entry, k.Twin.GridSync, want[k.Twin.Entry])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("found %v of the kernels %v", got, want)
	}
	out, err := WriteGo("ok", res.Kernels)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "GridSync: true,"); n != 2 {
		t.Errorf("generated Go marks %d twins GridSync, want 2 (GridPhases, GridSyncInHelper)", n)
	}
}
