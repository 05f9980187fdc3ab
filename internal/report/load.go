// Package report renders one or many result files as a report people would
// publish: run tables with confidence intervals, throughput and p99 curves
// against threads, time series (load phases included), latency percentile
// spectra, errors and retries, the effect of data size, and the provenance
// of every input. Renderers: Text (tables only, 100 columns), Markdown
// (tables, charts as SVG files beside the .md) and HTML (one self-contained
// file: inline CSS and SVG, no script, no external reference). Charts are
// drawn with gonum.org/v1/plot to SVG.
//
// The package reads only result files (internal/result) and uses
// internal/stats; it never imports the runner, drivers or workloads
// (docs/ARCHITECTURE.md). It also holds the logic of `candor compare`.
package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// Input is one result file.
type Input struct {
	Path   string // as given or found under a given directory
	Result *result.Result
}

// ErrNoResults is returned when the paths hold no result file.
var ErrNoResults = errors.New("no candor result files found")

// Load reads result files as LoadWarn does, without telling which files it
// skipped.
func Load(paths ...string) ([]Input, error) { return LoadWarn(nil, paths...) }

// sniffSize is how much of a file without the .json extension is read to
// tell whether it is a candor result: candor writes "schema" first.
const sniffSize = 4096

// LoadWarn reads result files. A path may be a file (it must be a candor
// result, whatever its name) or a directory, searched recursively for
// candor results, recognised by content (their "schema":
// "candor.result/v1" field) rather than by extension, so `run -o res/c-t1`
// is found too. In a directory, a *.json file that is not a candor result
// (another JSON document, or not JSON at all) is skipped with one line to
// warn (nil: silently); other files that are not results (reports, charts,
// *.intervals.jsonl side files) and hidden files are skipped silently. A
// file that is a candor result but cannot be read is an error naming it
// (wrapping result.ErrSchema for malformed content). Inputs keep the order
// of the arguments (a file reached twice, by name or through a link,
// counts once); files found in a directory come in lexical order. Two
// files holding the same result (the same id: a copy) are refused with an
// error wrapping ErrDuplicate (see Distinct).
func LoadWarn(warn func(string), paths ...string) ([]Input, error) {
	if warn == nil {
		warn = func(string) {}
	}
	var out []Input
	seen := map[string]bool{} // a file named twice (directly and in its directory) counts once
	add := func(path string, r *result.Result) {
		key, err := filepath.Abs(path)
		if err != nil {
			key = path
		}
		if seen[key] {
			return
		}
		seen[key] = true
		for _, in := range out {
			if r.ID != "" && in.Result.ID == r.ID && sameFile(in.Path, path) {
				return // a link to a file already read
			}
		}
		out = append(out, Input{Path: path, Result: r})
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		if !st.IsDir() {
			r, err := readResult(p, true)
			if err != nil {
				return nil, err
			}
			add(p, r)
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if path != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && !strings.HasSuffix(name, ".intervals.jsonl") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read results under %s: %w", p, err)
		}
		sort.Strings(files)
		for _, f := range files {
			if !strings.HasSuffix(f, ".json") && !sniffResult(f) {
				continue
			}
			r, err := readResult(f, false)
			if errors.Is(err, errNotResult) {
				warn(fmt.Sprintf("skipped %s: %v", f, err))
				continue
			}
			if err != nil {
				return nil, err
			}
			add(f, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoResults, strings.Join(paths, ", "))
	}
	if err := Distinct(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ErrDuplicate marks the same result given twice, under two names.
var ErrDuplicate = errors.New("the same result is given twice")

// Distinct refuses inputs of which two hold the same result: the same
// result id, so one is a copy of the other (or the same file named twice
// where it must not be, as compare's A and B). Counted twice, a copy of one
// run would be a second repetition with the same figures: a mean of n 2
// with a spread of ±0.0%. The error wraps ErrDuplicate and names both files
// and the fix. Results without an id (written before ids were recorded)
// are taken as distinct.
//
// Two results whose measurements are identical are one run too, whatever
// their ids say (a copy whose id alone was edited): MeasuredPrint, the same
// start instants and histograms, is refused the same way.
func Distinct(inputs []Input) error {
	first := map[string]string{}    // id → the file it was first read from
	measured := map[string]string{} // MeasuredPrint → the file it was first read from
	for _, in := range inputs {
		if fp := MeasuredPrint(in.Result); fp != "" {
			if f, ok := measured[fp]; ok && !sameFile(f, in.Path) {
				return fmt.Errorf("%w: %s and %s hold identical measurements (the same start instants and histograms) under ids %q and %q: "+
					"one run, whose phases would count twice as repetitions of themselves; give each result once: delete the copy, or move it out of the directory read",
					ErrDuplicate, f, in.Path, idOf(inputs, f), in.Result.ID)
			}
			measured[fp] = in.Path
		}
		id := in.Result.ID
		if id == "" {
			continue
		}
		if f, ok := first[id]; ok {
			fix := "delete the copy, or move it out of the directory read"
			if sameFile(f, in.Path) {
				fix = "name the file once"
			}
			return fmt.Errorf("%w: %s and %s hold the same result (id %s), and its runs would count twice, as repetitions of themselves; "+
				"give each result once: %s", ErrDuplicate, f, in.Path, id, fix)
		}
		first[id] = in.Path
	}
	return nil
}

// MeasuredPrint is a fingerprint of what r measured, not of its id: each
// phase's name, repetition, start and end instants (to the nanosecond),
// operations (their counts and histograms) and intervals. Two runs never
// share it; a copy of one does. "" for a result without phases.
func MeasuredPrint(r *result.Result) string {
	if len(r.Phases) == 0 {
		return ""
	}
	h := sha256.New()
	for i := range r.Phases {
		p := &r.Phases[i]
		b, err := json.Marshal(struct {
			Name       string
			Repetition int
			Started    int64
			Ended      int64
			Ops        []result.OpResult
			Intervals  []result.Interval
		}{p.Name, p.Repetition, p.Started.UnixNano(), p.Ended.UnixNano(), p.Ops, p.Intervals})
		if err != nil {
			return ""
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// idOf is the id of the input read from path.
func idOf(inputs []Input, path string) string {
	for _, in := range inputs {
		if in.Path == path {
			return in.Result.ID
		}
	}
	return ""
}

// sameFile reports whether two paths name one file (a link, or the same
// file reached under two names).
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// errNotResult marks a file in a directory that is not a candor result.
var errNotResult = errors.New("not a candor result")

// sniffResult reports whether a file's beginning is that of a candor
// result: a JSON object naming the candor.result schema.
func sniffResult(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, sniffSize)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n")
	return len(head) > 0 && head[0] == '{' && bytes.Contains(head, []byte(`"candor.result/`))
}

// readResult reads one file. With required false, a file that is not a
// candor result gives an error wrapping errNotResult.
func readResult(path string, required bool) (*result.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	if !required && !bytes.Contains(data, []byte(`"candor.result/`)) {
		if json.Valid(data) {
			// some other JSON file (a plan's notes, a dashboard...)
			return nil, fmt.Errorf("%w (no \"schema\": %q)", errNotResult, result.SchemaMajor)
		}
		return nil, fmt.Errorf("%w (not valid JSON)", errNotResult)
	}
	var r result.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", result.ErrSchema, path, err)
	}
	if !result.Readable(r.Schema) {
		if r.Schema == "" {
			return nil, fmt.Errorf("%w: %s has no \"schema\" field", result.ErrSchema, path)
		}
		return nil, fmt.Errorf("%w: %s has schema %q, this candor reads %s.x", result.ErrSchema, path, r.Schema, result.SchemaMajor)
	}
	result.ReadLedgerFiles(&r, filepath.Dir(path)) // the ledger's figures are checked against its files
	result.Enforce(&r)                             // a result that breaks its laws is read as inconsistent
	return &r, nil
}
