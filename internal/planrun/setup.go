package planrun

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/plan"
)

// setupTarget runs a plan target's setup commands for cell c and returns
// the URLs the last one printed (the first ts.URLs of them when set) and
// the teardown to run after the cell. The commands, the cell's fault
// commands and its teardown see CANDOR_CELL_DIR (a short path under the
// temporary directory that does not exist yet: the cluster's directory),
// CANDOR_CELL and CANDOR_TARGET.
func setupTarget(env *engine.Env, ts plan.TargetSetup, c plan.Cell) ([]string, func(), error) {
	parent, err := os.MkdirTemp("", "candor-cell-")
	if err != nil {
		return nil, func() {}, err
	}
	os.Chmod(parent, 0o755) // a cluster's nodes may run as another user (postgres)
	vars := map[string]string{"CANDOR_CELL_DIR": filepath.Join(parent, "c"), "CANDOR_CELL": c.ID, "CANDOR_TARGET": c.Target}
	for k, v := range vars {
		os.Setenv(k, v)
	}
	teardown := func() {
		for _, cmd := range ts.Teardown {
			if _, err := shell(env, cmd); err != nil {
				fmt.Fprintf(env.Stderr, "[plan] teardown %q: %v\n", cmd, err)
			}
		}
		os.RemoveAll(parent)
		for k := range vars {
			os.Unsetenv(k)
		}
	}
	var out string
	for _, cmd := range ts.Setup {
		fmt.Fprintf(env.Stderr, "[plan] setup: %s\n", cmd)
		if out, err = shell(env, cmd); err != nil {
			return nil, teardown, fmt.Errorf("%q: %w", cmd, err)
		}
	}
	var urls []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "://") {
			urls = append(urls, l)
		}
	}
	if ts.URLs > 0 && len(urls) > ts.URLs {
		urls = urls[:ts.URLs]
	}
	if len(urls) == 0 || (ts.URLs > 0 && len(urls) < ts.URLs) {
		return nil, teardown, fmt.Errorf("the last setup command printed %d URL(s) on stdout, the target needs %d (one scheme://... per line)", len(urls), max(ts.URLs, 1))
	}
	return urls, teardown, nil
}

// shell runs cmd with sh -c, its stderr on candor's; it returns stdout.
func shell(env *engine.Env, cmd string) (string, error) {
	var out bytes.Buffer
	x := exec.Command("/bin/sh", "-c", cmd)
	x.Stdout, x.Stderr = &out, env.Stderr
	err := x.Run()
	return out.String(), err
}

// withTargets replaces the cell's --target from-setup with one --target
// per URL.
func withTargets(args, urls []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--target" && i+1 < len(args) && args[i+1] == plan.FromSetup {
			for _, u := range urls {
				out = append(out, "--target", u)
			}
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
