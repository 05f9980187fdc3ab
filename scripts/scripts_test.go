// Package scripts holds the tests of the shell scripts beside it.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAptInstallOnlyMissingQuietly runs sandbox-lib.sh's apt_install with a
// fake apt-get and dpkg-query on the PATH: only the missing package is
// installed, never upgrading (--no-upgrade, --no-install-recommends), apt's
// output goes to the log file, and the screen gets one line per package.
func TestAptInstallOnlyMissingQuietly(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := map[string]string{
		// dpkg-query: "present" is installed, anything else is not.
		"dpkg-query": `#!/bin/sh
for a; do last=$a; done
[ "$last" = present ] && printf 'install ok installed'
exit 0
`,
		// apt-get: records its arguments, prints as much as apt does.
		"apt-get": `#!/bin/sh
echo "$*" >>` + calls + `
i=0; while [ $i -lt 100 ]; do echo "Unpacking something $i ..."; i=$((i+1)); done
echo "0 upgraded, 7 newly installed, 0 to remove and 12 not upgraded."
`,
	}
	for name, body := range fake {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "apt.log")
	cmd := exec.Command("bash", "-c", `set -euo pipefail; SANDBOX=t; . ./sandbox-lib.sh; apt_install present missing; echo end`)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "CANDOR_APT_LOG="+log)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("apt_install: %v\nstderr:\n%s", err, stderr.String())
	}
	got, err := os.ReadFile(calls)
	if err != nil {
		t.Fatalf("apt-get was not called: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 1 {
		t.Fatalf("apt-get called %d times, want once (for the missing package only):\n%s", len(lines), got)
	}
	for _, want := range []string{"install", "-y", "--no-upgrade", "--no-install-recommends", "missing"} {
		if !strings.Contains(" "+lines[0]+" ", " "+want+" ") {
			t.Errorf("apt-get %s: lacks %s", lines[0], want)
		}
	}
	if strings.Contains(lines[0], "present") {
		t.Errorf("apt-get %s: installs a package already present", lines[0])
	}
	if stdout.String() != "end\n" {
		t.Errorf("stdout %q, want only the caller's own output", stdout.String())
	}
	screen := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(screen) != 1 || !strings.Contains(screen[0], "missing") || !strings.Contains(screen[0], log) ||
		!strings.Contains(screen[0], "7 newly installed") {
		t.Errorf("screen (stderr) should be one line naming the package, the log and what was installed:\n%s", stderr.String())
	}
	logged, _ := os.ReadFile(log)
	if !strings.Contains(string(logged), "Unpacking something 99") {
		t.Errorf("apt-get's output is not in %s", log)
	}
}
