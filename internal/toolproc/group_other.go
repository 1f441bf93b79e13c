//go:build !unix

package toolproc

import (
	"os"
	"os/exec"
	"syscall"
)

// Without Unix process groups, the tool alone is ended: its own children
// may outlive it.

func setProcessGroup(c *exec.Cmd) {}

func signalGroup(p *os.Process, sig syscall.Signal) {
	if sig == syscall.SIGKILL || p.Signal(sig) != nil {
		p.Kill()
	}
}

func exitSignal(ps *os.ProcessState) string { return "" }

// SignalName is a signal's name, such as SIGINT.
func SignalName(sig os.Signal) string {
	if sig == os.Interrupt {
		return "SIGINT"
	}
	return sig.String()
}

// SignalNumber is a signal's number.
func SignalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 2
}
