// Package keys loads the salt keys of AOP trace signatures (internal/sign) and
// seals (internal/seal): from key files, from environment variables and from
// keyrings, files of "id key" lines. Several keys are one list, in the
// order given, newest first: the first key is the current one, that sign
// and seal use; the keys after it are keys rotated out, most recent first,
// that verify still accepts for the events they signed (an AOP backend
// keeps its old salt key valid for a grace period after a rotation).
//
// Each key has an id that reports name it by, never its bytes: a keyring
// line's id, a key file's name as given, an environment variable's name.
//
// A keyring:
//
//	# the current key first, then the keys rotated out, newest first
//	2026-q4 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//	2026-q3 60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752
//
// A key rotated out may carry, after it, the time it was retired, RFC 3339:
//
//	2026-q3 60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752 retired=2026-10-01T00:00:00Z
//
// verify then fails an event that key signed at or after that time (by its
// t; see sign.Log.Retired). A key without a time after a retired one was
// retired no later than it (the ring's order says so), and is taken to be
// retired at the same time (Ring.Retired); a key retired after a newer one
// is an error, as is a time on the first key of the keys given, the
// current one. Keys of --key-file and --key-env carry no time.
//
// Blank lines and lines that start with # are left out, as is a byte
// order mark. An id is any run of
// printable characters without white space; the key is the rest of the
// line after the white space that follows the id, to its end (a CR before
// the line break is not part of it), and holds no white space. Each id is
// given once. A key's bytes are the characters as written, as for a key
// file: the hex digits of toonkit keygen are the key, not the bytes they
// encode.
//
// A key file or a keyring that group or others may read is a warning, as
// ssh warns of a private key others may read. Signing with a key shorter
// than GoodLen bytes is a warning, shorter than MinLen an error unless
// allowed (CheckSigning); verifying accepts any key that is not empty,
// since it must check old logs.
package keys

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/sign"
)

// MinLen is the shortest key sign accepts unless allowed; GoodLen the
// shortest it accepts without a warning.
const (
	MinLen  = 8
	GoodLen = 16
)

// Kind is where a key comes from.
type Kind int

const (
	File    Kind = iota // a key file (--key-file)
	Env                 // an environment variable (--key-env)
	Keyring             // a keyring file (--keyring)
)

// Flag is the command-line flag of a kind of source.
func (k Kind) Flag() string { return [...]string{"--key-file", "--key-env", "--keyring"}[k] }

// Source is one place that keys are read from: a file name or a variable
// name.
type Source struct {
	Kind Kind
	Name string
}

// Flag is the value of a repeatable command-line flag of a kind of source
// (a pflag.Value, as cobra's flags take): every flag adds to one list, so
// that the order given holds across flags of different kinds.
func Flag(kind Kind, list *[]Source) interface {
	String() string
	Set(string) error
	Type() string
} {
	return flag{kind, list}
}

type flag struct {
	kind Kind
	list *[]Source
}

func (f flag) String() string { return "" }
func (f flag) Type() string   { return "stringArray" }
func (f flag) Set(v string) error {
	if v == "" {
		return errors.New("a name is needed")
	}
	*f.list = append(*f.list, Source{Kind: f.kind, Name: v})
	return nil
}

// Key is one salt key.
type Key struct {
	// ID names the key in reports: a keyring line's id, a key file's name,
	// an environment variable's name.
	ID     string
	Secret []byte
	// From says where the key was read, for messages: "--key-env AOP_KEY",
	// "audit.keyring:3".
	From string
	// Retired is when the key was retired (a keyring's retired=); zero
	// for a key not retired, or of unknown retirement.
	Retired time.Time
}

// String is the key's id: never its bytes.
func (k Key) String() string { return k.ID }

// Ring is the keys given, newest first: Ring[0] signs.
type Ring []Key

// IDs are the keys' ids, in order.
func (r Ring) IDs() []string {
	ids := make([]string, len(r))
	for i, k := range r {
		ids[i] = k.ID
	}
	return ids
}

// Retired are the times the keys were retired, in order, for
// sign.Log.Retired: a key's own time, or else that of the newest key
// before it that has one (rotated out before it, it was retired no later);
// zero for the keys before the first that has a time.
func (r Ring) Retired() []time.Time {
	t := make([]time.Time, len(r))
	for i, k := range r {
		t[i] = k.Retired
		if t[i].IsZero() && i > 0 {
			t[i] = t[i-1]
		}
	}
	return t
}

