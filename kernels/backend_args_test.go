package kernels

import (
	"reflect"
	"strings"
	"testing"
)

// Scalar arguments are converted where the parameter type holds the value
// exactly, and refused with a message otherwise.
func TestScalarArgConversions(t *testing.T) {
	f32, f64 := reflect.TypeFor[float32](), reflect.TypeFor[float64]()
	ok := []struct {
		a    any
		pt   reflect.Type
		want any
	}{
		{2.5, f32, float32(2.5)},
		{float32(0.1), f64, float64(float32(0.1))},
		{2, f32, float32(2)},
		{int64(1 << 24), f32, float32(1 << 24)},
		{uint8(7), f64, float64(7)},
		{complex64(1 + 2i), reflect.TypeFor[complex64](), complex64(1 + 2i)},
		{int16(-3), reflect.TypeFor[int32](), int32(-3)},
	}
	for _, c := range ok {
		v, err := scalarArg(c.a, c.pt)
		if err != nil || v.Interface() != c.want {
			t.Errorf("scalarArg(%T %v, %v) = %v, %v; want %v", c.a, c.a, c.pt, v, err, c.want)
		}
	}
	bad := []struct {
		a    any
		pt   reflect.Type
		want string
	}{
		{0.1, f32, "does not fit a float32 parameter exactly"},
		{1<<24 + 1, f32, "does not fit a float32 parameter exactly"},
		{true, f32, "bool argument for a float32 parameter"},
		{2.0, reflect.TypeFor[int32](), "float64 argument for a int32 parameter"},
	}
	for _, c := range bad {
		if _, err := scalarArg(c.a, c.pt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("scalarArg(%T %v, %v) = %v; want an error with %q", c.a, c.a, c.pt, err, c.want)
		}
	}
}
