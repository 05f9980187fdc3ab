package engine

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/candor-bench/candor/internal/observe"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// observers are what watches a command's run from outside the workers'
// path: the metrics endpoint and the server-counter sampler, either nil
// when off.
type observers struct {
	metrics *observe.Metrics
	sampler *observe.Sampler
}

// listenMetrics binds --metrics-addr before anything else happens, so a
// taken or invalid address fails the command before the run (exit 2), and
// says where it listens (unless quiet).
func listenMetrics(env *Env, f *Observe, quiet bool) (*observers, error) {
	o := &observers{}
	if f.MetricsAddr == "" {
		return o, nil
	}
	m, err := observe.Listen(f.MetricsAddr, observe.Labels{Shard: "0/1"})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	o.metrics = m
	if !quiet {
		fmt.Fprintf(env.Stderr, "candor: serving live metrics on %s\n", metricsWhere(m.Addr()))
	}
	return o, nil
}

// start labels the metrics with the run, begins its first phase (the load
// when the command loads, with the load metrics; else the run), feeds them
// and the sampler from r's interval records (the monitor's tick), and
// takes the sampler's first reading.
func (o *observers) start(ctx context.Context, f *Observe, r *runner.Runner, tgt target.Target, wl workload.Workload, res *result.Result, loads bool) {
	if o.metrics != nil {
		// A shard (--shard i/N) is labelled with its index and the run id
		// every shard shares; one process is shard "0/1" of its own run.
		runID, shard := res.ID, "0/1"
		if sh := res.Shard; sh != nil {
			runID, shard = sh.RunID, fmt.Sprintf("%d/%d", sh.Index, sh.Count)
		}
		o.metrics.SetLabels(observe.Labels{RunID: runID, Workload: wl.Name(), Shard: shard})
		o.metrics.SetRate(r.Config.Rate)
		o.metrics.SetInFlight(r.Config.Threads)
		if loads {
			_, n := wl.LoadRange()
			o.metrics.SetLoadTotal(n)
			o.metrics.Begin("load", []string{runner.LoadOp})
		} else {
			o.beginRun(wl)
		}
	}
	if f.ServerCounters {
		var tables []string
		for _, t := range wl.Schema() {
			tables = append(tables, t.Name)
		}
		o.sampler = observe.NewSampler(ctx, tgt, tables)
		o.sampler.ReadNow()
	}
	if o.metrics == nil && o.sampler == nil {
		return
	}
	next := r.Intervals
	r.Intervals = func(iv result.Interval) {
		if next != nil {
			next(iv)
		}
		if o.metrics != nil {
			o.metrics.Observe(iv)
		}
		o.sampler.Kick()
	}
}

// beginRun begins the run phase's metrics, every operation of wl at zero.
func (o *observers) beginRun(wl workload.Workload) {
	if o.metrics != nil {
		o.metrics.Begin("run", wl.Ops())
	}
}

// linger serves the final metrics after the run until one more scrape, or
// --metrics-linger, or an interrupt (none after an interrupted run).
func (o *observers) linger(ctx context.Context, env *Env, f *Observe, quiet bool) {
	if o.metrics == nil || f.MetricsLinger <= 0 || ctx.Err() != nil {
		return
	}
	if !quiet {
		fmt.Fprintf(env.Stderr, "candor: serving final metrics on http://%s/metrics for up to %s (until scraped)\n", o.metrics.Addr(), f.MetricsLinger)
	}
	o.metrics.Linger(ctx, f.MetricsLinger)
}

// finish puts the counters sampled into res's phases and stops sampling.
func (o *observers) finish(res *result.Result) {
	if o.sampler != nil {
		o.sampler.Close()
		o.sampler.Attach(res)
		o.sampler = nil
	}
}

// close stops the metrics endpoint (and the sampler if finish did not).
func (o *observers) close(env *Env) {
	if o.sampler != nil {
		o.sampler.Close()
	}
	if o.metrics != nil {
		if err := o.metrics.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "candor: stopping the metrics endpoint: %v\n", err)
		}
	}
}

// metricsWhere says where the metrics listen: the URL of a bound address,
// and for an address on every interface (":9464") the machine's name and
// the loopback URL, rather than "http://[::]:9464".
func metricsWhere(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/metrics"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		return "http://" + net.JoinHostPort(host, port) + "/metrics"
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		name = "HOST"
	}
	return fmt.Sprintf("every interface, port %s: http://%s/metrics from other machines, http://%s/metrics on this one",
		port, net.JoinHostPort(name, port), net.JoinHostPort("127.0.0.1", port))
}
