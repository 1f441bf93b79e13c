package bridge

import (
	"strconv"

	"github.com/google/uuid"
)

// namespace is the UUID v5 namespace of the ids toonkit derives.
var namespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://toonkit.dev/bridge"))

// id makes an id for a message: random (UUID v4), or with Deterministic
// a UUID v5 of its purpose, the message's place in the stream and its
// content, so that the same input gives the same ids.
func (c *Converter) id(purpose string, x *ctx) string {
	if !c.opts.Deterministic {
		return uuid.NewString()
	}
	if c.spec != nil {
		c.spec.miss = true // the message's place in the stream: the ordered pass's
		return ""
	}
	name := append([]byte(purpose+"/"+strconv.Itoa(c.index)+"/"), x.msg[c.fs].bytes()...)
	return uuid.NewSHA1(namespace, name).String()
}

// nameID is the UUID v5 that stands for an id that is not a UUID.
func (c *Converter) nameID(purpose, s string) string {
	return uuid.NewSHA1(namespace, []byte(purpose+"/"+s)).String()
}

// runID is the stream's run: --run-id, or one id made for it.
func (c *Converter) runID(x *ctx) string {
	if c.opts.RunID != "" {
		return c.opts.RunID
	}
	if c.spec != nil {
		// A worker: the run once the ordered pass made it.
		if run := c.shared.Load(); run != nil {
			return *run
		}
		c.spec.miss = true
		return ""
	}
	if c.run == "" {
		c.run = c.id("run", x)
		run := c.run
		c.shared.Store(&run)
	}
	return c.run
}
