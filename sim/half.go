package sim

import "math"

// Half is CUDA's __half: an IEEE 754 binary16 value, held as its 16 bits.
// It is a storage type: a buffer of Half holds what a `__half *` points
// to, and arithmetic goes through float32 (Half2Float, compute, then
// Float2Half), as CUDA's __half operators do on the host and for the
// conversions. Half is a struct so that Go's integer operators cannot be
// applied to its bits by mistake; == compares bits (+0 and -0 differ, a
// NaN equals itself), unlike __half's ==: compare Half2Float values.
type Half struct{ bits uint16 }

// BFloat16 is CUDA's __nv_bfloat16: the top 16 bits of a float32, held as
// its 16 bits. Like Half it is a storage type whose arithmetic goes through
// float32.
type BFloat16 struct{ bits uint16 }

// The conversions below are cuda_fp16.hpp's and cuda_bf16.hpp's host
// implementations, line for line: __internal_float2half and
// __internal_float2bfloat16 truncate and return the discarded bits
// (remainder, left-aligned in 32 bits), and each rounding mode then adds
// one unit in the last place or not. The device's cvt instructions give the
// same bits; scripts/half_probe.cu prints both for the H100, and
// testdata/half.golden holds what the simulator must print.

// float2half truncates f to binary16 and returns the bits, the sign (0 or
// 0x8000) and the remainder as cuda_fp16.hpp's __internal_float2half does:
// a NaN becomes the canonical 0x7fff, whatever its sign and payload.
func float2half(f float32) (r uint16, sign, remainder uint32) {
	x := math.Float32bits(f)
	u := x & 0x7fffffff
	sign = (x >> 16) & 0x8000
	var result uint32
	switch {
	case u >= 0x7f800000: // NaN, ±Inf
		remainder = 0
		if u == 0x7f800000 {
			result = sign | 0x7c00
		} else {
			result = 0x7fff
		}
	case u > 0x477fefff: // overflows
		remainder = 0x80000000
		result = sign | 0x7bff
	case u >= 0x38800000: // normal
		remainder = u << 19
		u -= 0x38000000
		result = sign | u>>13
	case u < 0x33000001: // ±0
		remainder = u
		result = sign
	default: // subnormal
		exponent := u >> 23
		shift := 0x7e - exponent
		mantissa := u&0x7fffff | 0x800000
		remainder = mantissa << (32 - shift)
		result = (sign | mantissa>>shift) & 0xffff
	}
	return uint16(result), sign, remainder
}

// Float2Half is __float2half_rn (and __float2half): f rounded to the
// nearest binary16, ties to even. Overflow gives ±Inf, NaN gives 0x7fff.
func Float2Half(f float32) Half {
	r, _, rem := float2half(f)
	if rem > 0x80000000 || rem == 0x80000000 && r&1 != 0 {
		r++
	}
	return Half{r}
}

// Float2HalfRZ is __float2half_rz: f rounded towards zero.
func Float2HalfRZ(f float32) Half {
	r, _, _ := float2half(f)
	return Half{r}
}

// Float2HalfRD is __float2half_rd: f rounded towards -Inf.
func Float2HalfRD(f float32) Half {
	r, sign, rem := float2half(f)
	if rem != 0 && sign != 0 {
		r++
	}
	return Half{r}
}

// Float2HalfRU is __float2half_ru: f rounded towards +Inf.
func Float2HalfRU(f float32) Half {
	r, sign, rem := float2half(f)
	if rem != 0 && sign == 0 {
		r++
	}
	return Half{r}
}

// Half2Float is __half2float: exact. A NaN becomes the canonical
// 0x7fffffff, as cuda_fp16.hpp's __internal_half2float makes it (its sign
// and payload are dropped).
func Half2Float(h Half) float32 {
	sign := uint32(h.bits>>15) & 1
	exponent := uint32(h.bits>>10) & 0x1f
	mantissa := uint32(h.bits&0x3ff) << 13
	switch {
	case exponent == 0x1f: // NaN or Inf
		if mantissa != 0 {
			sign, mantissa = 0, 0x7fffff
		}
		exponent = 0xff
	case exponent == 0: // zero or subnormal
		if mantissa != 0 {
			exponent = 0x71
			for mantissa&0x800000 == 0 {
				mantissa <<= 1
				exponent--
			}
			mantissa &= 0x7fffff
		}
	default:
		exponent += 0x70
	}
	return math.Float32frombits(sign<<31 | exponent<<23 | mantissa)
}

// HalfAsUshort is __half_as_ushort: the bits of h.
func HalfAsUshort(h Half) uint16 { return h.bits }

// UshortAsHalf is __ushort_as_half: the Half whose bits are u.
func UshortAsHalf(u uint16) Half { return Half{u} }

// float2bfloat16 is cuda_bf16.hpp's __internal_float2bfloat16: the top 16
// bits, the sign and the discarded low bits; a NaN becomes 0x7fff.
func float2bfloat16(f float32) (r uint16, sign, remainder uint32) {
	x := math.Float32bits(f)
	if x&0x7fffffff > 0x7f800000 {
		return 0x7fff, 0, 0
	}
	return uint16(x >> 16), x >> 31, x << 16
}

// Float2BFloat16 is __float2bfloat16_rn (and __float2bfloat16): f rounded
// to the nearest bfloat16, ties to even.
func Float2BFloat16(f float32) BFloat16 {
	r, _, rem := float2bfloat16(f)
	if rem > 0x80000000 || rem == 0x80000000 && r&1 != 0 {
		r++
	}
	return BFloat16{r}
}

// Float2BFloat16RZ is __float2bfloat16_rz: f rounded towards zero.
func Float2BFloat16RZ(f float32) BFloat16 {
	r, _, _ := float2bfloat16(f)
	return BFloat16{r}
}

// Float2BFloat16RD is __float2bfloat16_rd: f rounded towards -Inf.
func Float2BFloat16RD(f float32) BFloat16 {
	r, sign, rem := float2bfloat16(f)
	if rem != 0 && sign != 0 {
		r++
	}
	return BFloat16{r}
}

// Float2BFloat16RU is __float2bfloat16_ru: f rounded towards +Inf.
func Float2BFloat16RU(f float32) BFloat16 {
	r, sign, rem := float2bfloat16(f)
	if rem != 0 && sign == 0 {
		r++
	}
	return BFloat16{r}
}

// BFloat162Float is __bfloat162float: exact, NaN payloads kept.
func BFloat162Float(b BFloat16) float32 { return math.Float32frombits(uint32(b.bits) << 16) }

// BFloat16AsUshort is __bfloat16_as_ushort: the bits of b.
func BFloat16AsUshort(b BFloat16) uint16 { return b.bits }

// UshortAsBFloat16 is __ushort_as_bfloat16: the BFloat16 whose bits are u.
func UshortAsBFloat16(u uint16) BFloat16 { return BFloat16{u} }
