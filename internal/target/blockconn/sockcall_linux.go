//go:build linux && !386

package blockconn

import "syscall"

// The system calls of a session's reads and writes: recvfrom and sendto
// with no address (see Conn.read).
const (
	sysRecv   = syscall.SYS_RECVFROM
	sysSend   = syscall.SYS_SENDTO
	sendFlags = syscall.MSG_NOSIGNAL
)
