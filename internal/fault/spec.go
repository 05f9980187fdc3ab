package fault

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Net is the kind of a network fault; "" for a run= command.
type Net string

// Network fault kinds.
const (
	NetPause     Net = "pause"     // nothing passes in either direction, nothing is lost
	NetLatency   Net = "latency"   // delay (± jitter) added to every round trip
	NetBandwidth Net = "bandwidth" // each direction limited to rate bytes/s
	NetReset     Net = "reset"     // every open connection cut; with for=, new ones too
)

var netKinds = []Net{NetPause, NetLatency, NetBandwidth, NetReset}

// NodeAll as Fault.Node applies a network fault to every node.
const NodeAll = -1

// keys lists the keys a fault may have, in canonical order (run last: its
// value is the rest of the text).
var keys = []string{"at", "for", "net", "node", "delay", "jitter", "rate", "run", "sql"}

// Fault is one scheduled fault. Make it with Parse or ParseFields: Validate
// relies on knowing which keys were given.
type Fault struct {
	Text    string        // the fault as written, for messages and results
	At      time.Duration // offset from the start of the run
	For     time.Duration // how long a network fault lasts; 0 when not given
	Command string        // run=: a shell command (sh -c)
	SQL     string        // sql=: one statement, run on a new session of the target
	Net     Net           // net=: the network fault kind
	Node    int           // node=: index of the target (0-based) or NodeAll
	Delay   time.Duration // latency: added per round trip
	Jitter  time.Duration // latency: ± around Delay
	Rate    int64         // bandwidth: bytes per second

	given map[string]bool
}

// Has reports whether key was given.
func (f Fault) Has(key string) bool { return f.given[key] }

// Kind names the fault for results and reports: "run" or "net-<kind>".
func (f Fault) Kind() string {
	if f.Has("run") {
		return "run"
	}
	if f.Has("sql") {
		return "sql"
	}
	return "net-" + string(f.Net)
}

// Parse reads one fault written as space-separated KEY=VALUE pairs. run=
// (and sql=) must come last: everything after it, spaces included, is the
// command (the statement).
// It reports every malformed pair at once; what the pairs mean together is
// checked by Validate.
func Parse(text string) (Fault, error) {
	var fields [][2]string
	var errs []error
	rest := strings.TrimSpace(text)
	for rest != "" {
		tok := rest
		if i := strings.IndexAny(rest, " \t"); i >= 0 {
			tok = rest[:i]
		}
		k, v, ok := strings.Cut(tok, "=")
		if ok && (k == "run" || k == "sql") {
			// run= and sql= take the rest of the text as the command.
			v = strings.TrimSpace(rest[len(k)+1:])
			rest = ""
		} else {
			rest = strings.TrimSpace(rest[len(tok):])
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not KEY=VALUE (keys: %s)", tok, strings.Join(keys, ", ")))
			continue
		}
		fields = append(fields, [2]string{k, v})
	}
	f, err := ParseFields(fields)
	f.Text = strings.TrimSpace(text)
	if err != nil {
		errs = append(errs, err)
	}
	if len(fields) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("empty fault: write e.g. 'at=20s run=CMD' or 'at=20s for=5s net=pause node=0'"))
	}
	if len(errs) > 0 {
		return f, fmt.Errorf("fault %q: %w", f.Text, errors.Join(errs...))
	}
	return f, nil
}

