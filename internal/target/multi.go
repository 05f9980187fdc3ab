package target

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/internal/dialect"
)

// WorkerConnector is implemented by targets that route each worker to a
// fixed endpoint (Multi); the runner connects worker w with ConnectWorker.
type WorkerConnector interface {
	ConnectWorker(ctx context.Context, worker int) (Conn, error)
}

// ConnectWorker opens worker w's session on t: on its own endpoint when t
// routes workers (Multi), else as t.Connect.
func ConnectWorker(ctx context.Context, t Target, w int) (Conn, error) {
	if wc, ok := t.(WorkerConnector); ok {
		return wc.ConnectWorker(ctx, w)
	}
	return t.Connect(ctx)
}

// Multi spreads workers over several endpoints of one database (the nodes
// of a cluster): worker w always talks to endpoint w mod n, as the published
// scale-out tests ran one job per node. Dialect, capabilities and error
// classes are the first endpoint's; all endpoints must use the same driver.
type Multi struct {
	targets []Target
}

var (
	_ Target          = (*Multi)(nil)
	_ WorkerConnector = (*Multi)(nil)
)

// OpenMulti opens every URL; with one URL it returns that target itself.
func OpenMulti(ctx context.Context, urls []string, opts Options) (Target, error) {
	if len(urls) == 1 {
		return Open(ctx, urls[0], opts)
	}
	m := &Multi{}
	for _, u := range urls {
		t, err := Open(ctx, u, opts)
		if err != nil {
			m.Close()
			return nil, err
		}
		if len(m.targets) > 0 && t.Driver() != m.targets[0].Driver() {
			t.Close()
			m.Close()
			return nil, fmt.Errorf("%w: every --target must use the same driver (%s and %s)", ErrBadURL, m.targets[0].Driver(), t.Driver())
		}
		m.targets = append(m.targets, t)
	}
	return m, nil
}

func (m *Multi) Driver() string { return m.targets[0].Driver() }

// RedactedURL lists every endpoint, comma-separated.
func (m *Multi) RedactedURL() string {
	var s []string
	for _, t := range m.targets {
		s = append(s, t.RedactedURL())
	}
	return strings.Join(s, ",")
}

// OnThisMachine implements Placed: every endpoint's server is on this
// machine.
func (m *Multi) OnThisMachine() bool {
	for _, t := range m.targets {
		if !OnThisMachine(t) {
			return false
		}
	}
	return true
}

func (m *Multi) Dialect() dialect.Dialect      { return m.targets[0].Dialect() }
func (m *Multi) Capabilities() Capabilities    { return m.targets[0].Capabilities() }
func (m *Multi) Classify(err error) ErrorClass { return m.targets[0].Classify(err) }

// ServerError implements ServerErrorer for the nodes' driver (they share one).
func (m *Multi) ServerError(err error) (ServerError, bool) { return ServerErrorOf(m.targets[0], err) }

// NotSent implements NotSender for the nodes' driver.
func (m *Multi) NotSent(err error) bool { return NotSent(m.targets[0], err) }

// Connect opens a session on the first endpoint (setup and cleanup).
func (m *Multi) Connect(ctx context.Context) (Conn, error) { return m.targets[0].Connect(ctx) }

// ConnectWorker opens worker w's session on endpoint w mod n.
func (m *Multi) ConnectWorker(ctx context.Context, w int) (Conn, error) {
	return m.targets[w%len(m.targets)].Connect(ctx)
}

// Fingerprint is the first endpoint's, with every endpoint's URL and, where
// they differ from the first, its product, version and settings.
func (m *Multi) Fingerprint(ctx context.Context) (Fingerprint, error) {
	fp, err := m.targets[0].Fingerprint(ctx)
	if err != nil {
		return fp, err
	}
	settings := map[string]string{}
	for k, v := range fp.Settings {
		settings[k] = v
	}
	settings["endpoints"] = fmt.Sprint(len(m.targets))
	for i, t := range m.targets[1:] {
		other, err := t.Fingerprint(ctx)
		if err != nil {
			return fp, err
		}
		n := i + 2
		if other.Product != fp.Product || other.Version != fp.Version {
			settings[fmt.Sprintf("endpoint%d.version", n)] = other.Product + " " + other.Version
		}
		for k, v := range other.Settings {
			if fp.Settings[k] != v {
				settings[fmt.Sprintf("endpoint%d.%s", n, k)] = v
			}
		}
	}
	fp.Settings = settings
	fp.URL = m.RedactedURL()
	return fp, nil
}

func (m *Multi) Close() error {
	for _, t := range m.targets {
		t.Close()
	}
	return nil
}