// Secrets are the keys' bytes, in order.
func (r Ring) Secrets() [][]byte {
	s := make([][]byte, len(r))
	for i, k := range r {
		s[i] = k.Secret
	}
	return s
}

// Signer is a Signer of scheme that signs with the first key and verifies
// with any of them (sign.Signer.AddKey).
func (r Ring) Signer(scheme sign.Scheme) (*sign.Signer, error) {
	if len(r) == 0 {
		return nil, errors.New("no key")
	}
	s, err := sign.NewSigner(r[0].Secret, scheme)
	for _, k := range r[1:] {
		if err == nil {
			err = s.AddKey(k.Secret)
		}
	}
	return s, err
}

// Error is a key that cannot be used: missing, empty, too short, a keyring
// line that cannot be read, two keys of one id. IO says that a file could
// not be read (the rest are the command line's, or the key's, problems).
type Error struct {
	Msg  string
	Hint string
	IO   bool
}

func (e *Error) Error() string { return e.Msg }

// Options configure Load.
type Options struct {
	// LookupEnv reads the environment; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Warn receives what is worth a warning (a file others may read, a key
	// left out as the same as another), with a hint; nil drops them.
	Warn func(msg, hint string)
}

// Load reads the keys of srcs, in order. Two keys of one id are an error;
// a key with the same bytes as one before it is left out, with a warning,
// so that each signature is matched by one key only.
func Load(srcs []Source, opts Options) (Ring, error) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Warn == nil {
		opts.Warn = func(string, string) {}
	}
	var ring Ring
	for _, src := range srcs {
		var ks []Key
		var err error
		switch src.Kind {
		case Env:
			ks, err = fromEnv(src.Name, opts.LookupEnv)
		case File:
			ks, err = fromFile(src.Name, opts.Warn)
		case Keyring:
			ks, err = fromKeyring(src.Name, opts.Warn)
		default:
			err = &Error{Msg: fmt.Sprintf("unknown kind of key source %d", src.Kind)}
		}
		if err != nil {
			return nil, err
		}
	next:
		for _, k := range ks {
			for _, o := range ring {
				switch {
				case o.ID == k.ID:
					return nil, &Error{Msg: fmt.Sprintf("two keys are named %s: %s and %s", k.ID, o.From, k.From),
						Hint: "each key is named once: a keyring line's id, a key file's name, a variable's name"}
				case bytes.Equal(o.Secret, k.Secret):
					opts.Warn(fmt.Sprintf("the key %s (%s) is the key %s (%s): it is left out", k.ID, k.From, o.ID, o.From), "")
					continue next
				}
			}
			ring = append(ring, k)
		}
	}
	if len(ring) > 0 && !ring[0].Retired.IsZero() {
		return nil, &Error{Msg: fmt.Sprintf("the key %s (%s) is the current key, the first given, and it is retired at %s", ring[0].ID, ring[0].From, ring[0].Retired.Format(time.RFC3339)),
			Hint: "put the key that replaced it first; a retired key neither signs nor seals"}
	}
	if len(ring) == 0 {
		return nil, &Error{Msg: "a key is needed: --key-file, --key-env or --keyring",
			Hint: "put the key in a file readable only by you (--key-file FILE) or in an environment variable (--key-env NAME)"}
	}
	return ring, nil
}

func fromEnv(name string, lookup func(string) (string, bool)) ([]Key, error) {
	v, ok := lookup(name)
	switch {
	case !ok:
		return nil, &Error{Msg: fmt.Sprintf("the environment variable %s is not set", name),
			Hint: "export it in the environment toonkit runs in, or use --key-file"}
	case v == "":
		return nil, &Error{Msg: fmt.Sprintf("the environment variable %s is empty", name)}
	}
	return []Key{{ID: name, Secret: []byte(v), From: "--key-env " + name}}, nil
}

// readPrivate reads a file of keys, with a warning when group or others
// may read it.
func readPrivate(what, name string, warn func(msg, hint string)) ([]byte, error) {
	st, err := os.Stat(name)
	if err == nil && st.IsDir() {
		return nil, &Error{IO: true, Msg: fmt.Sprintf("cannot read the %s %s: it is a directory", what, name)}
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, &Error{IO: true, Msg: fmt.Sprintf("cannot read the %s %s: %s", what, name, errText(err))}
	}
	if perm := st.Mode().Perm(); Exposed(perm) {
		warn(fmt.Sprintf("the %s %s is readable by group or others (mode %04o)", what, name, perm), "chmod 600 "+name)
	}
	return b, nil
}

