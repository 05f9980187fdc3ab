package tables

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
)

// A table's identity is the database's own name for the object candor
// created (target.TableIdentity), recorded in its mark (Mark.ID) when candor
// creates it and read again, once, whenever candor opens the table: a run,
// a load, a cleanup, each repetition that re-creates a table. A table that
// another tool dropped and created again under the same name keeps candor's
// mark (the marker table knows only names) but has another identity:
// candor then refuses to use, write or drop it.

// idVerdict is how a table's identity compares with the one its mark
// records.
type idVerdict int

const (
	idSame     idVerdict = iota // the table candor created
	idDiffers                   // another table under the same name
	idUnknown                   // nothing to compare: no part in common
	idUnmarked                  // the mark predates identities
	idWeak                      // alike only in parts a copy carries
)

// parseIdentity takes "key:value,key:value" apart.
func parseIdentity(id string) map[string]string {
	out := map[string]string{}
	for _, p := range strings.Split(id, ",") {
		if k, v, ok := strings.Cut(p, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// compareIdentity compares the identity recorded in a mark with the one
// the table has now. The parts both have decide: one that differs makes
// it another table. A part only one has (MySQL's InnoDB table id, read
// with the PROCESS privilege on one side only) is left out. When the
// parts in common are all weak ones (a copy of the table's definition
// carries them: MySQL's comment token), the table is not known to be the
// one recorded (idWeak).
func compareIdentity(recorded, now string, weak []string) idVerdict {
	switch {
	case recorded == "":
		return idUnmarked
	case recorded == NoIdentity && now == "":
		return idSame // a product without identities, then and now
	case recorded == NoIdentity || now == "":
		return idUnknown
	}
	rec, cur := parseIdentity(recorded), parseIdentity(now)
	common, strong := 0, 0
	for k, v := range rec {
		if w, ok := cur[k]; ok {
			if w != v {
				return idDiffers
			}
			common++
			if !slices.Contains(weak, k) {
				strong++
			}
		}
	}
	switch {
	case common == 0:
		return idUnknown
	case strong == 0:
		return idWeak
	}
	return idSame
}

// withRewritten is m with its identity's rewritten parts (the dialect's
// Rewritten: MySQL's create time, which candor's own CREATE INDEX after a
// load sets anew on MariaDB) taken from now, when the other parts are
// the recorded ones. Only the end of a load candor ran on the table,
// whose identity it checked when the load began, calls it.
func withRewritten(d dialect.Dialect, m Mark, now string) Mark {
	o := dialect.Ownership(d)
	if len(o.Rewritten) == 0 || m.ID == "" || m.ID == NoIdentity || m.ID == now {
		return m
	}
	keep := func(id string) string {
		var parts []string
		for _, p := range strings.Split(id, ",") {
			if k, _, _ := strings.Cut(p, ":"); !slices.Contains(o.Rewritten, k) {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, ",")
	}
	if v := compareIdentity(keep(m.ID), keep(now), nil); v == idSame {
		m.ID = now
	}
	return m
}

// replacedReason says why the table whose mark is m and whose identity is
// now now is not the table candor created, on dialect d; "" when it is,
// and on a product that gives no identity (nothing to check there, whatever
// the mark says: null:// answers every query with the same row).
func replacedReason(d dialect.Dialect, m Mark, now string) string {
	if len(dialect.Ownership(d).Identity) == 0 {
		return ""
	}
	switch compareIdentity(m.ID, now, dialect.Ownership(d).Weak) {
	case idSame:
		return ""
	case idWeak:
		return fmt.Sprintf("the identity candor recorded when it created the table (%s) holds only what a copy of its definition carries "+
			"(CREATE TABLE ... LIKE copies the comment that holds candor's token), so candor cannot tell it from such a copy "+
			"(a mark written by an earlier version of candor: drop the table yourself and load it again to get a mark with its create time)", m.ID)
	case idUnmarked:
		return "its mark was written by an earlier version of candor, which did not record the table's identity, so candor cannot tell it " +
			"from a table another tool created under its name (drop it yourself and load it again to get a mark with its identity)"
	case idUnknown:
		return fmt.Sprintf("its identity (%s) has nothing in common with the one candor recorded when it created the table (%s), "+
			"so candor cannot tell whether it is still that table", shown(now), m.ID)
	}
	return fmt.Sprintf("its identity is %s where candor recorded %s when it created the table: it was dropped and created again since "+
		"(by another tool or by hand), or restored from a dump", shown(now), m.ID)
}

func shown(id string) string {
	if id == "" {
		return "none"
	}
	return id
}

// replacedError refuses the use of a table that is not the one candor
// created; action names what candor would have done. It is a
// target.ErrForeignTable.
func replacedError(table, reason, action, allow string) error {
	return &Error{Kind: Refused, Err: foreignErr(fmt.Sprintf("table %s is not the table candor created: %s. candor will not %s it: drop it yourself if you no longer need it "+
		"(candor then creates its own), choose another table name (YCSB: -p table=NAME), or pass %s %s",
		table, reason, action, target.AllowForeignTablesFlag, allow))}
}

// foreignErr is a message that is a target.ErrForeignTable without
// repeating its text.
type foreignErr string

func (e foreignErr) Error() string        { return string(e) }
func (e foreignErr) Is(target error) bool { return target == targetErrForeign }

var targetErrForeign = target.ErrForeignTable

// Verify checks, on c, that table is the table candor created: it reads
// its mark and its identity and refuses (Kind Refused, wrapping
// target.ErrForeignTable) when the identity is not the one the mark
// records, or when the mark records none. A table that does not exist or
// that candor has no mark for passes (the callers' ownership checks refuse
// the latter). action says what the caller would do ("drop", "use").
func Verify(ctx context.Context, c target.Conn, d dialect.Dialect, table, action string) error {
	exists, owned, err := target.TableState(ctx, c, d, table)
	if err != nil || !exists || !owned {
		return unreachable(err)
	}
	raw, ok, err := target.TableOwner(ctx, c, d, table)
	if err != nil || !ok {
		return unreachable(err)
	}
	now, err := target.TableIdentity(ctx, c, d, table)
	if err != nil {
		return unreachable(err)
	}
	if why := replacedReason(d, Parse(raw), now); why != "" {
		return replacedError(table, why, action, "to "+action+" it anyway")
	}
	return nil
}

func unreachable(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: Unreachable, Err: err}
}

// isOurs reports, at the end of a load, whether the table whose mark is m
// and whose identity is now now is the one the mark records: a table used
// with --allow-foreign-tables under a stale mark is not, and its mark is
// left as it is.
func isOurs(d dialect.Dialect, m Mark, now string) bool {
	return replacedReason(d, m, now) == ""
}

// LoadWithText is props in a mark's load word: "key:value,..." sorted by
// key; values have their spaces, commas and colons replaced.
func LoadWithText(props map[string]string) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := strings.NewReplacer(" ", "_", ",", "_", ":", "_").Replace(props[k])
		parts = append(parts, k+":"+v)
	}
	return strings.Join(parts, ",")
}

// mergeLoadWith is what a table records once a load with now finished on
// a table whose mark said old: now for the table's first load; for one
// that adds records (a slice, a shard), "mixed" for every key whose values
// differ, or that one of them lacks.
func mergeLoadWith(old, now string, first bool) string {
	if first || old == "" || old == now {
		return now
	}
	a, b := parseIdentity(old), parseIdentity(now)
	out := map[string]string{}
	for k, v := range a {
		if b[k] != v {
			v = "mixed"
		}
		out[k] = v
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out[k] = "mixed"
		}
	}
	return LoadWithText(out)
}

// NotRecorded is the value LoadedWith gives a property no mark records.
const NotRecorded = "not recorded"

// loadedWith is how the tables of marks were loaded, for each key of
// want: the value their marks record, "mixed" when they differ, and
// NotRecorded when one of them does not record it.
func loadedWith(marks []Mark, want []string) map[string]string {
	out := map[string]string{}
	for _, k := range want {
		var vals []string
		for _, m := range marks {
			v, ok := parseIdentity(m.LoadWith)[k]
			if !ok || m.LoadWith == "" {
				v = NotRecorded
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		switch {
		case len(vals) == 0 || slices.Contains(vals, NotRecorded):
			out[k] = NotRecorded
		case len(vals) > 1:
			out[k] = "mixed"
		default:
			out[k] = vals[0]
		}
	}
	return out
}
