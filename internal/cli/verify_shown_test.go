package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/report"
	"github.com/candor-bench/candor/internal/testutil/oracle"
)

// flat joins s's words with single spaces: a text report lays a wide table
// out as "column: value" lines, wrapped to its width.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// candor ledger verify's figures are shown where a user reads durability:
// compare's rows, audit's ledger note and the report's durability table
// (text and HTML), labelled as verify's beside the run's own, and a result
// never verified says so. The test deletes acknowledged ids from the
// ledger's table with its own SQL after the run; verify's lost must equal
// the rows the test's DELETE removed, and what verify found the rows the
// table still holds, counted by the test's own connection. compare, audit
// and the report showed the run's figures only (lost 0).
func TestVerifyFiguresShownEverywhere(t *testing.T) {
	url := os.Getenv("CANDOR_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("CANDOR_TEST_POSTGRES_URL unset (scripts/test.sh sets it)")
	}
	t.Parallel()
	work := t.TempDir()
	table := "candor_ledger_shown"
	first, second := filepath.Join(work, "first.json"), filepath.Join(work, "second.json")
	o := oracle.Open(t, url)
	t.Cleanup(func() { o.Exec(t, "DROP TABLE IF EXISTS "+table) })
	runLedger(t, work, url, table, first)
	own := runPhaseOf(t, first).Ledger.Accounting
	if own == nil || own.Lost != 0 || own.Unknown != 0 || own.Acknowledged == 0 {
		t.Fatalf("the run's own accounting %+v: want acknowledged writes, none lost or unknown (no fault)", own)
	}

	// The test's own damage, counted by the test: ids ending in 3 go.
	before := o.Ints(t, "SELECT COUNT(*) FROM "+table+" WHERE id >= 0")[0]
	o.Exec(t, "DELETE FROM "+table+" WHERE id >= 0 AND MOD(id, 10) = 3")
	after := o.Ints(t, "SELECT COUNT(*) FROM "+table+" WHERE id >= 0")[0]
	deleted := before - after
	if deleted == 0 {
		t.Fatalf("no id ending in 3 among the table's %d: the run wrote too little to test", before)
	}
	if code, stdout, stderr := runAbs(t, work, "ledger", "verify", first, "--target", url); code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
	p := runPhaseOf(t, first)
	v := p.Ledger.LatestVerified()
	if v == nil {
		t.Fatalf("verifications %+v: want one verified", p.Ledger.Verifications)
	}
	if int64(v.Accounting.Lost) != deleted || int64(v.Accounting.Acknowledged-v.Accounting.Lost+v.Accounting.UnknownCommitted+v.Accounting.FailedPresent) != after {
		t.Fatalf("verify's accounting %+v: want lost %d (the test's DELETE) and %d ids found (the test's count)", v.Accounting, deleted, after)
	}
	if p.Ledger.Accounting.Lost != 0 {
		t.Errorf("verify replaced the run's accounting: lost %d", p.Ledger.Accounting.Lost)
	}
	label := report.VerifyText(p)
	if !strings.HasPrefix(label, "candor ledger verify "+v.Time.UTC().Format("2006-01-02T15:04:05Z")) {
		t.Errorf("verify's label %q: want when it ran", label)
	}

	// A second run of the same options, never verified (it re-creates
	// the table: verify's figures of the first stay in its result).
	runLedger(t, work, url, table, second)

	code, stdout, stderr := runAbs(t, work, "compare", first, second)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	cmp := flat(stdout)
	lostRow := "ledger verify lost " + strconv.FormatFloat(float64(deleted), 'g', 4, 64)
	for _, want := range []string{
		"ledger lost 0 0", // the run's own, both sides
		lostRow,           // verify's, A only
		"A: " + first + " run 1: the run's accounting; " + label,
		"B: " + second + " run 1: the run's accounting; never verified by candor ledger verify",
	} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runAbs(t, work, "audit", first, second)
	if code != 0 && code != ExitAuditFindings {
		t.Fatalf("audit: exit %d\n%s\n%s", code, stdout, stderr)
	}
	aud := flat(stdout)
	for _, want := range []string{
		"the run's own accounting: " + strconv.Itoa(own.Writes) + " writes, " + strconv.Itoa(own.Acknowledged) + " acknowledged",
		"candor ledger verify " + v.Time.UTC().Format("2006-01-02T15:04:05Z") + ": " + strconv.Itoa(v.Accounting.Writes) + " writes",
		"lost " + strconv.Itoa(int(deleted)) + ",",
		"never verified by candor ledger verify",
	} {
		if !strings.Contains(aud, want) {
			t.Errorf("audit lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runAbs(t, work, "report", first)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := flat(stdout)
	for _, want := range []string{
		"figures: the run's acknowledged: " + strconv.Itoa(own.Acknowledged),
		"figures: ledger verify's: " + label + " acknowledged: " + strconv.Itoa(v.Accounting.Acknowledged),
		"lost: " + strconv.Itoa(int(deleted)) + " unreplicated",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("the text report lacks %q:\n%s", want, stdout)
		}
	}
	html := filepath.Join(work, "report.html")
	if code, stdout, stderr := runAbs(t, work, "report", first, second, "-o", html); code != 0 {
		t.Fatalf("report -o html: exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	// The first run's verify row: its label, then acknowledged, failed,
	// unknown, how the unknown resolved, and lost.
	row := regexp.MustCompile(`<td>ledger verify&#39;s: ` + regexp.QuoteMeta(label) + `</td><td class="r">` + strconv.Itoa(v.Accounting.Acknowledged) +
		`</td>(<td class="r">[^<]*</td>){3}<td class="r">` + strconv.Itoa(int(deleted)) + `</td>`)
	if !row.Match(b) || !strings.Contains(string(b), "<td>never verified by candor ledger verify</td>") {
		t.Errorf("the HTML report lacks verify's row of the first run (%s) or the second's never verified", row)
	}
}
