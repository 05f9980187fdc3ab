package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/candor-bench/candor/internal/isolation/probe"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/target"
)

// IsolationCacheEnv names the directory in which probes of isolation levels
// are kept between runs (default: candor/isolation under the user's cache
// directory); "off" keeps none.
const IsolationCacheEnv = "CANDOR_ISOLATION_CACHE"

// isolationCacheDir is where probes are kept; "" when nowhere.
func isolationCacheDir() string {
	if d := os.Getenv(IsolationCacheEnv); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "candor", "isolation")
}

// observeIsolation probes (or finds the probe of) level on the target at
// url, whose run fingerprint is fp, before the run's measured phase. It
// never fails the run: a probe that cannot be made is recorded with its
// reason.
func observeIsolation(ctx context.Context, stderr io.Writer, quiet bool, url, level string, fp target.Fingerprint, caps target.Capabilities, timeout time.Duration) *result.ObservedIsolation {
	id := probe.Identity(fp)
	if !caps.Transactions || !caps.SQL() {
		return &result.ObservedIsolation{Level: level, Identity: id, Error: "not probed: the target has no SQL transactions"}
	}
	lv, probed, cached, err := probe.Cached(ctx, url, level, id, isolationCacheDir(), probe.Options{ConnectTimeout: timeout})
	if err != nil {
		if !quiet {
			fmt.Fprintf(stderr, "isolation %s not probed: %v\n", level, err)
		}
		return &result.ObservedIsolation{Level: level, Identity: id, Error: "not probed: " + err.Error()}
	}
	o := probe.Observed(lv, id, probed, cached)
	if !quiet {
		var allowed []string
		for _, a := range o.Outcomes {
			if a.Allowed {
				allowed = append(allowed, a.Anomaly)
			}
		}
		how := "probed"
		if cached {
			how = "probed " + probed.Format(time.RFC3339)
		}
		if len(allowed) == 0 {
			fmt.Fprintf(stderr, "isolation %s (%s): every probed anomaly prevented\n", level, how)
		} else {
			fmt.Fprintf(stderr, "isolation %s (%s): allows %s\n", level, how, strings.Join(allowed, ", "))
		}
	}
	return o
}
