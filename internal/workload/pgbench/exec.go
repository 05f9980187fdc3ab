package pgbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/cacheline"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// client is one pgbench client's state: its variables and its generator.
type client struct {
	w       *Workload
	vars    []value
	rng     prng
	script  int // for debug(): the script and command running
	command int
}

// worker is one client; it is used by one goroutine.
type worker struct {
	_           cacheline.Pad // see package cacheline
	w           *Workload
	id          int
	r           *rand.Rand
	chooser     prng // chooses the script of each transaction
	c           client
	cur         int  // the chosen script
	saved       prng // the generator at the transaction's start (retries restart from it)
	buf         []byte
	args        []any
	row         [][]byte // \gset: the last row's columns
	lastSQL     string   // the text of the last SQL command sent, for its error
	counterBase []int    // with -r: each script's first counter
	_           cacheline.Pad
}

// Next chooses the transaction's script by weight, as pgbench's
// chooseScript does (from the worker's chooser, drawn as a pgbench
// thread's).
func (wk *worker) Next() workload.OpID {
	if len(wk.w.scripts) > 1 {
		x := wk.chooser.uniform(0, wk.w.total-1)
		i := 0
		for x >= wk.w.scripts[i].cum {
			i++
		}
		wk.cur = i
	}
	wk.saved = wk.c.rng
	return workload.OpID(wk.cur)
}

// Done has nothing to finish.
func (wk *worker) Done(error) {}

// CommandError is an error of one command of a script: the transaction
// fails with it.
type CommandError struct {
	Script  string
	Index   int    // the script's place among the run's scripts (pgbench's "script 0")
	Command int    // 1-based
	Kind    string // the meta-command ("set", "sleep", ...); "" for an SQL command
	SQL     string // an SQL command's text as sent
	Line    int
	Err     error
}

// metaNames are the meta-commands' names in pgbench's abort messages.
var metaNames = map[cmdKind]string{cSet: "set", cSleep: "sleep", cIf: "if", cElif: "elif", cShell: "shell", cSetShell: "setshell"}

