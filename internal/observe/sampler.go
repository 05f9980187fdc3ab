package observe

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// sampleTimeout bounds one reading of every counter query, so that a
// server that stalls cannot hold the sampler past the run.
const sampleTimeout = 5 * time.Second

// closeWait bounds how long Close waits for the last readings: on a busy
// machine a reading of a dozen views took over a second, and the last
// interval's kick, dropped by a Close that cancelled at once, left a short
// phase without any reading.
const closeWait = 3 * time.Second

// reading is one sample at a wall-clock instant.
type reading struct {
	at     time.Time
	values map[string]float64
}

// Sampler reads the target server's own counters on one session of its
// own, never a worker's: Kick asks for a reading and returns at once; the
// reading runs on the sampler's goroutine, and a Kick while one is running
// is dropped (the next interval reads again). Attach then hands each phase
// of a result the readings taken during it. Safe for concurrent use.
type Sampler struct {
	tgt     target.Target
	conn    target.Conn
	queries []target.CounterQuery
	kick    chan time.Time
	stop    chan struct{} // closed by Close: take the kick pending, then end
	stopped sync.Once
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc

	mu          sync.Mutex
	readings    []reading
	meta        map[string]result.ServerCounter
	unavailable map[string]string
	off         []bool // queries that failed once and are not asked again
}

// NewSampler opens the sampler's session on tgt and asks the driver for its
// counter queries over tables. It returns nil and no error when the target
// offers no counters. A session that cannot be opened, or queries that
// cannot be made, give a Sampler that records why the counters are
// unavailable, so the run goes on without them.
func NewSampler(ctx context.Context, tgt target.Target, tables []string) *Sampler {
	src := target.CounterSourceOf(tgt)
	if src == nil {
		return nil
	}
	s := &Sampler{tgt: tgt, kick: make(chan time.Time, 1), stop: make(chan struct{}), done: make(chan struct{}), meta: map[string]result.ServerCounter{}, unavailable: map[string]string{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	conn, err := tgt.Connect(ctx)
	if err == nil {
		s.conn = conn
		s.queries, err = src.CounterQueries(ctx, conn, tables)
	}
	if err != nil {
		s.unavailable["*"] = "the server's counters could not be read: " + reason(err)
	}
	s.off = make([]bool, len(s.queries))
	go s.loop()
	return s
}

// Kick asks for a reading now, unless one is still running.
func (s *Sampler) Kick() {
	if s == nil {
		return
	}
	select {
	case s.kick <- time.Now():
	default:
	}
}

// ReadNow takes a reading and waits for it (the one before a phase).
func (s *Sampler) ReadNow() {
	if s == nil {
		return
	}
	s.read(time.Now())
}

func (s *Sampler) loop() {
	defer close(s.done)
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.stop:
			// The last interval's kick may have come while a reading
			// ran: it is the phase's last reading, and is taken.
			select {
			case at := <-s.kick:
				s.read(at)
			default:
			}
			return
		case at := <-s.kick:
			s.read(at)
		}
	}
}

// read runs every query still on and keeps what they give. Only one read
// runs at a time (the session is not shared).
func (s *Sampler) read(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil && s.queries == nil {
		return // never connected: the counters are unavailable
	}
	ctx, cancel := context.WithTimeout(s.ctx, sampleTimeout)
	defer cancel()
	if s.conn == nil {
		// The session was lost (a fail-over): open a new one as the
		// workers do (with --target-role, on the node that now has the
		// role), else skip this reading and try again at the next.
		conn, err := s.tgt.Connect(ctx)
		if err != nil {
			return
		}
		s.conn = conn
	}
	values := map[string]float64{}
	for i, q := range s.queries {
		if s.off[i] {
			continue
		}
		got, nulls, err := runQuery(ctx, s.conn, q)
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			if s.tgt.Classify(err) == target.ClassConnection {
				// The session is gone, not the query: no reading now;
				// the next one opens a new session.
				s.conn.Close()
				s.conn = nil
				return
			}
			// A query that fails (a view the role may not read, one
			// this server lacks) is not asked again.
			s.off[i] = true
			s.unavailable[q.Group+": "+q.Source] = reason(err)
			continue
		}
		for _, n := range nulls {
			s.unavailable[q.Prefix+n] = "not visible to this role (PostgreSQL: grant it pg_read_all_stats or pg_monitor)"
		}
		for _, n := range q.Expect {
			if _, ok := got[n]; !ok {
				s.unavailable[q.Prefix+n] = "not reported by this server"
			}
		}
		for n, v := range got {
			name := q.Prefix + n
			values[name] = v
			if _, ok := s.meta[name]; !ok {
				s.meta[name] = result.ServerCounter{Name: name, Group: q.Group, Kind: q.Kind, Unit: q.Unit, Source: q.Source}
			}
		}
	}
	s.readings = append(s.readings, reading{at: at, values: values})
}

