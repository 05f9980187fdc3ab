// Package probe observes what a product's isolation levels allow: for each
// level, candor's own deterministic interleavings of two or three sessions
// (after Hermitage's test cases) on a two-row table of candor's own, one per
// anomaly, each ending prevented (a step waited for a lock, a transaction
// was aborted with the server's error code, or the reads simply never showed
// it) or allowed. The verdict comes from what the reads returned, which
// transactions committed and the table's final rows, never from the name of
// the level.
package probe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// ErrBadLevel marks an isolation level the probe does not know.
var ErrBadLevel = errors.New("unknown isolation level")

// SchemaVersion is the version of Report's JSON form.
const SchemaVersion = 1

// DefaultTable begins the name of the probe's table; candor creates it,
// marks it as its own and drops it when the probe ends. A suffix of its own
// per probe keeps two probes of one server (two candor processes) apart.
const DefaultTable = "candor_isolation_probe"

// Levels are the isolation levels a probe tries when none is named, in the
// order reports list them. A level the driver refuses is reported as not
// offered.
var Levels = []string{"read-uncommitted", "read-committed", "repeatable-read", "serializable"}

// Options say what to probe.
type Options struct {
	// Levels to probe; empty: every one of Levels the target offers.
	Levels []string
	// ConnectTimeout bounds every connection attempt (target.Options).
	ConnectTimeout time.Duration
	// Table is the probe table's name; "" is DefaultTable, an underscore
	// and 8 random hexadecimal digits.
	Table string
}

// Report is the outcome of a probe of one target.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	Target        string `json:"target"` // redacted URL
	Driver        string `json:"driver"`
	Product       string `json:"product"`
	Version       string `json:"version"`
	// Identity names the server the probe observed (driver, product,
	// version, address): runs on the same identity and level share a probe.
	Identity string    `json:"identity"`
	Started  time.Time `json:"started"`
	Levels   []Level   `json:"levels"`
}

// Level is what one isolation level allowed.
type Level struct {
	Level    string    `json:"level"`
	Offered  bool      `json:"offered"`
	Reason   string    `json:"reason,omitempty"` // why it is not offered
	Outcomes []Outcome `json:"outcomes,omitempty"`
}

// Outcome is one anomaly at one level.
type Outcome struct {
	Anomaly string `json:"anomaly"`
	Allowed bool   `json:"allowed"`
	// How it was prevented: "blocked" (a step waited for another
	// session's lock), "aborted" (a transaction failed, Aborts says
	// with what), "blocked, aborted", or "not observed" (every step ran
	// and the reads and the final rows showed no anomaly). "" when allowed.
	How     string   `json:"how,omitempty"`
	Blocked []string `json:"blocked,omitempty"` // the steps that waited, "T2 UPDATE ..."
	Aborts  []Abort  `json:"aborts,omitempty"`
}

// Abort is a step that failed, which ended its transaction.
type Abort struct {
	Step    string `json:"step"`
	Code    string `json:"code,omitempty"` // SQLSTATE, or error number/SQLSTATE (MySQL), or SQLite's extended code
	Message string `json:"message"`
}

