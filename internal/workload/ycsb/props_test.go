package ycsb

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// javaCases are property-file inputs with what java.util.Properties.load
// (OpenJDK 17, reading an InputStream as YCSB does) made of them: the
// expected maps were printed by running the JDK on exactly these bytes, so
// they are the reference, not our reading of its documentation. Each case's
// name says what it exercises; bad=true means Java threw "Malformed \uxxxx
// encoding".
var javaCases = []struct {
	name string
	in   string
	want map[string]string
	bad  bool
}{
	{"equals", "key=value", map[string]string{"key": "value"}, false},
	{"colon", "key: value", map[string]string{"key": "value"}, false},
	{"space separator", "key value", map[string]string{"key": "value"}, false},
	{"blanks around key and separator, trailing blanks kept", "   key   =   value  ", map[string]string{"key": "value  "}, false},
	{"tab and form feed are blanks", "\tkey\f=\tvalue", map[string]string{"key": "value"}, false},
	{"comments with # and !", "# comment\n  ! other comment\nk=v", map[string]string{"k": "v"}, false},
	{"continuation drops next line's leading blanks", "k=v\\\n    continued", map[string]string{"k": "vcontinued"}, false},
	{"even backslashes do not continue", "k=a\\\\\nn=b", map[string]string{"k": "a\u005c", "n": "b"}, false},
	{"odd run of three backslashes continues", "k=a\\\\\\\n  b", map[string]string{"k": "a\u005cb"}, false},
	{"character escapes", "k=\\t\\n\\r\\f\\\\", map[string]string{"k": "\u0009\u000a\u000d\u000c\u005c"}, false},
	{"unicode escapes", "k=\\u0041\\u00e9\\u20AC", map[string]string{"k": "A\u00e9\u20ac"}, false},
	{"escaped separator in key", "a\\=b=c", map[string]string{"a=b": "c"}, false},
	{"escaped blank in key", "a\\ b c", map[string]string{"a b": "c"}, false},
	{"second equals belongs to value", "k==v", map[string]string{"k": "=v"}, false},
	{"separator then colon", "k = : v", map[string]string{"k": ": v"}, false},
	{"colon separator then equals", "k:=v", map[string]string{"k": "=v"}, false},
	{"space separator then one equals", "k  =  =v", map[string]string{"k": "=v"}, false},
	{"key alone", "k", map[string]string{"k": ""}, false},
	{"key with blanks only after", "k   ", map[string]string{"k": ""}, false},
	{"CRLF and CR line ends", "k=1\r\nj=2\rl=3\n", map[string]string{"j": "2", "k": "1", "l": "3"}, false},
	{"later key wins", "k=1\nk=2", map[string]string{"k": "2"}, false},
	{"comment is never continued", "#comment\\\nk=v", map[string]string{"k": "v"}, false},
	{"backslash at EOF dropped", "k=v\\", map[string]string{"k": "v"}, false},
	{"continuation at EOF", "k=v\\\n", map[string]string{"k": "v"}, false},
	{"continued line may start with #", "k=a\\\n#b", map[string]string{"k": "a#b"}, false},
	{"latin-1 byte", "k=\xe9", map[string]string{"k": "\u00e9"}, false},
	{"unknown escape stands for the character", "k=\\q\\:\\=", map[string]string{"k": "q:="}, false},
	{"colon ends key", "a:b=c", map[string]string{"a": "b=c"}, false},
	{"blank lines", "  \n\t\n\nk=v\n\n", map[string]string{"k": "v"}, false},
	{"blank continuation line ends the line", "k=a\\\n\nj=b", map[string]string{"j": "b", "k": "a"}, false},
	{"surrogate pair", "k=\\uD83D\\uDE00", map[string]string{"k": "\U0001f600"}, false},
	{"blanks before continuation kept", "k = a \\\n   b", map[string]string{"k": "a b"}, false},
	{"empty key", "=v", map[string]string{"": "v"}, false},
	{"empty input", "", map[string]string{}, false},
	{"utf-8 bytes read as latin-1", "k=\xc3\xa9", map[string]string{"k": "\u00c3\u00a9"}, false},
	{"ycsb style", "recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\n", map[string]string{"operationcount": "1000", "recordcount": "1000", "workload": "site.ycsb.workloads.CoreWorkload"}, false},
	{"continued key", "rec\\\n  ordcount=5", map[string]string{"recordcount": "5"}, false},
	{"comment after blank and continuation", "k=v\\\n  # not a comment", map[string]string{"k": "v# not a comment"}, false},
	{"bad unicode digit", "a=1\n\nk=\\u12G4", nil, true},
	{"truncated unicode", "k=\\u12", nil, true},
}

// layer applies properties in order, later keys winning.
func layer(ps []Property) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

