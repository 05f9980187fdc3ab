package tables

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/targettest"
	"github.com/candor-bench/candor/internal/workload"
)

const (
	shards        = 4
	shardRecords  = 100
	shardsRecords = shards * shardRecords
)

// shardWorkload is shard i's ycsb/c workload of table: its slice of
// shardsRecords records.
func shardWorkload(t *testing.T, table string, i int) workload.Workload {
	return newWorkload(t, "ycsb/c", "table="+table, "recordcount="+strconv.Itoa(shardsRecords),
		"insertstart="+strconv.Itoa(i*shardRecords), "insertcount="+strconv.Itoa(shardRecords))
}

// loadRows inserts wl's records into its tables on tgt.
func loadRows(ctx context.Context, tgt target.Target, wl workload.Workload) error {
	r := &runner.Runner{Target: tgt, Workload: wl, Config: runner.Config{Threads: 1, ReportInterval: time.Second, Seed: 1}}
	p, err := r.Load(ctx)
	if err == nil && (p == nil || p.Rows != shardRecords) {
		err = fmt.Errorf("load phase %+v", p)
	}
	return err
}

func countRows(t *testing.T, tgt target.Target, table string) int {
	t.Helper()
	c := targettest.Connect(t, tgt)
	n := -1
	if _, err := c.Query(context.Background(), "SELECT COUNT(*) FROM "+table, nil, func(cols [][]byte) error {
		n, _ = strconv.Atoi(string(cols[0]))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestShardLoadsRunConcurrently: four shard loads of one table hold it at
// once: every shard has prepared (created or claimed its range) and begun
// its load before any ends (a barrier that serialized loads never pass);
// a run that needs every record waits for them rather than refusing; the
// table then holds every row and its mark covers every key, none pending.
func TestShardLoadsRunConcurrently(t *testing.T) {
	for name, url := range realTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			table := targettest.TableName("tables_shard")
			var wls [shards]workload.Workload
			var tgts [shards]target.Target
			for i := range shards {
				wls[i] = shardWorkload(t, table, i)
				tgts[i] = openBound(t, url, wls[i]) // a target each, as processes have
			}
			targettest.DropAtEnd(t, tgts[0], table)

			var (
				prepared   sync.WaitGroup
				begin      = make(chan struct{})
				starts     [shards]time.Time
				ends       [shards]time.Time
				errs       [shards]error
				done       sync.WaitGroup
				allPrepped = make(chan struct{})
			)
			prepared.Add(shards)
			done.Add(shards)
			for i := range shards {
				go func() {
					defer done.Done()
					s, err := Prepare(ctx, tgts[i], wls[i], Request{LoadPhase: true, Shard: true})
					starts[i] = time.Now()
					prepared.Done()
					if err != nil {
						errs[i] = fmt.Errorf("prepare: %w", err)
						return
					}
					defer s.Close()
					if !s.Load {
						errs[i] = fmt.Errorf("no load phase")
						return
					}
					select {
					case <-begin:
					case <-ctx.Done():
						errs[i] = fmt.Errorf("the other shards never began their loads while this one held its table: loads serialized")
						return
					}
					if err := loadRows(ctx, tgts[i], wls[i]); err != nil {
						errs[i] = fmt.Errorf("load: %w", err)
						return
					}
					if err := s.MarkLoaded(ctx); err != nil {
						errs[i] = fmt.Errorf("mark loaded: %w", err)
						return
					}
					ends[i] = time.Now()
				}()
			}
			go func() { prepared.Wait(); close(allPrepped) }()
			select {
			case <-allPrepped:
			case <-time.After(30 * time.Second):
				cancel() // the shards still waiting give up; the test fails below
				done.Wait()
				t.Fatalf("not every shard could begin its load while the others held the table: %v", errs)
			}
			// Every shard holds its range pending: the mark records them all.
			m := markOf(t, tgts[0], table)
			if m.Loaded() || !reflect.DeepEqual(m.Pending, []KeyRange{{0, shardsRecords}}) {
				t.Errorf("mark while the shards load: %q", m.Raw)
			}

			// A run that needs every record waits for the loads (it does
			// not refuse them as unfinished, nor reload under them).
			runWL := newWorkload(t, "ycsb/c", "table="+table, "recordcount="+strconv.Itoa(shardsRecords))
			runTgt := openBound(t, url, runWL)
			var status syncBuffer
			type outcome struct {
				s   *Session
				err error
			}
			run := make(chan outcome, 1)
			go func() {
				s, err := Prepare(ctx, runTgt, runWL, Request{Mode: LoadNever, Status: &status})
				run <- outcome{s, err}
			}()
			waitFor(t, "the run to wait for the shards' loads", func() bool { return strings.Contains(status.String(), "waiting for table "+table) })

			close(begin)
			done.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("shard %d: %v", i, err)
				}
			}
			if t.Failed() {
				return
			}
			var lastStart, firstEnd time.Time
			for i := range shards {
				if starts[i].After(lastStart) {
					lastStart = starts[i]
				}
				if firstEnd.IsZero() || ends[i].Before(firstEnd) {
					firstEnd = ends[i]
				}
			}
			if !lastStart.Before(firstEnd) {
				t.Errorf("the loads did not overlap: last start %v, first end %v", lastStart, firstEnd)
			}

			r := <-run
			if r.err != nil || r.s.Load {
				t.Fatalf("run after the shard loads: load %v, err %v (status %q)", r.s != nil && r.s.Load, r.err, status.String())
			}
			r.s.Close()
			if n := countRows(t, tgts[0], table); n != shardsRecords {
				t.Errorf("table holds %d rows, want %d", n, shardsRecords)
			}
			m = markOf(t, tgts[0], table)
			if !m.Loaded() || m.Pending != nil || !m.Covers(KeyRange{0, shardsRecords}) || m.KeysText() != "400 records (0..399)" {
				t.Errorf("mark after the shard loads: %q", m.Raw)
			}
		})
	}
}

