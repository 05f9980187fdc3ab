package pgbench

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdKind is what one command of a script does.
type cmdKind uint8

const (
	cSQL cmdKind = iota
	cSet
	cSleep
	cIf
	cElif
	cElse
	cEndif
	cShell
	cSetShell
)

// gsetMode says whether an SQL command stores its result's columns.
type gsetMode uint8

const (
	gNone gsetMode = iota
	gSet           // \gset: the last result must have exactly one row
	gAset          // \aset: the last row of every result with rows
)

// command is one command of a script: an SQL command or a meta-command.
type command struct {
	kind  cmdKind
	line  int    // where it starts in its file
	first string // its first line, as -r reports it

	// SQL: the text cut at variable references (parts alternate
	// literal text and variable slots; see sqlPart), and for the extended
	// and prepared protocols the text with placeholders and the slots of
	// its parameters in order.
	parts  []sqlPart
	params []int
	bound  string // text with placeholders (after Bind)
	plain  string // the text when it has no variable (simple protocol)
	gset   gsetMode
	prefix string
	txWord int8 // +1 opens a transaction block (BEGIN), -1 ends one, 0 neither

	// \set: the variable's slot and its expression; \if and \elif: the
	// condition; \sleep: a literal duration or a variable's slot.
	v        int
	e        *expr
	sleepVar int // -1: literal sleepUS
	sleepUS  int64
	unitUS   int64
	jump     int      // \if, \elif: the next \elif, \else or \endif
	end      int      // \elif, \else: their \endif (reached in sequence, a branch was taken)
	argv     []string // \shell, \setshell: arguments (":name" a variable)
}

// sqlPart is a piece of an SQL command: literal text, or (slot >= 0) a
// variable reference written :name in the text.
type sqlPart struct {
	text string
	slot int
	name string
}

// symbols numbers the variables of all the scripts of a run; every client
// keeps its values in a slice indexed by these slots.
type symbols struct {
	slots map[string]int
	names []string
}

func newSymbols() *symbols { return &symbols{slots: map[string]int{}} }

