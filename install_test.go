package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/toon"
)

// goEnv returns `go env NAME`.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// installEnv is the environment for make install in a test: HOME and the
// install variables as given, the go command's caches where they were.
func installEnv(t *testing.T, set map[string]string) []string {
	t.Helper()
	keep := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		keep[k] = goEnv(t, k)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_DATA_HOME", "GOBIN", "PREFIX", "DESTDIR", "DATADIR", "VERSION", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
			continue
		}
		env = append(env, kv)
	}
	for k, v := range keep {
		env = append(env, k+"="+v)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// makeCmd is make with the given arguments, in an environment without the
// variables of a make that runs the tests (make test): no "Entering
// directory" lines, no inherited flags.
func makeCmd(args ...string) *exec.Cmd {
	c := exec.Command("make", args...)
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
		default:
			c.Env = append(c.Env, kv)
		}
	}
	return c
}

func runMake(t *testing.T, env []string, args ...string) string {
	t.Helper()
	c := makeCmd(args...)
	c.Env = env
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkInstalled checks that the binary, every man page and the bash, zsh
// and fish completions are in place, as the repository has them, and
// returns the installed files (the binary first).
func checkInstalled(t *testing.T, bin, data string) []string {
	t.Helper()
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if want := "toonkit v9.8.7 (TOON spec v" + toon.SpecVersion + ")\n"; err != nil || string(out) != want {
		t.Errorf("%s --version: %v: %q, want the stamped %q", bin, err, out, want)
	}
	files := []string{bin}
	want := map[string]string{
		"completions/toonkit.bash": "bash-completion/completions/toonkit",
		"completions/toonkit.zsh":  "zsh/site-functions/_toonkit",
		"completions/toonkit.fish": "fish/vendor_completions.d/toonkit.fish",
	}
	pages, _ := filepath.Glob("docs/man/*.1")
	if len(pages) < 10 {
		t.Fatalf("only %d man pages in docs/man", len(pages))
	}
	for _, p := range pages {
		want[p] = "man/man1/" + filepath.Base(p)
	}
	for src, dst := range want {
		dst = filepath.Join(data, dst)
		files = append(files, dst)
		a, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Errorf("not installed: %v", err)
		} else if string(a) != string(b) {
			t.Errorf("%s differs from %s", dst, src)
		}
	}
	return files
}

func checkRemoved(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("make uninstall left %s", f)
		}
	}
}

// make install puts the binary, the man pages and the completions where
// the system looks for them: under DESTDIR+PREFIX for a package, else
// where go install puts binaries and under ~/.local/share ($XDG_DATA_HOME).
// make uninstall removes them.
func TestMakeInstall(t *testing.T) {
	needs.Slow(t, "builds and installs toonkit into a temporary prefix")
	tmp := t.TempDir()

	t.Run("PREFIX and DESTDIR", func(t *testing.T) {
		env := installEnv(t, map[string]string{"HOME": filepath.Join(tmp, "home")})
		root := filepath.Join(tmp, "pkgroot")
		vars := []string{"PREFIX=/usr/local", "DESTDIR=" + root, "VERSION=v9.8.7"}
		runMake(t, env, append([]string{"install"}, vars...)...)
		files := checkInstalled(t, filepath.Join(root, "usr/local/bin/toonkit"), filepath.Join(root, "usr/local/share"))
		runMake(t, env, append([]string{"uninstall"}, vars...)...)
		checkRemoved(t, files)
	})

	t.Run("no PREFIX: GOBIN and XDG_DATA_HOME", func(t *testing.T) {
		gobin, data := filepath.Join(tmp, "gobin"), filepath.Join(tmp, "xdg")
		env := installEnv(t, map[string]string{"HOME": filepath.Join(tmp, "home"), "GOBIN": gobin, "XDG_DATA_HOME": data})
		runMake(t, env, "install", "VERSION=v9.8.7")
		files := checkInstalled(t, filepath.Join(gobin, "toonkit"), data)
		runMake(t, env, "uninstall")
		checkRemoved(t, files)
	})

	t.Run("no PREFIX, no XDG_DATA_HOME: ~/.local/share", func(t *testing.T) {
		gobin, home := filepath.Join(tmp, "gobin2"), filepath.Join(tmp, "home2")
		env := installEnv(t, map[string]string{"HOME": home, "GOBIN": gobin})
		out := runMake(t, env, "install", "VERSION=v9.8.7")
		checkInstalled(t, filepath.Join(gobin, "toonkit"), filepath.Join(home, ".local/share"))
		if !strings.Contains(out, "installed "+gobin+"/toonkit") {
			t.Errorf("make install does not say where the binary went:\n%s", out)
		}
	})

	t.Run("DESTDIR needs PREFIX", func(t *testing.T) {
		c := makeCmd("install", "DESTDIR="+filepath.Join(tmp, "x"))
		c.Env = installEnv(t, map[string]string{"HOME": filepath.Join(tmp, "home")})
		out, err := c.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "DESTDIR needs PREFIX") {
			t.Errorf("make install DESTDIR=... without PREFIX: %v\n%s", err, out)
		}
	})
}
