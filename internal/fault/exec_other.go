//go:build !unix

package fault

import (
	"os"
	"os/exec"
)

// ownProcessGroup: without Unix process groups, candor ends only the
// shell.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the shell, pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// liveMembers: without process groups candor cannot see the shell's
// children; it reports none.
func liveMembers(int, []int) []int { return nil }
