package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/candor-bench/candor/internal/result"
)

// Formats are the report formats.
var Formats = []string{"text", "md", "html"}

// FormatOf infers the format from an output file name: .md/.markdown →
// "md", .html/.htm → "html", anything else "text".
func FormatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "md"
	case ".html", ".htm":
		return "html"
	}
	return "text"
}

// ValidFormat normalises a format name ("markdown" → "md", "txt" → "text").
func ValidFormat(f string) (string, error) {
	switch strings.ToLower(f) {
	case "text", "txt":
		return "text", nil
	case "md", "markdown":
		return "md", nil
	case "html", "htm":
		return "html", nil
	}
	return "", fmt.Errorf("unknown report format %q (valid: %s)", f, strings.Join(Formats, ", "))
}

// Write renders m in the format to w; Markdown written this way has no
// charts (they need files beside the document: use WriteFile).
func Write(w io.Writer, m *Model, format string) error {
	switch format {
	case "md":
		return Markdown(w, m, nil)
	case "html":
		return HTML(w, m)
	case "text":
		return Text(w, m)
	}
	_, err := ValidFormat(format)
	return err
}

// WriteFile renders m to path, atomically. For Markdown the charts are
// written beside it as NAME-figN.svg and linked by relative name. It
// returns every file written.
func WriteFile(path string, m *Model, format string) ([]string, error) {
	var buf bytes.Buffer
	var written []string
	var err error
	switch format {
	case "md":
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		dir := filepath.Dir(path)
		err = Markdown(&buf, m, func(n int, svg []byte) (string, error) {
			name := fmt.Sprintf("%s-fig%d.svg", base, n)
			if err := result.WriteFileAtomic(filepath.Join(dir, name), svg); err != nil {
				return "", err
			}
			written = append(written, filepath.Join(dir, name))
			return name, nil
		})
	default:
		err = Write(&buf, m, format)
	}
	if err != nil {
		return nil, err
	}
	if err := result.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return nil, err
	}
	return append([]string{path}, written...), nil
}
