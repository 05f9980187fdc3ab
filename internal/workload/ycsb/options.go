package ycsb

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/target"
)

// Reference is the YCSB release whose CoreWorkload this package reproduces.
const Reference = "YCSB 0.17.0"

// CoreWorkloadClass is the workload property's value for the workload
// candor implements.
const CoreWorkloadClass = "site.ycsb.workloads.CoreWorkload"

// OldCoreWorkloadClass is the same class under its name before YCSB 0.14
// (the com.yahoo.ycsb packages became site.ycsb); property files of older
// releases and papers name it so, and candor reads it as CoreWorkloadClass.
const OldCoreWorkloadClass = "com.yahoo.ycsb.workloads.CoreWorkload"

// DefaultRecordCount is candor's recordcount when no property sets it. YCSB's
// Client defaults to 0, which CoreWorkload turns into 2147483647 records (a
// load that never ends in practice); candor uses 1000 instead, the value every
// shipped workload file (workloada..f) sets.
const DefaultRecordCount = 1000

// Valid values of the enumerated properties, in YCSB's documentation order.
var (
	requestDistributions     = []string{"uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"}
	scanLengthDistributions  = []string{"uniform", "zipfian"}
	fieldLengthDistributions = []string{"constant", "uniform", "zipfian", "histogram"}
	insertOrders             = []string{"hashed", "ordered"}
)

// Source is one input that contributed properties, in the order applied.
// Values of -p overrides are not recorded (they may hold passwords for YCSB
// bindings); the resolved options hold every value candor uses.
type Source struct {
	Kind   string `json:"kind"`             // "default", "builtin", "file" or "override"
	Name   string `json:"name"`             // file path, builtin file name, or the -p key
	SHA256 string `json:"sha256,omitempty"` // content hash of a file
}

// Histogram is a field-length histogram (fieldlengthdistribution=histogram),
// as read from YCSB's histogram file format.
type Histogram struct {
	BlockSize int64   `json:"blocksize"`
	Buckets   []int64 `json:"buckets"` // count per bucket, bucket i at index i
	area      int64
}

// Options are the resolved CoreWorkload properties (YCSB's names, YCSB's
// defaults: docs/YCSB.md, "Reference facts") plus the Client properties candor reads as run
// limits. It is what a result file records, so it is JSON-encodable and a run
// can be repeated from it.
type Options struct {
	Reference string   `json:"reference"` // "YCSB 0.17.0"
	Sources   []Source `json:"sources"`

	Table                   string     `json:"table"`
	FieldCount              int        `json:"fieldcount"`
	FieldNamePrefix         string     `json:"fieldnameprefix"`
	FieldLength             int        `json:"fieldlength"`
	MinFieldLength          int        `json:"minfieldlength"`
	FieldLengthDistribution string     `json:"fieldlengthdistribution"`
	FieldLengthHistogram    string     `json:"fieldlengthhistogram,omitempty"` // file, when the distribution is histogram
	Histogram               *Histogram `json:"fieldlengthhistogram_data,omitempty"`
	ReadAllFields           bool       `json:"readallfields"`
	ReadAllFieldsByName     bool       `json:"readallfieldsbyname"` // post-0.17.0 property; no effect on SQL (reads are SELECT *)
	WriteAllFields          bool       `json:"writeallfields"`
	DataIntegrity           bool       `json:"dataintegrity"`

	ReadProportion            float64 `json:"readproportion"`
	UpdateProportion          float64 `json:"updateproportion"`
	InsertProportion          float64 `json:"insertproportion"`
	ScanProportion            float64 `json:"scanproportion"`
	ReadModifyWriteProportion float64 `json:"readmodifywriteproportion"`

	RequestDistribution    string  `json:"requestdistribution"`
	ZeroPadding            int     `json:"zeropadding"`
	MinScanLength          int     `json:"minscanlength"`
	MaxScanLength          int     `json:"maxscanlength"`
	ScanLengthDistribution string  `json:"scanlengthdistribution"`
	InsertOrder            string  `json:"insertorder"`
	HotspotDataFraction    float64 `json:"hotspotdatafraction"`
	HotspotOpnFraction     float64 `json:"hotspotopnfraction"`
	ExponentialPercentile  float64 `json:"exponential.percentile"`
	ExponentialFrac        float64 `json:"exponential.frac"`

	RecordCount    int64 `json:"recordcount"`
	InsertStart    int64 `json:"insertstart"`
	InsertCount    int64 `json:"insertcount"`
	OperationCount int64 `json:"operationcount"` // 0: not set (no operation limit from the workload)
	// ExpectedNewKeys is derived, not a property: (int)(operationcount *
	// insertproportion * 2.0), the keys the zipfian chooser reserves for
	// run-phase inserts.
	ExpectedNewKeys int64 `json:"expectednewkeys"`

	// Load-phase insert retries (the runner applies them): up to
	// InsertionRetryLimit retries, sleeping 1000*InsertionRetryInterval*(0.8 +
	// 0.4*rand) ms between attempts in YCSB.
	InsertionRetryLimit    int `json:"core_workload_insertion_retry_limit"`
	InsertionRetryInterval int `json:"core_workload_insertion_retry_interval"` // seconds

	// Client properties read as run limits; 0 = not set.
	ThreadCount      int   `json:"threadcount,omitempty"`
	Target           int   `json:"target,omitempty"`           // operations per second, all threads
	MaxExecutionTime int64 `json:"maxexecutiontime,omitempty"` // seconds
}

