package pgbench

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// op is an expression node's operation.
type op uint8

const (
	opConst op = iota
	opVar
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opEq
	opNe
	opLt
	opLe
	opBitAnd
	opBitOr
	opBitXor
	opShl
	opShr
	opAnd
	opOr
	opNot
	opIs
	opCase // args: cond1, val1, cond2, val2, ..., else
	opFunc
)

// expr is one node of a \set or \if expression.
type expr struct {
	op   op
	val  value   // opConst
	v    int     // opVar: the variable's slot
	fn   *fnDef  // opFunc
	args []*expr // operands, or the function's arguments
	name string  // opVar: the variable's name, for messages
}

// fnDef is one of pgbench's functions: its name and arity (-1: one or more).
type fnDef struct {
	name    string
	minArgs int
	maxArgs int
	id      fnID
}

type fnID uint8

const (
	fAbs fnID = iota
	fDebug
	fDouble
	fInt
	fGreatest
	fLeast
	fExp
	fLn
	fSqrt
	fPi
	fPow
	fMod
	fRandom
	fRandomExponential
	fRandomGaussian
	fRandomZipfian
	fHashMurmur2
	fHashFNV1a
	fPermute
)

// functions are pgbench 15's built-in functions, by lower-case name.
var functions = map[string]*fnDef{}

func init() {
	for _, f := range []fnDef{
		{"abs", 1, 1, fAbs}, {"debug", 1, 1, fDebug}, {"double", 1, 1, fDouble}, {"int", 1, 1, fInt},
		{"greatest", 1, -1, fGreatest}, {"least", 1, -1, fLeast},
		{"exp", 1, 1, fExp}, {"ln", 1, 1, fLn}, {"sqrt", 1, 1, fSqrt}, {"pi", 0, 0, fPi},
		{"pow", 2, 2, fPow}, {"power", 2, 2, fPow}, {"mod", 2, 2, fMod},
		{"random", 2, 2, fRandom}, {"random_exponential", 3, 3, fRandomExponential},
		{"random_gaussian", 3, 3, fRandomGaussian}, {"random_zipfian", 3, 3, fRandomZipfian},
		{"hash", 1, 2, fHashMurmur2}, {"hash_murmur2", 1, 2, fHashMurmur2}, {"hash_fnv1a", 1, 2, fHashFNV1a},
		{"permute", 2, 3, fPermute},
	} {
		f := f
		functions[f.name] = &f
	}
}

// Parameter bounds of the random functions (pgbench.c).
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

// syntaxError is an error in a script's text, reported as pgbench does:
// file:line, the message, the command, and a caret under the column.
type syntaxError struct {
	file    string
	line    int
	msg     string
	detail  string // "" or what was found
	command string // the meta-command's name, "" for SQL
	text    string // the line
	col     int    // byte offset of the caret in text, -1 for none
}

func (e *syntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", e.file, e.line, e.msg)
	if e.detail != "" {
		fmt.Fprintf(&b, " (%s)", e.detail)
	}
	if e.command != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.command)
	}
	if e.text != "" {
		fmt.Fprintf(&b, "\n%s", e.text)
		if e.col >= 0 {
			fmt.Fprintf(&b, "\n%s^ error found here", strings.Repeat(" ", e.col))
		}
	}
	return b.String()
}

