//go:build unix

package toolproc

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// setProcessGroup starts the tool in a process group of its own, which
// exec ends as a whole; Ctrl-C on a terminal reaches toonkit alone, which
// then ends the group.
func setProcessGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group that p leads.
func signalGroup(p *os.Process, sig syscall.Signal) {
	syscall.Kill(-p.Pid, sig)
}

// exitSignal names the signal that ended a process, "" when it exited.
func exitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return SignalName(ws.Signal())
	}
	return ""
}

// SignalName is a signal's name, such as SIGTERM.
func SignalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
	}
	return sig.String()
}

// SignalNumber is a signal's number.
func SignalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGINT)
}
