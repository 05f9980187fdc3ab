package report

import (
	"testing"

	"github.com/candor-bench/candor/internal/result"
)

func TestIsolationLine(t *testing.T) {
	for _, c := range []struct {
		iso  *result.Isolation
		want string
	}{
		{nil, ""},
		{&result.Isolation{Transactions: 10, OK: 9, Failed: 1, Anomalies: map[string]int{}, History: "r.history.jsonl"},
			"isolation: 10 transactions (9 ok, 1 failed, 0 unknown), no anomaly found; history r.history.jsonl"},
		// classes in name order
		{&result.Isolation{Transactions: 5, OK: 5, Anomalies: map[string]int{"G2-item": 2, "G-single": 3}},
			"isolation: 5 transactions (5 ok, 0 failed, 0 unknown), anomalies G-single 3, G2-item 2"},
	} {
		if got := IsolationLine(c.iso); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
