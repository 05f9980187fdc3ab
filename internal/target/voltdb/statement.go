package voltdb

import (
	"fmt"
	"strconv"
	"strings"
)

// filter keeps the rows of a result whose column equals value (case
// insensitive); nil keeps every row.
type filter struct {
	columnName string
	value      string
}

// column is the index of f's column in t: -1 without a filter (keep
// every row), -2 when t has no such column (keep none).
func (f *filter) column(t Table) int {
	if f == nil {
		return -1
	}
	for i, n := range t.Names {
		if strings.EqualFold(n, f.columnName) {
			return i
		}
	}
	return -2
}

// execCall is a parsed EXEC statement.
type execCall struct {
	call   call
	filter *filter
}

// parseExec parses `EXEC @Proc [ARG | ?]... [WHERE COLUMN = ?]`; ok is false
// when sql is not an EXEC statement. Words are string parameters; each ?
// takes the next argument, and every argument must be taken; a word that
// is a decimal integer is a BIGINT parameter.
func parseExec(sql string, args []any) (execCall, bool, error) {
	words := strings.Fields(strings.TrimSuffix(strings.TrimSpace(sql), ";"))
	if len(words) < 2 || !strings.EqualFold(words[0], "exec") {
		return execCall{}, false, nil
	}
	e := execCall{call: call{proc: words[1]}}
	rest := args
	next := func() (any, error) {
		if len(rest) == 0 {
			return nil, fmt.Errorf("voltdb: %q has more ? than the %d arguments given", sql, len(args))
		}
		v := rest[0]
		rest = rest[1:]
		return v, nil
	}
	ws := words[2:]
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if strings.EqualFold(w, "where") {
			if len(ws) != i+4 || ws[i+2] != "=" || ws[i+3] != "?" {
				return execCall{}, true, fmt.Errorf("voltdb: %q: an EXEC's WHERE is COLUMN = ?", sql)
			}
			v, err := next()
			if err != nil {
				return execCall{}, true, err
			}
			e.filter = &filter{columnName: ws[i+1], value: fmt.Sprint(v)}
			break
		}
		if w == "?" {
			v, err := next()
			if err != nil {
				return execCall{}, true, err
			}
			e.call.params = append(e.call.params, v)
			continue
		}
		if n, err := strconv.ParseInt(w, 10, 64); err == nil {
			e.call.params = append(e.call.params, n)
			continue
		}
		e.call.params = append(e.call.params, w)
	}
	if len(rest) > 0 {
		return execCall{}, true, fmt.Errorf("voltdb: %q takes %d arguments, %d given", sql, len(args)-len(rest), len(args))
	}
	return e, true, nil
}

// splitStatements splits sql at the semicolons outside quotes (single
// quotes for strings, double quotes for names) and drops empty statements.
func splitStatements(sql string) []string {
	var out []string
	start := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ';':
			if s := strings.TrimSpace(sql[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(sql[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// countParams counts the ? placeholders of one statement outside quotes.
func countParams(stmt string) int {
	n := 0
	var quote byte
	for i := 0; i < len(stmt); i++ {
		ch := stmt[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
		}
	}
	return n
}