// Cell is an outcome's text in a table: "allowed", or how it was prevented,
// with the first abort's code.
func (o Outcome) Cell() string {
	if o.Allowed {
		return "allowed"
	}
	var parts []string
	if len(o.Blocked) > 0 {
		parts = append(parts, "blocked")
	}
	if len(o.Aborts) > 0 {
		a := "abort"
		if o.Aborts[0].Code != "" {
			a += " " + o.Aborts[0].Code
		}
		parts = append(parts, a)
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}

// Find returns the outcome of anomaly at level, and false when the report
// has none.
func (r Report) Find(level, anomaly string) (Outcome, bool) {
	for _, l := range r.Levels {
		if l.Level != level {
			continue
		}
		for _, o := range l.Outcomes {
			if o.Anomaly == anomaly {
				return o, true
			}
		}
	}
	return Outcome{}, false
}

// Run probes the target at url, level by level, on a table it creates and
// drops. It fails when the target cannot be reached, the table cannot be
// created (ErrForeignTable when a table of its name is not candor's), or a
// probe hangs; an anomaly a level allows is a finding, not a failure.
func Run(ctx context.Context, url string, opts Options) (rep Report, err error) {
	levels := opts.Levels
	if len(levels) == 0 {
		levels = Levels
	}
	for _, l := range levels {
		if err := target.ValidIsolation(l); err != nil || l == "" {
			return Report{}, fmt.Errorf("%w: isolation level %q: name one of %s", ErrBadLevel, l, strings.Join(Levels, ", "))
		}
	}
	table := opts.Table
	if table == "" {
		table = fmt.Sprintf("%s_%08x", DefaultTable, rand.Uint32())
	}
	admin, err := target.Open(ctx, url, target.Options{ConnectTimeout: opts.ConnectTimeout})
	if err != nil {
		return Report{}, err
	}
	defer admin.Close()
	if !admin.Capabilities().Transactions || !admin.Capabilities().SQL() {
		return Report{}, fmt.Errorf("%w: isolation probes need SQL transactions, and %s has none", target.ErrUnsupported, admin.RedactedURL())
	}
	fp, err := admin.Fingerprint(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("isolation probe: reading the target's fingerprint: %w", err)
	}
	rep = Report{SchemaVersion: SchemaVersion, Target: admin.RedactedURL(), Driver: admin.Driver(),
		Product: fp.Product, Version: fp.Version, Identity: Identity(fp), Started: time.Now().UTC()}
	conn, err := admin.Connect(ctx)
	if err != nil {
		return Report{}, err
	}
	defer conn.Close()
	t := &probeTable{conn: conn, tgt: admin, name: table}
	if err := t.create(ctx); err != nil {
		return Report{}, err
	}
	defer func() {
		// The table goes even when ctx has ended (Ctrl-C).
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if derr := t.drop(dctx); derr != nil && err == nil {
			err = derr
		}
	}()
	for _, l := range levels {
		lv, err := probeLevel(ctx, url, opts, l, t)
		if err != nil {
			return rep, err
		}
		rep.Levels = append(rep.Levels, lv)
	}
	return rep, nil
}

func probeLevel(ctx context.Context, url string, opts Options, level string, t *probeTable) (Level, error) {
	lv := Level{Level: level}
	tgt, err := target.Open(ctx, url, target.Options{ConnectTimeout: opts.ConnectTimeout, Isolation: level})
	if errors.Is(err, target.ErrUnsupported) {
		lv.Reason = err.Error()
		return lv, nil
	}
	if err != nil {
		return lv, err
	}
	defer tgt.Close()
	lv.Offered = true
	p := dialect.Probe(tgt.Dialect())
	x := &execution{tgt: tgt, probe: p, monitor: t.conn, table: t.name, waiting: chooseWaiting(ctx, t.conn, p)}
	for _, sc := range scripts(tgt.Dialect()) {
		if err := t.reset(ctx); err != nil {
			return lv, err
		}
		recs, err := x.execute(ctx, sc)
		if err != nil {
			return lv, fmt.Errorf("isolation probe %s at %s: %w", sc.name, level, err)
		}
		final, err := t.rows(ctx)
		if err != nil {
			return lv, err
		}
		lv.Outcomes = append(lv.Outcomes, outcome(tgt, sc, recs, final, t.name))
	}
	return lv, nil
}

// outcome judges one script's records.
func outcome(tgt target.Target, sc script, recs []*stepRecord, final map[int]int, table string) Outcome {
	o := Outcome{Anomaly: sc.name, Allowed: sc.check(view{steps: sc.steps, recs: recs, final: final})}
	for i, r := range recs {
		if r.blocked {
			o.Blocked = append(o.Blocked, sc.steps[i].text(table))
		}
		if r.err != nil {
			msg := r.err.Error()
			if se, ok := target.ServerErrorOf(tgt, r.err); ok && se.Message != "" {
				msg = se.Message
			}
			o.Aborts = append(o.Aborts, Abort{Step: sc.steps[i].text(table), Code: errCode(tgt, r.err), Message: msg})
		}
	}
	if !o.Allowed {
		switch {
		case len(o.Blocked) > 0 && len(o.Aborts) > 0:
			o.How = "blocked, aborted"
		case len(o.Blocked) > 0:
			o.How = "blocked"
		case len(o.Aborts) > 0:
			o.How = "aborted"
		default:
			o.How = "not observed"
		}
	}
	return o
}
