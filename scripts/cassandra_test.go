package scripts

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeSandbox makes a one-node sandbox directory for cassandra-sandbox.sh
// whose CQL port is a listener of the test's own (what the script checks
// once the node says it listens), and a fake java on the PATH: it fails
// with a taken port ("Address already in use", as the JMX agent does when
// its port is in TIME-WAIT after a kill) the first `fails` times, records
// the JMX port of every launch, then says it listens for CQL clients and
// stays up. It returns the sandbox, the environment and the JMX log.
func fakeSandbox(t *testing.T, fails int) (dir string, env []string, jmxLog string) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	tmp := t.TempDir()
	dir = filepath.Join(tmp, "sandbox")
	files := map[string]string{
		".candor-cassandra-sandbox": "", "nodes": "1\n", "auth": "off\n", "port": port + "\n",
		"storage_port": "1\n", "ssl_storage_port": "2\n", "jvm17.args": "", "logback.xml": "",
		"node1/jmx_port": "7199\n", "node1/cassandra.yaml": "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(tmp, "bin")
	os.MkdirAll(bin, 0o755)
	state, jmxLog := filepath.Join(tmp, "launches"), filepath.Join(tmp, "jmx")
	java := `#!/bin/sh
case "$1" in -version) echo 'openjdk version "17.0.1" 2021-10-19' >&2; exit 0 ;; esac
n=$(cat ` + state + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n >` + state + `
for a; do case $a in -Dcassandra.jmx.local.port=*) echo "${a#*=}" >>` + jmxLog + ` ;; esac; done
if [ $n -le ` + strconv.Itoa(fails) + ` ]; then
	echo "Error: Exception thrown by the agent : java.rmi.server.ExportException: Port already in use; nested exception is: java.net.BindException: Address already in use"
	exit 1
fi
echo "INFO [main] Starting listening for CQL clients on /127.0.0.1:` + port + `"
exec sleep 60
`
	if err := os.WriteFile(filepath.Join(bin, "java"), []byte(java), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(dir, "node1", "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL) // the fake node this test started
			}
		}
	})
	env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CANDOR_CASSANDRA_CACHE="+filepath.Join(tmp, "cache"))
	return dir, env, jmxLog
}

// restart retries a node whose port is still taken after a kill, as start
// does, with another JMX port each time (it gave up at once: "could not
// bind its ports again").
func TestCassandraRestartRetriesATakenPort(t *testing.T) {
	dir, env, jmxLog := fakeSandbox(t, 2)
	cmd := exec.Command("bash", "./cassandra-sandbox.sh", "restart", dir, "1")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	for _, want := range []string{"a port was taken (attempt 1 of 5)", "(attempt 2 of 5)", "node 1 (pid", "answers CQL"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, _ := os.ReadFile(jmxLog)
	ports := strings.Fields(string(b))
	if len(ports) != 3 || ports[0] != "7199" || ports[1] == "7199" || ports[2] == ports[1] {
		t.Errorf("JMX ports of the launches %v: want 7199, then another port each retry", ports)
	}
}

// restart's retries are bounded: a port that stays taken ends it with a
// message naming the ports clients need.
func TestCassandraRestartGivesUp(t *testing.T) {
	dir, env, _ := fakeSandbox(t, 100)
	cmd := exec.Command("bash", "./cassandra-sandbox.sh", "restart", dir, "1")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("restart succeeded with every port taken:\n%s", out)
	}
	if !strings.Contains(string(out), "after 5 attempts") || strings.Contains(string(out), "attempt 6") {
		t.Errorf("output:\n%s", out)
	}
}
