//go:build !unix

package fault

import "os/exec"

// ownProcessGroup: without Unix process groups, cancellation kills only the
// shell (exec's default).
func ownProcessGroup(*exec.Cmd) {}
