package keys_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/sign"
)

// ExampleLoad reads a keyring and a key from the environment, newest
// first: the environment's key signs, and each key verifies.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "keys")
	defer os.RemoveAll(dir)
	ring := filepath.Join(dir, "audit.keyring")
	os.WriteFile(ring, []byte("# rotated out, newest first\n2026-q3 60303ae22b998861bce3b28f33eec1be\n2026-q2 9f86d081884c7d659a2feaa0c55ad015\n"), 0o600)
	env := func(name string) (string, bool) { return "4a1f0c9d2e6b8a7354c1d0e9f8a7b6c5", name == "AOP_KEY" }

	r, err := keys.Load([]keys.Source{{Kind: keys.Env, Name: "AOP_KEY"}, {Kind: keys.Keyring, Name: ring}},
		keys.Options{LookupEnv: env, Warn: func(msg, hint string) { fmt.Println("warning:", msg) }})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.IDs())
	s, _ := r.Signer(sign.SchemeSpec)
	fmt.Println(s.Keys(), "keys; signs with", r[0])
	// Output:
	// [AOP_KEY 2026-q3 2026-q2]
	// 3 keys; signs with AOP_KEY
}

func ExampleParseKeyring() {
	_, err := keys.ParseKeyring([]byte("2026-q4 9f86d081884c7d65\n2026-q3\n"))
	fmt.Println(err)
	// Output: line 2: the id 2026-q3 has no key after it
}