// Abort is the line pgbench 15 prints when the error aborts client: for an
// SQL command "client 0 script 0 aborted in command 1 query 0: ERROR: ...",
// here with the statement; for a meta-command "client 0 aborted in
// command 0 (set) of script 0; evaluation of meta-command failed: ...".
// Commands are numbered from 0, as pgbench numbers them.
func (e *CommandError) Abort(client int) string {
	if e.Kind != "" {
		return fmt.Sprintf("client %d aborted in command %d (%s) of script %d; evaluation of meta-command failed: %v (%s line %d)",
			client, e.Command-1, e.Kind, e.Index, e.Err, e.Script, e.Line)
	}
	return fmt.Sprintf("client %d script %d aborted in command %d query 0: %v; the statement (%s line %d): %s",
		client, e.Index, e.Command-1, e.Err, e.Script, e.Line, strings.TrimSpace(e.SQL))
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: line %d (command %d): %v", e.Script, e.Line, e.Command, e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Exec runs the chosen script once, from its generator state at Next (a
// retry draws the same values, as pgbench's retries do).
func (wk *worker) Exec(ctx context.Context, conn target.Conn, s workload.Span) error {
	w := wk.w
	if !w.bound {
		return errors.New("script/pgbench: Exec before Bind")
	}
	wk.c.rng = wk.saved
	sc := w.scripts[wk.cur]
	wk.c.script = wk.cur
	var ctr workload.Counter
	base := 0
	if wk.counterBase != nil {
		ctr, _ = s.(workload.Counter)
		base = wk.counterBase[wk.cur]
	}
	inTx := false
	for i := 0; i < len(sc.cmds); {
		cmd := &sc.cmds[i]
		wk.c.command = i
		var t0 time.Time
		if ctr != nil {
			t0 = time.Now()
		}
		next := i + 1
		var err error
		switch cmd.kind {
		case cSQL:
			err = wk.sql(ctx, conn, cmd)
			if err == nil && cmd.txWord != 0 {
				inTx = cmd.txWord > 0
			}
		case cSet:
			var v value
			if v, err = wk.c.eval(cmd.e); err == nil {
				wk.c.vars[cmd.v] = v
			}
		case cSleep:
			err = wk.sleep(ctx, cmd)
		case cIf:
			var v value
			if v, err = wk.c.eval(cmd.e); err == nil && !v.truth() {
				next, err = wk.branch(sc, cmd.jump)
			}
		case cElif, cElse:
			next = cmd.end + 1 // a branch before was taken
		case cShell, cSetShell:
			err = wk.shell(ctx, cmd)
		}
		if ctr != nil {
			ctr.Add(base+3*i, int64(time.Since(t0)))
			ctr.Add(base+3*i+1, 1)
			if err != nil {
				ctr.Add(base+3*i+2, 1)
			}
		}
		if err != nil {
			if inTx && ctx.Err() == nil {
				_, _ = conn.Exec(ctx, "ROLLBACK")
			}
			ce := &CommandError{Script: sc.info.Name, Index: wk.cur, Command: i + 1, Kind: metaNames[cmd.kind], Line: cmd.line, Err: err}
			if cmd.kind == cSQL {
				ce.SQL = wk.lastSQL
			}
			return ce
		}
		i = next
	}
	return nil
}

// branch goes to the branch after a false \if or \elif at j: it evaluates
// the \elif conditions in turn and returns the first command to run.
func (wk *worker) branch(sc *parsedScript, j int) (int, error) {
	for {
		c := &sc.cmds[j]
		switch c.kind {
		case cElif:
			v, err := wk.c.eval(c.e)
			if err != nil {
				return j, err
			}
			if v.truth() {
				return j + 1, nil
			}
			j = c.jump
		default: // \else, \endif
			return j + 1, nil
		}
	}
}

// sql runs one SQL command with the run's protocol: simple writes the
// variables' values into the text (an undefined one stays ":name", as
// pgbench leaves it); extended and prepared send them as parameters (an
// undefined one as NULL).
func (wk *worker) sql(ctx context.Context, conn target.Conn, cmd *command) error {
	text := cmd.plain
	var args []any
	if wk.w.opts.Protocol == ProtocolSimple {
		if text == "" {
			b := wk.buf[:0]
			for _, p := range cmd.parts {
				if p.slot < 0 {
					b = append(b, p.text...)
					continue
				}
				v := wk.c.vars[p.slot]
				if v.k == kUndef {
					b = append(append(b, ':'), p.name...)
					continue
				}
				b = v.appendText(b)
			}
			wk.buf = b
			text = string(b)
		}
	} else {
		text = cmd.bound
		args = wk.args[:0]
		for _, slot := range cmd.params {
			v := wk.c.vars[slot]
			switch v.k {
			case kUndef, kNull:
				args = append(args, nil)
			case kInt:
				args = append(args, v.i)
			case kString:
				args = append(args, v.s)
			default:
				args = append(args, v.String())
			}
		}
		wk.args = args
	}
	wk.lastSQL = text
	if cmd.gset == gNone {
		if len(args) == 0 {
			if pr, ok := conn.(target.Preparer); ok && wk.w.opts.Protocol != ProtocolSimple {
				// pgbench prepares (or sends with the extended
				// protocol) its statements without variables too.
				_, err := pr.ExecPrepared(ctx, text)
				return err
			}
			_, err := conn.Exec(ctx, text)
			return err
		}
		_, err := conn.Query(ctx, text, args, nil)
		return err
	}
	wk.row = wk.row[:0]
	n, err := conn.Query(ctx, text, args, func(cols [][]byte) error {
		wk.row = wk.row[:0]
		for _, c := range cols {
			if c == nil {
				wk.row = append(wk.row, nil)
			} else {
				wk.row = append(wk.row, append([]byte{}, c...))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if cmd.gset == gSet && n != 1 {
		return fmt.Errorf("expected one row, got %d", n)
	}
	if n == 0 {
		return nil // \aset: no row, no assignment
	}
	cn, ok := conn.(target.ColumnNamer)
	if !ok {
		return fmt.Errorf("\\gset and \\aset need the result's column names, which this target's driver does not give")
	}
	names := cn.ResultColumns()
	for i, name := range names {
		if i >= len(wk.row) {
			break
		}
		slot := wk.w.syms.lookup(cmd.prefix + name)
		if slot < 0 {
			continue // no script reads it
		}
		// A NULL column is stored as pgbench stores it, an empty string
		// (libpq's PQgetvalue), which an expression refuses.
		wk.c.vars[slot] = value{k: kString, s: string(wk.row[i])}
	}
	return nil
}

// sleep runs \sleep: its time counts in the transaction's latency.
func (wk *worker) sleep(ctx context.Context, cmd *command) error {
	us := cmd.sleepUS
	if cmd.sleepVar >= 0 {
		v := wk.c.vars[cmd.sleepVar]
		if v.k == kUndef {
			return fmt.Errorf("\\sleep: undefined variable \"%s\"", wk.w.syms.names[cmd.sleepVar])
		}
		n, err := strconv.Atoi(strings.TrimSpace(v.String()))
		if err != nil {
			return fmt.Errorf("\\sleep: %s is not an integer", v)
		}
		us = int64(n) * cmd.unitUS
	}
	// target.Sleep also waits under the runner's context without a Done
	// channel (its nil channel never fires).
	if !target.Sleep(ctx, time.Duration(us)*time.Microsecond) {
		return ctx.Err()
	}
	return nil
}

// shell runs \shell and \setshell (only with allow-shell): the arguments
// with :name replaced by the variable's value and ::x by :x.
func (wk *worker) shell(ctx context.Context, cmd *command) error {
	args := make([]string, len(cmd.argv))
	for i, a := range cmd.argv {
		switch {
		case strings.HasPrefix(a, "::"):
			args[i] = a[1:]
		case strings.HasPrefix(a, ":"):
			slot := wk.w.syms.lookup(a[1:])
			if slot < 0 || wk.c.vars[slot].k == kUndef {
				return fmt.Errorf("undefined variable \"%s\"", a[1:])
			}
			args[i] = wk.c.vars[slot].String()
		default:
			args[i] = a
		}
	}
	if ctx.Done() == nil {
		ctx = context.Background()
	}
	if cmd.kind == cShell {
		if err := exec.CommandContext(ctx, "/bin/sh", "-c", strings.Join(args, " ")).Run(); err != nil {
			return fmt.Errorf("\\shell: %w", err)
		}
		return nil
	}
	out, err := exec.CommandContext(ctx, "/bin/sh", "-c", strings.Join(args, " ")).Output()
	if err != nil {
		return fmt.Errorf("\\setshell: %w", err)
	}
	if len(out) > 63 {
		out = out[:63]
	}
	n, ok := parseInt64(string(out))
	if !ok {
		return fmt.Errorf("\\setshell: command %q must return an integer (not %q)", strings.Join(args, " "), strings.TrimSpace(string(out)))
	}
	wk.c.vars[cmd.v] = intVal(n)
	return nil
}

// loader loads pgbench -i's rows: the accounts of its records, and the
// branch and tellers of each scale unit whose first account it loads.
type loader struct {
	w        *Workload
	accounts workload.RowWriter
	rows     [][]any
	args     []any
	maxRows  int
}

// NewLoader returns a loader for one load worker.
func (w *Workload) NewLoader(int, *rand.Rand) workload.Loader {
	cols := []string{"aid", "bid", "abalance", "filler"}
	l := &loader{w: w, accounts: workload.RowWriter{Table: "pgbench_accounts", Columns: cols,
		Insert: func(n int) string { return w.dialect.InsertRows("pgbench_accounts", cols, n) }}}
	l.maxRows = 1000
	return l
}

// LoadBatch inserts accounts from+1..to, as pgbench -i's client-side
// generation writes them (bid by the account's scale unit, abalance 0,
// filler empty), and the branches (bbalance 0) and tellers (tbalance 0)
// of the units that start in the batch.
func (l *loader) LoadBatch(ctx context.Context, c target.Conn, from, to int64) error {
	d := l.w.dialect
	for rec := from; rec < to; rec++ {
		if rec%accountsPerScale != 0 {
			continue
		}
		unit := rec/accountsPerScale + 1
		if _, err := c.Exec(ctx, "INSERT INTO pgbench_branches (bid, bbalance) VALUES ("+d.Param(1)+", 0)", unit); err != nil {
			return err
		}
		for t := (unit-1)*tellersPerScale + 1; t <= unit*tellersPerScale; t++ {
			if _, err := c.Exec(ctx, "INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES ("+d.Param(1)+", "+d.Param(2)+", 0)", t, unit); err != nil {
				return err
			}
		}
		rec = unit*accountsPerScale - 1
	}
	chunk := l.maxRows
	if m := d.MaxBindParams; m > 0 && m/4 < chunk {
		chunk = m / 4
	}
	for lo := from; lo < to; lo += int64(chunk) {
		hi := min(to, lo+int64(chunk))
		l.rows, l.args = l.rows[:0], l.args[:0]
		for rec := lo; rec < hi; rec++ {
			aid := rec + 1
			start := len(l.args)
			l.args = append(l.args, aid, (aid-1)/accountsPerScale+1, int64(0), "")
			l.rows = append(l.rows, l.args[start:len(l.args):len(l.args)])
		}
		if err := l.accounts.Write(ctx, c, l.rows, l.args); err != nil {
			return err
		}
	}
	return nil
}
