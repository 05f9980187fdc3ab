// Command pgfloor runs sysbench's oltp_point_select statement in the least
// code a Go client can, to tell what of candor's distance to sysbench 1.0.20
// is candor's and what any Go client on blocking sockets pays. Each session
// runs "SELECT c FROM sbtest1 WHERE id=$1" in a closed loop on a blocking
// socket (package blockconn, with blockconn.Reserve as candor's runner uses
// it), with ids drawn as sysbench draws them, and prints sysbench's
// "transactions:" line. Despite its name it speaks MySQL wire too, given a
// mysql:// URL (mysql.go has those modes). PostgreSQL's modes:
//
//	wire     the extended-protocol messages written and read by hand
//	pgconn   pgx's pgconn.ExecStatement (Bind, Execute, Sync: no Describe,
//	         unlike wire and libpq), as candor's PostgreSQL driver ran
//	         statements until its wire path (internal/target/postgres/wire.go)
//	conn     candor's PostgreSQL driver (target.Conn.Query)
//
// bench/pgfloor.sh runs each mode beside sysbench and candor; figures are in
// docs/BENCHMARKS.md §7.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/internal/keydist"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/target/blockconn"
	"github.com/candor-bench/candor/internal/target/mysql"
	_ "github.com/candor-bench/candor/internal/target/postgres" // the postgres:// driver
)

const query = "SELECT c FROM sbtest1 WHERE id=$1"

func main() {
	url := flag.String("url", "", "postgres:// or mysql:// URL of a database holding sysbench's sbtest1")
	mode := flag.String("mode", "conn", "wire, pgconn or conn (PostgreSQL); wire, driver or conn (MySQL wire)")
	threads := flag.Int("threads", 4, "sessions")
	dur := flag.Duration("time", 10*time.Second, "run time")
	randType := flag.String("rand-type", keydist.SysbenchSpecialType, "sysbench's --rand-type")
	tableSize := flag.Int64("table-size", 1000000, "rows in sbtest1")
	flag.Parse()
	if err := run(*url, *mode, *threads, *dur, *randType, *tableSize); err != nil {
		fmt.Fprintln(os.Stderr, "pgfloor:", err)
		os.Exit(1)
	}
}

// session is one connection of a mode: one runs its statement once (first
// on the first execution), close ends the connection. run runs one in a
// closed loop.
type session struct {
	one   func(first bool) error
	close func()
}

// loop runs s until stop is set or a statement fails, closes it, and
// returns how many statements ran.
func (s session) loop(stop *atomic.Bool) (int64, error) {
	defer s.close()
	var n int64
	for ; !stop.Load(); n++ {
		if err := s.one(n == 0); err != nil {
			return n, err
		}
	}
	return n, nil
}

func run(url, mode string, threads int, dur time.Duration, randType string, tableSize int64) error {
	if url == "" || threads < 1 || dur <= 0 || tableSize < 1 {
		return errors.New("need -url, and -threads, -time and -table-size above 0")
	}
	if !slices.Contains(keydist.SysbenchRandTypes, randType) {
		return fmt.Errorf("unknown -rand-type %q (%s)", randType, strings.Join(keydist.SysbenchRandTypes, ", "))
	}
	params := keydist.DefaultSysbenchParams()
	params.Type = randType
	dist := keydist.NewSysbenchRand(params)
	var err error
	ctx := context.Background()
	sessions := make([]session, threads)
	for i := range sessions {
		r := rand.New(rand.NewSource(int64(i) + time.Now().UnixNano()))
		id := func() int64 { return dist.Draw(r, 1, tableSize) }
		var s session
		switch {
		case mode == "conn":
			s, err = connSession(ctx, url, id)
		case strings.HasPrefix(url, "mysql://"):
			s, err = mysqlSession(ctx, url, mode, id)
		default:
			s, err = pgSession(ctx, url, mode, id)
		}
		if err != nil {
			return err
		}
		sessions[i] = s
	}
	end := blockconn.Reserve(threads)
	defer end()
	var stop atomic.Bool
	var total atomic.Int64
	errs := make([]error, threads)
	var wg sync.WaitGroup
	start := time.Now()
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.loop(&stop)
			total.Add(n)
			errs[i] = err
		}()
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	secs := time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Printf("%s: transactions: %d (%.2f per sec.)\n", mode, total.Load(), float64(total.Load())/secs)
	return nil
}