// known lists every property candor reads; anything else is accepted and
// reported by Ignored, as YCSB ignores properties its core does not use.
// "workload" is checked but reported as ignored: candor has one workload class.
var known = map[string]bool{
	"table": true, "fieldcount": true, "fieldnameprefix": true, "fieldlength": true,
	"minfieldlength": true, "fieldlengthdistribution": true, "fieldlengthhistogram": true,
	"readallfields": true, "readallfieldsbyname": true, "writeallfields": true, "dataintegrity": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true, "scanproportion": true,
	"readmodifywriteproportion": true, "requestdistribution": true, "zeropadding": true,
	"minscanlength": true, "maxscanlength": true, "scanlengthdistribution": true, "insertorder": true,
	"hotspotdatafraction": true, "hotspotopnfraction": true, "insertstart": true, "insertcount": true,
	"recordcount": true, "operationcount": true, "core_workload_insertion_retry_limit": true,
	"core_workload_insertion_retry_interval": true, "exponential.percentile": true, "exponential.frac": true,
	"threadcount": true, "target": true, "maxexecutiontime": true,
}

// propReader reads typed values from the effective properties as YCSB
// 0.17.0 reads them, and collects every problem instead of stopping at the
// first. Property values keep their trailing blanks (java.util.Properties
// drops only the blanks before the value), and YCSB's parsers treat them
// differently: Integer.parseInt and Long.parseLong refuse them,
// Double.parseDouble ignores them, Boolean.parseBoolean reads "true " as
// false, and the distribution names are compared exactly, so "zipfian " is
// an unknown distribution. candor reads each value the same way, or refuses
// it with a message where YCSB's reading would surprise (a "true " that YCSB
// reads as false).
type propReader struct {
	props map[string]Property
	errs  []error
	notes []string // said on stderr; the run goes on
}

func (r *propReader) fail(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p, ok := r.props[key]
	switch {
	case !ok:
		r.errs = append(r.errs, fmt.Errorf("%s (default): %s", key, msg))
	case p.Source == "-p":
		r.errs = append(r.errs, fmt.Errorf("-p %s=%q: %s", key, p.Value, msg))
	default:
		r.errs = append(r.errs, fmt.Errorf("%s: %s=%q: %s", p.Source, key, p.Value, msg))
	}
}

func (r *propReader) has(key string) bool { _, ok := r.props[key]; return ok }

func (r *propReader) str(key, def string) string {
	if p, ok := r.props[key]; ok {
		return p.Value
	}
	return def
}

// blanksHint ends the message about a value with blanks around it.
const blanksHint = "remove the blanks (a property file keeps the blanks at the end of a line in the value)"

// int reads a decimal integer as Java's Long.parseLong does (blanks around
// it are refused, as YCSB stops there with a NumberFormatException) and
// checks it is at least min.
func (r *propReader) int(key string, def, min int64) int64 {
	p, ok := r.props[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(p.Value, 10, 64)
	if err != nil {
		if _, err2 := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64); err2 == nil {
			r.fail(key, "blanks around the number: YCSB 0.17.0 refuses it (NumberFormatException); %s", blanksHint)
		} else {
			r.fail(key, "not an integer; give a whole number such as %d", def)
		}
		return def
	}
	if v < min {
		r.fail(key, "must be >= %d", min)
		return def
	}
	return v
}