// ParseFields builds a fault from KEY, VALUE pairs (a plan's faults: entry),
// reporting every unknown or duplicate key and malformed value at once.
func ParseFields(fields [][2]string) (Fault, error) {
	f := Fault{given: map[string]bool{}}
	var errs []error
	for _, kv := range fields {
		k, v := kv[0], kv[1]
		if !knownKey(k) {
			errs = append(errs, fmt.Errorf("unknown key %q (keys: %s)", k, strings.Join(keys, ", ")))
			continue
		}
		if f.given[k] {
			errs = append(errs, fmt.Errorf("%s= given twice", k))
			continue
		}
		f.given[k] = true
		if v == "" {
			errs = append(errs, fmt.Errorf("%s= is empty", k))
			continue
		}
		var err error
		switch k {
		case "at":
			f.At, err = parseDuration(k, v)
		case "for":
			f.For, err = parseDuration(k, v)
		case "delay":
			f.Delay, err = parseDuration(k, v)
		case "jitter":
			f.Jitter, err = parseDuration(k, v)
		case "run":
			f.Command = v
		case "sql":
			f.SQL = v
		case "net":
			f.Net = Net(v)
			if !knownNet(f.Net) {
				err = fmt.Errorf("net=%s is not a network fault (pause, latency, bandwidth, reset)", v)
			}
		case "node":
			f.Node, err = parseNode(v)
		case "rate":
			f.Rate, err = parseRate(v)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return f, errors.Join(errs...)
	}
	return f, nil
}

// ParseMap builds a fault from a plan's faults: entry (a mapping of the
// same keys). Its Text is the canonical form, keys in a fixed order.
func ParseMap(m map[string]string) (Fault, error) {
	fields := make([][2]string, 0, len(m))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			fields = append(fields, [2]string{k, v})
		}
	}
	var unknown []string
	for k := range m {
		if !knownKey(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		fields = append(fields, [2]string{k, m[k]})
	}
	f, err := ParseFields(fields)
	f.Text = f.String()
	if err != nil {
		return f, fmt.Errorf("fault %q: %w", f.Text, err)
	}
	return f, nil
}

func knownKey(k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func knownNet(n Net) bool {
	for _, x := range netKinds {
		if x == n {
			return true
		}
	}
	return false
}

func parseDuration(k, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return 0, fmt.Errorf("%s=%s has no unit: write e.g. %s=%ss", k, v, k, v)
		}
		return 0, fmt.Errorf("%s=%s is not a duration (e.g. 20s, 1m30s, 500ms)", k, v)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s=%s is negative", k, v)
	}
	return d, nil
}

func parseNode(v string) (int, error) {
	if v == "all" {
		return NodeAll, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("node=%s is not a node number (0 for the first --target, 1 for the second, ...) or all", v)
	}
	return n, nil
}

// parseRate reads a bandwidth such as 500KB/s or 2MB/s (K = 1000).
func parseRate(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"GB/S", 1e9}, {"MB/S", 1e6}, {"KB/S", 1e3}, {"B/S", 1}}
	up := strings.ToUpper(v)
	for _, u := range units {
		if num, ok := strings.CutSuffix(up, u.suffix); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || x <= 0 || x*u.mult > 1e15 {
				break
			}
			return int64(x * u.mult), nil
		}
	}
	return 0, fmt.Errorf("rate=%s is not a bandwidth: write e.g. rate=500KB/s or rate=2MB/s", v)
}