// Exposed reports whether a file of mode perm may be read by others than
// its owner.
func Exposed(perm fs.FileMode) bool { return perm&0o044 != 0 }

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

func fromFile(name string, warn func(msg, hint string)) ([]Key, error) {
	b, err := readPrivate("key file", name, warn)
	if err != nil {
		return nil, err
	}
	if bytes.HasSuffix(b, []byte("\r\n")) {
		b = b[:len(b)-2]
	} else if bytes.HasSuffix(b, []byte("\n")) {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("the key file %s is empty", name)}
	}
	return []Key{{ID: name, Secret: b, From: "--key-file " + name}}, nil
}

func fromKeyring(name string, warn func(msg, hint string)) ([]Key, error) {
	b, err := readPrivate("keyring", name, warn)
	if err != nil {
		return nil, err
	}
	ks, err := ParseKeyring(b)
	var se *SyntaxError
	if errors.As(err, &se) {
		return nil, &Error{Msg: fmt.Sprintf("%s:%d: %s", name, se.Line, se.Msg), Hint: "a keyring holds lines of an id and a key: 2026-q4 9f86d081…"}
	}
	if len(ks) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("the keyring %s holds no key", name)}
	}
	for i := range ks {
		ks[i].From = fmt.Sprintf("%s:%s", name, ks[i].From)
	}
	return ks, nil
}

// SyntaxError is a keyring line that cannot be read.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseKeyring reads a keyring (see the package doc): its keys in the order
// of the lines, each Key's From its line number. The first line that cannot
// be read is a *SyntaxError; a keyring of no key is no error here.
func ParseKeyring(data []byte) (Ring, error) {
	var ring Ring
	seen := map[string]int{}
	line := 0
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		bad := func(format string, args ...any) (Ring, error) {
			return nil, &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
		}
		if !utf8.Valid(l) {
			return bad("not UTF-8")
		}
		s := strings.TrimLeft(string(l), " \t")
		if s == "" || s[0] == '#' {
			continue
		}
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0 {
			return bad("a control character")
		}
		fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) })
		var retired time.Time
		switch {
		case len(fields) == 0: // white space only (U+2000…): a blank line
			continue
		case len(fields) == 1:
			return bad("the id %s has no key after it", fields[0])
		case len(fields) == 3 && strings.HasPrefix(fields[2], "retired="):
			t, err := time.Parse(time.RFC3339, strings.TrimPrefix(fields[2], "retired="))
			if err != nil {
				return bad("%s is not an RFC 3339 time (retired=2026-10-01T00:00:00Z)", fields[2])
			}
			for _, k := range ring {
				if !k.Retired.IsZero() && t.After(k.Retired) {
					return bad("the key %s is retired at %s, after the newer key %s (line %s) at %s: keys are given newest first",
						fields[0], t.UTC().Format(time.RFC3339), k.ID, k.From, k.Retired.UTC().Format(time.RFC3339))
				}
			}
			retired = t
		case len(fields) > 2:
			return bad("more than an id and a key: a key holds no white space")
		}
		id, key := fields[0], fields[1]
		if strings.IndexFunc(id, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0 {
			return bad("the id holds a character that cannot be printed")
		}
		if first, ok := seen[id]; ok {
			return bad("the id %s is given twice (line %d too)", id, first)
		}
		seen[id] = line
		ring = append(ring, Key{ID: id, Secret: []byte(key), From: fmt.Sprint(line), Retired: retired})
	}
	return ring, nil
}

// CheckSigning is what signing with k gives: a warning for a key shorter
// than GoodLen bytes; an error for one shorter than MinLen, unless
// allowShort, then a warning.
func CheckSigning(k Key, allowShort bool) (warning string, err error) {
	n := len(k.Secret)
	long := fmt.Sprintf("%d bytes long", n)
	if n == 1 {
		long = "1 byte long"
	}
	switch {
	case n >= GoodLen:
		return "", nil
	case n < MinLen && !allowShort:
		return "", &Error{Msg: fmt.Sprintf("the key %s is %s, shorter than the %d bytes sign accepts (%d or more are advised)", k.ID, long, MinLen, GoodLen),
			Hint: "make a new key with toonkit keygen; to sign with this one all the same, --allow-short-key"}
	}
	return fmt.Sprintf("the key %s is %s: a key of %d bytes or more is safer (toonkit keygen makes one)", k.ID, long, GoodLen), nil
}