// float reads a finite decimal number as Java's Double.parseDouble does
// (blanks around it ignored, a trailing d/D/f/F type suffix allowed) in
// [lo, hi].
func (r *propReader) float(key string, def, lo, hi float64) float64 {
	p, ok := r.props[key]
	if !ok {
		return def
	}
	s := strings.TrimSpace(p.Value)
	// Java accepts a trailing d/D/f/F type suffix.
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail(key, "not a number; give a decimal number such as %v", def)
		return def
	}
	if v < lo || v > hi {
		if hi == math.MaxFloat64 {
			r.fail(key, "must be >= %v", lo)
		} else {
			r.fail(key, "must be between %v and %v", lo, hi)
		}
		return def
	}
	return v
}

// bool reads true/false (any case), as Java's Boolean.parseBoolean. YCSB
// reads anything else as false; candor rejects it so a typo cannot flip a
// setting. "false" with blanks after it is false, as in YCSB; "true" with
// blanks is refused: YCSB reads it as false, which its writer did not mean.
func (r *propReader) bool(key string, def bool) bool {
	p, ok := r.props[key]
	if !ok {
		return def
	}
	switch strings.ToLower(p.Value) {
	case "true":
		return true
	case "false":
		return false
	}
	switch strings.ToLower(strings.TrimSpace(p.Value)) {
	case "true":
		r.fail(key, "blanks around true: YCSB 0.17.0 reads this value as false (Boolean.parseBoolean compares it exactly); %s, or write false", blanksHint)
	case "false":
		return false
	default:
		r.fail(key, "must be true or false")
	}
	return def
}

// enum reads one of valid, compared exactly as YCSB compares: a valid
// name with blanks around it is refused, as YCSB stops on it (Unknown
// request distribution "zipfian ").
func (r *propReader) enum(key, def string, valid []string) string {
	p, ok := r.props[key]
	if !ok {
		return def
	}
	if slices.Contains(valid, p.Value) {
		return p.Value
	}
	if slices.Contains(valid, strings.TrimSpace(p.Value)) {
		r.fail(key, "blanks around the name: YCSB 0.17.0 compares it exactly and stops (unknown %s); %s", key, blanksHint)
		return def
	}
	r.fail(key, "unknown value; valid values: %s", strings.Join(valid, ", "))
	return def
}

