package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoYCSBFinalReport: ycsb-vs-goycsb.sh reads go-ycsb's throughput from
// the TOTAL line of its final report (after "Run finished"), never from an
// interim line, and fails when the final report is missing (go-ycsb exits
// without it on a second signal).
func TestGoYCSBFinalReport(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	interim := "TOTAL  - Takes(s): 10.0, Count: 350752, OPS: 35,075.2, Avg(us): 113\n"
	files := map[string]string{
		"final": interim + "Got signal [interrupt] to exit.\n**********\nRun finished, takes 30.01s\n" +
			"READ   - Takes(s): 30.0, Count: 600000, OPS: 20,000.0, Avg(us): 100\n" +
			"TOTAL  - Takes(s): 30.0, Count: 1216308, OPS: 40,543.6, Avg(us): 98\n",
		"interim-only": interim + "Got signal [interrupt] to exit.\nGot signal [interrupt] again to exit.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `set -euo pipefail; . bench/lib.sh
final_total "$1"`
	run := func(file string) (string, error) {
		cmd := exec.Command("bash", "-c", script, "test", filepath.Join(dir, file))
		cmd.Dir = ".."
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if got, err := run("final"); err != nil || got != "40543.6" {
		t.Errorf("final report: got %q, %v; want 40543.6 (the final TOTAL, not the interim one)", got, err)
	}
	if got, err := run("interim-only"); err == nil {
		t.Errorf("no final report: got %q and success; want a failure", got)
	}
	// The script signals go-ycsb once, not its process group too.
	src, err := os.ReadFile("ycsb-vs-goycsb.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "timeout ") && strings.Contains(line, "GOYCSB") && !strings.Contains(line, "--foreground") {
			t.Errorf("go-ycsb run under timeout without --foreground (it signals the child, then its group): %s", strings.TrimSpace(line))
		}
	}
}
