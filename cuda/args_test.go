package cuda

import (
	"math"
	"testing"
)

func TestScalarBits(t *testing.T) {
	tests := []struct {
		arg   any
		ctype string
		want  uint64
		err   bool
	}{
		{int32(-1), "int", 0xffffffff, false},
		{-1, "int", 0xffffffff, false},
		{math.MaxInt32 + 1, "int", 0, true},
		{math.MinInt32 - 1, "int", 0, true},
		{uint32(math.MaxUint32), "unsigned int", math.MaxUint32, false},
		{-1, "unsigned int", 0, true},
		{int64(math.MinInt64), "long long", 1 << 63, false},
		{uint64(math.MaxUint64), "long long", 0, true},
		{uint64(math.MaxUint64), "unsigned long long", math.MaxUint64, false},
		{int8(-2), "signed char", 0xfe, false},
		{200, "signed char", 0, true},
		{65535, "unsigned short", 0xffff, false},
		{float32(1.5), "float", uint64(math.Float32bits(1.5)), false},
		{1.5, "float", 0, true}, // a float64 would be rounded
		{1.5, "double", math.Float64bits(1.5), false},
		{float32(1.5), "double", 0, true},
		{1, "float", 0, true},
		{true, "bool", 1, false},
		{1, "bool", 0, true},
		{"x", "int", 0, true},
		{nil, "int", 0, true},
		{1, "__half", 0, true},
	}
	for _, tt := range tests {
		got, err := scalarBits(tt.arg, tt.ctype)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("scalarBits(%v (%T), %s) = %#x, %v; want %#x, error %v", tt.arg, tt.arg, tt.ctype, got, err, tt.want, tt.err)
		}
	}
}
