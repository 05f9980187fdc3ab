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
// (DESIGN.md §4). It also holds the logic of `candor compare`.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// Load reads result files. A path may be a file (it must be a candor result)
// or a directory, searched recursively for *.json files that are candor
// results; other JSON files there are skipped, as are *.intervals.jsonl side
// files and hidden files. A file that looks like a candor result but cannot
// be read is an error naming it (wrapping result.ErrSchema for malformed
// content). Inputs keep the order of the arguments (a file reached twice
// counts once); files found in a directory come in lexical order.
func Load(paths ...string) ([]Input, error) {
	var out []Input
	seen := map[string]bool{} // a file named twice (directly and in its directory) counts once
	add := func(path string, r *result.Result) {
		key, err := filepath.Abs(path)
		if err != nil {
			key = path
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, Input{Path: path, Result: r})
		}
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
			if !d.IsDir() && strings.HasSuffix(name, ".json") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read results under %s: %w", p, err)
		}
		sort.Strings(files)
		for _, f := range files {
			r, err := readResult(f, false)
			if err != nil {
				return nil, err
			}
			if r != nil {
				add(f, r)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoResults, strings.Join(paths, ", "))
	}
	return out, nil
}

// readResult reads one file. With required false, a JSON file that is not a
// candor result gives (nil, nil).
func readResult(path string, required bool) (*result.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	if !required && !bytes.Contains(data, []byte(`"candor.result/`)) {
		if json.Valid(data) {
			return nil, nil // some other JSON file (a plan's notes, a dashboard...)
		}
		return nil, fmt.Errorf("%w: %s is not valid JSON", result.ErrSchema, path)
	}
	var r result.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", result.ErrSchema, path, err)
	}
	if !strings.HasPrefix(r.Schema, "candor.result/v1") {
		if r.Schema == "" {
			return nil, fmt.Errorf("%w: %s has no \"schema\" field", result.ErrSchema, path)
		}
		return nil, fmt.Errorf("%w: %s has schema %q, this candor reads %s", result.ErrSchema, path, r.Schema, result.SchemaVersion)
	}
	return &r, nil
}