// reason is err's message as recorded: its first line, at most 500 bytes,
// any URL's password redacted.
func reason(err error) string {
	msg, _, _ := strings.Cut(target.Redact(err.Error()), "\n")
	if len(msg) > 500 {
		msg = msg[:500]
	}
	return msg
}

// runQuery runs one counter query: the values by name, and the names whose
// value was NULL.
func runQuery(ctx context.Context, conn target.Conn, q target.CounterQuery) (map[string]float64, []string, error) {
	if q.Read != nil {
		v, err := q.Read(ctx, conn)
		return v, nil, err
	}
	out := map[string]float64{}
	var nulls []string
	var bad error
	_, err := conn.Query(ctx, q.SQL, nil, func(cols [][]byte) error {
		name, val := q.Name, []byte(nil)
		switch {
		case q.Name != "" && len(cols) >= 1:
			val = cols[0]
		case len(cols) >= 2:
			name, val = string(cols[0]), cols[1]
		default:
			return nil
		}
		if val == nil {
			nulls = append(nulls, name)
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(val)), 64)
		if err != nil {
			bad = fmt.Errorf("%s: %q is not a number", name, val)
			return nil
		}
		out[name] = f
		return nil
	})
	if err == nil {
		err = bad
	}
	return out, nulls, err
}

// Attach gives every phase of res the readings taken between its start and
// its end, the last reading before it first (t ≤ 0, the baseline of its
// first interval's rates). Phases without a reading get only what is
// unavailable.
func (s *Sampler) Attach(res *result.Result) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range res.Phases {
		p := &res.Phases[i]
		sc := &result.ServerCounters{}
		var before *reading
		used := map[string]bool{}
		add := func(r reading) {
			sc.Samples = append(sc.Samples, result.ServerSample{ElapsedSec: r.at.Sub(p.Started).Seconds(), Values: r.values})
			for n := range r.values {
				used[n] = true
			}
		}
		for j := range s.readings {
			r := s.readings[j]
			switch {
			case r.at.Before(p.Started):
				before = &s.readings[j]
			case !p.Ended.IsZero() && r.at.After(p.Ended.Add(time.Second)):
			default:
				if before != nil {
					add(*before)
					before = nil
				}
				add(r)
			}
		}
		for n := range used {
			sc.Counters = append(sc.Counters, s.meta[n])
		}
		sort.Slice(sc.Counters, func(a, b int) bool {
			if sc.Counters[a].Group != sc.Counters[b].Group {
				return sc.Counters[a].Group < sc.Counters[b].Group
			}
			return sc.Counters[a].Name < sc.Counters[b].Name
		})
		if len(s.unavailable) > 0 {
			sc.Unavailable = map[string]string{}
			for k, v := range s.unavailable {
				sc.Unavailable[k] = v
			}
		}
		if len(sc.Samples) > 0 || len(sc.Unavailable) > 0 {
			p.Server = sc
		}
	}
}

// Close stops the sampler and closes its session.
func (s *Sampler) Close() {
	if s == nil {
		return
	}
	// The reading in progress and the one asked for last finish first
	// (a run's last interval, a short phase's only one), within
	// closeWait; a server that stopped answering is not waited for.
	s.stopped.Do(func() { close(s.stop) })
	select {
	case <-s.done:
	case <-time.After(closeWait):
	}
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}
