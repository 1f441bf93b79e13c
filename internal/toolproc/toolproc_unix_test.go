//go:build unix

package toolproc_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/toolproc"
)

// A tool's stdout is read from Stdout, its stderr comes to the callback,
// and Wait says how it ended.
func ExampleNew() {
	var stderr strings.Builder
	p := toolproc.New("sh", []string{"-c", "cat; echo oops >&2; exit 3"}, toolproc.Options{
		KillAfter: time.Second,
		Stderr:    func(b []byte) { stderr.Write(b) },
	})
	if err := p.Start([]byte("hello\n")); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := io.ReadAll(p.Stdout())
	p.DoneReading()
	exit := p.Wait()
	fmt.Printf("stdout %q, stderr %q, status %d\n", out, stderr.String(), exit.Status)
	// Output: stdout "hello\n", stderr "oops\n", status 3
}

// A signal before Start: the tool is not started, and the run ends with
// the signal's status.
func TestInterruptBeforeStart(t *testing.T) {
	p := toolproc.New("sh", []string{"-c", "exit 0"}, toolproc.Options{Stderr: func([]byte) {}})
	p.Interrupt(syscall.SIGTERM)
	var ie *toolproc.InterruptedError
	if err := p.Start(nil); !errors.As(err, &ie) || ie.Code != 128+int(syscall.SIGTERM) {
		t.Fatalf("Start: %v, want an *InterruptedError with code %d", err, 128+int(syscall.SIGTERM))
	}
}

// Timeout ends the whole group, a child that ignores SIGTERM included (it
// is killed after KillAfter), and the Exit says so.
func TestTimeoutEndsTheGroup(t *testing.T) {
	var mu sync.Mutex
	p := toolproc.New("sh", []string{"-c", "trap '' TERM; sleep 30 & echo started; wait"}, toolproc.Options{
		KillAfter: 200 * time.Millisecond, TimeLimit: time.Second,
		//lint:ignore SA2001 waits while the test holds mu
		Stderr: func([]byte) { mu.Lock(); mu.Unlock() },
	})
	if err := p.Start(nil); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(p.Stdout(), buf); err != nil {
		t.Fatal(err)
	}
	p.Timeout()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, p.Stdout()); p.DoneReading(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the group's stdout stayed open 10 s after Timeout")
	}
	exit := p.Wait()
	if exit.Timeout != time.Second || exit.Signal != "SIGKILL" {
		t.Fatalf("exit %+v, want killed by SIGKILL after the time limit", exit)
	}
}

// A tool that cannot be started: StartFailure says why, without Go's
// prefixes.
func TestStartFailure(t *testing.T) {
	dir := t.TempDir()
	plain, noExec := dir+"/plain", dir+"/noexec"
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noExec, []byte{0x7f, 'E', 'L', 'F', 0, 0, 0, 0}, 0o755); err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]string{
		"no-such-tool-here": "executable file not found in $PATH",
		dir + "/missing":    "no such file or directory",
		plain:               "permission denied",
		noExec:              "exec format error",
	} {
		err := toolproc.New(tool, nil, toolproc.Options{}).Start(nil)
		if err == nil {
			t.Errorf("%s started", tool)
			continue
		}
		if got := toolproc.StartFailure(err); got != want {
			t.Errorf("%s: %q (from %v), want %q", tool, got, err, want)
		}
	}
}