// TestInterruptedShardLoad: a shard whose load was interrupted (no
// MarkLoaded) leaves its range pending and the table loading, whatever the
// other shards finished: a run with --load never refuses it, one with
// --load auto drops and reloads it, and loads of that range (sharded or
// not) refuse, as after an interrupted load of one process.
func TestInterruptedShardLoad(t *testing.T) {
	for name, url := range realTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			table := targettest.TableName("tables_shint")
			for i := range shards {
				wl := shardWorkload(t, table, i)
				tgt := openBound(t, url, wl)
				if i == 0 {
					targettest.DropAtEnd(t, tgt, table)
				}
				s, err := Prepare(ctx, tgt, wl, Request{LoadPhase: true, Shard: true})
				if err != nil {
					t.Fatalf("shard %d: %v", i, err)
				}
				if i != 2 { // shard 2 is interrupted: it loads, never marks
					if err := loadRows(ctx, tgt, wl); err != nil {
						t.Fatal(err)
					}
					if err := s.MarkLoaded(ctx); err != nil {
						t.Fatal(err)
					}
				}
				s.Close()
			}
			runWL := newWorkload(t, "ycsb/c", "table="+table, "recordcount="+strconv.Itoa(shardsRecords))
			tgt := openBound(t, url, runWL)
			m := markOf(t, tgt, table)
			if m.Loaded() || !reflect.DeepEqual(m.Pending, []KeyRange{{200, 100}}) || m.KeysText() != "300 records (0..199, 300..399)" {
				t.Fatalf("mark after an interrupted shard: %q", m.Raw)
			}

			if _, err := Prepare(ctx, tgt, runWL, Request{Mode: LoadNever}); KindOf(err) != Refused || !strings.Contains(err.Error(), "unfinished load") {
				t.Errorf("--load never after an interrupted shard: %v", err)
			}
			if _, err := Prepare(ctx, tgt, runWL, Request{LoadPhase: true}); KindOf(err) != Refused || !strings.Contains(err.Error(), "unfinished load") {
				t.Errorf("an unsharded load after an interrupted shard: %v", err)
			}
			again := shardWorkload(t, table, 2)
			againTgt := openBound(t, url, again)
			if _, err := Prepare(ctx, againTgt, again, Request{LoadPhase: true, Shard: true}); KindOf(err) != Refused || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("shard 2 loaded again over its interrupted load: %v", err)
			}

			var status syncBuffer
			s, err := Prepare(ctx, tgt, runWL, Request{Mode: LoadAuto, Status: &status})
			if err != nil || !s.Load || !strings.Contains(status.String(), "did not finish") {
				t.Fatalf("--load auto after an interrupted shard: load %v, err %v, status %q", s != nil && s.Load, err, status.String())
			}
			s.Close()
		})
	}
}

