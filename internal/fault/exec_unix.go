//go:build unix

package fault

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the command in a process group of its own, so that
// candor can end a script's children (a pg_ctl, a sleep) with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process in process group pgid.
func killGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}