func (s *symbols) slot(name string) int {
	if i, ok := s.slots[name]; ok {
		return i
	}
	s.slots[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// lookup is the slot of name, or -1 when no script names it.
func (s *symbols) lookup(name string) int {
	if i, ok := s.slots[name]; ok {
		return i
	}
	return -1
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// validVarName reports whether name is a variable name pgbench accepts.
func validVarName(name string) bool {
	if name == "" || !isIdentStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isIdentChar(name[i]) {
			return false
		}
	}
	return true
}

// parseOptions are what parsing a script depends on besides its text.
type parseOptions struct {
	allowShell bool
}

// parseScript cuts a pgbench script into commands, as pgbench 15 reads
// one: SQL commands end at a ';' outside quotes, comments and parentheses
// (or where a meta-command starts, or at the end of the file),
// meta-commands at the end of their line. Syntax errors name file:line.
func parseScript(file, text string, syms *symbols, po parseOptions) ([]command, error) {
	var cmds []command
	var sql strings.Builder
	sqlLine := 0
	line := 1
	n := len(text)
	lineText := func(at int) string {
		s := strings.LastIndexByte(text[:at], '\n') + 1
		e := strings.IndexByte(text[at:], '\n')
		if e < 0 {
			e = n - at
		}
		return strings.TrimRight(text[s:at+e], "\r")
	}
	flush := func(terminated bool) error {
		body := sql.String()
		sql.Reset()
		body = stripLeading(body)
		if body == "" {
			return nil
		}
		c, err := newSQLCommand(body, syms)
		if err != nil {
			return &syntaxError{file: file, line: sqlLine, msg: err.Error(), col: -1}
		}
		c.line = sqlLine
		cmds = append(cmds, c)
		return nil
	}
	i := 0
	parens := 0
	for i < n {
		c := text[i]
		if sql.Len() == 0 || strings.TrimSpace(sql.String()) == "" {
			sqlLine = line
		}
		switch {
		case c == '\n':
			line++
			sql.WriteByte(c)
			i++
		case c == '\'' || c == '"':
			// A quoted literal or identifier: E'...' allows backslash
			// escapes; doubled quotes stay inside.
			esc := c == '\'' && i > 0 && (text[i-1] == 'E' || text[i-1] == 'e') && (i < 2 || !isIdentChar(text[i-2]))
			j := i + 1
			for j < n {
				if esc && text[j] == '\\' && j+1 < n {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < n && text[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < n {
				j++
			}
			line += strings.Count(text[i:j], "\n")
			sql.WriteString(text[i:j])
			i = j
		case c == '$' && dollarTag(text[i:]) != "":
			tag := dollarTag(text[i:])
			end := strings.Index(text[i+len(tag):], tag)
			j := n
			if end >= 0 {
				j = i + len(tag) + end + len(tag)
			}
			line += strings.Count(text[i:j], "\n")
			sql.WriteString(text[i:j])
			i = j
		case c == '-' && i+1 < n && text[i+1] == '-':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = n - i
			}
			sql.WriteString(text[i : i+j])
			i += j
		case c == '/' && i+1 < n && text[i+1] == '*':
			depth, j := 1, i+2
			for j < n && depth > 0 {
				switch {
				case strings.HasPrefix(text[j:], "/*"):
					depth++
					j += 2
				case strings.HasPrefix(text[j:], "*/"):
					depth--
					j += 2
				default:
					j++
				}
			}
			line += strings.Count(text[i:j], "\n")
			sql.WriteString(text[i:j])
			i = j
		case c == '(':
			parens++
			sql.WriteByte(c)
			i++
		case c == ')':
			if parens > 0 {
				parens--
			}
			sql.WriteByte(c)
			i++
		case c == ';' && parens == 0:
			sql.WriteByte(c)
			i++
			if err := flush(true); err != nil {
				return nil, err
			}
		case c == '\\' && i+1 < n && (text[i+1] == ';' || text[i+1] == ':'):
			sql.WriteByte(text[i+1])
			i += 2
		case c == '\\':
			// A meta-command: the SQL before it ends; it runs to the end
			// of its line (a backslash before the newline continues it).
			if err := flush(false); err != nil {
				return nil, err
			}
			parens = 0
			start, startLine := i, line
			var b strings.Builder
			j := i + 1
			for j < n && text[j] != '\n' {
				if text[j] == '\\' && j+1 < n && text[j+1] == '\n' {
					b.WriteByte(' ')
					j += 2
					line++
					continue
				}
				if text[j] == '\\' && j+2 < n && text[j+1] == '\r' && text[j+2] == '\n' {
					b.WriteByte(' ')
					j += 3
					line++
					continue
				}
				b.WriteByte(text[j])
				j++
			}
			i = j
			mc, err := parseMeta(file, startLine, lineText(start), strings.TrimRight(b.String(), "\r"), syms, po)
			if err != nil {
				return nil, err
			}
			if mc.kind == cSQL { // \gset or \aset
				if len(cmds) == 0 || cmds[len(cmds)-1].kind != cSQL || cmds[len(cmds)-1].gset != gNone {
					return nil, &syntaxError{file: file, line: startLine, msg: "\\" + metaName(b.String()) + " must follow an SQL command", col: -1}
				}
				prev := &cmds[len(cmds)-1]
				prev.gset, prev.prefix = mc.gset, mc.prefix
				trimSemicolon(prev)
				continue
			}
			cmds = append(cmds, mc)
		default:
			sql.WriteByte(c)
			i++
		}
	}
	if err := flush(false); err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("empty command list for script \"%s\"", file)
	}
	if err := linkConditionals(file, cmds); err != nil {
		return nil, err
	}
	return cmds, nil
}

// dollarTag returns the $tag$ s starts with, or "".
func dollarTag(s string) string {
	j := 1
	if j < len(s) && isIdentStart(s[j]) {
		for j < len(s) && isIdentChar(s[j]) && s[j] != '$' {
			j++
		}
	}
	if j < len(s) && s[j] == '$' {
		return s[:j+1]
	}
	return ""
}

// stripLeading drops leading white space and whole-line -- comments.
func stripLeading(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		if !strings.HasPrefix(s, "--") {
			return s
		}
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return ""
		}
		s = s[nl+1:]
	}
}

// trimSemicolon removes an SQL command's final ';', which \gset
// replaces (a command cut by the backslash keeps its text as it is).
func trimSemicolon(c *command) {
	cut := func(t string) string {
		r := strings.TrimRight(t, " \t\r\n")
		if strings.HasSuffix(r, ";") {
			return strings.TrimSuffix(r, ";")
		}
		return t
	}
	last := &c.parts[len(c.parts)-1]
	if last.slot < 0 {
		last.text = cut(last.text)
	}
	if c.plain != "" {
		c.plain = cut(c.plain)
	}
}

func metaName(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// newSQLCommand cuts an SQL command's text at its :name references, as
// pgbench's parseVariable finds them: a run of colons that does not begin
// a name ("::int") stays text.
func newSQLCommand(body string, syms *symbols) (command, error) {
	c := command{kind: cSQL, sleepVar: -1}
	first := body
	if nl := strings.IndexByte(first, '\n'); nl >= 0 {
		first = first[:nl]
	}
	c.first = strings.TrimRight(first, "\r")
	lit := 0
	vars := 0
	for i := 0; i < len(body); {
		if body[i] != ':' {
			i++
			continue
		}
		if i+1 < len(body) && body[i+1] == ':' {
			for i < len(body) && body[i] == ':' {
				i++
			}
			continue
		}
		j := i + 1
		for j < len(body) && isIdentChar(body[j]) {
			j++
		}
		name := body[i+1 : j]
		if name == "" || !isIdentStart(name[0]) && !(name[0] >= '0' && name[0] <= '9') {
			i++
			continue
		}
		c.parts = append(c.parts, sqlPart{text: body[lit:i], slot: -1}, sqlPart{slot: syms.slot(name), name: name})
		vars++
		lit, i = j, j
	}
	if vars > 255 {
		return c, fmt.Errorf("too many variables in an SQL command (%d, at most 255)", vars)
	}
	c.parts = append(c.parts, sqlPart{text: body[lit:], slot: -1})
	if vars == 0 {
		c.plain = body
	}
	switch w := strings.ToUpper(firstWord(body)); w {
	case "BEGIN", "START":
		c.txWord = 1
	case "COMMIT", "END", "ROLLBACK", "ABORT":
		c.txWord = -1
	}
	return c, nil
}

func firstWord(s string) string {
	i := 0
	for i < len(s) && isIdentChar(s[i]) {
		i++
	}
	return s[:i]
}

// parseMeta parses one meta-command; rest is the line after the
// backslash, continuations joined.
func parseMeta(file string, line int, lineText, rest string, syms *symbols, po parseOptions) (command, error) {
	words := strings.Fields(rest)
	c := command{line: line, sleepVar: -1, first: strings.TrimSpace(lineText)}
	name := ""
	if len(words) > 0 {
		name = strings.ToLower(words[0])
	}
	col := strings.Index(lineText, "\\")
	fail := func(msg, detail string, at int) error {
		return &syntaxError{file: file, line: line, msg: msg, detail: detail, command: name, text: lineText, col: at}
	}
	if len(words) > 256 {
		return c, fail("too many arguments", "", -1)
	}
	// exprOf parses the rest of the line after its first n words as c's
	// expression.
	exprOf := func(n int) error {
		after := afterWords(rest, n)
		e, msg, pos := parseExpr(rest[after:], syms)
		if msg != "" {
			return fail(msg, "", col+1+after+pos)
		}
		c.e = e
		return nil
	}
	switch name {
	case "set":
		if len(words) < 3 {
			return c, fail("missing argument", "", -1)
		}
		if !validVarName(words[1]) {
			return c, fail("invalid variable name", words[1], -1)
		}
		c.kind, c.v = cSet, syms.slot(words[1])
		// The expression is the rest of the line after the name.
		if err := exprOf(2); err != nil {
			return c, err
		}
	case "if", "elif":
		c.kind = cIf
		if name == "elif" {
			c.kind = cElif
		}
		if len(words) < 2 {
			return c, fail("missing expression", "", -1)
		}
		if err := exprOf(1); err != nil {
			return c, err
		}
	case "else", "endif":
		c.kind = cElse
		if name == "endif" {
			c.kind = cEndif
		}
		if len(words) > 1 {
			return c, fail("unexpected argument", "", col+1+afterWords(rest, 1)+1)
		}
	case "sleep":
		if len(words) < 2 {
			return c, fail("missing argument", "", -1)
		}
		if len(words) > 3 {
			return c, fail("too many arguments", "", -1)
		}
		c.kind = cSleep
		arg, unit := words[1], ""
		if len(words) == 3 {
			unit = words[2]
		}
		if strings.HasPrefix(arg, ":") {
			if !validVarName(arg[1:]) {
				return c, fail("invalid variable name", arg, -1)
			}
			c.sleepVar = syms.slot(arg[1:])
		} else {
			j := 0
			for j < len(arg) && arg[j] >= '0' && arg[j] <= '9' {
				j++
			}
			if j < len(arg) && unit == "" {
				unit = arg[j:] // "10ms"
			} else if j < len(arg) {
				return c, fail("invalid sleep time", arg, -1)
			}
			v, err := strconv.ParseInt(arg[:j], 10, 64)
			if err != nil {
				return c, fail("invalid sleep time", arg, -1)
			}
			c.sleepUS = v
		}
		switch strings.ToLower(unit) {
		case "", "s":
			c.unitUS = 1_000_000
		case "ms":
			c.unitUS = 1000
		case "us":
			c.unitUS = 1
		default:
			return c, fail("unrecognized time unit, must be us, ms or s", unit, col+1+afterWords(rest, 2)+1)
		}
		if c.sleepVar < 0 {
			c.sleepUS *= c.unitUS
		}
	case "gset", "aset":
		if len(words) > 2 {
			return c, fail("too many arguments", "", -1)
		}
		c.kind, c.gset = cSQL, gSet
		if name == "aset" {
			c.gset = gAset
		}
		if len(words) == 2 {
			c.prefix = words[1]
		}
	case "shell", "setshell":
		if !po.allowShell {
			return c, fail("candor runs no shell command from a script unless --allow-shell is given (pgbench would run it)", "", -1)
		}
		c.kind, c.argv = cShell, words[1:]
		if name == "setshell" {
			if len(words) < 3 {
				return c, fail("missing command", "", -1)
			}
			if !validVarName(words[1]) {
				return c, fail("invalid variable name", words[1], -1)
			}
			c.kind, c.v, c.argv = cSetShell, syms.slot(words[1]), words[2:]
		} else if len(words) < 2 {
			return c, fail("missing command", "", -1)
		}
		for _, a := range c.argv {
			if strings.HasPrefix(a, ":") && !strings.HasPrefix(a, "::") {
				syms.slot(a[1:])
			}
		}
	case "startpipeline", "endpipeline":
		return c, fail("candor does not run pipeline mode (\\startpipeline, \\endpipeline); remove them to send the statements one by one", "", -1)
	default:
		return c, fail("invalid command", "", -1)
	}
	return c, nil
}

// afterWords is the offset in s just after its n-th white-space separated
// word.
func afterWords(s string, n int) int {
	i := 0
	for ; n > 0; n-- {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
		for i < len(s) && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
	}
	return i
}

// linkConditionals checks that \if ... \endif balance and sets each
// one's jump: \if and \elif to the next branch of their own level, \elif
// and \else to their \endif.
func linkConditionals(file string, cmds []command) error {
	type open struct {
		at      int   // the \if
		pending int   // the \if or \elif whose false branch is not linked yet
		ends    []int // \elif and \else that jump to the \endif
		sawElse bool
	}
	var stack []open
	for i := range cmds {
		c := &cmds[i]
		fail := func(msg string) error {
			return fmt.Errorf("condition error in script \"%s\" command %d: %s", file, i+1, msg)
		}
		switch c.kind {
		case cIf:
			stack = append(stack, open{at: i, pending: i})
		case cElif, cElse:
			if len(stack) == 0 {
				return fail(fmt.Sprintf("\\%s without matching \\if", map[cmdKind]string{cElif: "elif", cElse: "else"}[c.kind]))
			}
			top := &stack[len(stack)-1]
			if top.sawElse {
				return fail(fmt.Sprintf("\\%s after \\else", map[cmdKind]string{cElif: "elif", cElse: "else"}[c.kind]))
			}
			cmds[top.pending].jump = i
			top.ends = append(top.ends, i)
			top.pending = i
			if c.kind == cElse {
				top.sawElse = true
				top.pending = -1
			}
		case cEndif:
			if len(stack) == 0 {
				return fail("\\endif without matching \\if")
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.pending >= 0 {
				cmds[top.pending].jump = i
			}
			for _, e := range top.ends {
				cmds[e].end = i
			}
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("condition error in script \"%s\" command %d: \\if without matching \\endif", file, len(cmds)+1)
	}
	return nil
}
