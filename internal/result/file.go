package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// ErrSchema marks a file that is not a candor result of a readable version.
var ErrSchema = errors.New("not a candor result file")

// Write stores r at path atomically: a temporary file in the same directory,
// fsynced, then renamed over path. A reader never sees a half-written file.
// It checks r's laws first (Enforce): a result that breaks one is written,
// and left in r, marked inconsistent; the caller reads r.Status.
func Write(path string, r *Result) error {
	if r.Schema == "" {
		r.Schema = SchemaVersion
	}
	Enforce(r)
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	data = append(data, '\n')
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to path through a temporary file and a rename.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(0o644) // CreateTemp makes 0600; results are meant to be shared
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write result %s: %w", path, werr)
	}
	return nil
}

// Read loads a result file, checks its schema version and its laws
// (Enforce: a result that breaks one comes back marked inconsistent).
func Read(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSchema, path, err)
	}
	if !Readable(r.Schema) {
		return nil, fmt.Errorf("%w: %s has schema %q, this candor reads %s.x", ErrSchema, path, r.Schema, SchemaMajor)
	}
	ReadLedgerFiles(&r, filepath.Dir(path))
	Enforce(&r)
	return &r, nil
}

// Readable reports whether this candor reads results of a schema:
// candor.result/v1 and its minor versions (candor.result/v1.1), never
// another major version (candor.result/v2, candor.result/v10).
func Readable(schema string) bool {
	return schema == SchemaMajor || strings.HasPrefix(schema, SchemaMajor+".")
}

// IntervalsPath is the side file that receives intervals while a run goes.
func IntervalsPath(resultPath string) string {
	return strings.TrimSuffix(resultPath, ".json") + ".intervals.jsonl"
}

// sideRecord is one line of the side file: a header first, then intervals.
type sideRecord struct {
	Kind     string    `json:"kind"` // "header" or "interval"
	Header   *Result   `json:"header,omitempty"`
	Interval *Interval `json:"interval,omitempty"`
}

// SideFile appends interval records, one JSON line each, with a single write
// per line so a SIGKILL leaves every completed interval on disk.
type SideFile struct {
	mu sync.Mutex
	f  *os.File
}

// CreateSideFile creates (truncating) the side file and writes the header: the
// result as known at the start (no phases).
func CreateSideFile(path string, header *Result) (*SideFile, error) {
	return createSideFile(path, header, os.O_TRUNC)
}

// CreateNewSideFile is CreateSideFile for a path nothing holds yet: when the
// file exists it fails with an error wrapping fs.ErrExist, so that a caller
// picking a free name claims it atomically.
func CreateNewSideFile(path string, header *Result) (*SideFile, error) {
	return createSideFile(path, header, os.O_EXCL)
}

func createSideFile(path string, header *Result, mode int) (*SideFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|mode|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create interval file: %w", err)
	}
	s := &SideFile{f: f}
	h := *header
	h.Phases = nil
	if err := s.write(sideRecord{Kind: "header", Header: &h}); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *SideFile) write(rec sideRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("interval file closed")
	}
	_, err = s.f.Write(line)
	return err
}

// Append writes one interval.
func (s *SideFile) Append(iv Interval) error {
	return s.write(sideRecord{Kind: "interval", Interval: &iv})
}

// Close closes the file; it is kept on disk beside the result.
func (s *SideFile) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// Recover rebuilds a result from a side file left by a killed run: the header
// and every complete interval line, grouped into phases, status interrupted.
// A torn last line is ignored.
func Recover(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var res *Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec sideRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue // torn line at the end of a killed write
		}
		switch {
		case rec.Kind == "header" && rec.Header != nil:
			res = rec.Header
		case rec.Kind == "interval" && rec.Interval != nil && res != nil:
			iv := *rec.Interval
			if n := len(res.Phases); n == 0 || res.Phases[n-1].Name != iv.Phase {
				res.Phases = append(res.Phases, Phase{Name: iv.Phase, Status: StatusInterrupted, Started: iv.Start})
			}
			p := &res.Phases[len(res.Phases)-1]
			p.Intervals = append(p.Intervals, iv)
			p.Ended = iv.Start.Add(secondsDuration(iv.LengthSec))
			p.DurationSec = iv.ElapsedSec
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("%w: %s has no header line", ErrSchema, path)
	}
	res.Status = StatusInterrupted
	if res.Error == "" {
		res.Error = "recovered from the interval file of a run that did not finish"
	}
	return res, nil
}

// ReadAll reads result files concurrently (candor merge reads tens of
// them), in the order given; the first error is returned.
func ReadAll(paths []string) ([]*Result, error) {
	out := make([]*Result, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = Read(p)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("read %s: %w", p, errs[i])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WriteCompact is Write without indentation: for large results (a merge
// of many shards), a third faster to write and smaller.
func WriteCompact(path string, r *Result) error {
	if r.Schema == "" {
		r.Schema = SchemaVersion
	}
	Enforce(r)
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return WriteFileAtomic(path, append(data, '\n'))
}
