package httpapi

import (
	"bytes"
	"net/netip"

	"github.com/gofiber/fiber/v2"
)

// Behind a proxy, the client's address and the host and scheme it asked
// for come in headers (X-Forwarded-For, -Host, -Proto) that any client can
// also write. They are believed only from the proxies the operator names
// (Options.TrustedProxies); from anyone else the connection's own address
// and the request's Host are used, so that no client can poison links a
// shared cache hands to everyone, or dodge its limits.

// peerAddr is the address of the connection's other end.
func peerAddr(c *fiber.Ctx) netip.Addr {
	a, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return a.Unmap()
}

// trusted reports whether the connection comes from a trusted proxy.
func (s *Server) trusted(c *fiber.Ctx) bool {
	return len(s.opts.TrustedProxies) > 0 && s.trustedAddr(peerAddr(c))
}

func (s *Server) trustedAddr(a netip.Addr) bool {
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the caller's address: from a trusted proxy, the rightmost
// address of the proxy header that no trusted proxy added (everything to
// its left was written by the client); else the connection's. An address,
// not its text, read from the header in place, so that counting an
// anonymous request allocates nothing.
func (s *Server) clientAddr(c *fiber.Ctx) netip.Addr {
	peer := peerAddr(c)
	if len(s.opts.TrustedProxies) == 0 || !s.trustedAddr(peer) {
		return peer
	}
	// Each proxy appends to the header, or adds a line of it: the hops
	// are its lines' comma-separated values, read from the last. A few
	// lines stay on the stack.
	var held [4][]byte
	lines := held[:0]
	c.Request().Header.VisitAll(func(k, v []byte) {
		if bytes.EqualFold(k, []byte(s.opts.TrustedProxyHeader)) {
			lines = append(lines, v)
		}
	})
	for i := len(lines) - 1; i >= 0; i-- {
		for rest, more := lines[i], true; more; {
			j := bytes.LastIndexByte(rest, ',')
			a, ok := parseAddr(bytes.TrimSpace(rest[j+1:]))
			if !ok {
				return peer // a hop that is no address: believe none further left
			}
			if a = a.Unmap(); !s.trustedAddr(a) {
				return a
			}
			rest, more = rest[:max(j, 0)], j >= 0
		}
	}
	return peer
}

// parseAddr reads b as netip.ParseAddr does. A dotted quad, the form
// proxies write, is read in place; anything else is ParseAddr's to judge,
// at the cost of a string.
func parseAddr(b []byte) (netip.Addr, bool) {
	if a, ok := parseIPv4(b); ok {
		return a, true
	}
	a, err := netip.ParseAddr(string(b))
	return a, err == nil
}

// parseIPv4 reads a dotted quad of decimal fields 0 to 255 without
// leading zeros; it declines anything else, leaving the verdict to
// netip.ParseAddr (FuzzParseAddr holds the two to the same answers).
func parseIPv4(b []byte) (netip.Addr, bool) {
	var ip [4]byte
	field, digits, v := 0, 0, 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '.' {
			if digits == 0 || field == len(ip) {
				return netip.Addr{}, false
			}
			ip[field], field, digits, v = byte(v), field+1, 0, 0
			continue
		}
		d := b[i]
		if d < '0' || d > '9' || (digits == 1 && v == 0) {
			return netip.Addr{}, false
		}
		v, digits = v*10+int(d-'0'), digits+1
		if v > 255 {
			return netip.Addr{}, false
		}
	}
	if field != len(ip) {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4(ip), true
}

// baseURL is the start of every link: the configured public URL, else the
// scheme and host the request was made for (the forwarded ones from a
// trusted proxy, when they are well formed).
func (s *Server) baseURL(c *fiber.Ctx) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	return string(s.appendBaseURL(nil, c))
}

// links are the request's links of kind, made with one allocation: the
// base URL is built in a buffer on the stack.
func (s *Server) links(c *fiber.Ctx, kind linkKind) links {
	var buf [256]byte
	return newLinks(s.appendBaseURL(buf[:0], c), kind)
}

// appendBaseURL appends baseURL to b, so that a cache key is built without
// a string of its own.
func (s *Server) appendBaseURL(b []byte, c *fiber.Ctx) []byte {
	if s.opts.PublicURL != "" {
		return append(b, s.opts.PublicURL...)
	}
	scheme, host := "http", c.Request().URI().Host()
	if c.Context().IsTLS() {
		scheme = "https"
	}
	if s.trusted(c) {
		// As observe's one pass over the request's headers found them.
		r := requestOf(c)
		if p := firstValue(r.forwardedProto); string(p) == "http" || string(p) == "https" {
			scheme = string(p)
		}
		if h := firstValue(r.forwardedHost); validHost(h) {
			host = h
		}
	}
	b = append(b, scheme...)
	b = append(b, "://"...)
	if len(host) == 0 {
		// An HTTP/1.0 request may come without Host (HTTP/1.1 ones are
		// refused): the address the client reached is the best guess.
		return append(b, c.Context().LocalAddr().String()...)
	}
	return append(b, host...)
}

// firstValue is the first of a header's comma-separated values.
func firstValue(v []byte) []byte {
	v, _, _ = bytes.Cut(v, []byte(","))
	return bytes.TrimSpace(v)
}

// validHost reports whether h is a host name, an IPv4 address or a
// bracketed IPv6 address, with an optional port: what a link may carry.
// It reads h in place: every request's Host passes through it.
func validHost[T string | []byte](h T) bool {
	if len(h) == 0 || len(h) > 255 {
		return false
	}
	if h[0] == '[' {
		return validBracketed(h)
	}
	host := h
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == ':' {
			if !validPort(h[i:]) {
				return false
			}
			host = h[:i]
			break
		}
	}
	return validName(host)
}

// validBracketed reports whether h is an IPv6 address in brackets, with an
// optional port.
func validBracketed[T string | []byte](h T) bool {
	end := 1
	for end < len(h) && h[end] != ']' {
		end++
	}
	if end == len(h) || !validPort(h[end+1:]) {
		return false
	}
	_, err := netip.ParseAddr(string(h[1:end]))
	return err == nil
}

// validName reports whether host is labels of letters, digits, '-' and
// '_', 1 to 63 long, separated by dots; an IPv4 address is such a name
// too.
func validName[T string | []byte](host T) bool {
	label := 0
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_':
			if label++; label > 63 {
				return false
			}
		default:
			return false
		}
	}
	return label > 0
}

// validPort reports whether p is empty or a colon and digits.
func validPort[T string | []byte](p T) bool {
	if len(p) == 0 {
		return true
	}
	if p[0] != ':' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}
