// Package resulttest checks, for the test suite, the conservation laws of
// every result a test makes (result.Check): the phases a runner test gets
// and the result files an integration test leaves. A test that produced a
// result breaking one fails, whatever else it asserts.
package resulttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
)

// CheckPhase fails t for every law phase p breaks.
func CheckPhase(t testing.TB, p *result.Phase) {
	t.Helper()
	r := &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{*p}}
	for _, v := range result.Check(r) {
		t.Errorf("phase %s breaks a law: %s", p.Name, v)
	}
}

// CheckFiles reads every candor result under dir (files ending in .json
// whose schema is a candor result's) and fails t for each one that breaks a
// law: marked inconsistent when written, or found so when read now. It
// returns how many results it checked.
func CheckFiles(t testing.TB, dir string) int {
	t.Helper()
	return CheckFilesSince(t, dir, time.Time{})
}

// CheckFilesSince is CheckFiles for the results written at or after since
// (by their modification time): those a command just wrote, not the
// fixtures a test wrote before it, which may be broken on purpose.
func CheckFilesSince(t testing.TB, dir string, since time.Time) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		if info, ierr := d.Info(); ierr != nil || info.ModTime().Before(since) {
			return nil
		}
		data, rerr := os.ReadFile(path)
		if rerr != nil || !strings.Contains(string(data), `"candor.result/`) {
			return nil
		}
		r, rerr := result.Read(path)
		if rerr != nil {
			return nil // not a result (a plan's notes, a truncated copy a test made)
		}
		n++
		if r.Status == result.StatusInconsistent {
			t.Errorf("%s breaks the laws of its own arithmetic:\n  %s", path, strings.Join(r.BrokenLaws, "\n  "))
		}
		return nil
	})
	return n
}

// Read reads the result at path, failing t when it cannot.
func Read(t testing.TB, path string) *result.Result {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// FailedAttempts sums a phase's failed attempts over its operations and
// error classes.
func FailedAttempts(p result.Phase) int64 {
	var n int64
	for _, o := range p.Ops {
		for _, e := range o.Errors {
			n += e
		}
	}
	return n
}
