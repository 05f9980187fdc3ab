// Package plan reads experiment plans — a matrix of runs (targets ×
// workloads × threads × any option × repetitions) in one YAML file — validates
// them with every problem reported at once (file:line), and expands them into
// cells, each a complete `candor run` command line with its own result file.
// It runs nothing itself.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/candor-bench/candor/internal/fault"
	"github.com/candor-bench/candor/internal/published"
)

// Plan is a parsed plan file.
type Plan struct {
	Name        string
	File        string
	Description string
	Output      string            // results directory (relative paths are relative to the plan file)
	Targets     map[string]string // name -> URL, environment variables already expanded
	TargetOrder []string
	// Unset names the environment variables the target URLs refer to that
	// were not set, sorted. Only ReadUnexpanded accepts them (their ${VAR}
	// stays in the URL); `plan run` needs every one.
	Unset       []string
	Workloads   []Workload
	Matrix      []Axis // varied in order: the first axis varies slowest
	Repetitions int
	Warmup      time.Duration
	Duration    time.Duration
	Operations  int64
	Args        []string // extra run flags for every cell, e.g. --rate 1000 (the faults follow: CellArgs)
	// Faults are the plan's faults: entries in the --fault form, in order;
	// FaultTargets[i] names the targets fault i applies to (nil: all).
	Faults       []string
	FaultTargets [][]string
	// Setups are the targets that a command starts for each cell (a
	// mapping with setup: in targets): by target name.
	Setups map[string]TargetSetup
	// Published is the plan's published: block (published.go); nil without one.
	Published *published.Published
}

// FromSetup is the URL of a target whose URLs its setup commands print
// (in the cell's command line until the setup has run).
const FromSetup = "from-setup"

// RepetitionAxis is a matrix axis that runs a cell again as a cell of its
// own, with its own setup (a fresh cluster for each fail-over): it names
// the cells and is passed to no workload.
const RepetitionAxis = "repetition"

// TargetSetup is a target started for each cell: Setup's commands run
// before the cell (each with sh -c; CANDOR_CELL_DIR names a directory that
// does not exist yet, for the cluster), and the URLs the last one prints,
// one per line, are the cell's --target flags (the first URLs of them when
// URLs > 0). Teardown's commands run after the cell, whatever happened.
type TargetSetup struct {
	Setup, Teardown []string
	URLs            int
}

// Workload is one workload entry of a plan.
type Workload struct {
	Name    string
	Options map[string]string // -p key=value / workload flags, in sorted order when used
	Files   []string          // -P property files, relative to the plan file
	Targets []string          // limit to these targets (default: all)
}

// Axis is one dimension of the matrix: "threads", "target", an option
// name, or VariantsAxis.
type Axis struct {
	Name   string
	Values []string
	// Sets are a variants axis's values: each sets several parameters at
	// once (threads, target, options); Values[i] is Sets[i] as text.
	Sets []map[string]string
}

// VariantsAxis is the matrix axis whose values are mappings, each setting
// several parameters at once: a matrix that is no full cross product (E3's
// three id strategies: auto-inc on with cache 1, on with cache 1000, off).
const VariantsAxis = "variants"

// assign is what the axis's i-th value sets.
func (a Axis) assign(i int) map[string]string {
	if a.Sets != nil {
		return a.Sets[i]
	}
	return map[string]string{a.Name: a.Values[i]}
}

// Cell is one run of the plan.
type Cell struct {
	// ID is the cell's stable, file-name-safe name, unique in the plan:
	// workload, target, t<threads> (when the plan varies threads), then
	// key-value for every option whose value is not the same in all cells
	// of the workload, e.g. sysbench-oltp_read_only_pg_t8_range-selects-off.
	// When that would be longer than MaxIDLength (or two cells would still
	// share a name), the options give way to a short hash of Key.
	ID       string
	Target   string            // target name
	Workload string            // workload name
	Params   map[string]string // every axis value and workload option of the cell
	Args     []string          // the `candor run` arguments (after "run")
	Result   string            // result file path
	// DataKey identifies the data the cell needs loaded: cells with the same
	// key share a loaded table; a change of key reloads.
	DataKey string
	// Key is the cell's whole identity: workload, target, threads, every
	// option, property file and plan-wide run setting. No two cells of a
	// plan share it. Identity is its short hash, recorded in the cell's
	// result (plan parameter "identity") so that a result made with other
	// settings is not taken for the cell's.
	Key      string
	Identity string
	// entry is the index of the workload entry the cell comes from.
	entry int
}

