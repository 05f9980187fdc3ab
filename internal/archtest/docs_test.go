package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoFiles returns the repository's source, script, plan and documentation
// files (paths relative to the repository root), skipping results and
// hidden directories.
func repoFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "results" || name == "demo" || name == "bin" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".yaml", ".sh":
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, files
}

// TestNoReferencesOutsideTheRepository: the project explains itself. Nothing
// cites reference notes that are not part of it (a specs/ directory, a
// shared directory outside the repository); what a user needs is in docs/.
func TestNoReferencesOutsideTheRepository(t *testing.T) {
	root, files := repoFiles(t)
	outside := regexp.MustCompile(`\bspecs/[a-z-]+\.md|/work/` + `shared|\.\./` + `shared`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d cites %s, which is not in the repository: cite a file under docs/", f, i+1, m)
			}
		}
	}
}

// TestCitedDocsExist: every document under docs/ that the code, scripts, plans and docs
// cite exists.
func TestCitedDocsExist(t *testing.T) {
	root, files := repoFiles(t)
	cited := regexp.MustCompile(`docs/[A-Z][A-Za-z_]*\.md`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range cited.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join(root, m)); err != nil {
					t.Errorf("%s:%d cites %s, which does not exist", f, i+1, m)
				}
			}
		}
	}
}

// TestNoRegistryHostNames: the repository's prose and messages name package
// registries by what they are ("the Maven repository", "the Python package
// index", "the module proxy"), never by their hosts' names. The pattern is
// split so that this file does not name them either.
func TestNoRegistryHostNames(t *testing.T) {
	root, files := repoFiles(t)
	named := regexp.MustCompile(`(?i)maven ` + `central|central\.` + `sonatype|repo1\.` + `maven|py` + `pi\.org|\bpy` + `pi\b|proxy\.` + `golang\.org`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := named.FindString(line); m != "" {
				t.Errorf("%s:%d names %q: say what it is (the Maven repository, the Python package index, the module proxy)", f, i+1, m)
			}
		}
	}
}