// TestShardMarkRanges: claims and finishes of ranges in any order keep
// every range: loaded once finished, pending until then.
func TestShardMarkRanges(t *testing.T) {
	m := Parse("ycsb/c data=aa state=loading pending=0+10 loads=1")
	m.Raw = m.String()
	m = Parse(m.Claim(KeyRange{20, 10}).String())
	m = Parse(m.Claim(KeyRange{10, 10}).String())
	if got := m.String(); got != "ycsb/c data=aa state=loading pending=0+30 loads=3" {
		t.Fatalf("after claims: %q", got)
	}
	m = Parse(m.Finish(KeyRange{10, 10}).String())
	if got := m.String(); got != "ycsb/c data=aa state=loading keys=10+10 pending=0+10,20+10 loads=2" {
		t.Fatalf("after the middle finished: %q", got)
	}
	if !m.PendingOverlaps(KeyRange{5, 1}) || m.PendingOverlaps(KeyRange{10, 10}) || m.Loaded() {
		t.Errorf("pending of %q", m.String())
	}
	m = Parse(m.Finish(KeyRange{20, 10}).String())
	m = Parse(m.Finish(KeyRange{0, 10}).String())
	if got := m.String(); got != "ycsb/c data=aa state=loaded keys=0+30" || !m.Loaded() {
		t.Fatalf("after every finish: %q", got)
	}
	long := Mark{Workload: "ycsb/c", State: StateLoading, Keys: []KeyRange{}}
	for i := range 40 {
		long.Keys = append(long.Keys, KeyRange{int64(i)*1_000_000_000 + 1, 1})
	}
	if c := long.Claim(KeyRange{0, 1}); c.pendingFits() {
		t.Errorf("a mark whose keys cannot be recorded fits: %q", c.String())
	}
}

// TestShardMarkManyShards: 64 shards of one load claim their slices, then
// finish in a random order; the pending ranges, fragmented, would not fit
// the mark, so they are folded into the keys and counted. Each state in
// between, read back from its text, stays loading, overlaps every
// unfinished slice, and ends loaded with every record.
func TestShardMarkManyShards(t *testing.T) {
	const shards, per = 64, 1_562_500
	// The longest identity (a CQL table id) and load words take their room.
	m := Parse("ycsb/c data=0123456789abcdef state=loading id=id:01234567-89ab-cdef-0123-456789abcdef load=load_batch:1000,load_consistency:LOCAL_QUORUM")
	m.Raw = m.String()
	for i := range shards {
		c := m.Claim(KeyRange{int64(i) * per, per})
		if !c.pendingFits() {
			t.Fatalf("claim %d does not fit: %q", i, c.String())
		}
		m = Parse(c.String())
	}
	folded := false
	order := rand.New(rand.NewPCG(1, 2)).Perm(shards)
	for n, i := range order {
		for _, j := range order[n:] {
			if !m.PendingOverlaps(KeyRange{int64(j) * per, per}) {
				t.Fatalf("after %d finishes, slice %d (unfinished) does not overlap what is pending: %q", n, j, m.String())
			}
		}
		if m.Loaded() {
			t.Fatalf("loaded with %d of %d shards finished: %q", n, shards, m.String())
		}
		text := m.Finish(KeyRange{int64(i) * per, per}).String()
		if len(text) > maxMarkLen {
			t.Fatalf("mark of %d characters: %q", len(text), text)
		}
		m = Parse(text)
		folded = folded || m.isFolded()
		if n < shards-1 && (!m.ShardLoading() || m.Loads != shards-1-n) {
			t.Fatalf("after %d finishes: %q", n+1, text)
		}
	}
	if !folded {
		t.Error("the pending ranges were never folded; the test does not reach the case")
	}
	if !m.Loaded() || m.ShardLoading() || !m.Covers(KeyRange{0, shards * per}) || m.KeysText() != "100000000 records (0..99999999)" {
		t.Errorf("after every finish: %q", m.String())
	}
}

// TestSwapMarkOnRealTargets: the mark's compare-and-swap changes it only
// while it reads what was read (on MySQL, whose UPDATE counts changed rows
// only, too), so two shards' updates never lose one another's range.
func TestSwapMarkOnRealTargets(t *testing.T) {
	for name, url := range realTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			table := targettest.TableName("tables_swap")
			wl := shardWorkload(t, table, 0)
			tgt := openBound(t, url, wl)
			targettest.DropAtEnd(t, tgt, table)
			s, err := Prepare(ctx, tgt, wl, Request{LoadPhase: true, Shard: true})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			c := targettest.Connect(t, tgt)
			d := tgt.Dialect()
			old := markOf(t, tgt, table).Raw
			next := Parse(old).Claim(KeyRange{100, 100}).String()
			if ok, err := target.SwapMark(ctx, c, d, table, "stale", next); ok || err != nil {
				t.Fatalf("swap from a stale mark: %v %v", ok, err)
			}
			if got := markOf(t, tgt, table).Raw; got != old {
				t.Fatalf("a stale swap changed the mark to %q", got)
			}
			if ok, err := target.SwapMark(ctx, c, d, table, old, next); !ok || err != nil {
				t.Fatalf("swap: %v %v", ok, err)
			}
			if ok, err := target.SwapMark(ctx, c, d, table, next, next); !ok || err != nil {
				t.Fatalf("swap to the same mark: %v %v", ok, err)
			}
			if got := markOf(t, tgt, table); !reflect.DeepEqual(got.Pending, []KeyRange{{0, 200}}) {
				t.Fatalf("mark after the swap: %q", got.Raw)
			}
		})
	}
}
