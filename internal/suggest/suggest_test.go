package suggest

import (
	"reflect"
	"testing"
)

func TestClosest(t *testing.T) {
	flags := []string{"threads", "time", "target", "table-size", "tables", "rate", "recordcount"}
	workloads := []string{"tpcc", "ycsb", "ycsb/a", "sysbench/oltp_read_write", "kv-basic", "commit-loop"}
	for _, c := range []struct {
		word  string
		names []string
		want  []string
	}{
		{"thread", flags, []string{"threads"}},         // one letter missing
		{"threds", flags, []string{"threads"}},         // a typo
		{"table_size", flags, []string{"table-size"}},  // sysbench's underscore
		{"recordcont", flags, []string{"recordcount"}}, // a letter dropped in a long name
		{"tpc-c", workloads, []string{"tpcc"}},         // punctuation ignored
		{"TPCC", workloads, []string{"tpcc"}},          // case ignored
		{"commitloop", workloads, []string{"commit-loop"}},
		{"sysbench/oltp_read_writ", workloads, []string{"sysbench/oltp_read_write"}},
		{"zzz", flags, nil},     // nothing near
		{"x", flags, nil},       // too short to guess
		{"threads", flags, nil}, // itself is not a suggestion
	} {
		if got := Closest(c.word, c.names); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Closest(%q) = %v, want %v", c.word, got, c.want)
		}
	}
	if h := Hint("thread", "--", flags); h != "; did you mean --threads?" {
		t.Errorf("Hint: %q", h)
	}
}
