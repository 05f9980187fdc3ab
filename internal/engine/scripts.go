package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"unicode/utf8"

	"github.com/candor-bench/candor/internal/workload"
)

// maxScriptBytes bounds a script's size: a script is a transaction or a
// test, not data, and its text is recorded in every result.
const maxScriptBytes = 1 << 20

// readScripts returns the scripts named, in that order: the recorded one
// of a name when recorded holds it (a rerun runs what the result ran, and
// checks its hash), else the file of that name read now. A missing or
// unreadable file, one over 1 MiB, or one that is not text (a NUL byte,
// invalid UTF-8) is refused as bad input.
func readScripts(names []string, recorded []workload.Script) ([]workload.Script, error) {
	var out []workload.Script
	for _, name := range names {
		if s, ok := recordedScript(recorded, name); ok {
			if got := scriptHash(s.Text); got != s.SHA256 {
				return nil, usagef("the recorded script %s does not match its hash (sha256 %s, recorded %s): the result was edited", name, got, s.SHA256)
			}
			out = append(out, s)
			continue
		}
		st, err := os.Stat(name)
		switch {
		case err != nil:
			return nil, usagef("script %s: %v; give the path of an existing script file", name, err)
		case st.IsDir():
			return nil, usagef("script %s is a directory; give the path of a script file", name)
		case st.Size() > maxScriptBytes:
			return nil, usagef("script %s is %d bytes, over the 1 MiB a script may have; is it the right file?", name, st.Size())
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, usagef("script %s: %v", name, err)
		}
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return nil, usagef("script %s is not a text file (it holds a NUL byte or invalid UTF-8); give the script's source", name)
		}
		text := string(data)
		out = append(out, workload.Script{Name: name, SHA256: scriptHash(text), Text: text})
	}
	return out, nil
}

func recordedScript(recorded []workload.Script, name string) (workload.Script, bool) {
	for _, s := range recorded {
		if s.Name == name {
			return s, true
		}
	}
	return workload.Script{}, false
}

func scriptHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}
