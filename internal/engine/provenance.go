package engine

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/measure"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/version"
)

// collectProvenance describes this build and machine. Missing /proc entries
// leave fields empty rather than failing the run.
func collectProvenance() result.Provenance {
	ver, commit, gov := version.Info()
	p := result.Provenance{CandorVersion: ver, Commit: commit, GoVersion: gov, OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	p.Hostname, _ = os.Hostname()
	p.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		n, _ := strconv.ParseInt(strings.Fields(kb)[0], 10, 64)
		p.MemoryBytes = n * 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		p.Kernel = strings.TrimSpace(string(b))
	}
	p.SchedAutogroup = measure.SchedAutogroup()
	return p
}

// addPhase appends a finished phase to the result, and the machine's load
// the runner measured over it to the result's provenance (the phase does
// not keep it).
func addPhase(res *result.Result, p *result.Phase) {
	if ml := p.MachineLoad; ml != nil {
		l := *ml
		l.PhaseIndex, l.Phase = len(res.Phases), p.Name
		res.Provenance.Load = append(res.Provenance.Load, l)
	}
	p.MachineLoad = nil
	res.Phases = append(res.Phases, *p)
}

// procField returns the value of the first "key: value" line with key.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