// MaxIDLength bounds a cell's name: longer names keep workload, target and
// threads and replace the options by an 8-hex-digit hash of the cell's Key.
const MaxIDLength = 80

// Error lists every problem of a plan file.
type Error struct {
	File     string
	Problems []string // "line N: ..." each
}

func (e *Error) Error() string {
	return fmt.Sprintf("plan %s has %d problem(s):\n  %s", e.File, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// ErrPlan marks an invalid plan.
var ErrPlan = errors.New("invalid plan")

func (e *Error) Unwrap() error { return ErrPlan }

// raw mirrors the YAML layout.
type raw struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Output      string         `yaml:"output"`
	Targets     yaml.Node      `yaml:"targets"`
	Workloads   []rawWorkload  `yaml:"workloads"`
	Matrix      yaml.Node      `yaml:"matrix"`
	Repetitions int            `yaml:"repetitions"`
	Warmup      string         `yaml:"warmup"`
	Duration    string         `yaml:"duration"`
	Operations  int64          `yaml:"operations"`
	Args        []string       `yaml:"args"`
	Faults      []yaml.Node    `yaml:"faults"`
	Published   yaml.Node      `yaml:"published"`
	Extra       map[string]any `yaml:",inline"`
}

type rawSetup struct {
	URL      string         `yaml:"url"`
	Setup    []string       `yaml:"setup"`
	Teardown []string       `yaml:"teardown"`
	URLs     int            `yaml:"urls"`
	Extra    map[string]any `yaml:",inline"`
}

type rawWorkload struct {
	Name    string         `yaml:"name"`
	Options map[string]any `yaml:"options"`
	Files   []string       `yaml:"property-files"`
	Targets []string       `yaml:"targets"`
	Extra   map[string]any `yaml:",inline"`
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Parse reads a plan. getenv resolves ${VAR} references in target URLs (for
// secrets); a reference to an unset variable is a problem.
func Parse(file string, data []byte, getenv func(string) string) (*Plan, error) {
	return parse(file, data, getenv, false)
}

// ParseUnexpanded reads a plan as Parse does, except that a ${VAR} of an
// unset variable is no problem: it stays in the URL as written and is
// listed in Plan.Unset. For listing a plan's cells without its secrets.
func ParseUnexpanded(file string, data []byte, getenv func(string) string) (*Plan, error) {
	return parse(file, data, getenv, true)
}

func parse(file string, data []byte, getenv func(string) string, keepUnset bool) (*Plan, error) {
	perr := &Error{File: file}
	add := func(line int, format string, a ...any) {
		perr.Problems = append(perr.Problems, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, a...)))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		perr.Problems = append(perr.Problems, yamlProblem(err))
		return nil, perr
	}
	var r raw
	if err := root.Decode(&r); err != nil {
		perr.Problems = append(perr.Problems, yamlProblem(err))
		return nil, perr
	}
	lines := keyLines(&root)
	for k := range r.Extra {
		add(lines[k], "unknown key %q; valid keys: name, description, output, targets, workloads, matrix, repetitions, warmup, duration, operations, args, faults, published", k)
	}
	var faultLines []int
	p := &Plan{Name: r.Name, File: file, Description: r.Description, Output: r.Output, Repetitions: r.Repetitions,
		Operations: r.Operations, Args: r.Args, Targets: map[string]string{}, Setups: map[string]TargetSetup{}}
	for _, n := range r.Faults {
		m := map[string]string{}
		var nodes map[string]yaml.Node
		if n.Kind != yaml.MappingNode || n.Decode(&nodes) != nil {
			add(n.Line, "faults: each entry is a mapping of the --fault keys, e.g. {at: 20s, run: scripts/pg-cluster.sh kill DIR 0}")
			continue
		}
		var targets []string
		bad := false
		for k, v := range nodes {
			switch {
			case k == "targets":
				if v.Decode(&targets) != nil || len(targets) == 0 {
					add(v.Line, "faults: targets must be a non-empty list of the plan's target names (the cells the fault applies to)")
					bad = true
				}
			case v.Kind != yaml.ScalarNode:
				add(v.Line, "faults: %s must be a single value", k)
				bad = true
			default:
				m[k] = v.Value
			}
		}
		if bad {
			continue
		}
		f, err := fault.ParseMap(m)
		if err != nil {
			add(n.Line, "%v", err)
			continue
		}
		// Times and nodes are checked by candor run against the cell.
		p.Faults = append(p.Faults, f.Text)
		p.FaultTargets = append(p.FaultTargets, targets)
		faultLines = append(faultLines, n.Line)
	}
	if p.Name == "" {
		add(1, "name is missing: give the plan a name (it names its results)")
	}
	if p.Output == "" {
		p.Output = filepath.Join("results", safe(p.Name))
	}
	if !filepath.IsAbs(p.Output) {
		p.Output = filepath.Join(filepath.Dir(file), p.Output)
	}
	if p.Repetitions == 0 {
		p.Repetitions = 1
	}
	if p.Repetitions < 1 {
		add(lines["repetitions"], "repetitions must be at least 1 (got %d)", r.Repetitions)
	}
	parseDur := func(key, s string) time.Duration {
		if s == "" {
			return 0
		}
		if secs, err := strconv.ParseFloat(s, 64); err == nil {
			return time.Duration(secs * float64(time.Second))
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			add(lines[key], "%s %q is not a duration such as 30s or 5m", key, s)
		}
		return d
	}
	p.Warmup = parseDur("warmup", r.Warmup)
	p.Duration = parseDur("duration", r.Duration)
	if p.Duration == 0 && p.Operations == 0 {
		add(lines["duration"], "give duration (e.g. 30s) or operations: a cell must end")
	}

	// targets: a mapping name -> URL
	switch {
	case r.Targets.Kind == 0:
		add(1, "targets is missing: name at least one, e.g. targets: {pg: postgres://user@127.0.0.1:5432/db}")
	case r.Targets.Kind != yaml.MappingNode:
		add(r.Targets.Line, "targets must be a mapping of names to URLs")
	default:
		// An unset variable is one problem however many targets use it.
		missing := map[string][]string{}
		missingLine := map[string]int{}
		var missingOrder []string
		for i := 0; i+1 < len(r.Targets.Content); i += 2 {
			k, v := r.Targets.Content[i], r.Targets.Content[i+1]
			if v.Kind == yaml.MappingNode {
				var rs rawSetup
				if err := v.Decode(&rs); err != nil {
					add(v.Line, "target %q: %s", k.Value, yamlProblem(err))
					continue
				}
				for x := range rs.Extra {
					add(v.Line, "target %q: unknown key %q; valid keys: setup, teardown, urls", k.Value, x)
				}
				if rs.URL != "" || len(rs.Setup) == 0 {
					add(v.Line, "target %q: a target given as a mapping is started by its setup: commands (setup: [...], teardown: [...], urls: N); give a plain URL otherwise", k.Value)
				}
				if rs.URLs < 0 {
					add(v.Line, "target %q: urls must be 0 (every URL the setup prints) or more", k.Value)
				}
				p.Setups[k.Value] = TargetSetup{Setup: rs.Setup, Teardown: rs.Teardown, URLs: rs.URLs}
				p.Targets[k.Value] = FromSetup
				p.TargetOrder = append(p.TargetOrder, k.Value)
				continue
			}
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				add(v.Line, "target %q needs a URL", k.Value)
				continue
			}
			unset := false
			url := envRef.ReplaceAllStringFunc(v.Value, func(m string) string {
				name := envRef.FindStringSubmatch(m)[1]
				val := getenv(name)
				if val == "" {
					unset = true
					if keepUnset {
						if !contains(p.Unset, name) {
							p.Unset = append(p.Unset, name)
						}
						return m
					}
					if missing[name] == nil {
						missingOrder = append(missingOrder, name)
						missingLine[name] = v.Line
					}
					if !contains(missing[name], k.Value) {
						missing[name] = append(missing[name], k.Value)
					}
				}
				return val
			})
			// With a variable unset the URL cannot be checked: its one cause
			// is reported once, above.
			if !unset && !strings.Contains(url, "://") {
				add(v.Line, "target %q: %q is not a URL (scheme://...)", k.Value, v.Value)
			}
			p.Targets[k.Value] = url
			p.TargetOrder = append(p.TargetOrder, k.Value)
		}
		for _, name := range missingOrder {
			ts := missing[name]
			what := fmt.Sprintf("target %q uses", ts[0])
			if len(ts) > 1 {
				what = fmt.Sprintf("targets %s use", strings.Join(quoteAll(ts), ", "))
			}
			add(missingLine[name], "%s ${%s}, which is not set in the environment: set it (e.g. %s=postgres://user@host:5432/db)", what, name, name)
		}
	}

	// workloads
	wlNode := findKey(&root, "workloads")
	if len(r.Workloads) == 0 {
		add(lines["workloads"], "workloads is missing or empty: list at least one, e.g. - name: ycsb/a")
	}
	for i, w := range r.Workloads {
		line := itemLine(wlNode, i)
		if w.Name == "" {
			add(line, "workload %d has no name", i+1)
		}
		for k := range w.Extra {
			add(line, "workload %q: unknown key %q; valid keys: name, options, property-files, targets", w.Name, k)
		}
		for _, t := range w.Targets {
			if _, ok := p.Targets[t]; !ok && r.Targets.Kind == yaml.MappingNode {
				add(line, "workload %q names target %q, which targets does not define", w.Name, t)
			}
		}
		opts := map[string]string{}
		for k, v := range w.Options {
			opts[k] = fmt.Sprint(v)
		}
		var files []string
		for _, f := range w.Files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(file), f)
			}
			files = append(files, f)
		}
		p.Workloads = append(p.Workloads, Workload{Name: w.Name, Options: opts, Files: files, Targets: w.Targets})
	}

	// matrix: a mapping axis -> list of values, in file order
	if r.Matrix.Kind != 0 {
		if r.Matrix.Kind != yaml.MappingNode {
			add(r.Matrix.Line, "matrix must map axis names (threads, target, or an option) to lists of values")
		} else {
			for i := 0; i+1 < len(r.Matrix.Content); i += 2 {
				k, v := r.Matrix.Content[i], r.Matrix.Content[i+1]
				ax := Axis{Name: k.Value}
				if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
					add(k.Line, "matrix axis %q needs a non-empty list of values", k.Value)
					continue
				}
				if ax.Name == VariantsAxis {
					p.Matrix = append(p.Matrix, variantsAxis(v, add))
					continue
				}
				for _, item := range v.Content {
					if item.Kind != yaml.ScalarNode {
						add(item.Line, "matrix axis %q: values must be scalars", k.Value)
						continue
					}
					ax.Values = append(ax.Values, item.Value)
				}
				switch ax.Name {
				case "threads":
					for _, s := range ax.Values {
						if n, err := strconv.Atoi(s); err != nil || n < 1 {
							add(k.Line, "matrix threads: %q is not a positive integer", s)
						}
					}
				case "target":
					for _, s := range ax.Values {
						if _, ok := p.Targets[s]; !ok && r.Targets.Kind == yaml.MappingNode {
							add(k.Line, "matrix target: %q is not defined in targets", s)
						}
					}
				}
				p.Matrix = append(p.Matrix, ax)
			}
			p.checkMatrix(r.Matrix.Line, r.Targets.Kind == yaml.MappingNode, add)
		}
	}
	for i, ts := range p.FaultTargets {
		for _, t := range ts {
			if _, ok := p.Targets[t]; !ok && r.Targets.Kind == yaml.MappingNode {
				add(faultLines[i], "faults: target %q is not defined in targets", t)
			}
		}
	}
	sort.Strings(p.Unset)
	// The claims' selectors are checked against the cells whenever the
	// cells are the plan's (nothing above went wrong), beside the
	// published: block's own problems.
	cellsRight := len(perr.Problems) == 0
	if r.Published.Kind != 0 {
		p.Published = published.Parse(&r.Published, add)
	}
	if cellsRight {
		p.checkPublished(r.Published.Line, add)
	}
	if len(perr.Problems) == 0 {
		// Two entries that expand to the same run would share a result.
		first := map[string]int{}
		for _, c := range p.Cells() {
			if e, ok := first[c.Key]; ok {
				if e != c.entry {
					add(itemLine(wlNode, c.entry), "workload %q: entries %d and %d are the same runs (same options, property files and targets); remove one",
						p.Workloads[c.entry].Name, e+1, c.entry+1)
				} else {
					add(r.Matrix.Line, "matrix: cell %s comes twice (a value listed twice in an axis?)", c.ID)
				}
				break
			}
			first[c.Key] = c.entry
		}
		for _, prob := range p.checkIgnored() {
			add(r.Matrix.Line, "%s", prob)
		}
	}
	if len(perr.Problems) > 0 {
		sort.SliceStable(perr.Problems, func(i, j int) bool { return lineOf(perr.Problems[i]) < lineOf(perr.Problems[j]) })
		return nil, perr
	}
	return p, nil
}