// resolve turns the effective properties into Options, checking every value.
// It returns the keys it does not use (sorted), notes for the user, and all
// problems joined.
func resolve(props map[string]Property) (Options, []string, []string, error) {
	r := &propReader{props: props}
	o := Options{Reference: Reference}

	if p, ok := props["workload"]; ok {
		switch v := p.Value; {
		case v == CoreWorkloadClass:
		case v == OldCoreWorkloadClass:
			r.notes = append(r.notes, fmt.Sprintf("workload=%s is the name CoreWorkload had before YCSB 0.14; read as %s", OldCoreWorkloadClass, CoreWorkloadClass))
		case strings.TrimSpace(v) == CoreWorkloadClass || strings.TrimSpace(v) == OldCoreWorkloadClass:
			r.fail("workload", "blanks around the class name: YCSB 0.17.0 looks the class up by the exact name and stops (ClassNotFoundException); remove them")
		default:
			r.fail("workload", "candor implements only %s (YCSB before 0.14: %s); set workload=%s or remove the line", CoreWorkloadClass, OldCoreWorkloadClass, CoreWorkloadClass)
		}
	}

	o.Table = r.str("table", "usertable")
	if err := target.CheckTableName(o.Table); err != nil {
		r.fail("table", "%v", err)
	}
	o.FieldCount = int(r.int("fieldcount", 10, 1))
	if o.FieldCount > 1000 {
		r.fail("fieldcount", "at most 1000 fields are supported")
		o.FieldCount = 10
	}
	o.FieldNamePrefix = r.str("fieldnameprefix", "field")
	o.FieldLength = int(r.int("fieldlength", 100, 0))
	o.MinFieldLength = int(r.int("minfieldlength", 1, 0))
	o.FieldLengthDistribution = r.enum("fieldlengthdistribution", "constant", fieldLengthDistributions)
	switch o.FieldLengthDistribution {
	case "uniform", "zipfian":
		if o.MinFieldLength > o.FieldLength {
			r.fail("minfieldlength", "must not exceed fieldlength=%d", o.FieldLength)
		}
	case "histogram":
		o.FieldLengthHistogram = r.str("fieldlengthhistogram", "hist.txt")
		h, err := readHistogram(o.FieldLengthHistogram)
		if err != nil {
			r.fail("fieldlengthhistogram", "%v", err)
		} else {
			o.Histogram = h
		}
	}
	o.ReadAllFields = r.bool("readallfields", true)
	o.ReadAllFieldsByName = r.bool("readallfieldsbyname", false)
	o.WriteAllFields = r.bool("writeallfields", false)
	o.DataIntegrity = r.bool("dataintegrity", false)
	if o.DataIntegrity && o.FieldLengthDistribution != "constant" {
		r.fail("dataintegrity", "Must have constant field size to check data integrity (fieldlengthdistribution=%s); set fieldlengthdistribution=constant or dataintegrity=false", o.FieldLengthDistribution)
	}

	const maxF = math.MaxFloat64
	o.ReadProportion = r.float("readproportion", 0.95, 0, maxF)
	o.UpdateProportion = r.float("updateproportion", 0.05, 0, maxF)
	o.InsertProportion = r.float("insertproportion", 0, 0, maxF)
	o.ScanProportion = r.float("scanproportion", 0, 0, maxF)
	o.ReadModifyWriteProportion = r.float("readmodifywriteproportion", 0, 0, maxF)
	if sum := o.ReadProportion + o.UpdateProportion + o.InsertProportion + o.ScanProportion + o.ReadModifyWriteProportion; !(sum > 0) || math.IsInf(sum, 0) {
		r.errs = append(r.errs, errors.New("readproportion, updateproportion, insertproportion, scanproportion and readmodifywriteproportion sum to 0: no operation could be chosen; give at least one a positive value"))
	}

	o.RequestDistribution = r.enum("requestdistribution", "uniform", requestDistributions)
	o.ZeroPadding = int(r.int("zeropadding", 1, 0))
	if o.ZeroPadding > 251 {
		// The key column is VARCHAR(255) and keys are "user" + digits.
		r.fail("zeropadding", "at most 251 (keys must fit the 255-character key column)")
		o.ZeroPadding = 1
	}
	o.MinScanLength = int(r.int("minscanlength", 1, 0))
	o.MaxScanLength = int(r.int("maxscanlength", 1000, 0))
	if o.MaxScanLength < o.MinScanLength {
		r.fail("maxscanlength", "must be >= minscanlength=%d", o.MinScanLength)
	}
	o.ScanLengthDistribution = r.enum("scanlengthdistribution", "uniform", scanLengthDistributions)
	if p, ok := props["insertorder"]; ok && strings.TrimSpace(p.Value) == "ordered" {
		o.InsertOrder = "ordered" // YCSB reads every value but "hashed" as ordered
	} else if ok && strings.TrimSpace(p.Value) == "hashed" && p.Value != "hashed" {
		r.fail("insertorder", "blanks around hashed: YCSB 0.17.0 reads every value but hashed as ordered; %s", blanksHint)
	} else {
		o.InsertOrder = r.enum("insertorder", "hashed", insertOrders)
	}
	o.HotspotDataFraction = r.float("hotspotdatafraction", 0.2, 0, 1)
	o.HotspotOpnFraction = r.float("hotspotopnfraction", 0.8, 0, 1)
	o.ExponentialPercentile = r.float("exponential.percentile", 95, 0, 100)
	if o.ExponentialPercentile <= 0 || o.ExponentialPercentile >= 100 {
		r.fail("exponential.percentile", "must be strictly between 0 and 100")
		o.ExponentialPercentile = 95
	}
	o.ExponentialFrac = r.float("exponential.frac", 0.8571428571, 0, maxF)
	if o.ExponentialFrac <= 0 {
		r.fail("exponential.frac", "must be > 0")
		o.ExponentialFrac = 0.8571428571
	}

	nerr := len(r.errs)
	o.RecordCount = r.int("recordcount", DefaultRecordCount, math.MinInt64)
	if o.RecordCount <= 0 {
		r.fail("recordcount", "must be > 0 (YCSB reads 0 as 2147483647 records); give the number of records to load")
	}
	o.InsertStart = r.int("insertstart", 0, 0)
	if r.has("insertcount") {
		o.InsertCount = r.int("insertcount", 0, 1)
	} else {
		o.InsertCount = o.RecordCount - o.InsertStart
		if o.RecordCount > 0 && o.InsertCount <= 0 {
			r.fail("insertstart", "leaves no records to load: insertcount defaults to recordcount - insertstart = %d; raise recordcount or set insertcount", o.InsertCount)
		}
	}
	if len(r.errs) == nerr && o.RecordCount < o.InsertStart+o.InsertCount {
		// YCSB's own wording (CoreWorkload.init), then the numbers.
		r.errs = append(r.errs, fmt.Errorf("Invalid combination of insertstart, insertcount and recordcount. "+
			"recordcount must be bigger than insertstart + insertcount (recordcount=%d, insertstart=%d, insertcount=%d)",
			o.RecordCount, o.InsertStart, o.InsertCount))
	}
	o.OperationCount = r.int("operationcount", 0, 0)
	// (int)(opcount * insertproportion * 2.0): Java's cast saturates.
	o.ExpectedNewKeys = int64(min(float64(o.OperationCount)*o.InsertProportion*2.0, math.MaxInt32))

	o.InsertionRetryLimit = int(r.int("core_workload_insertion_retry_limit", 0, 0))
	o.InsertionRetryInterval = int(r.int("core_workload_insertion_retry_interval", 3, 0))

	o.ThreadCount = int(r.int("threadcount", 0, 1))
	o.Target = int(r.int("target", 0, 0))
	o.MaxExecutionTime = r.int("maxexecutiontime", 0, 0)

	var ignored []string
	for k := range props {
		if !known[k] {
			ignored = append(ignored, k)
		}
	}
	sort.Strings(ignored)
	return o, ignored, r.notes, errors.Join(r.errs...)
}

