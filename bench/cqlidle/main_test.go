package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeConn answers the two system views with fixed rows.
type fakeConn struct {
	pools [][]string // name, active, pending
	tasks int
}

func (f *fakeConn) Exec(context.Context, string, ...any) (int64, error) { return 0, nil }
func (f *fakeConn) Close() error                                        { return nil }
func (f *fakeConn) Query(_ context.Context, sql string, _ []any, fn func([][]byte) error) (int, error) {
	if strings.Contains(sql, "thread_pools") {
		for _, r := range f.pools {
			if err := fn([][]byte{[]byte(r[0]), []byte(r[1]), []byte(r[2])}); err != nil {
				return 0, err
			}
		}
		return len(f.pools), nil
	}
	for range f.tasks {
		if err := fn([][]byte{[]byte("compaction")}); err != nil {
			return 0, err
		}
	}
	return f.tasks, nil
}

// Busy means a compaction or flush pool with active or pending tasks, or
// an SSTable task in progress; other pools' work does not count.
func TestBackground(t *testing.T) {
	idle := [][]string{{"CompactionExecutor", "0", "0"}, {"MemtableFlushWriter", "0", "0"}, {"ReadStage", "4", "9"}}
	cases := []struct {
		conn *fakeConn
		want string
	}{
		{&fakeConn{pools: idle}, ""},
		{&fakeConn{pools: append(idle, []string{"MemtablePostFlush", "0", "2"})}, "MemtablePostFlush 0 active 2 pending"},
		{&fakeConn{pools: [][]string{{"CompactionExecutor", "1", "0"}}, tasks: 2}, "CompactionExecutor 1 active 0 pending, 2 SSTable task(s)"},
		{&fakeConn{pools: idle, tasks: 1}, "1 SSTable task(s)"},
	}
	for _, c := range cases {
		got, err := background(context.Background(), c.conn)
		if err != nil || got != c.want {
			t.Errorf("background(%v, %d tasks) = %q, %v; want %q", c.conn.pools, c.conn.tasks, got, err, c.want)
		}
	}
}

// On a live node right after start-up or a test's small writes, the wait
// ends well within its bound.
func TestRunLive(t *testing.T) {
	u := os.Getenv("CANDOR_TEST_CASSANDRA_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_CASSANDRA_URL is not set")
	}
	done := make(chan error, 1)
	go func() { done <- run(u, 60*time.Second, 2) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("run did not return within 90 s (its bound is 60 s)")
	}
}