// pgSession opens one session of mode wire or pgconn on a PostgreSQL URL.
func pgSession(ctx context.Context, url, mode string, id func() int64) (session, error) {
	if mode != "wire" && mode != "pgconn" {
		return session{}, fmt.Errorf("unknown -mode %q for PostgreSQL (wire, pgconn, conn)", mode)
	}
	return rawSession(ctx, url, mode == "wire", id)
}

// rawSession opens a pgconn session on a blocking socket with the statement
// prepared; wire runs it with hand-written messages on the hijacked socket.
func rawSession(ctx context.Context, url string, wire bool, id func() int64) (session, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return session{}, err
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return blockconn.Dial(ctx, &net.Dialer{}, network, addr)
	}
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return session{}, err
	}
	sd, err := pc.Prepare(ctx, "s1", query, nil)
	if err != nil {
		return session{}, err
	}
	if !wire {
		params := [][]byte{nil}
		return session{close: func() { pc.Close(ctx) }, one: func(bool) error {
			params[0] = strconv.AppendInt(params[0][:0], id(), 10)
			rr := pc.ExecStatement(ctx, sd, params, nil, nil)
			for rr.NextRow() {
			}
			_, err := rr.Close()
			return err
		}}, nil
	}
	hc, err := pc.Hijack()
	if err != nil {
		return session{}, err
	}
	out := make([]byte, 0, 128)
	in := make([]byte, 8192)
	return session{close: func() { hc.Conn.Close() }, one: func(bool) error {
		out = appendExec(out[:0], "s1", id())
		if _, err := hc.Conn.Write(out); err != nil {
			return err
		}
		return readUntilReady(hc.Conn, in)
	}}, nil
}

// appendExec appends Bind (one text parameter, text results), Describe
// portal, Execute and Sync: what libpq's PQexecPrepared sends.
func appendExec(b []byte, stmt string, param int64) []byte {
	start := len(b)
	b = append(b, 'B', 0, 0, 0, 0, 0) // length, unnamed portal
	b = append(b, stmt...)
	b = append(b, 0, 0, 0, 0, 1) // statement name end, no format codes, 1 parameter
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b = strconv.AppendInt(b, param, 10)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	b = append(b, 0, 0) // no result format codes
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-1))
	b = append(b, 'D', 0, 0, 0, 6, 'P', 0)
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
	return append(b, 'S', 0, 0, 0, 4)
}

// readUntilReady reads messages until ReadyForQuery, failing on an
// ErrorResponse.
func readUntilReady(c net.Conn, buf []byte) error {
	have := 0
	for {
		k, err := c.Read(buf[have:])
		if err != nil {
			return err
		}
		have += k
		off := 0
		for have-off >= 5 {
			size := 1 + int(binary.BigEndian.Uint32(buf[off+1:]))
			if size > len(buf) {
				return fmt.Errorf("a %d-byte message does not fit the buffer", size)
			}
			if have-off < size {
				break
			}
			switch buf[off] {
			case 'E':
				return fmt.Errorf("server error: %q", buf[off+5:off+size])
			case 'Z':
				return nil
			}
			off += size
		}
		have = copy(buf, buf[off:have])
	}
}

// connSession opens a session of candor's own driver for url (PostgreSQL
// or MySQL wire), blocking, and runs oltp_point_select's statement in the
// driver's dialect.
func connSession(ctx context.Context, url string, id func() int64) (session, error) {
	t, err := target.Open(ctx, url, target.Options{})
	if err != nil {
		return session{}, err
	}
	c, err := t.Connect(target.WithSessionIO(ctx, target.IOBlocking))
	if err != nil {
		t.Close()
		return session{}, err
	}
	q := query
	if t.Driver() == mysql.Name {
		q = mysqlQuery
	}
	args := []any{int64(0)}
	return session{close: func() { c.Close(); t.Close() }, one: func(bool) error {
		args[0] = id()
		_, err := c.Query(ctx, q, args, nil)
		return err
	}}, nil
}
