package pgbench

import (
	"fmt"
	"sort"
	"strings"
)

// builtin is one of pgbench 15's built-in scripts, with its text exactly as
// `pgbench --show-script=NAME` prints it (a test compares them).
type builtin struct {
	name, desc, text string
}

var builtins = []builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"simple-update", "<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"select-only", "<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// findBuiltin resolves a built-in's name or an unambiguous prefix of one,
// as -b does.
func findBuiltin(name string) (builtin, error) {
	var found []builtin
	for _, b := range builtins {
		if b.name == name {
			return b, nil
		}
		if strings.HasPrefix(b.name, name) {
			found = append(found, b)
		}
	}
	var names []string
	for _, b := range builtins {
		names = append(names, b.name)
	}
	sort.Strings(names)
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return builtin{}, fmt.Errorf("ambiguous builtin name: %d builtin scripts found for prefix %q; give one of %s", len(found), name, strings.Join(names, ", "))
	}
	return builtin{}, fmt.Errorf("no builtin script found for name %q; give one of %s", name, strings.Join(names, ", "))
}

// Per scale unit, the rows pgbench -i loads (pgbench.c naccounts,
// nbranches, ntellers).
const (
	accountsPerScale = 100000
	branchesPerScale = 1
	tellersPerScale  = 10
)

// initTables are pgbench's four tables as pgbench -i creates them, with
// the primary keys its default step p adds written into the CREATE.
func initTables() [][2]string {
	return [][2]string{
		{"pgbench_history", "CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler CHAR(22))"},
		{"pgbench_tellers", "CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84))"},
		{"pgbench_accounts", "CREATE TABLE pgbench_accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84))"},
		{"pgbench_branches", "CREATE TABLE pgbench_branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance INTEGER, filler CHAR(88))"},
	}
}
