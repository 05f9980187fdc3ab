package bank

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dialect"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// bank on a CQL target is refused at Bind, before anything is created,
// as unsupported (exit 4), saying why.
func TestBankRefusesCQL(t *testing.T) {
	w, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Bind(workload.Env{Dialect: dialect.CQL, Capabilities: target.Capabilities{QueryLanguage: target.LanguageCQL}})
	if !errors.Is(err, target.ErrUnsupported) || !strings.Contains(err.Error(), "row locks") {
		t.Fatalf("Bind on CQL: %v", err)
	}
}

// The statements of each dialect and locking mode (docs/CHECKS.md).
func TestBankStatements(t *testing.T) {
	cases := []struct {
		d             dialect.Dialect
		locking       string
		begin, readTo string
	}{
		{dialect.Postgres, dialect.BankPessimistic, "BEGIN ISOLATION LEVEL READ COMMITTED", "WHERE id = $1 FOR UPDATE"},
		{dialect.Postgres, dialect.BankOptimistic, "BEGIN ISOLATION LEVEL SERIALIZABLE", "WHERE id = $1"},
		{dialect.MySQL, dialect.BankPessimistic, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN", "WHERE id = ? FOR UPDATE"},
		{dialect.MySQL, dialect.BankOptimistic, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; BEGIN", "WHERE id = ? LOCK IN SHARE MODE"},
		{dialect.SQLite, dialect.BankPessimistic, "BEGIN IMMEDIATE", "WHERE id = ?"},
		{dialect.SQLite, dialect.BankOptimistic, "BEGIN", "WHERE id = ?"},
	}
	for _, c := range cases {
		s := dialect.Bank(c.d, "acc", c.locking)
		if got := strings.Join(s.Begin, "; "); got != c.begin || !strings.HasSuffix(s.Read, c.readTo) {
			t.Errorf("%s %s: begin %q read %q; want %q and ...%q", c.d.Name, c.locking, got, s.Read, c.begin, c.readTo)
		}
		if s.Total != "SELECT count(*), COALESCE(sum(balance), 0) FROM acc" {
			t.Errorf("%s: total %q", c.d.Name, s.Total)
		}
	}
}

// Transfers are between two distinct accounts, 1..max-amount, and the
// hot set gets its share of the draws.
func TestBankDraws(t *testing.T) {
	w, err := New(nil, []string{"accounts=100", "hot-accounts=2", "hot-fraction=0.9", "max-amount=5"})
	if err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(0, rand.New(rand.NewSource(1))).(*worker)
	hot := 0
	const n = 20000
	for i := 0; i < n; i++ {
		wk.Next()
		if wk.from == wk.to || wk.from < 1 || wk.to > 100 || wk.amount < 1 || wk.amount > 5 {
			t.Fatalf("transfer %d → %d of %d", wk.from, wk.to, wk.amount)
		}
		if wk.from <= 2 {
			hot++
		}
	}
	if f := float64(hot) / n; f < 0.85 || f > 0.95 {
		t.Errorf("%.3f of the debited accounts are hot, want about 0.9", f)
	}
	// The hot-set options mean nothing to another distribution: ignored.
	w, err = New(nil, []string{"distribution=uniform", "hot-accounts=3"})
	if err != nil || len(w.Ignored()) != 1 {
		t.Errorf("uniform with --hot-accounts: %v, ignored %v", err, w.Ignored())
	}
}
