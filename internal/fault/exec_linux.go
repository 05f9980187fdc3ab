package fault

import (
	"os"
	"strconv"
	"strings"
)

// liveMembers returns the processes of process group pgid that are alive
// (a zombie is not: where nothing reaps orphans, as in some containers, the
// dead stay in the group's list). It first checks the members it already
// knows, and reads every process in /proc only when none of them is left,
// so that a group watched for a whole run costs a few reads per look.
func liveMembers(pgid int, known []int) []int {
	var live []int
	for _, pid := range known {
		if g, ok := liveGroupOf(pid); ok && g == pgid {
			live = append(live, pid)
		}
	}
	if len(live) > 0 {
		return live
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		if g, ok := liveGroupOf(pid); ok && g == pgid {
			live = append(live, pid)
		}
	}
	return live
}

// liveGroupOf reads process pid's group from /proc/PID/stat; ok is false
// when the process is gone or a zombie.
func liveGroupOf(pid int) (pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	return g, err == nil
}
