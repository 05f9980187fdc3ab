package observe

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/fake"
)

// rowsConn answers every query with rows of (name, value); a nil value is
// SQL NULL.
type rowsConn struct {
	target.Conn
	rows [][][]byte
}

func (c rowsConn) Query(ctx context.Context, sql string, args []any, fn func([][]byte) error) (int, error) {
	for _, r := range c.rows {
		if err := fn(r); err != nil {
			return 0, err
		}
	}
	return len(c.rows), nil
}

func (c rowsConn) Close() error { return nil }

// countersTarget is the fake target with counter queries: one readable,
// one the role may not read (it fails as PostgreSQL fails it), one whose
// value is NULL to this role, and one name the server does not report.
type countersTarget struct {
	*fake.Target
	reads int
}

func (t *countersTarget) Connect(ctx context.Context) (target.Conn, error) {
	return rowsConn{rows: [][][]byte{{[]byte("replay_lag_ms:s1"), nil}, {[]byte("lag_ok"), []byte("12.5")}}}, nil
}

func (t *countersTarget) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	return []target.CounterQuery{
		{Group: "transactions", Kind: target.CounterCumulative, Source: "stub", Read: func(context.Context, target.Conn) (map[string]float64, error) {
			t.reads++
			return map[string]float64{"commits": float64(10 * t.reads)}, nil
		}},
		{Group: "wal", Kind: target.CounterCumulative, Source: "pg_stat_wal", Read: func(context.Context, target.Conn) (map[string]float64, error) {
			return nil, errors.New("ERROR: permission denied for view pg_stat_wal (SQLSTATE 42501)")
		}},
		{Group: "replication", Kind: target.CounterGauge, Unit: "ms", Source: "pg_stat_replication", SQL: "SELECT ...", Expect: []string{"lag_ok", "absent"}},
	}, nil
}

// Readings made before and during a phase go to it, the last one before
// it first; what cannot be read is recorded as unavailable with its reason
// and the other counters go on being read.
func TestSamplerAttachAndUnavailable(t *testing.T) {
	tgt := &countersTarget{Target: fake.New(fake.Config{})}
	s := NewSampler(context.Background(), tgt, nil)
	defer s.Close()
	s.ReadNow() // before the phase
	time.Sleep(5 * time.Millisecond)
	start := time.Now()
	s.ReadNow()
	s.ReadNow()
	res := &result.Result{Phases: []result.Phase{{Name: "run", Started: start, Ended: time.Now()}}}
	s.Close()
	s.Attach(res)
	sc := res.Phases[0].Server
	if sc == nil || len(sc.Samples) != 3 {
		t.Fatalf("server counters %+v, want 3 samples", sc)
	}
	if sc.Samples[0].ElapsedSec > 0 || sc.Samples[1].ElapsedSec < 0 {
		t.Errorf("sample times %v, %v: want the baseline before the phase", sc.Samples[0].ElapsedSec, sc.Samples[1].ElapsedSec)
	}
	if sc.Samples[2].Values["commits"] != 30 || sc.Samples[2].Values["lag_ok"] != 12.5 {
		t.Errorf("last sample %v", sc.Samples[2].Values)
	}
	for k, want := range map[string]string{
		"wal: pg_stat_wal": "permission denied for view pg_stat_wal (SQLSTATE 42501)",
		"replay_lag_ms:s1": "not visible to this role (PostgreSQL: grant it pg_read_all_stats or pg_monitor)",
		"absent":           "not reported by this server",
	} {
		if got := sc.Unavailable[k]; got != want && !(k == "wal: pg_stat_wal" && len(got) > 0) {
			t.Errorf("unavailable[%q] = %q, want %q", k, got, want)
		}
	}
	if len(sc.Counters) != 2 || sc.Counters[0].Name != "lag_ok" || sc.Counters[0].Kind != target.CounterGauge || sc.Counters[1].Name != "commits" {
		t.Errorf("counters %+v", sc.Counters)
	}
}

// A target without counters has no sampler, and a nil sampler is inert.
func TestSamplerNone(t *testing.T) {
	s := NewSampler(context.Background(), fake.New(fake.Config{}), nil)
	if s != nil {
		t.Fatal("a sampler for a target without counters")
	}
	s.Kick()
	s.ReadNow()
	s.Attach(&result.Result{})
	s.Close()
}
