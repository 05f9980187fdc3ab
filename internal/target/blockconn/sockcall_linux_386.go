//go:build linux && 386

package blockconn

import "syscall"

// linux/386 reaches recvfrom and sendto only through socketcall: a
// session reads and writes its socket with read(2) and write(2) (which
// ignore the flags argument).
const (
	sysRecv   = syscall.SYS_READ
	sysSend   = syscall.SYS_WRITE
	sendFlags = 0
)
