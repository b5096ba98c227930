package cuda

import (
	"fmt"
	"math"
	"reflect"
)

// scalarBits converts a launch's scalar argument to the bits of the C type
// ctype of its parameter, in the low bytes of a little-endian 8-byte slot.
// Integers must fit the type exactly; floats go only to a float parameter
// of their own width, and bools only to bool, so that no argument is
// silently rounded.
func scalarBits(a any, ctype string) (uint64, error) {
	v := reflect.ValueOf(a)
	if !v.IsValid() {
		return 0, fmt.Errorf("nil for a %s parameter", ctype)
	}
	switch ctype {
	case "float":
		if v.Kind() == reflect.Float32 {
			return uint64(math.Float32bits(float32(v.Float()))), nil
		}
	case "double":
		if v.Kind() == reflect.Float64 {
			return math.Float64bits(v.Float()), nil
		}
	case "bool":
		if v.Kind() == reflect.Bool {
			if v.Bool() {
				return 1, nil
			}
			return 0, nil
		}
	default:
		lo, hi, bits, ok := intRange(ctype)
		if !ok {
			return 0, fmt.Errorf("unsupported parameter type %s", ctype)
		}
		var x int64
		var ux uint64
		neg := false
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x = v.Int()
			neg, ux = x < 0, uint64(x)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			ux = v.Uint()
		default:
			return 0, fmt.Errorf("%T argument for a %s parameter", a, ctype)
		}
		if neg && x < lo || !neg && ux > hi {
			return 0, fmt.Errorf("%v does not fit a %s parameter", a, ctype)
		}
		if bits < 64 {
			ux &= 1<<bits - 1
		}
		return ux, nil
	}
	return 0, fmt.Errorf("%T argument for a %s parameter", a, ctype)
}

// intRange is the range and width of an integer C type.
func intRange(ctype string) (lo int64, hi uint64, bits uint, ok bool) {
	switch ctype {
	case "signed char":
		return math.MinInt8, math.MaxInt8, 8, true
	case "unsigned char":
		return 0, math.MaxUint8, 8, true
	case "short":
		return math.MinInt16, math.MaxInt16, 16, true
	case "unsigned short":
		return 0, math.MaxUint16, 16, true
	case "int":
		return math.MinInt32, math.MaxInt32, 32, true
	case "unsigned int":
		return 0, math.MaxUint32, 32, true
	case "long long":
		return math.MinInt64, math.MaxInt64, 64, true
	case "unsigned long long":
		return 0, math.MaxUint64, 64, true
	}
	return 0, 0, 0, false
}
