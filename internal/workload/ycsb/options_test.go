package ycsb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/workload"
)

// coreDefaults are CoreWorkload's defaults (docs/YCSB.md, "Reference facts") with candor's
// recordcount; tests derive expected options from them.
func coreDefaults() Options {
	return Options{
		Reference: "YCSB 0.17.0", Table: "usertable", FieldCount: 10, FieldNamePrefix: "field", FieldLength: 100,
		MinFieldLength: 1, FieldLengthDistribution: "constant", ReadAllFields: true,
		ReadProportion: 0.95, UpdateProportion: 0.05, RequestDistribution: "uniform", ZeroPadding: 1,
		MinScanLength: 1, MaxScanLength: 1000, ScanLengthDistribution: "uniform", InsertOrder: "hashed",
		HotspotDataFraction: 0.2, HotspotOpnFraction: 0.8, ExponentialPercentile: 95, ExponentialFrac: 0.8571428571,
		RecordCount: 1000, InsertCount: 1000, InsertionRetryInterval: 3,
	}
}

// TestBuiltinVariants: ycsb/a..f resolve to the table of docs/YCSB.md, "Reference facts"
// on top of CoreWorkload's defaults.
func TestBuiltinVariants(t *testing.T) {
	file := func(mod func(*Options)) Options {
		o := coreDefaults()
		o.OperationCount = 1000
		o.RequestDistribution = "zipfian"
		mod(&o)
		return o
	}
	cases := map[string]Options{
		// A: update heavy.
		"a": file(func(o *Options) { o.ReadProportion, o.UpdateProportion = 0.5, 0.5 }),
		// B: read mostly.
		"b": file(func(o *Options) { o.ReadProportion, o.UpdateProportion = 0.95, 0.05 }),
		// C: read only.
		"c": file(func(o *Options) { o.ReadProportion, o.UpdateProportion = 1, 0 }),
		// D: read latest, inserts, latest distribution; 1000*0.05*2 expected new keys.
		"d": file(func(o *Options) {
			o.ReadProportion, o.UpdateProportion, o.InsertProportion = 0.95, 0, 0.05
			o.RequestDistribution, o.ExpectedNewKeys = "latest", 100
		}),
		// E: short ranges of up to 100 records, uniform lengths.
		"e": file(func(o *Options) {
			o.ReadProportion, o.UpdateProportion, o.ScanProportion, o.InsertProportion = 0, 0, 0.95, 0.05
			o.MaxScanLength, o.ScanLengthDistribution, o.ExpectedNewKeys = 100, "uniform", 100
		}),
		// F: read-modify-write.
		"f": file(func(o *Options) {
			o.ReadProportion, o.UpdateProportion, o.ReadModifyWriteProportion = 0.5, 0, 0.5
		}),
	}
	for v, want := range cases {
		w, err := New(v, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		got := w.Config()
		if len(got.Sources) != 1 || got.Sources[0].Kind != "builtin" || got.Sources[0].Name != "workloads/workload"+v || len(got.Sources[0].SHA256) != 64 {
			t.Errorf("%s: sources %+v", v, got.Sources)
		}
		got.Sources = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", v, got, want)
		}
		if w.Name() != "ycsb/"+v || w.Reference() != "YCSB 0.17.0 CoreWorkload" {
			t.Errorf("%s: name %q reference %q", v, w.Name(), w.Reference())
		}
		if ig := w.Ignored(); !reflect.DeepEqual(ig, []string{"workload"}) {
			t.Errorf("%s: Ignored = %v, want [workload]", v, ig)
		}
		if l := w.Limits(); !reflect.DeepEqual(l, workload.Limits{Operations: 1000}) {
			t.Errorf("%s: Limits = %+v", v, l)
		}
	}
}

