package measure

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Cores is the number of cores the client may use: GOMAXPROCS as the
// process started, which by default respects the CPU affinity mask and a
// cgroup CPU limit. A run phase on blocking sessions raises GOMAXPROCS
// (blockconn.Reserve); the cores do not change with it.
var Cores = runtime.GOMAXPROCS(0)

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

// Usage is one sample of the client process and the host.
type Usage struct {
	At time.Time
	// ProcCPU is the process's user+system CPU time so far, in seconds.
	ProcCPU float64
	// RSS is the resident set size in bytes.
	RSS int64
	// HostBusy and HostTotal are cumulative jiffies of the whole host.
	HostBusy, HostTotal uint64
	OK                  bool // false where /proc is unavailable
}

// SampleUsage reads the current process and host counters from /proc. On
// systems without /proc it returns a sample with OK false.
func SampleUsage() Usage {
	u := Usage{At: time.Now()}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return u
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
		f := strings.Fields(string(stat[i+1:]))
		// utime and stime are fields 14 and 15 of the whole line: 11 and 12 here.
		if len(f) > 12 {
			ut, _ := strconv.ParseFloat(f[11], 64)
			st, _ := strconv.ParseFloat(f[12], 64)
			u.ProcCPU = (ut + st) / clockTicks
		}
	}
	if f, err := os.Open("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "VmRSS:") {
				fs := strings.Fields(line)
				if len(fs) >= 2 {
					kb, _ := strconv.ParseInt(fs[1], 10, 64)
					u.RSS = kb * 1024
				}
				break
			}
		}
		f.Close()
	}
	if data, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(data), "\n")
		fs := strings.Fields(line)
		if len(fs) > 4 && fs[0] == "cpu" {
			for i, s := range fs[1:] {
				v, _ := strconv.ParseUint(s, 10, 64)
				u.HostTotal += v
				if i != 3 && i != 4 { // idle and iowait
					u.HostBusy += v
				}
			}
		}
	}
	u.OK = true
	return u
}

// UsageDelta is the client's resource use between two samples.
type UsageDelta struct {
	// ClientCores is CPU seconds used per wall second (2.0 = two cores busy).
	ClientCores float64
	// ClientShare is ClientCores over the cores available to the process
	// (Cores).
	ClientShare float64
	// HostBusy is the fraction of the whole host's CPU that was busy.
	HostBusy float64
	RSS      int64
}

// Delta computes resource use from a to b.
func Delta(a, b Usage) UsageDelta {
	d := UsageDelta{RSS: b.RSS}
	wall := b.At.Sub(a.At).Seconds()
	if !a.OK || !b.OK || wall <= 0 {
		return d
	}
	d.ClientCores = (b.ProcCPU - a.ProcCPU) / wall
	d.ClientShare = d.ClientCores / float64(Cores)
	if tot := b.HostTotal - a.HostTotal; tot > 0 {
		d.HostBusy = float64(b.HostBusy-a.HostBusy) / float64(tot)
	}
	return d
}

// SchedAutogroup names the kernel's autogroup setting
// (/proc/sys/kernel/sched_autogroup_enabled): "on", "off", or "" where the
// kernel has none. With autogroups on, the kernel shares the cores fairly
// among sessions (a server started in a session of its own gets half of a
// busy machine however many threads the client runs); off, among threads.
func SchedAutogroup() string {
	b, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	if err != nil {
		return ""
	}
	return ParseAutogroup(string(b))
}

// ParseAutogroup names the value of sched_autogroup_enabled: "off" for 0,
// "on" for any other number, "" for anything else.
func ParseAutogroup(v string) string {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return ""
	case n == 0:
		return "off"
	}
	return "on"
}
