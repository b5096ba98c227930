package sim

import (
	"errors"
	"testing"
)

func TestCalcOccupancy(t *testing.T) {
	tests := []struct {
		label               string
		spec                Spec
		threads, regs, smem int
		blocks, warps       int
		occ                 float64
		limiter             Limiter
		reason              string
	}{
		{"h100 256x32", H100, 256, 32, 0, 8, 64, 1, LimitWarps, "8 warps per block fill 64 warps; registers allow exactly as many"},
		{"h100 seed 002", H100, 256, 32, 2048, 8, 64, 1, LimitWarps, "2 KiB + 1 KiB reserved = 3 KiB per block allows 76 blocks"},
		{"a100 256x64", A100, 256, 64, 0, 4, 32, 0.5, LimitRegisters, "2048 registers per warp: 8 warps per sub-partition, 32 per SM"},
		{"h100 32 threads", H100, 32, 0, 0, 32, 32, 0.5, LimitBlocks, "32 resident blocks of one warp"},
		{"a100 48K smem", A100, 128, 0, 48 << 10, 3, 12, 0.1875, LimitShared, "49 KiB allocated per block, 164 KiB per SM"},
		{"t4 256x32", T4, 256, 32, 0, 4, 32, 1, LimitWarps, "T4 holds 32 warps; no shared reservation on sm_75"},
		{"h100 255 regs", H100, 256, 255, 0, 1, 8, 0.125, LimitRegisters, "255*32 rounds up to 8192 registers per warp"},
		{"h100 1024x64", H100, 1024, 64, 0, 1, 32, 0.5, LimitRegisters, "the whole register file for one block"},
		{"h100 96x40", H100, 96, 40, 0, 16, 48, 0.75, LimitRegisters, "1280 registers per warp: 12 warps per sub-partition"},
		{"h100 1000 threads", H100, 1000, 0, 0, 2, 64, 1, LimitWarps, "a partial warp counts as a whole warp"},
		{"h100 smem small", H100, 64, 0, 100, 32, 64, 1, LimitWarps, "100+1024 rounds to 1152 bytes: 202 blocks, warps bind first"},
		{"h100 smem binds", H100, 64, 0, 16 << 10, 13, 26, 26.0 / 64, LimitShared, "17 KiB per block: 233472/17408 = 13"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			o, err := tt.spec.CalcOccupancy(tt.threads, tt.regs, tt.smem)
			if err != nil {
				t.Fatal(err)
			}
			if o.BlocksPerSM != tt.blocks || o.WarpsPerSM != tt.warps || o.Occupancy != tt.occ || o.Limiter != tt.limiter {
				t.Errorf("got %d blocks, %d warps, %.4f, limited by %v; want %d, %d, %.4f, %v (%s)",
					o.BlocksPerSM, o.WarpsPerSM, o.Occupancy, o.Limiter, tt.blocks, tt.warps, tt.occ, tt.limiter, tt.reason)
			}
		})
	}
}

func TestCalcOccupancyRefuses(t *testing.T) {
	tests := []struct {
		label               string
		threads, regs, smem int
		limit               string
	}{
		{"too many threads", 2048, 0, 0, "threads per block"},
		{"too many registers per thread", 256, 256, 0, "registers per thread"},
		{"register file", 1024, 128, 0, "registers per block"},
		{"shared", 256, 0, 300 << 10, "shared memory per block"},
	}
	for _, tt := range tests {
		_, err := H100.CalcOccupancy(tt.threads, tt.regs, tt.smem)
		var le *LaunchError
		if !errors.As(err, &le) || le.Limit != tt.limit {
			t.Errorf("%s: got %v, want a LaunchError on %q", tt.label, err, tt.limit)
		}
	}
}
