//go:build unix

package fault

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the command in a process group of its own and makes
// cancellation kill the whole group, so a script's children (a pg_ctl, a
// sleep) do not outlive the run.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