// TestPlainDefaults: "ycsb" alone is CoreWorkload's defaults with candor's
// recordcount of 1000, recorded as a default source.
func TestPlainDefaults(t *testing.T) {
	w, err := New("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := w.Config()
	if !reflect.DeepEqual(got.Sources, []Source{{Kind: "default", Name: "recordcount=1000"}}) {
		t.Errorf("sources %+v", got.Sources)
	}
	got.Sources = nil
	if want := coreDefaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
	if w.Name() != "ycsb" || len(w.Ignored()) != 0 || !reflect.DeepEqual(w.Limits(), workload.Limits{}) {
		t.Errorf("name %q ignored %v limits %+v", w.Name(), w.Ignored(), w.Limits())
	}
	if start, count := w.LoadRange(); start != 0 || count != 1000 {
		t.Errorf("LoadRange %d, %d", start, count)
	}
}

// TestLayering: built-in file, then -P files in order, then -p in order.
func TestLayering(t *testing.T) {
	dir := t.TempDir()
	f1 := filepath.Join(dir, "one.properties")
	f2 := filepath.Join(dir, "two.properties")
	os.WriteFile(f1, []byte("recordcount=5000\nfieldcount=5\ndb.url=jdbc:postgresql://h/db\nmeasurementtype=hdrhistogram\n"), 0o644)
	os.WriteFile(f2, []byte("fieldcount=7\nthreadcount=16\ntarget=500\nmaxexecutiontime=60\n"), 0o644)
	w, err := New("a", []string{f1, f2}, []string{"fieldcount=8", "db.passwd=hunter2", "fieldcount=9", "exporter=x"})
	if err != nil {
		t.Fatal(err)
	}
	o := w.Config()
	if o.RecordCount != 5000 || o.FieldCount != 9 || o.ReadProportion != 0.5 || o.OperationCount != 1000 {
		t.Errorf("recordcount %d fieldcount %d readproportion %v operationcount %d", o.RecordCount, o.FieldCount, o.ReadProportion, o.OperationCount)
	}
	want := []string{"db.passwd", "db.url", "exporter", "measurementtype", "workload"}
	if !reflect.DeepEqual(w.Ignored(), want) {
		t.Errorf("Ignored = %v, want %v", w.Ignored(), want)
	}
	if l := w.Limits(); !reflect.DeepEqual(l, workload.Limits{Operations: 1000, Threads: 16, Rate: 500, Duration: time.Minute}) {
		t.Errorf("Limits = %+v", l)
	}
	kinds := []string{}
	for _, s := range o.Sources {
		kinds = append(kinds, s.Kind+":"+s.Name)
	}
	wantKinds := []string{"builtin:workloads/workloada", "file:" + f1, "file:" + f2,
		"override:fieldcount", "override:db.passwd", "override:fieldcount", "override:exporter"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("sources %v, want %v", kinds, wantKinds)
	}
	// The result file gets the options: the reference, and no value of an
	// ignored property (they may be credentials).
	js, err := json.Marshal(w.Options())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"reference":"YCSB 0.17.0"`, `"fieldcount":9`, `"recordcount":5000`, `"exponential.frac":0.8571428571`} {
		if !strings.Contains(string(js), s) {
			t.Errorf("options JSON lacks %s: %s", s, js)
		}
	}
	for _, s := range []string{"hunter2", "jdbc:postgresql"} {
		if strings.Contains(string(js), s) {
			t.Errorf("options JSON leaks %q", s)
		}
	}
}

// TestTemplateFile: the repository's workload template resolves; the Java
// client's measurement settings are accepted and listed as ignored.
func TestTemplateFile(t *testing.T) {
	w, err := New("", []string{"../../../workloads/workload_template"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := w.Config()
	if o.RecordCount != 1000000 || o.OperationCount != 3000000 || o.RequestDistribution != "zipfian" || o.InsertCount != 1000000 {
		t.Errorf("template resolved to %+v", o)
	}
	want := []string{"histogram.buckets", "measurementtype", "timeseries.granularity", "workload"}
	if !reflect.DeepEqual(w.Ignored(), want) {
		t.Errorf("Ignored = %v, want %v", w.Ignored(), want)
	}
}

// TestValidation: every invalid value is reported, naming the property, its
// source and the fix; several problems come back together.
func TestValidation(t *testing.T) {
	cases := []struct {
		name  string
		props []string
		want  []string // substrings of the error
	}{
		{"non-numeric count", []string{"recordcount=lots"}, []string{`-p recordcount="lots": not an integer`}},
		{"negative count", []string{"operationcount=-1"}, []string{"operationcount", "must be >= 0"}},
		{"zero recordcount", []string{"recordcount=0"}, []string{"recordcount", "must be > 0", "2147483647"}},
		{"zero insertcount", []string{"insertcount=0"}, []string{"insertcount", "must be >= 1"}},
		{"insertstart past recordcount", []string{"insertstart=1000"}, []string{"insertstart", "leaves no records to load"}},
		{"YCSB's insert range check", []string{"recordcount=100", "insertstart=50", "insertcount=60"},
			[]string{"Invalid combination of insertstart, insertcount and recordcount.", "recordcount=100, insertstart=50, insertcount=60"}},
		{"unknown request distribution", []string{"requestdistribution=normal"},
			[]string{"requestdistribution", "valid values: uniform, zipfian, latest, hotspot, sequential, exponential"}},
		{"unknown scan length distribution", []string{"scanlengthdistribution=latest"}, []string{"scanlengthdistribution", "valid values: uniform, zipfian"}},
		{"unknown field length distribution", []string{"fieldlengthdistribution=normal"},
			[]string{"fieldlengthdistribution", "valid values: constant, uniform, zipfian, histogram"}},
		{"unknown insert order", []string{"insertorder=random"}, []string{"insertorder", "valid values: hashed, ordered"}},
		{"proportions sum to zero", []string{"readproportion=0", "updateproportion=0"}, []string{"sum to 0"}},
		{"negative proportion", []string{"scanproportion=-0.1"}, []string{"scanproportion", "must be >= 0"}},
		{"proportion not a number", []string{"readproportion=NaN"}, []string{"readproportion", "not a number"}},
		{"min field length above max", []string{"fieldlengthdistribution=uniform", "minfieldlength=200"},
			[]string{"minfieldlength", "must not exceed fieldlength=100"}},
		{"dataintegrity needs constant lengths", []string{"dataintegrity=true", "fieldlengthdistribution=zipfian"},
			[]string{"Must have constant field size to check data integrity", "fieldlengthdistribution=constant"}},
		{"boolean typo", []string{"readallfields=yes"}, []string{"readallfields", "must be true or false"}},
		{"other workload class", []string{"workload=site.ycsb.workloads.TimeSeriesWorkload"},
			[]string{"workload", "candor implements only site.ycsb.workloads.CoreWorkload"}},
		{"bad table name", []string{"table=user table"}, []string{"table", "letters, digits and underscores"}},
		{"max scan below min", []string{"minscanlength=10", "maxscanlength=5"}, []string{"maxscanlength", "must be >= minscanlength=10"}},
		{"hotspot fraction above 1", []string{"hotspotdatafraction=1.5"}, []string{"hotspotdatafraction", "between 0 and 1"}},
		{"exponential percentile 100", []string{"exponential.percentile=100"}, []string{"exponential.percentile", "strictly between 0 and 100"}},
		{"zero threads", []string{"threadcount=0"}, []string{"threadcount", "must be >= 1"}},
		{"zero fields", []string{"fieldcount=0"}, []string{"fieldcount", "must be >= 1"}},
		{"padding too long for the key column", []string{"zeropadding=300"}, []string{"zeropadding", "at most 251"}},
		{"missing histogram file", []string{"fieldlengthdistribution=histogram", "fieldlengthhistogram=/nonexistent/hist.txt"},
			[]string{"fieldlengthhistogram", "cannot read the field length histogram"}},
		{"-p without =", []string{"recordcount"}, []string{`-p "recordcount"`, "expected key=value"}},
		{"all problems at once", []string{"recordcount=x", "requestdistribution=y", "insertorder=z"},
			[]string{"recordcount", "requestdistribution", "insertorder"}},
	}
	for _, c := range cases {
		_, err := New("", nil, c.props)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", c.name, err, s)
			}
		}
	}

	// A value from a file names the file and line.
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.properties")
	os.WriteFile(f, []byte("# x\nrecordcount=1000\nfieldlength=big\n"), 0o644)
	_, err := New("", []string{f, filepath.Join(dir, "missing")}, nil)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
	_, err = New("", []string{f}, nil)
	if err == nil || !strings.Contains(err.Error(), f+`:3: fieldlength="big"`) {
		t.Errorf("file value error: %v", err)
	}
}

// TestHistogramOption: fieldlengthdistribution=histogram reads the file into
// the options (so a result can be re-run) and draws multiples of BlockSize.
func TestHistogramOption(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hist.txt")
	os.WriteFile(f, []byte("BlockSize\t8\n0\t1\n1\t1\n2\t1\n3\t1\n"), 0o644)
	w := bound(t, "", "fieldlengthdistribution=histogram", "fieldlengthhistogram="+f, "readproportion=0", "updateproportion=0", "insertproportion=1")
	o := w.Config()
	if o.FieldLengthHistogram != f || o.Histogram == nil || o.Histogram.BlockSize != 8 || len(o.Histogram.Buckets) != 4 {
		t.Fatalf("options %+v %+v", o, o.Histogram)
	}
	wk := w.NewWorker(0, newRand(1)).(*worker)
	seen := map[int]bool{}
	for i := 0; i < 1000; i++ {
		wk.Next()
		for _, v := range wk.rowArgs[1:] {
			n := len(v.(string))
			if n%8 != 0 || n < 8 || n > 24 {
				t.Fatalf("length %d", n)
			}
			seen[n] = true
		}
		wk.Done(nil)
	}
	if len(seen) != 3 {
		t.Errorf("lengths %v, want 8, 16 and 24", seen)
	}
}