func TestParsePropertiesMatchesJava(t *testing.T) {
	for _, c := range javaCases {
		t.Run(c.name, func(t *testing.T) {
			ps, err := ParseProperties("case", []byte(c.in))
			if c.bad {
				if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), `malformed \uxxxx`) {
					t.Fatalf("want a malformed \\uxxxx error, got %v (props %v)", err, ps)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := layer(ps); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestParsePropertiesSources checks file:line sources, the order of
// duplicates, and that an error names the line where its logical line starts.
func TestParsePropertiesSources(t *testing.T) {
	in := "# header\n\na=1\nb=2\\\n  3\nc=4\na=5\n"
	ps, err := ParseProperties("w.props", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Property{
		{"a", "1", "w.props:3"},
		{"b", "23", "w.props:4"}, // continued onto line 5
		{"c", "4", "w.props:6"},
		{"a", "5", "w.props:7"}, // duplicates kept in order; the later wins when layered
	}
	if !reflect.DeepEqual(ps, want) {
		t.Fatalf("got %+v\nwant %+v", ps, want)
	}

	// Two bad lines: both reported, each with its own line; good lines kept.
	_, err = ParseProperties("bad.props", []byte("x=1\ny=\\u00zz\nz=2\nw=\\u1\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"bad.props:2:", "bad.props:4:", `value of "y"`, `value of "w"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestParseOverride(t *testing.T) {
	cases := []struct {
		arg     string
		key     string
		value   string
		wantErr bool
	}{
		{"recordcount=10", "recordcount", "10", false}, // plain
		{"a=b=c", "a", "b=c", false},                   // first '=' splits, as YCSB's indexOf
		{"k=", "k", "", false},                         // empty value
		{" k = v ", " k ", " v ", false},               // verbatim, no trimming (YCSB's substring)
		{"=v", "", "v", false},                         // empty key accepted like YCSB
		{"recordcount", "", "", true},                  // no '=': error naming the argument
	}
	for _, c := range cases {
		p, err := ParseOverride(c.arg)
		if c.wantErr {
			if err == nil || !strings.Contains(err.Error(), `"`+c.arg+`"`) || !errors.Is(err, ErrSyntax) {
				t.Errorf("%q: want an error naming it, got %v", c.arg, err)
			}
			continue
		}
		if err != nil || p.Key != c.key || p.Value != c.value || p.Source != "-p" {
			t.Errorf("%q: got %+v, %v", c.arg, p, err)
		}
	}
}

// formatProperties writes properties so that ParseProperties reads them back
// unchanged: ASCII only, escapes for separators, blanks and specials, \uXXXX
// for the rest (surrogate pairs above U+FFFF).
func formatProperties(ps []Property) string {
	var b strings.Builder
	esc := func(s string, key bool) {
		for i, r := range s {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\f':
				b.WriteString(`\f`)
			case r == ' ' && (key || i == 0):
				b.WriteString(`\ `)
			case key && (r == '=' || r == ':' || r == '#' || r == '!'):
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20 || r > 0x7e:
				for _, u := range utf16.Encode([]rune{r}) {
					fmt.Fprintf(&b, `\u%04X`, u)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	for _, p := range ps {
		esc(p.Key, true)
		b.WriteByte('=')
		esc(p.Value, false)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestFormatRoundTrip(t *testing.T) {
	ps := []Property{
		{Key: "recordcount", Value: "1000"},
		{Key: "a key", Value: "  leading blanks, trailing too  "},
		{Key: "#k!=:", Value: "=v:#!"},
		{Key: "", Value: ""},
		{Key: "uni", Value: "é€😀\x01\u007f"},
		{Key: "multi\nline", Value: "a\\b\tc\r\f"},
	}
	got, err := ParseProperties("rt", []byte(formatProperties(ps)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Source = ""
	}
	if !reflect.DeepEqual(got, ps) {
		t.Fatalf("got %q\nwant %q", got, ps)
	}
}

// FuzzParseProperties: parsing never panics, and whatever parses survives a
// round trip through formatProperties (keys and values, in order).
func FuzzParseProperties(f *testing.F) {
	for _, c := range javaCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte("a=b\\\r\n c\\u0041\\\\\n!x\n#y\\\nz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParseProperties("fuzz", data)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error without ErrSyntax: %v", err)
			}
			return
		}
		again, err := ParseProperties("again", []byte(formatProperties(ps)))
		if err != nil {
			t.Fatalf("formatted output does not parse: %v", err)
		}
		if len(again) != len(ps) {
			t.Fatalf("round trip: %d properties, want %d", len(again), len(ps))
		}
		for i := range ps {
			if again[i].Key != ps[i].Key || again[i].Value != ps[i].Value {
				t.Fatalf("round trip %d: got %q=%q, want %q=%q", i, again[i].Key, again[i].Value, ps[i].Key, ps[i].Value)
			}
		}
	})
}
