package ycsb

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Property is one key=value setting and where it came from.
type Property struct {
	Key    string
	Value  string
	Source string // "file:line" for a property file, "-p" for a command-line override
}

// ErrSyntax marks a malformed property file line or -p override.
var ErrSyntax = errors.New("property syntax error")

// ParseProperties parses a property file the way YCSB reads one: with
// java.util.Properties.load(InputStream). name labels errors and each
// Property's Source ("name:line"). The properties are returned in file order;
// a key given twice appears twice and the later one wins when layered.
//
// The format, as Java defines it:
//   - the input is ISO 8859-1: every byte is one character (a UTF-8 file's
//     non-ASCII letters therefore arrive as two or more characters, exactly as
//     in YCSB); other characters are written as \uXXXX;
//   - lines end with \n, \r or \r\n; leading blanks (space, tab, form feed) are
//     skipped; blank lines are ignored; a line whose first non-blank character
//     is '#' or '!' is a comment (a comment never continues onto the next line);
//   - a line ending in an odd number of backslashes continues on the next line,
//     whose leading blanks are dropped;
//   - the key runs to the first unescaped '=', ':' or blank; then blanks, at most
//     one '=' or ':', and more blanks are skipped, and the rest of the line is
//     the value (trailing blanks included); "key" alone has the value "";
//   - in keys and values \t \n \r \f are escapes, \uXXXX is a UTF-16 code unit
//     (surrogate pairs combine), and a backslash before any other character
//     stands for that character.
//
// A malformed \uXXXX escape is an error naming name:line (Java throws
// IllegalArgumentException there). Every such error in the file is reported.
func ParseProperties(name string, data []byte) ([]Property, error) {
	var (
		props []Property
		errs  []error
		buf   []uint16 // the current logical line, one code unit per input byte
		i     int
		line  = 1
	)
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }
	// eol consumes the line terminator at i, if any.
	eol := func() {
		if i < len(data) && data[i] == '\r' {
			i++
			if i < len(data) && data[i] == '\n' {
				i++
			}
			line++
		} else if i < len(data) && data[i] == '\n' {
			i++
			line++
		}
	}
	for i < len(data) {
		for i < len(data) && isBlank(data[i]) {
			i++
		}
		if i >= len(data) {
			break
		}
		if c := data[i]; c == '\n' || c == '\r' {
			eol() // blank line
			continue
		}
		start := line
		if c := data[i]; c == '#' || c == '!' {
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
			eol()
			continue
		}
		buf = buf[:0]
		for {
			j := i
			for j < len(data) && data[j] != '\n' && data[j] != '\r' {
				j++
			}
			slashes := 0
			for k := j - 1; k >= i && data[k] == '\\'; k-- {
				slashes++
			}
			for _, c := range data[i:j] {
				buf = append(buf, uint16(c))
			}
			i = j
			continued := slashes%2 == 1
			if continued {
				buf = buf[:len(buf)-1] // the continuation backslash
			}
			if i >= len(data) {
				break
			}
			eol()
			if !continued {
				break
			}
			for i < len(data) && isBlank(data[i]) {
				i++
			}
		}
		key, value, err := splitLogicalLine(buf)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w: %v", name, start, ErrSyntax, err))
			continue
		}
		props = append(props, Property{Key: key, Value: value, Source: fmt.Sprintf("%s:%d", name, start)})
	}
	return props, errors.Join(errs...)
}

// splitLogicalLine splits one logical line into its unescaped key and value.
func splitLogicalLine(l []uint16) (key, value string, err error) {
	keyLen, valueStart := 0, len(l)
	hasSep, escaped := false, false
	for keyLen < len(l) {
		c := l[keyLen]
		if !escaped && (c == '=' || c == ':') {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if !escaped && (c == ' ' || c == '\t' || c == '\f') {
			valueStart = keyLen + 1
			break
		}
		escaped = c == '\\' && !escaped
		keyLen++
	}
	for valueStart < len(l) {
		c := l[valueStart]
		if c != ' ' && c != '\t' && c != '\f' {
			if hasSep || (c != '=' && c != ':') {
				break
			}
			hasSep = true
		}
		valueStart++
	}
	if key, err = unescape(l[:keyLen]); err != nil {
		return "", "", fmt.Errorf("key: %w", err)
	}
	if value, err = unescape(l[valueStart:]); err != nil {
		return "", "", fmt.Errorf("value of %q: %w", key, err)
	}
	return key, value, nil
}

// unescape resolves Java property escapes and decodes the UTF-16 result.
func unescape(s []uint16) (string, error) {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash stands for nothing
		}
		switch c = s[i]; c {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 'f':
			out = append(out, '\f')
		case 'u':
			if i+4 >= len(s) {
				return "", fmt.Errorf(`malformed \uxxxx encoding: %q`, string(utf16.Decode(s[i-1:])))
			}
			var v uint16
			for _, h := range s[i+1 : i+5] {
				d, ok := hexDigit(h)
				if !ok {
					return "", fmt.Errorf(`malformed \uxxxx encoding: %q`, string(utf16.Decode(s[i-1:i+5])))
				}
				v = v<<4 | d
			}
			out = append(out, v)
			i += 4
		default:
			out = append(out, c)
		}
	}
	return string(utf16.Decode(out)), nil
}

func hexDigit(c uint16) (uint16, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ParseOverride parses one -p argument, "key=value", as YCSB's Client does:
// the key is everything before the first '=' and the value everything after
// it, both taken verbatim (no trimming, no escapes).
func ParseOverride(arg string) (Property, error) {
	key, value, ok := strings.Cut(arg, "=")
	if !ok {
		return Property{}, fmt.Errorf("-p %q: %w: expected key=value (for example -p recordcount=100000)", arg, ErrSyntax)
	}
	return Property{Key: key, Value: value, Source: "-p"}, nil
}