// String writes the fault back in canonical form (keys in a fixed order,
// run= last); Parse(f.String()) gives the same fault.
func (f Fault) String() string {
	var parts []string
	for _, k := range keys {
		if !f.Has(k) {
			continue
		}
		var v string
		switch k {
		case "at":
			v = f.At.String()
		case "for":
			v = f.For.String()
		case "delay":
			v = f.Delay.String()
		case "jitter":
			v = f.Jitter.String()
		case "run":
			v = f.Command
		case "sql":
			v = f.SQL
		case "net":
			v = string(f.Net)
		case "node":
			v = "all"
			if f.Node != NodeAll {
				v = strconv.Itoa(f.Node)
			}
		case "rate":
			v = strconv.FormatInt(f.Rate, 10) + "B/s"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// Limits is what a schedule is checked against.
type Limits struct {
	// RunLength is the run's duration; 0 when the run is bounded otherwise
	// (by an operation count) and times cannot be checked against it.
	RunLength time.Duration
	// Nodes is the number of targets a proxy stands in front of; network
	// faults name one of them. 0: no proxy, network faults are refused.
	Nodes int
}

// Validate lists every problem of one fault, each naming the fix.
func (f Fault) Validate(l Limits) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	run, net, sql := f.Has("run"), f.Has("net"), f.Has("sql")
	if !f.Has("at") {
		add("at= is missing: when the fault starts, from the start of the run (e.g. at=20s)")
	}
	switch {
	case run && net:
		add("run= and net= together: a fault is either a command (run=) or a network fault (net=); write two faults")
	case sql && (run || net):
		add("sql= with run= or net=: a fault is one statement (sql=), one command (run=) or one network fault (net=); write two faults")
	case !run && !net && !sql:
		add("neither run=, sql= nor net=: give a command (run=CMD), a statement (sql=STATEMENT) or a network fault (net=pause|latency|bandwidth|reset)")
	}
	if (run || sql) && !net {
		what := map[bool]string{true: "run= command (it ends when the command exits; the command addresses nodes itself)",
			false: "sql= statement (it ends when the statement does, on a new session of the target)"}[run]
		for _, k := range []string{"for", "node", "delay", "jitter", "rate"} {
			if f.Has(k) {
				add("%s= does not apply to a %s", k, what)
			}
		}
	}
	if net && knownNet(f.Net) {
		switch {
		case !f.Has("node"):
			add("node= is missing: which --target the network fault hits (0 for the first, or all)")
		case l.Nodes == 0:
			add("net=%s: the run has no target reached over TCP (host:port) to put the proxy in front of", f.Net)
		case f.Node != NodeAll && f.Node >= l.Nodes:
			add("node=%d does not exist: the run has %d target(s), nodes 0 to %d (or all)", f.Node, l.Nodes, l.Nodes-1)
		}
		if f.Net != NetReset && !f.Has("for") {
			add("for= is missing: how long the %s lasts (e.g. for=5s)", f.Net)
		}
		if f.Has("for") && f.For <= 0 {
			add("for=%s: a network fault lasts more than 0s", f.For)
		}
		only := map[string]Net{"delay": NetLatency, "jitter": NetLatency, "rate": NetBandwidth}
		for _, k := range []string{"delay", "jitter", "rate"} {
			if f.Has(k) && only[k] != f.Net {
				add("%s= applies only to net=%s", k, only[k])
			}
		}
		switch f.Net {
		case NetLatency:
			if !f.Has("delay") {
				add("delay= is missing: the latency added per round trip (e.g. delay=50ms)")
			} else if f.Delay < time.Millisecond || f.Delay%time.Millisecond != 0 {
				add("delay=%s: give whole milliseconds, at least 1ms", f.Delay)
			}
			if f.Has("jitter") && (f.Jitter%time.Millisecond != 0 || f.Jitter > f.Delay) {
				add("jitter=%s: give whole milliseconds, at most delay=%s", f.Jitter, f.Delay)
			}
		case NetBandwidth:
			if !f.Has("rate") {
				add("rate= is missing: the bandwidth per direction (e.g. rate=500KB/s)")
			} else if f.Rate < 1000 {
				add("rate=%dB/s is below the smallest limit, 1KB/s", f.Rate)
			}
		}
	}
	if l.RunLength > 0 && f.Has("at") {
		if f.At >= l.RunLength {
			add("at=%s is not within the run (%s long): schedule it earlier or lengthen --time", f.At, l.RunLength)
		} else if f.Has("for") && f.At+f.For > l.RunLength {
			add("at=%s for=%s ends after the run (%s long): shorten for= or lengthen --time", f.At, f.For, l.RunLength)
		}
	}
	return errs
}

// Schedule is the run's faults, in the order given.
type Schedule []Fault

// ParseAll parses every fault text, reporting every malformed one.
func ParseAll(texts []string) (Schedule, error) {
	s := make(Schedule, 0, len(texts))
	var errs []error
	for _, t := range texts {
		f, err := Parse(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s = append(s, f)
	}
	return s, errors.Join(errs...)
}

// Validate lists every problem of every fault at once, each prefixed with
// the fault it belongs to.
func (s Schedule) Validate(l Limits) []error {
	var errs []error
	for i, f := range s {
		for _, e := range f.Validate(l) {
			errs = append(errs, fmt.Errorf("fault %d (%s): %w", i+1, f.Text, e))
		}
	}
	return errs
}

// HasNet reports whether any fault needs the network proxy.
func (s Schedule) HasNet() bool {
	for _, f := range s {
		if f.Has("net") {
			return true
		}
	}
	return false
}

// Order returns the schedule's indexes sorted by start time (stable).
func (s Schedule) Order() []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]].At < s[idx[b]].At })
	return idx
}
