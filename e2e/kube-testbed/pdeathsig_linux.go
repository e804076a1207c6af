package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// dieWithParent asks the kernel to send SIGTERM when the parent process exits,
// so a crashed launcher / test runner does not leave an orphan apiserver behind.
func dieWithParent() {
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
}
