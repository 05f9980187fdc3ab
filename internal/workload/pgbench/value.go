package pgbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is the type of a pgbench value.
type kind uint8

const (
	kUndef kind = iota // a variable never set
	kNull
	kBool
	kInt
	kDouble
	kString // from -D, \gset, \aset: parsed when an expression uses it
)

// value is one pgbench value: a variable's or an expression's.
type value struct {
	k kind
	b bool
	i int64
	d float64
	s string
}

func intVal(i int64) value      { return value{k: kInt, i: i} }
func doubleVal(d float64) value { return value{k: kDouble, d: d} }
func boolVal(b bool) value      { return value{k: kBool, b: b} }

var nullVal = value{k: kNull}

// appendText appends the value as pgbench writes it into SQL text or a
// parameter: %lld, %.15g, true/false, NULL (strings as they are).
func (v value) appendText(dst []byte) []byte {
	switch v.k {
	case kInt:
		return strconv.AppendInt(dst, v.i, 10)
	case kDouble:
		return appendG15(dst, v.d)
	case kBool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case kString:
		return append(dst, v.s...)
	}
	return append(dst, "NULL"...)
}

// appendG15 formats d as C's printf("%.15g").
func appendG15(dst []byte, d float64) []byte {
	switch {
	case math.IsNaN(d):
		return append(dst, "nan"...)
	case math.IsInf(d, 1):
		return append(dst, "inf"...)
	case math.IsInf(d, -1):
		return append(dst, "-inf"...)
	}
	s := strconv.FormatFloat(d, 'g', 15, 64)
	// Go writes exponents with at least two digits, as C does, but keeps
	// trailing zeros after %g's rounding only in 'e' form; C's %g removes
	// them in both.
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i:]
		if strings.IndexByte(mant, '.') >= 0 {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		return append(append(dst, mant...), exp...)
	}
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return append(dst, s...)
}

func (v value) String() string { return string(v.appendText(nil)) }

// resolve turns a string value into the typed value pgbench reads from it
// (makeVariableValue): null, boolean words and their prefixes, an integer,
// a double; anything else is malformed.
func (v value) resolve(name string) (value, error) {
	if v.k != kString {
		return v, nil
	}
	s := v.s
	if s == "" {
		return v, fmt.Errorf("empty value for variable %q", name)
	}
	low := strings.ToLower(s)
	switch {
	case low == "null":
		return nullVal, nil
	case strings.HasPrefix("true", low), strings.HasPrefix("yes", low), low == "on":
		return boolVal(true), nil
	case strings.HasPrefix("false", low), strings.HasPrefix("no", low), low == "off", low == "of":
		return boolVal(false), nil
	}
	if i, ok := parseInt64(s); ok {
		return intVal(i), nil
	}
	if d, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return doubleVal(d), nil
	}
	return v, fmt.Errorf("malformed variable %q value: %q", name, s)
}

// parseInt64 reads an optionally signed integer between optional spaces,
// as pgbench's strtoint64.
func parseInt64(s string) (int64, bool) {
	i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil && strings.HasPrefix(strings.TrimSpace(s), "+") {
		return 0, false
	}
	return i, err == nil
}

// asInt coerces v to an integer as pgbench's coerceToInt does.
func (v value) asInt() (int64, error) {
	switch v.k {
	case kInt:
		return v.i, nil
	case kDouble:
		d := math.RoundToEven(v.d)
		if math.IsNaN(d) || d < -9.223372036854775808e18 || d >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %s", v)
		}
		return int64(d), nil
	case kBool:
		return 0, fmt.Errorf("cannot coerce boolean to int")
	}
	return 0, fmt.Errorf("cannot coerce NULL to int")
}

// asDouble coerces v to a double as coerceToDouble does.
func (v value) asDouble() (float64, error) {
	switch v.k {
	case kInt:
		return float64(v.i), nil
	case kDouble:
		return v.d, nil
	case kBool:
		return 0, fmt.Errorf("cannot coerce boolean to double")
	}
	return 0, fmt.Errorf("cannot coerce NULL to double")
}

// asBool coerces v to a boolean as coerceToBool does: only booleans.
func (v value) asBool() (bool, error) {
	switch v.k {
	case kBool:
		return v.b, nil
	case kInt:
		return false, fmt.Errorf("cannot coerce int to boolean")
	case kDouble:
		return false, fmt.Errorf("cannot coerce double to boolean")
	}
	return false, fmt.Errorf("cannot coerce NULL to boolean")
}

// truth is valueTruth: NULL false, booleans as they are, numbers != 0.
func (v value) truth() bool {
	switch v.k {
	case kBool:
		return v.b
	case kInt:
		return v.i != 0
	case kDouble:
		return v.d != 0
	}
	return false
}