// Read parses a plan file from disk.
func Read(file string, getenv func(string) string) (*Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data, getenv)
}

// ReadUnexpanded parses a plan file from disk as ParseUnexpanded does.
func ReadUnexpanded(file string, getenv func(string) string) (*Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseUnexpanded(file, data, getenv)
}

func lineOf(problem string) int {
	var n int
	fmt.Sscanf(problem, "line %d:", &n)
	return n
}

func yamlProblem(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		return msg
	}
	return "line 1: " + msg
}

// keyLines maps top-level keys to their line numbers.
func keyLines(root *yaml.Node) map[string]int {
	out := map[string]int{}
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			out[m.Content[i].Value] = m.Content[i].Line
		}
	}
	for _, k := range []string{"duration", "workloads", "repetitions"} {
		if out[k] == 0 {
			out[k] = 1
		}
	}
	return out
}

func findKey(root *yaml.Node, key string) *yaml.Node {
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
	}
	return nil
}

func itemLine(seq *yaml.Node, i int) int {
	if seq != nil && seq.Kind == yaml.SequenceNode && i < len(seq.Content) {
		return seq.Content[i].Line
	}
	return 1
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safe(s string) string { return strings.Trim(unsafeChars.ReplaceAllString(s, "-"), "-") }

// dataOptions are the options whose change needs the data loaded again.
var dataOptions = map[string]bool{
	"recordcount": true, "fieldcount": true, "fieldlength": true, "table": true, "insertstart": true, "insertcount": true,
	"tables": true, "table-size": true, "auto-inc": true, "secondary": true, "create-secondary": true,
	"sharding": true, "split-at": true, "presplit": true, "sequence-cache": true,
	"pairs": true, "rows": true, "value-size": true, "key-size": true, "columns": true,
}

// Cells expands the plan: for each workload, every combination of the
// matrix axes (the first axis varies slowest) on every target it applies to.
// Cells that need the same loaded data are adjacent where the axes allow.
//
// Threads are passed to `candor run` only when the matrix has a threads
// axis; otherwise each workload runs with its own default (commit-loop: one
// worker per job).
func (p *Plan) Cells() []Cell {
	var cells []Cell
	axes := p.Matrix
	hasTargetAxis := p.targetVaries()
	for wi, w := range p.Workloads {
		targets := w.Targets
		if len(targets) == 0 {
			targets = p.TargetOrder
		}
		combos := [][]int{{}}
		for _, a := range axes {
			var next [][]int
			for _, c := range combos {
				for i := range a.Values {
					next = append(next, append(append([]int(nil), c...), i))
				}
			}
			combos = next
		}
		tlist := targets
		if hasTargetAxis {
			tlist = []string{""}
		}
		for _, t := range tlist {
			for _, combo := range combos {
				c := Cell{Workload: w.Name, Target: t, Params: map[string]string{}, entry: wi}
				for k, v := range w.Options {
					c.Params[k] = v
				}
				for i, a := range axes {
					for k, v := range a.assign(combo[i]) {
						switch k {
						case "target":
							c.Target = v
						default: // threads and options
							c.Params[k] = v
						}
					}
				}
				if hasTargetAxis && len(w.Targets) > 0 && !contains(w.Targets, c.Target) {
					continue
				}
				c.Params["target"] = c.Target
				cells = append(cells, p.finish(c, w))
			}
		}
	}
	p.name(cells)
	return cells
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// optionKeys are a cell's option names, sorted (threads and target apart).
func optionKeys(c Cell) []string {
	var keys []string
	for k := range c.Params {
		if k != "threads" && k != "target" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// finish builds the cell's identity, data key and command line (its result
// path is set once the cell is named).
func (p *Plan) finish(c Cell, w Workload) Cell {
	keys := optionKeys(c)
	var data, key bytes.Buffer
	fmt.Fprintf(&data, "%s|%s", w.Name, c.Target)
	fmt.Fprintf(&key, "workload=%s\ntarget=%s\n", w.Name, c.Target)
	if t, ok := c.Params["threads"]; ok {
		fmt.Fprintf(&key, "threads=%s\n", t)
	}
	for _, k := range keys {
		if dataOptions[k] {
			fmt.Fprintf(&data, "|%s=%s", k, c.Params[k])
		}
		fmt.Fprintf(&key, "-p %s=%s\n", k, c.Params[k])
	}
	for _, f := range w.Files {
		fmt.Fprintf(&key, "-P %s\n", f)
	}
	fmt.Fprintf(&key, "repetitions=%d time=%s operations=%d warmup=%s args=%q", p.Repetitions, p.Duration, p.Operations, p.Warmup, p.CellArgs(c.Target))
	c.DataKey = data.String()
	c.Key = key.String()
	c.Identity = shortHash(c.Key)
	return c
}

// name gives every cell its ID, result path and command line. The options
// in a name are those whose value is not the same in every cell of the
// workload (a missing option counts as a value of its own); a name that
// would be too long, or that two cells would share (they differ only in
// their property files), ends in a hash of the cell's Key instead.
func (p *Plan) name(cells []Cell) {
	threadAxis := p.sets("threads")
	varies := map[string]map[string]bool{} // workload -> option keys that vary
	for _, w := range p.Workloads {
		if varies[w.Name] != nil {
			continue
		}
		varies[w.Name] = map[string]bool{}
		values := map[string]map[string]bool{}
		for _, c := range cells {
			if c.Workload == w.Name {
				for _, k := range optionKeys(c) {
					if values[k] == nil {
						values[k] = map[string]bool{}
					}
					values[k][c.Params[k]] = true
				}
			}
		}
		for _, c := range cells {
			if c.Workload != w.Name {
				continue
			}
			for k, vs := range values {
				if _, has := c.Params[k]; len(vs) > 1 || !has {
					varies[w.Name][k] = true
				}
			}
		}
	}
	byName := map[string][]int{}
	for i := range cells {
		c := &cells[i]
		base := []string{safe(c.Workload), safe(c.Target)}
		if threadAxis {
			base = append(base, "t"+safe(c.Params["threads"]))
		}
		id := base
		for _, k := range optionKeys(*c) {
			if varies[c.Workload][k] {
				id = append(id, safe(k)+"-"+safe(c.Params[k]))
			}
		}
		c.ID = strings.Join(id, "_")
		if len(c.ID) > MaxIDLength {
			c.ID = strings.Join(append(base, shortHash(c.Key)), "_")
		}
		byName[c.ID] = append(byName[c.ID], i)
	}
	for _, idx := range byName {
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			cells[i].ID += "_" + shortHash(cells[i].Key)
		}
	}
	for i := range cells {
		p.command(&cells[i])
	}
}

// shortHash is 8 hex digits of FNV-1a over s: stable across runs and
// versions, so a renamed cell is found again.
func shortHash(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// command sets the cell's result path and `candor run` arguments.
func (p *Plan) command(c *Cell) {
	w := p.Workloads[c.entry]
	c.Result = filepath.Join(p.Output, c.ID+".json")
	args := []string{w.Name, "--target", p.Targets[c.Target]}
	if t, ok := c.Params["threads"]; ok {
		args = append(args, "--threads", t)
	}
	args = append(args, "--repeat", strconv.Itoa(p.Repetitions), "-o", c.Result)
	if p.Duration > 0 {
		args = append(args, "--time", p.Duration.String())
	}
	if p.Operations > 0 {
		args = append(args, "--operations", strconv.FormatInt(p.Operations, 10))
	}
	if p.Warmup > 0 {
		args = append(args, "--warmup", p.Warmup.String())
	}
	for _, f := range w.Files {
		args = append(args, "-P", f)
	}
	for _, k := range optionKeys(*c) {
		if k == RepetitionAxis {
			continue // names the cell only
		}
		args = append(args, "-p", k+"="+c.Params[k])
	}
	c.Args = append(args, p.CellArgs(c.Target)...)
}

// CellArgs are the plan-wide run flags of a cell on the target: args, then
// a --fault per faults: entry that applies to it, in the plan's order.
func (p *Plan) CellArgs(target string) []string {
	out := append([]string(nil), p.Args...)
	for i, f := range p.Faults {
		if ts := p.FaultTargets[i]; ts == nil || contains(ts, target) {
			out = append(out, "--fault", f)
		}
	}
	return out
}