// token kinds of the expression lexer.
type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tDouble
	tVar
	tIdent // a function name or keyword
	tOp    // an operator or punctuation
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// lexExpr splits an expression into tokens; pos values are offsets in s.
func lexExpr(s string) ([]token, int, string) {
	var out []token
	isIdentStart := func(c byte) bool { return c == '_' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isIdent := func(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			kind := tInt
			if j < len(s) && s[j] == '.' {
				kind = tDouble
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					kind = tDouble
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			out = append(out, token{kind, s[i:j], i})
			i = j
		case c == ':':
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			if j == i+1 {
				return nil, i, "unexpected character"
			}
			out = append(out, token{tVar, s[i+1 : j], i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			out = append(out, token{tIdent, s[i:j], i})
			i = j
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "<=", ">=", "<>", "!=", "<<", ">>":
				out = append(out, token{tOp, two, i})
				i += 2
				continue
			}
			if strings.IndexByte("+-*/%()<>=,&|#~", c) < 0 {
				return nil, i, "unexpected character (" + string(c) + ")"
			}
			out = append(out, token{tOp, s[i : i+1], i})
			i++
		}
	}
	return append(out, token{tEOF, "", len(s)}), 0, ""
}

// exprParser parses one expression from its tokens.
type exprParser struct {
	toks []token
	i    int
	vars *symbols
	err  string
	pos  int
}

func (p *exprParser) peek() token { return p.toks[p.i] }

func (p *exprParser) fail(msg string, pos int) *expr {
	if p.err == "" {
		p.err, p.pos = msg, pos
	}
	return &expr{op: opConst, val: nullVal}
}

func (p *exprParser) isKw(words ...string) bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	for _, w := range words {
		if strings.EqualFold(t.text, w) {
			return true
		}
	}
	return false
}

func (p *exprParser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != tOp {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

// parseExpr parses s (the text after "\set name", or "\if"'s) into an
// expression whose variables are slots of vars; on error it returns the
// message and the offset in s where it was found.
func parseExpr(s string, vars *symbols) (*expr, string, int) {
	toks, pos, msg := lexExpr(s)
	if msg != "" {
		return nil, msg, pos
	}
	p := &exprParser{toks: toks, vars: vars}
	if p.peek().kind == tEOF {
		return nil, "syntax error", 0
	}
	e := p.or()
	if p.err == "" && p.peek().kind != tEOF {
		p.fail("syntax error", p.peek().pos)
	}
	if p.err != "" {
		return nil, p.err, p.pos
	}
	return e, "", 0
}

func bin(o op, a, b *expr) *expr { return &expr{op: o, args: []*expr{a, b}} }

// leftAssoc parses next (kw next)...: a chain of the keyword operator kw.
func (p *exprParser) leftAssoc(kw string, o op, next func() *expr) *expr {
	e := next()
	for p.err == "" && p.isKw(kw) {
		p.i++
		e = bin(o, e, next())
	}
	return e
}

func (p *exprParser) or() *expr { return p.leftAssoc("or", opOr, p.and) }

func (p *exprParser) and() *expr { return p.leftAssoc("and", opAnd, p.not) }

func (p *exprParser) not() *expr {
	if p.isKw("not") {
		p.i++
		return &expr{op: opNot, args: []*expr{p.not()}}
	}
	return p.is()
}

func (p *exprParser) is() *expr {
	e := p.cmp()
	switch {
	case p.isKw("isnull"):
		p.i++
		return bin(opIs, e, &expr{op: opConst, val: nullVal})
	case p.isKw("notnull"):
		p.i++
		return &expr{op: opNot, args: []*expr{bin(opIs, e, &expr{op: opConst, val: nullVal})}}
	case p.isKw("is"):
		p.i++
		neg := false
		if p.isKw("not") {
			p.i++
			neg = true
		}
		var v value
		switch {
		case p.isKw("null"):
			v = nullVal
		case p.isKw("true"):
			v = boolVal(true)
		case p.isKw("false"):
			v = boolVal(false)
		default:
			return p.fail("syntax error", p.peek().pos)
		}
		p.i++
		e = bin(opIs, e, &expr{op: opConst, val: v})
		if neg {
			e = &expr{op: opNot, args: []*expr{e}}
		}
	}
	return e
}

func (p *exprParser) cmp() *expr {
	e := p.bit()
	if p.peek().kind != tOp {
		return e
	}
	switch p.peek().text {
	case "=":
		p.i++
		return bin(opEq, e, p.bit())
	case "<>", "!=":
		p.i++
		return bin(opNe, e, p.bit())
	case "<":
		p.i++
		return bin(opLt, e, p.bit())
	case "<=":
		p.i++
		return bin(opLe, e, p.bit())
	case ">":
		p.i++
		return bin(opLt, p.bit(), e)
	case ">=":
		p.i++
		return bin(opLe, p.bit(), e)
	}
	return e
}

func (p *exprParser) bit() *expr {
	e := p.add()
	for p.err == "" && p.peek().kind == tOp {
		var o op
		switch p.peek().text {
		case "&":
			o = opBitAnd
		case "|":
			o = opBitOr
		case "#":
			o = opBitXor
		case "<<":
			o = opShl
		case ">>":
			o = opShr
		default:
			return e
		}
		p.i++
		e = bin(o, e, p.add())
	}
	return e
}

func (p *exprParser) add() *expr {
	e := p.mul()
	for p.err == "" && p.isOp("+", "-") {
		o := opAdd
		if p.peek().text == "-" {
			o = opSub
		}
		p.i++
		e = bin(o, e, p.mul())
	}
	return e
}

func (p *exprParser) mul() *expr {
	e := p.unary()
	for p.err == "" && p.isOp("*", "/", "%") {
		o := map[string]op{"*": opMul, "/": opDiv, "%": opMod}[p.peek().text]
		p.i++
		e = bin(o, e, p.unary())
	}
	return e
}

func (p *exprParser) unary() *expr {
	switch {
	case p.isOp("+"):
		p.i++
		return p.unary()
	case p.isOp("-"):
		p.i++
		// -9223372036854775808 is a constant, as in pgbench's lexer.
		if t := p.peek(); t.kind == tInt && t.text == "9223372036854775808" {
			p.i++
			return &expr{op: opConst, val: intVal(math.MinInt64)}
		}
		return bin(opSub, &expr{op: opConst, val: intVal(0)}, p.unary())
	case p.isOp("~"):
		p.i++
		return bin(opBitXor, p.unary(), &expr{op: opConst, val: intVal(-1)})
	}
	return p.primary()
}

func (p *exprParser) primary() *expr {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.i++
		i, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return p.fail("bigint constant overflow", t.pos)
		}
		return &expr{op: opConst, val: intVal(i)}
	case tDouble:
		p.i++
		d, err := strconv.ParseFloat(t.text, 64)
		if err != nil && !math.IsInf(d, 0) {
			return p.fail("invalid double constant", t.pos)
		}
		return &expr{op: opConst, val: doubleVal(d)}
	case tVar:
		p.i++
		return &expr{op: opVar, v: p.vars.slot(t.text), name: t.text}
	case tOp:
		if t.text == "(" {
			p.i++
			e := p.or()
			if !p.isOp(")") {
				return p.fail("syntax error", p.peek().pos)
			}
			p.i++
			return e
		}
	case tIdent:
		switch strings.ToLower(t.text) {
		case "true":
			p.i++
			return &expr{op: opConst, val: boolVal(true)}
		case "false":
			p.i++
			return &expr{op: opConst, val: boolVal(false)}
		case "null":
			p.i++
			return &expr{op: opConst, val: nullVal}
		case "case":
			return p.caseExpr()
		case "and", "or", "not", "is", "isnull", "notnull", "when", "then", "else", "end":
			return p.fail("syntax error", t.pos)
		}
		p.i++
		if !p.isOp("(") {
			return p.fail("syntax error", p.peek().pos)
		}
		f := functions[strings.ToLower(t.text)]
		if f == nil {
			return p.fail("unexpected function name ("+t.text+")", t.pos+len(t.text)-1)
		}
		p.i++
		e := &expr{op: opFunc, fn: f}
		if !p.isOp(")") {
			for {
				e.args = append(e.args, p.or())
				if p.err != "" {
					return e
				}
				if !p.isOp(",") {
					break
				}
				p.i++
			}
		}
		if !p.isOp(")") {
			return p.fail("syntax error", p.peek().pos)
		}
		end := p.peek().pos
		p.i++
		if len(e.args) < f.minArgs || f.maxArgs >= 0 && len(e.args) > f.maxArgs || len(e.args) > 16 {
			p.err, p.pos = "unexpected number of arguments ("+f.name+")", end
		}
		return e
	}
	return p.fail("syntax error", t.pos)
}

func (p *exprParser) caseExpr() *expr {
	p.i++ // CASE
	e := &expr{op: opCase}
	for p.isKw("when") {
		p.i++
		c := p.or()
		if !p.isKw("then") {
			return p.fail("syntax error", p.peek().pos)
		}
		p.i++
		e.args = append(e.args, c, p.or())
		if p.err != "" {
			return e
		}
	}
	if len(e.args) == 0 {
		return p.fail("syntax error", p.peek().pos)
	}
	if p.isKw("else") {
		p.i++
		e.args = append(e.args, p.or())
	} else {
		e.args = append(e.args, &expr{op: opConst, val: nullVal})
	}
	if !p.isKw("end") {
		return p.fail("syntax error", p.peek().pos)
	}
	p.i++
	return e
}

// evalError is an expression's run-time error (pgbench aborts the client;
// candor fails the transaction).
type evalError struct{ msg string }

func (e *evalError) Error() string { return e.msg }

func evalErr(format string, a ...any) error { return &evalError{fmt.Sprintf(format, a...)} }

// eval computes e for client c. Its own frame stays small (every \set
// and \if of every transaction passes through it, recursively): the
// variables, the logic operators and the errors are in functions of their
// own, whose frames Go zeroes only when they run.
func (c *client) eval(e *expr) (value, error) {
	switch e.op {
	case opConst:
		return e.val, nil
	case opVar:
		if v := c.vars[e.v]; v.k != kUndef && v.k != kString {
			return v, nil
		}
		return c.evalVar(e)
	case opFunc:
		return c.call(e)
	case opAnd, opOr, opCase, opNot:
		return c.evalLogic(e)
	}
	return c.evalArith(e)
}

// evalVar reads a variable that is undefined (an error) or holds a
// string, resolved as pgbench resolves one in an expression.
func (c *client) evalVar(e *expr) (value, error) {
	v := c.vars[e.v]
	if v.k == kUndef {
		return v, evalErr("undefined variable \"%s\"", e.name)
	}
	r, err := v.resolve(e.name)
	if err != nil {
		return v, &evalError{err.Error()}
	}
	return r, nil
}

// evalArith computes a binary operator of e (arithmetic, comparison,
// bitwise: NULL when either operand is; IS).
func (c *client) evalArith(e *expr) (value, error) {
	a, err := c.eval(e.args[0])
	if err != nil {
		return a, err
	}
	b, err := c.eval(e.args[1])
	if err != nil {
		return b, err
	}
	if e.op == opIs {
		return boolVal(a.k == b.k && a.i == b.i && a.b == b.b && math.Float64bits(a.d) == math.Float64bits(b.d)), nil
	}
	if a.k == kNull || b.k == kNull {
		return nullVal, nil
	}
	v, err := arith(e.op, a, b)
	if err != nil {
		return v, &evalError{err.Error()}
	}
	return v, nil
}

// evalBool evaluates x as a boolean; null when it is NULL.
func (c *client) evalBool(x *expr) (b, null bool, err error) {
	v, err := c.eval(x)
	if err != nil || v.k == kNull {
		return false, err == nil, err
	}
	if b, err = v.asBool(); err != nil {
		return false, false, &evalError{err.Error()}
	}
	return b, false, nil
}

// evalLogic computes AND, OR (short-circuit), CASE and NOT.
func (c *client) evalLogic(e *expr) (value, error) {
	switch e.op {
	case opAnd, opOr:
		ab, null, err := c.evalBool(e.args[0])
		if err != nil || null {
			return nullVal, err
		}
		if e.op == opAnd && !ab || e.op == opOr && ab {
			return boolVal(ab), nil
		}
		bb, null, err := c.evalBool(e.args[1])
		if err != nil || null {
			return nullVal, err
		}
		return boolVal(bb), nil
	case opCase:
		n := len(e.args)
		for i := 0; i+1 < n; i += 2 {
			cond, err := c.eval(e.args[i])
			if err != nil {
				return cond, err
			}
			if cond.truth() {
				return c.eval(e.args[i+1])
			}
		}
		return c.eval(e.args[n-1])
	}
	// opNot
	b, null, err := c.evalBool(e.args[0])
	if err != nil || null {
		return nullVal, err
	}
	return boolVal(!b), nil
}

// arith applies a binary operator to non-NULL operands.
func arith(o op, a, b value) (value, error) {
	switch o {
	case opAdd, opSub, opMul, opDiv, opEq, opNe, opLt, opLe:
		if a.k == kDouble || b.k == kDouble {
			x, err := a.asDouble()
			if err != nil {
				return nullVal, err
			}
			y, err := b.asDouble()
			if err != nil {
				return nullVal, err
			}
			switch o {
			case opAdd:
				return doubleVal(x + y), nil
			case opSub:
				return doubleVal(x - y), nil
			case opMul:
				return doubleVal(x * y), nil
			case opDiv:
				return doubleVal(x / y), nil
			}
			return compare(o, x, y), nil
		}
	}
	x, err := a.asInt()
	if err != nil {
		return nullVal, err
	}
	y, err := b.asInt()
	if err != nil {
		return nullVal, err
	}
	switch o {
	case opAdd:
		s := x + y
		if (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0) {
			return nullVal, fmt.Errorf("bigint add out of range")
		}
		return intVal(s), nil
	case opSub:
		s := x - y
		if (x >= 0) != (y >= 0) && (s >= 0) != (x >= 0) {
			return nullVal, fmt.Errorf("bigint sub out of range")
		}
		return intVal(s), nil
	case opMul:
		hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
		neg := (x < 0) != (y < 0)
		if hi != 0 || lo > math.MaxInt64 && !(neg && lo == 1<<63) || x == math.MinInt64 && y != 1 && y != 0 || y == math.MinInt64 && x != 1 && x != 0 {
			return nullVal, fmt.Errorf("bigint mul out of range")
		}
		return intVal(x * y), nil
	case opDiv, opMod:
		if y == 0 {
			return nullVal, fmt.Errorf("division by zero")
		}
		if y == -1 {
			if o == opMod {
				return intVal(0), nil
			}
			if x == math.MinInt64 {
				return nullVal, fmt.Errorf("bigint out of range")
			}
			return intVal(-x), nil
		}
		if o == opDiv {
			return intVal(x / y), nil
		}
		return intVal(x % y), nil
	case opEq, opNe, opLt, opLe:
		return compare(o, x, y), nil
	case opBitAnd:
		return intVal(x & y), nil
	case opBitOr:
		return intVal(x | y), nil
	case opBitXor:
		return intVal(x ^ y), nil
	case opShl:
		return intVal(x << uint64(y&63)), nil
	case opShr:
		return intVal(x >> uint64(y&63)), nil
	}
	return nullVal, fmt.Errorf("unknown operator")
}

// compare applies a comparison operator (opEq, opNe, opLt, opLe).
func compare[T int64 | float64](o op, x, y T) value {
	switch o {
	case opEq:
		return boolVal(x == y)
	case opNe:
		return boolVal(x != y)
	case opLt:
		return boolVal(x < y)
	}
	return boolVal(x <= y)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// call evaluates a function call.
func (c *client) call(e *expr) (value, error) {
	var buf [4]value
	args := buf[:0]
	for _, a := range e.args {
		v, err := c.eval(a)
		if err != nil {
			return v, err
		}
		args = append(args, v)
	}
	id := e.fn.id
	if id == fDebug {
		c.w.debug(c, e, args[0])
		return args[0], nil
	}
	for _, a := range args {
		if a.k == kNull {
			return nullVal, nil
		}
	}
	v, err := callFn(c, id, args)
	if err != nil {
		return v, &evalError{err.Error()}
	}
	return v, nil
}

func callFn(c *client, id fnID, args []value) (value, error) {
	dbl := func(i int) (float64, error) { return args[i].asDouble() }
	switch id {
	case fAbs:
		a := args[0]
		switch a.k {
		case kInt:
			if a.i == math.MinInt64 {
				return nullVal, fmt.Errorf("bigint out of range")
			}
			return intVal(abs64(a.i)), nil
		case kDouble:
			return doubleVal(math.Abs(a.d)), nil
		}
		return nullVal, fmt.Errorf("cannot coerce boolean to int")
	case fDouble:
		d, err := dbl(0)
		return doubleVal(d), err
	case fInt:
		i, err := args[0].asInt()
		return intVal(i), err
	case fGreatest, fLeast:
		anyDouble := false
		for _, a := range args {
			anyDouble = anyDouble || a.k == kDouble
		}
		if anyDouble {
			best, err := dbl(0)
			for i := 1; i < len(args) && err == nil; i++ {
				var d float64
				d, err = dbl(i)
				if id == fGreatest && d > best || id == fLeast && d < best {
					best = d
				}
			}
			return doubleVal(best), err
		}
		best, err := args[0].asInt()
		for i := 1; i < len(args) && err == nil; i++ {
			var d int64
			d, err = args[i].asInt()
			if id == fGreatest && d > best || id == fLeast && d < best {
				best = d
			}
		}
		return intVal(best), err
	case fExp, fLn, fSqrt:
		d, err := dbl(0)
		switch id {
		case fExp:
			d = math.Exp(d)
		case fLn:
			d = math.Log(d)
		default:
			d = math.Sqrt(d)
		}
		return doubleVal(d), err
	case fPi:
		return doubleVal(math.Pi), nil
	case fPow:
		x, err := dbl(0)
		if err != nil {
			return nullVal, err
		}
		y, err := dbl(1)
		return doubleVal(math.Pow(x, y)), err
	case fMod:
		return arith(opMod, args[0], args[1])
	case fRandom, fRandomExponential, fRandomGaussian, fRandomZipfian:
		lb, err := args[0].asInt()
		if err != nil {
			return nullVal, err
		}
		ub, err := args[1].asInt()
		if err != nil {
			return nullVal, err
		}
		if lb > ub {
			return nullVal, fmt.Errorf("empty range given to random")
		}
		if ub-lb < 0 || ub-lb+1 < 0 {
			return nullVal, fmt.Errorf("random range is too large")
		}
		if id == fRandom {
			return intVal(c.rng.uniform(lb, ub)), nil
		}
		param, err := dbl(2)
		if err != nil {
			return nullVal, err
		}
		switch id {
		case fRandomGaussian:
			if param < minGaussianParam {
				return nullVal, fmt.Errorf("gaussian parameter must be at least %f (not %f)", minGaussianParam, param)
			}
			return intVal(c.rng.gaussian(lb, ub, param)), nil
		case fRandomZipfian:
			if param < minZipfianParam || param > maxZipfianParam {
				return nullVal, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfianParam, maxZipfianParam, param)
			}
			return intVal(c.rng.zipfian(lb, ub, param)), nil
		}
		if param <= 0.0 {
			return nullVal, fmt.Errorf("exponential parameter must be greater than zero (not %f)", param)
		}
		return intVal(c.rng.exponential(lb, ub, param)), nil
	case fHashMurmur2, fHashFNV1a:
		v, err := args[0].asInt()
		if err != nil {
			return nullVal, err
		}
		seed := c.defaultSeed()
		if len(args) > 1 {
			s, err := args[1].asInt()
			if err != nil {
				return nullVal, err
			}
			seed = uint64(s)
		}
		if id == fHashFNV1a {
			return intVal(hashFNV1a(v, seed)), nil
		}
		return intVal(hashMurmur2(v, seed)), nil
	case fPermute:
		v, err := args[0].asInt()
		if err != nil {
			return nullVal, err
		}
		size, err := args[1].asInt()
		if err != nil {
			return nullVal, err
		}
		seed := int64(c.defaultSeed())
		if len(args) > 2 {
			if seed, err = args[2].asInt(); err != nil {
				return nullVal, err
			}
		}
		if size <= 0 {
			return nullVal, fmt.Errorf("permute size parameter must be greater than zero")
		}
		return intVal(permute(v, size, seed)), nil
	}
	return nullVal, fmt.Errorf("unknown function")
}

// defaultSeed is the seed of hash and permute without one: the variable
// :default_seed, as pgbench reads it (-D default_seed=N overrides the
// drawn one).
func (c *client) defaultSeed() uint64 {
	if slot := c.w.slots.defaultSeed; slot < len(c.vars) {
		if v, err := c.vars[slot].resolve("default_seed"); err == nil && v.k == kInt {
			return uint64(v.i)
		}
	}
	return c.w.defaultSeed
}
