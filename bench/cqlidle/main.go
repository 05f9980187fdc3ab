// Command cqlidle waits until a Cassandra node has no compaction or
// memtable flush running or queued, so that a benchmark run does not start
// while the load's background work still takes the server's CPU and disk.
//
//	cqlidle [-max 300s] [-quiet 3] cql://HOST:PORT/KEYSPACE
//
// Every second it reads system_views.thread_pools (Cassandra 4.0+): the
// active and pending tasks of CompactionExecutor, MemtableFlushWriter and
// MemtablePostFlush, and the SSTable tasks in progress
// (system_views.sstable_tasks, what nodetool compactionstats lists). It
// returns when all of them have been zero in -quiet polls in a row (one
// compaction ends before the strategy submits the next, so a single zero
// proves little), or after -max, saying so. It prints what it waited for on
// stderr. Exit status 0 in both cases; 2 when the server cannot be asked.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/target"
	_ "github.com/candor-bench/candor/internal/target/cassandra"
)

// pools are the thread pools whose active or pending tasks mean background
// work after a load.
var pools = map[string]bool{"CompactionExecutor": true, "MemtableFlushWriter": true, "MemtablePostFlush": true}

func main() {
	maxWait := flag.Duration("max", 300*time.Second, "give up waiting after this long")
	quiet := flag.Int("quiet", 3, "polls in a row (one a second) with nothing running or queued")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: cqlidle [-max 300s] [-quiet 3] cql://HOST:PORT/KEYSPACE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *quiet < 1 || *maxWait <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *maxWait, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "cqlidle:", err)
		os.Exit(2)
	}
}

func run(url string, maxWait time.Duration, quiet int) error {
	ctx := context.Background()
	tg, err := target.Open(ctx, url, target.Options{ConnectTimeout: 20 * time.Second})
	if err != nil {
		return err
	}
	defer tg.Close()
	c, err := tg.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	t0 := time.Now()
	zeros, lastSay := 0, time.Time{}
	for {
		busy, err := background(ctx, c)
		if err != nil {
			return err
		}
		waited := time.Since(t0).Round(time.Second)
		if busy == "" {
			zeros++
			if zeros >= quiet {
				fmt.Fprintf(os.Stderr, "cqlidle: no compaction or flush running or queued (%d polls in a row) after %s\n", quiet, waited)
				return nil
			}
		} else {
			zeros = 0
			if time.Since(lastSay) >= 10*time.Second {
				fmt.Fprintf(os.Stderr, "cqlidle: waiting for %s (%s so far)\n", busy, waited)
				lastSay = time.Now()
			}
		}
		if time.Since(t0) >= maxWait {
			fmt.Fprintf(os.Stderr, "cqlidle: still %s after %s; going on\n", busy, waited)
			return nil
		}
		time.Sleep(time.Second)
	}
}

// background describes the compactions and flushes running or queued, ""
// when there are none.
func background(ctx context.Context, c target.Conn) (string, error) {
	var parts []string
	_, err := c.Query(ctx, "SELECT name, active_tasks, pending_tasks FROM system_views.thread_pools", nil, func(cols [][]byte) error {
		if !pools[string(cols[0])] {
			return nil
		}
		active, _ := strconv.Atoi(string(cols[1]))
		pending, _ := strconv.Atoi(string(cols[2]))
		if active+pending > 0 {
			parts = append(parts, fmt.Sprintf("%s %d active %d pending", cols[0], active, pending))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("reading system_views.thread_pools (Cassandra 4.0 or later): %w", err)
	}
	tasks := 0
	_, err = c.Query(ctx, "SELECT kind FROM system_views.sstable_tasks", nil, func([][]byte) error { tasks++; return nil })
	if err != nil {
		return "", fmt.Errorf("reading system_views.sstable_tasks: %w", err)
	}
	if tasks > 0 {
		parts = append(parts, fmt.Sprintf("%d SSTable task(s)", tasks))
	}
	return strings.Join(parts, ", "), nil
}
