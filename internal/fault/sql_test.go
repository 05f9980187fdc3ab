package fault

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// sql= takes the rest of the text as one statement, is a fault of its own
// (not with run= or net=, without for= or node=), and runs through the
// executor's SQL session: done, or failed with the server's error.
func TestSQLFault(t *testing.T) {
	f, err := Parse("at=1s sql=CREATE INDEX CONCURRENTLY k2 ON t (k, c)")
	if err != nil || f.SQL != "CREATE INDEX CONCURRENTLY k2 ON t (k, c)" || f.Kind() != "sql" {
		t.Fatalf("parse: %+v %v", f, err)
	}
	if again, err := Parse(f.String()); err != nil || again.SQL != f.SQL {
		t.Errorf("String %q parses to %+v %v", f.String(), again, err)
	}
	for in, want := range map[string]string{
		"at=1s for=2s sql=SELECT 1":    "for= does not apply to a sql= statement",
		"at=1s net=reset node=0 sql=X": "sql= with run= or net=",
		"at=1s":                        "neither run=, sql= nor net=",
		"at=1s node=0 sql=VACUUM t":    "node= does not apply to a sql= statement",
	} {
		f, err := Parse(in)
		var msgs []string
		for _, e := range f.Validate(Limits{Nodes: 1}) {
			msgs = append(msgs, e.Error())
		}
		if err != nil || !strings.Contains(strings.Join(msgs, "; "), want) {
			t.Errorf("%s: %v %v, want %q", in, err, msgs, want)
		}
	}
	var ran []string
	ex := &Executor{Schedule: Schedule{mustParse(t, "at=0s sql=GOOD"), mustParse(t, "at=0s sql=BAD")}, OnError: OnErrorContinue,
		SQL: func(_ context.Context, s string) error {
			ran = append(ran, s)
			if s == "BAD" {
				return errors.New("relation does not exist")
			}
			return nil
		}}
	evs, err := ex.Run(context.Background(), time.Now())
	if err != nil || evs[0].Status != StatusDone || evs[1].Status != StatusFailed || evs[1].Error != "relation does not exist" || evs[0].Kind != "sql" {
		t.Errorf("events %+v %v (ran %v)", evs, err, ran)
	}
}

func mustParse(t *testing.T, s string) Fault {
	t.Helper()
	f, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
