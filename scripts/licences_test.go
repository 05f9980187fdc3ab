package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// licenceText is, for each licence docs/DEVELOPMENT.md may name, a pattern
// its text contains: what a module's own licence files are checked for.
// Only licences that allow use in an Apache-2.0 program are here.
var licenceText = map[string]*regexp.Regexp{
	"Apache-2.0":    regexp.MustCompile(`Apache License,?\s+Version 2\.0`),
	"MIT":           regexp.MustCompile(`Permission is hereby granted,\s+free of charge`),
	"BSD-3-Clause":  regexp.MustCompile(`(?s)Redistribution and use in source and binary forms.*(?i:neither the name)`),
	"BSD-2-Clause":  regexp.MustCompile(`Redistribution and use in source and binary forms`),
	"ISC":           regexp.MustCompile(`Permission to use, copy, modify, and(/or)? distribute`),
	"MPL-2.0":       regexp.MustCompile(`Mozilla Public License,?\s+[Vv]ersion 2\.0`),
	"CC-BY-4.0":     regexp.MustCompile(`Creative Commons Attribution 4\.0`),
	"FTL":           regexp.MustCompile(`FreeType License`),
	"OFL-1.1":       regexp.MustCompile(`SIL OPEN FONT LICENSE Version 1\.1`),
	"public domain": regexp.MustCompile(`(?i)public domain`),
}

// goModules returns go.mod's required modules, path to version.
func goModules(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mods := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.SplitN(line, "//", 2)[0])
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if f := strings.Fields(line); len(f) == 2 {
			mods[f[0]] = f[1]
		}
	}
	if len(mods) == 0 {
		t.Fatal("no modules read from go.mod")
	}
	return mods
}

// documentedLicences reads docs/DEVELOPMENT.md's table of modules: path to
// the licences its row names.
func documentedLicences(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../docs/DEVELOPMENT.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]+) \\|")
	docs := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var lics []string
		for _, l := range strings.Split(m[2], ",") {
			lics = append(lics, strings.TrimSpace(l))
		}
		docs[m[1]] = lics
	}
	return docs
}

// escapePath writes a module path as the module cache does: an upper-case
// letter becomes "!" and the lower-case letter.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// licenceFiles returns the text of a module directory's licence and
// notice files.
func licenceFiles(dir string) (string, []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil
	}
	var text strings.Builder
	var names []string
	for _, e := range entries {
		n := strings.ToUpper(e.Name())
		if e.IsDir() || !(strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, "LICENCE") ||
			strings.HasPrefix(n, "COPYING") || strings.HasPrefix(n, "NOTICE")) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			text.Write(b)
			text.WriteString("\n")
			names = append(names, e.Name())
		}
	}
	return text.String(), names
}

// TestLicencesOfGoModules holds docs/DEVELOPMENT.md's licence table to
// go.mod: every module has a row, every row a module, each row names only
// licences compatible with Apache-2.0, and each named licence's text is in
// the module's own licence files in the module cache (checked for the
// modules downloaded there; the others are listed).
func TestLicencesOfGoModules(t *testing.T) {
	mods := goModules(t)
	docs := documentedLicences(t)
	for p := range mods {
		if _, ok := docs[p]; !ok {
			t.Errorf("go.mod requires %s, which docs/DEVELOPMENT.md's licence table lacks: read its licence (see that section) and add a row", p)
		}
	}
	for p, lics := range docs {
		if _, ok := mods[p]; !ok {
			t.Errorf("docs/DEVELOPMENT.md's licence table has %s, which go.mod does not require: remove the row", p)
		}
		for _, l := range lics {
			if licenceText[l] == nil {
				t.Errorf("%s: licence %q is not one candor accepts (or not spelled as the table does)", p, l)
			}
		}
	}

	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	var checked, absent []string
	for p, v := range mods {
		dir := filepath.Join(cache, escapePath(p)+"@"+v)
		text, names := licenceFiles(dir)
		if len(names) == 0 {
			absent = append(absent, p)
			continue
		}
		checked = append(checked, p)
		for _, l := range docs[p] {
			if re := licenceText[l]; re != nil && !re.MatchString(text) {
				t.Errorf("%s: the table says %s, but its files %v do not contain that licence's text", p, l, names)
			}
		}
	}
	sort.Strings(absent)
	t.Logf("licence files read for %d modules; not in the module cache: %v", len(checked), absent)
	if len(checked) == 0 {
		t.Skip("no module of go.mod is in the module cache")
	}
}
