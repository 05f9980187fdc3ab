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
	// HostBusy and HostTotal are cumulative jiffies of the whole host;
	// HostSteal those the hypervisor stole (counted in HostBusy too), and
	// StealKnown whether /proc/stat has the column (Linux 2.6.11+).
	HostBusy, HostTotal, HostSteal uint64
	StealKnown                     bool
	OK                             bool // false where /proc is unavailable
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
		u.HostBusy, u.HostTotal, u.HostSteal, u.StealKnown = ParseCPULine(line)
	}
	u.OK = true
	return u
}

// ParseCPULine reads /proc/stat's first line ("cpu user nice system idle
// iowait irq softirq steal guest guest_nice", in USER_HZ jiffies): the
// busy jiffies (all but idle and iowait), the total, and the stolen ones
// (steal, the eighth column), stealKnown false when the line has none.
// guest and guest_nice are already counted in user and nice, so they are
// left out of the sums.
func ParseCPULine(line string) (busy, total, steal uint64, stealKnown bool) {
	fs := strings.Fields(line)
	if len(fs) < 5 || fs[0] != "cpu" {
		return 0, 0, 0, false
	}
	for i, s := range fs[1:] {
		if i >= 8 { // guest, guest_nice: inside user and nice
			break
		}
		v, _ := strconv.ParseUint(s, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle and iowait
			busy += v
		}
		if i == 7 {
			steal, stealKnown = v, true
		}
	}
	return busy, total, steal, stealKnown
}

// StealShare is the share of the host's CPU time stolen between a and b,
// ok false when /proc/stat has no steal column or no time passed.
func StealShare(a, b Usage) (share float64, ok bool) {
	if !a.OK || !b.OK || !a.StealKnown || !b.StealKnown || b.HostTotal <= a.HostTotal {
		return 0, false
	}
	return float64(b.HostSteal-a.HostSteal) / float64(b.HostTotal-a.HostTotal), true
}

// LoadAvg reads the kernel's 1-, 5- and 15-minute load averages
// (/proc/loadavg); ok false where there is none.
func LoadAvg() (load [3]float64, ok bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return load, false
	}
	return ParseLoadAvg(string(b))
}

// ParseLoadAvg reads /proc/loadavg's text ("0.52 0.58 0.59 1/467 12345"):
// its first three fields.
func ParseLoadAvg(text string) (load [3]float64, ok bool) {
	fs := strings.Fields(text)
	if len(fs) < 3 {
		return load, false
	}
	for i := range load {
		v, err := strconv.ParseFloat(fs[i], 64)
		if err != nil || v < 0 {
			return [3]float64{}, false
		}
		load[i] = v
	}
	return load, true
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
