package engine

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// A result written before results recorded their Spec holds only its
// command line (result.Command); candor rerun reads the run from it.

// rerunDrops are the flags of the recorded command line that rerun sets
// itself (value-taking ones map to true).
var rerunDrops = map[string]bool{
	"target": true, "out": true, "o": true, "repeat": true, "seed": true, "format": true,
	"plan-name": true, "plan-file": true, "plan-cell": true, "plan-param": true, "plan-target-setup": false,
	"quiet": false, "q": false,
}

// LegacyRunArgs rebuilds the candor run command line of an old result's
// cmd (candor, run, ...): the recorded one without its target, output,
// repetitions, seed, format and plan flags, then the targets (given, else
// the recorded ones without their password, else recordedURL's) and the
// recorded seed. Only `candor run` lines (and plan cells, which are run
// commands) can be replayed; a line that executed a shell command, holds a
// masked secret or reads a property file that is not here is refused.
func LegacyRunArgs(cmd []string, recordedURL string, seed int64, targets []string) ([]string, error) {
	if len(cmd) < 3 || cmd[1] != "run" {
		verb := "(no command recorded)"
		if len(cmd) > 1 {
			verb = "candor " + cmd[1]
		}
		return nil, fmt.Errorf("it records %s; rerun replays results of candor run, plan cells and candor sysbench ... run: run the same command again instead", verb)
	}
	var kept, recorded []string
	for i := 2; i < len(cmd); i++ {
		a := cmd[i]
		name, value, hasValue := "", "", false
		switch {
		case strings.HasPrefix(a, "--"):
			name, value, hasValue = strings.Cut(a[2:], "=")
		case strings.HasPrefix(a, "-") && len(a) >= 2:
			name = a[1:2]
			if len(a) > 2 {
				value, hasValue = strings.TrimPrefix(a[2:], "="), true
			}
		}
		if takesValue, drop := rerunDrops[name]; name != "" && drop {
			if takesValue && !hasValue && i+1 < len(cmd) {
				i++
				value = cmd[i]
			}
			if name == "target" {
				recorded = append(recorded, value)
			}
			continue
		}
		kept = append(kept, a)
		if name == "fault" {
			v := value
			if !hasValue && i+1 < len(cmd) {
				v = cmd[i+1]
			}
			if strings.Contains(v, "run=") {
				return nil, fmt.Errorf("its run executed a shell command (--fault %q): rerun never executes commands read from a result file; read it and run the command line by hand", v)
			}
		}
		if name == "P" || name == "property-file" {
			if err := checkPropertyFile(cmd, i, value, hasValue); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range kept {
		if strings.Contains(a, MaskedValue) {
			return nil, fmt.Errorf("its command line holds a masked secret (%s): run it again by hand with the secret", a)
		}
	}
	if len(targets) == 0 {
		for _, t := range recorded {
			targets = append(targets, StripPassword(t))
		}
		if len(targets) == 0 && recordedURL != "" {
			targets = []string{StripPassword(recordedURL)}
		}
	}
	out := append([]string{"run"}, kept...)
	for _, t := range targets {
		out = append(out, "--target", t)
	}
	return append(out, "--seed", fmt.Sprint(seed)), nil
}

// checkPropertyFile refuses a recorded -P file that is not here, before
// anything runs.
func checkPropertyFile(cmd []string, i int, value string, hasValue bool) error {
	if !hasValue {
		if i+1 >= len(cmd) {
			return nil
		}
		value = cmd[i+1]
	}
	if _, err := os.Stat(value); err != nil {
		return fmt.Errorf("its command reads property file %s, which is not here (%v): run rerun from the directory the original ran in, or copy the file", value, err)
	}
	return nil
}

// StripPassword removes a redacted (or any) password from a URL's user
// info, so the driver takes it from the environment.
func StripPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}