// readHistogram reads a field-length histogram file in YCSB's format
// (HistogramGenerator): a first line "BlockSize<TAB>n", then one line per
// bucket "i<TAB>count" for i = 0, 1, 2, ... in order. A drawn length is a
// multiple of the block size (see histogramGen).
func readHistogram(path string) (*Histogram, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the field length histogram: %w", err)
	}
	h, err := parseHistogram(path, data)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// parseHistogram parses the histogram file text; name labels errors.
func parseHistogram(name string, data []byte) (*Histogram, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 1<<20)
	h := &Histogram{}
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSuffix(sc.Text(), "\r")
		cols := strings.Split(text, "\t")
		if n == 1 {
			if cols[0] != "BlockSize" || len(cols) < 2 {
				return nil, fmt.Errorf("%s:1: first line must be \"BlockSize<TAB>n\"", name)
			}
			bs, err := strconv.ParseInt(cols[1], 10, 32)
			if err != nil || bs < 1 {
				return nil, fmt.Errorf("%s:1: BlockSize %q must be a positive integer", name, cols[1])
			}
			h.BlockSize = bs
			continue
		}
		if len(cols) < 2 {
			return nil, fmt.Errorf("%s:%d: expected \"bucket<TAB>count\"", name, n)
		}
		b, err1 := strconv.ParseInt(cols[0], 10, 32)
		c, err2 := strconv.ParseInt(cols[1], 10, 32)
		if err1 != nil || err2 != nil || c < 0 {
			return nil, fmt.Errorf("%s:%d: expected \"bucket<TAB>count\" with non-negative integers, got %q", name, n, text)
		}
		if b != int64(len(h.Buckets)) {
			return nil, fmt.Errorf("%s:%d: bucket %d out of order: buckets must be numbered 0, 1, 2, ... (expected %d)", name, n, b, len(h.Buckets))
		}
		h.Buckets = append(h.Buckets, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: empty histogram file", name)
	}
	for _, c := range h.Buckets {
		h.area += c
	}
	if h.area <= 0 || h.area > math.MaxInt32 {
		return nil, fmt.Errorf("%s: bucket counts must sum to between 1 and %d, got %d", name, math.MaxInt32, h.area)
	}
	if int64(len(h.Buckets))*h.BlockSize > 1<<30 {
		return nil, fmt.Errorf("%s: largest field length %d is too large", name, int64(len(h.Buckets))*h.BlockSize)
	}
	return h, nil
}

// fileSource describes a property file for Options.Sources.
func fileSource(kind, name string, data []byte) Source {
	sum := sha256.Sum256(data)
	return Source{Kind: kind, Name: name, SHA256: hex.EncodeToString(sum[:])}
}
