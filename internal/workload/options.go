package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// OptionReader reads the name=value options a workload's New is given
// (flags and -p properties alike): names are case-insensitive and take _
// for -, and every problem is kept, so that New reports them all at once.
type OptionReader struct {
	Values map[string]string // the options given, by normalised name
	Errs   []error
}

// ReadOptions reads in against the workload's known option names; extra
// are accepted besides them without being listed in the message (the CLI's
// operationcount).
func ReadOptions(workload string, known, extra, in []string) *OptionReader {
	r := &OptionReader{Values: map[string]string{}}
	valid := map[string]bool{}
	for _, k := range append(append([]string(nil), known...), extra...) {
		valid[k] = true
	}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		switch {
		case !ok:
			r.Errs = append(r.Errs, fmt.Errorf("option %q: expected name=value", s))
		case valid[k]:
			r.Values[k] = strings.TrimSpace(v)
		default:
			r.Errs = append(r.Errs, fmt.Errorf("unknown option %q; valid options of %s: %s", k, workload, strings.Join(known, ", ")))
		}
	}
	return r
}

// Int is option key as a whole number in [lo, hi] (commas allowed), def
// when it was not given or is wrong (the problem is kept).
func (r *OptionReader) Int(key string, def, lo, hi int64) int64 {
	s, ok := r.Values[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	switch {
	case err != nil:
		r.Errs = append(r.Errs, fmt.Errorf("%s=%q: not an integer; give a whole number such as %d", key, s, def))
		return def
	case v < lo || v > hi:
		r.Errs = append(r.Errs, fmt.Errorf("%s=%q: must be between %d and %d", key, s, lo, hi))
		return def
	}
	return v
}

// Err is every problem kept, prefixed "WORKLOAD: invalid options:", or nil.
func (r *OptionReader) Err(workload string) error {
	if len(r.Errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: invalid options:\n%w", workload, errors.Join(r.Errs...))
}
