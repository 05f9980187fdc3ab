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

var errGone = errors.New("server closed the connection")

// lostConn answers until its server "dies", then fails as a lost session.
type lostConn struct {
	target.Conn
	dead *bool
}

func (c lostConn) Close() error { return nil }

// failoverTarget's first session dies after two readings; the sessions
// opened after it answer (the new primary).
type failoverTarget struct {
	*fake.Target
	connects, reads int
	dead            bool
}

func (t *failoverTarget) Connect(ctx context.Context) (target.Conn, error) {
	t.connects++
	t.dead = false
	return lostConn{dead: &t.dead}, nil
}

func (t *failoverTarget) Classify(err error) target.ErrorClass {
	if errors.Is(err, errGone) {
		return target.ClassConnection
	}
	return target.ClassOther
}

func (t *failoverTarget) CounterQueries(ctx context.Context, conn target.Conn, tables []string) ([]target.CounterQuery, error) {
	return []target.CounterQuery{{Group: "transactions", Kind: target.CounterCumulative, Source: "stub", Read: func(_ context.Context, c target.Conn) (map[string]float64, error) {
		t.reads++
		if t.reads == 3 && t.connects == 1 {
			t.dead = true
		}
		if *c.(lostConn).dead {
			return nil, errGone
		}
		return map[string]float64{"commits": float64(t.reads)}, nil
	}}}, nil
}

// The counter session follows a fail-over as the workers do: a lost
// session is opened again at the next reading, and the query is not
// turned off as one the server refuses would be.
func TestSamplerReconnectsAfterFailover(t *testing.T) {
	tgt := &failoverTarget{Target: fake.New(fake.Config{})}
	s := NewSampler(context.Background(), tgt, nil)
	start := time.Now()
	for i := 0; i < 5; i++ {
		s.ReadNow()
	}
	res := &result.Result{Phases: []result.Phase{{Name: "run", Started: start, Ended: time.Now()}}}
	s.Close()
	s.Attach(res)
	sc := res.Phases[0].Server
	if tgt.connects != 2 {
		t.Errorf("%d sessions opened, want 2 (one after the loss)", tgt.connects)
	}
	if sc == nil || len(sc.Samples) != 4 || sc.Samples[len(sc.Samples)-1].Values["commits"] == 0 {
		t.Fatalf("server counters %+v: want readings after the fail-over", sc)
	}
	if len(sc.Unavailable) > 0 {
		t.Errorf("a lost session marked counters unavailable: %v", sc.Unavailable)
	}
}
