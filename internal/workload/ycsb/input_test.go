package ycsb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a property file and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "props")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTrailingBlanksReadAsYCSB: java.util.Properties keeps the blanks at the
// end of a line in the value, and YCSB 0.17.0's parsers then read it in
// their own ways; candor reads each value as YCSB does, or refuses it where
// YCSB's reading would surprise.
func TestTrailingBlanksReadAsYCSB(t *testing.T) {
	accepted := []struct {
		name, line string
		check      func(Options) bool
	}{
		// Boolean.parseBoolean("false  ") is false: what was meant.
		{"false with blanks", "readallfields=false  ", func(o Options) bool { return !o.ReadAllFields }},
		// Double.parseDouble trims.
		{"proportion with blanks", "readproportion=0.5  ", func(o Options) bool { return o.ReadProportion == 0.5 }},
		// CoreWorkload reads every insertorder but "hashed" as ordered.
		{"ordered with blanks", "insertorder=ordered  ", func(o Options) bool { return o.InsertOrder == "ordered" }},
		// The exact values, for contrast.
		{"true", "readallfields=true", func(o Options) bool { return o.ReadAllFields }},
		{"zipfian", "requestdistribution=zipfian", func(o Options) bool { return o.RequestDistribution == "zipfian" }},
	}
	for _, c := range accepted {
		w, err := New("", []string{writeFile(t, c.line+"\n")}, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.check(w.Config()) {
			t.Errorf("%s: read as %+v", c.name, w.Config())
		}
	}
	refused := []struct{ name, line, want string }{
		// Boolean.parseBoolean("true  ") is false: refused, saying so.
		{"true with blanks", "readallfields=true  ", "reads this value as false"},
		// CoreWorkload: Unknown request distribution "zipfian  ".
		{"distribution with blanks", "requestdistribution=zipfian  ", "compares it exactly"},
		{"scan length distribution with blanks", "scanlengthdistribution=zipfian\t", "compares it exactly"},
		{"field length distribution with blanks", "fieldlengthdistribution=constant ", "compares it exactly"},
		// Long.parseLong("1000 ") throws NumberFormatException.
		{"count with blanks", "recordcount=1000 ", "NumberFormatException"},
		// "hashed " is ordered in YCSB.
		{"hashed with blanks", "insertorder=hashed ", "reads every value but hashed as ordered"},
		// Class.forName of the padded name fails.
		{"class with blanks", "workload=site.ycsb.workloads.CoreWorkload ", "ClassNotFoundException"},
	}
	for _, c := range refused {
		f := writeFile(t, c.line+"\n")
		_, err := New("", []string{f}, nil)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), f+":1") {
			t.Errorf("%s: error %q lacks %q or the file and line", c.name, err, c.want)
		}
	}
	// -p values are taken verbatim too, as YCSB's Client does.
	if _, err := New("", nil, []string{"requestdistribution=zipfian "}); err == nil {
		t.Error("-p requestdistribution=\"zipfian \" accepted")
	}
}

// TestOldClassName: the CoreWorkload's name before YCSB 0.14 is read as
// today's, with a note.
func TestOldClassName(t *testing.T) {
	w, err := New("", []string{writeFile(t, "workload=com.yahoo.ycsb.workloads.CoreWorkload\nrecordcount=10\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws := strings.Join(w.Warnings(), "\n"); !strings.Contains(ws, "before YCSB 0.14") || !strings.Contains(ws, CoreWorkloadClass) {
		t.Errorf("warnings %q lack the note", ws)
	}
	if w.Config().RecordCount != 10 {
		t.Errorf("recordcount %d", w.Config().RecordCount)
	}
}

// TestPropertyFileInput: a UTF-8 byte order mark is not part of the first
// key, and a binary file is refused.
func TestPropertyFileInput(t *testing.T) {
	w, err := New("", []string{writeFile(t, "\xef\xbb\xbfrecordcount=1234\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Config().RecordCount != 1234 || len(w.Warnings()) != 0 {
		t.Errorf("recordcount %d, warnings %v", w.Config().RecordCount, w.Warnings())
	}
	_, err = New("", []string{writeFile(t, "\x7fELF\x02\x01\x01\x00\x00\x00garbage=1\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a property file") {
		t.Errorf("binary file: %v", err)
	}
}

// TestUnknownKeys: keys neither candor nor YCSB knows are named in one
// warning, with the known key they are a typo of; YCSB's own keys (client,
// measurement, bindings) are not.
func TestUnknownKeys(t *testing.T) {
	w, err := New("c", nil, []string{"recordcont=5000", "frobnicate=1", "db.passwd=x", "mongodb.url=mongodb://h", "measurementtype=hdrhistogram", "RecordCount=7"})
	if err != nil {
		t.Fatal(err)
	}
	ws := w.Warnings()
	if len(ws) != 1 {
		t.Fatalf("warnings %q, want one line", ws)
	}
	for _, want := range []string{`"recordcont" (did you mean recordcount?)`, `"frobnicate"`, `"RecordCount" (did you mean recordcount?)`} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}
	for _, not := range []string{"db.passwd", "mongodb.url", "measurementtype", "frobnicate\" (did"} {
		if strings.Contains(ws[0], not) {
			t.Errorf("warning %q names %q", ws[0], not)
		}
	}
	// The shipped files and the template set only keys YCSB knows.
	for _, v := range Variants {
		if w, err := New(v, nil, nil); err != nil || len(w.Warnings()) > 0 {
			t.Errorf("workload%s: %v %v", v, err, w.Warnings())
		}
	}
	if w, err := New("", []string{"../../../workloads/workload_template"}, nil); err != nil || len(w.Warnings()) > 0 {
		t.Errorf("template: %v %v", err, w.Warnings())
	}
}
