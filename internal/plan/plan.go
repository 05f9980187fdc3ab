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
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Plan is a parsed plan file.
type Plan struct {
	Name        string
	File        string
	Description string
	Output      string            // results directory (relative paths are relative to the plan file)
	Targets     map[string]string // name -> URL, environment variables already expanded
	TargetOrder []string
	Workloads   []Workload
	Matrix      []Axis // varied in order: the first axis varies slowest
	Repetitions int
	Warmup      time.Duration
	Duration    time.Duration
	Operations  int64
	Args        []string // extra run flags for every cell, e.g. --rate 1000
}

// Workload is one workload entry of a plan.
type Workload struct {
	Name    string
	Options map[string]string // -p key=value / workload flags, in sorted order when used
	Files   []string          // -P property files, relative to the plan file
	Targets []string          // limit to these targets (default: all)
}

// Axis is one dimension of the matrix: "threads", "target", or an option name.
type Axis struct {
	Name   string
	Values []string
}

// Cell is one run of the plan.
type Cell struct {
	ID       string            // stable file-name-safe identifier
	Target   string            // target name
	Workload string            // workload name
	Params   map[string]string // every axis value and workload option of the cell
	Args     []string          // the `candor run` arguments (after "run")
	Result   string            // result file path
	// DataKey identifies the data the cell needs loaded: cells with the same
	// key share a loaded table; a change of key reloads.
	DataKey string
}

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
	Extra       map[string]any `yaml:",inline"`
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
		add(lines[k], "unknown key %q; valid keys: name, description, output, targets, workloads, matrix, repetitions, warmup, duration, operations, args", k)
	}
	p := &Plan{Name: r.Name, File: file, Description: r.Description, Output: r.Output, Repetitions: r.Repetitions,
		Operations: r.Operations, Args: r.Args, Targets: map[string]string{}}
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
		for i := 0; i+1 < len(r.Targets.Content); i += 2 {
			k, v := r.Targets.Content[i], r.Targets.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				add(v.Line, "target %q needs a URL", k.Value)
				continue
			}
			url := envRef.ReplaceAllStringFunc(v.Value, func(m string) string {
				name := envRef.FindStringSubmatch(m)[1]
				val := getenv(name)
				if val == "" {
					add(v.Line, "target %q uses ${%s}, which is not set in the environment", k.Value, name)
				}
				return val
			})
			if !strings.Contains(url, "://") {
				add(v.Line, "target %q: %q is not a URL (scheme://...)", k.Value, v.Value)
			}
			p.Targets[k.Value] = url
			p.TargetOrder = append(p.TargetOrder, k.Value)
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
func (p *Plan) Cells() []Cell {
	var cells []Cell
	axes := p.Matrix
	hasTargetAxis := false
	for _, a := range axes {
		hasTargetAxis = hasTargetAxis || a.Name == "target"
	}
	for _, w := range p.Workloads {
		targets := w.Targets
		if len(targets) == 0 {
			targets = p.TargetOrder
		}
		combos := [][]string{{}}
		for _, a := range axes {
			var next [][]string
			for _, c := range combos {
				for _, v := range a.Values {
					next = append(next, append(append([]string(nil), c...), v))
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
				c := Cell{Workload: w.Name, Target: t, Params: map[string]string{}}
				for k, v := range w.Options {
					c.Params[k] = v
				}
				threads := "1"
				for i, a := range axes {
					switch a.Name {
					case "threads":
						threads = combo[i]
					case "target":
						c.Target = combo[i]
					default:
						c.Params[a.Name] = combo[i]
					}
				}
				if hasTargetAxis && len(w.Targets) > 0 && !contains(w.Targets, c.Target) {
					continue
				}
				c.Params["threads"] = threads
				c.Params["target"] = c.Target
				cells = append(cells, p.finish(c, w, threads))
			}
		}
	}
	return cells
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// finish builds the cell's identifier, result path and command line.
func (p *Plan) finish(c Cell, w Workload, threads string) Cell {
	var keys []string
	for k := range c.Params {
		if k != "threads" && k != "target" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	id := []string{safe(w.Name), safe(c.Target), "t" + threads}
	var data bytes.Buffer
	fmt.Fprintf(&data, "%s|%s", w.Name, c.Target)
	for _, k := range keys {
		if _, varied := p.axis(k); varied {
			id = append(id, safe(k)+"-"+safe(c.Params[k]))
		}
		if dataOptions[k] {
			fmt.Fprintf(&data, "|%s=%s", k, c.Params[k])
		}
	}
	c.ID = strings.Join(id, "_")
	c.DataKey = data.String()
	c.Result = filepath.Join(p.Output, c.ID+".json")
	args := []string{w.Name, "--target", p.Targets[c.Target], "--threads", threads, "--repeat", strconv.Itoa(p.Repetitions), "-o", c.Result}
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
	for _, k := range keys {
		args = append(args, "-p", k+"="+c.Params[k])
	}
	c.Args = append(args, p.Args...)
	return c
}

func (p *Plan) axis(name string) (Axis, bool) {
	for _, a := range p.Matrix {
		if a.Name == name {
			return a, true
		}
	}
	return Axis{}, false
}
