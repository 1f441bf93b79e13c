package capture

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ConnID names one TCP connection by its two ends, as records name it:
// "10.0.0.1:51234>10.0.0.2:7000", "[fd00::1]:51234>[fd00::2]:7000". Either
// end may come first: a ConnID matches the connection both ways round.
// The zero ConnID names no connection.
type ConnID struct {
	A, B netip.AddrPort
}

// ParseConn parses "ADDR:PORT>ADDR:PORT" (IPv6 addresses in brackets).
func ParseConn(s string) (ConnID, error) {
	a, b, ok := strings.Cut(s, ">")
	if !ok {
		return ConnID{}, fmt.Errorf("connection %q: expected two ends joined by '>', as in 10.0.0.1:51234>10.0.0.2:7000 ([fd00::1]:51234>[fd00::2]:7000 for IPv6)", s)
	}
	var id ConnID
	for i, part := range []string{a, b} {
		ap, err := netip.ParseAddrPort(strings.TrimSpace(part))
		if err != nil {
			return ConnID{}, fmt.Errorf("connection %q: end %q is not ADDR:PORT (IPv6 in brackets: [fd00::1]:7000)", s, part)
		}
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		if i == 0 {
			id.A = ap
		} else {
			id.B = ap
		}
	}
	return id, nil
}

// IsValid reports whether id names a connection.
func (id ConnID) IsValid() bool { return id.A.IsValid() && id.B.IsValid() }

func (id ConnID) String() string { return id.A.String() + ">" + id.B.String() }

// Matches reports whether a segment from src to dst belongs to the
// connection, in either direction.
func (id ConnID) Matches(src, dst netip.AddrPort) bool {
	return (src == id.A && dst == id.B) || (src == id.B && dst == id.A)
}

// NoConnError is Options.Conn naming a connection the capture does not
// hold, or Options.Ports ports that no connection of it is on (or both,
// selecting none). Conns lists (up to maxListed of) the connections it
// holds, named as records name them; More counts the others.
type NoConnError struct {
	Want  ConnID // Options.Conn, or not valid
	Ports []int  // Options.Ports
	Conns []string
	More  int
}

const maxListed = 20

func (e *NoConnError) Error() string {
	what := "connection"
	if e.Want.IsValid() {
		what += " " + e.Want.String()
	}
	if len(e.Ports) > 0 {
		ports := make([]string, len(e.Ports))
		for i, p := range e.Ports {
			ports[i] = strconv.Itoa(p)
		}
		what += fmt.Sprintf(" on %s %s", plural(int64(len(ports)), "port", "ports"), strings.Join(ports, " or "))
	}
	if len(e.Conns) == 0 {
		return fmt.Sprintf("no %s in the capture: it holds no TCP connection", what)
	}
	n := len(e.Conns) + e.More
	list := strings.Join(e.Conns, ", ")
	if e.More > 0 {
		list += fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("no %s in the capture; it holds %d: %s", what, n, list)
}

// connSeen lists the connections of a capture when Options.Conn selects
// none of them, for the NoConnError.
type connSeen struct {
	seen  map[ConnID]bool
	names []string
	more  int
}

// add notes the connection of a segment from src to dst, named as the
// factory names it (the SYN's sender, or the higher port, is the client).
func (c *connSeen) add(src, dst netip.AddrPort, syn, ack bool) {
	key := ConnID{src, dst}
	if src.Compare(dst) > 0 {
		key = ConnID{dst, src}
	}
	if c.seen[key] {
		return
	}
	if c.seen == nil {
		c.seen = map[ConnID]bool{}
	}
	if len(c.names) == maxListed {
		// Past the list, remember keys only up to a bound: the count is a
		// lower bound past it.
		if len(c.seen) < 64<<10 {
			c.seen[key] = true
			c.more++
		}
		return
	}
	c.seen[key] = true
	client := src.Port() > dst.Port()
	if syn {
		client = !ack
	}
	if client {
		c.names = append(c.names, src.String()+">"+dst.String())
	} else {
		c.names = append(c.names, dst.String()+">"+src.String())
	}
}
