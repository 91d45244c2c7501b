package httpapi

import (
	"bytes"
	"net"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Behind a proxy, the client's address and the host and scheme it asked
// for come in headers (X-Forwarded-For, -Host, -Proto) that any client can
// also write. They are believed only from the proxies the operator names
// (Options.TrustedProxies); from anyone else the connection's own address
// and the request's Host are used, so that no client can poison links a
// shared cache hands to everyone, or dodge its limits.

// trusted reports whether the connection comes from a trusted proxy.
func (s *Server) trusted(c *fiber.Ctx) bool {
	if len(s.opts.TrustedProxies) == 0 {
		return false
	}
	addr, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	return ok && s.trustedAddr(addr.Unmap())
}

func (s *Server) trustedAddr(a netip.Addr) bool {
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the caller's address: from a trusted proxy, the rightmost
// address of the proxy header that no trusted proxy added (everything to
// its left was written by the client); else the connection's.
func (s *Server) clientIP(c *fiber.Ctx) string {
	peer := c.Context().RemoteIP().String()
	if !s.trusted(c) {
		return peer
	}
	var hops []string
	c.Request().Header.VisitAll(func(k, v []byte) {
		if bytes.EqualFold(k, []byte(s.opts.TrustedProxyHeader)) {
			hops = append(hops, strings.Split(string(v), ",")...)
		}
	})
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer // a hop that is no address: believe none further left
		}
		if a = a.Unmap(); !s.trustedAddr(a) {
			return a.String()
		}
	}
	return peer
}

// baseURL is the start of every link: the configured public URL, else the
// scheme and host the request was made for (the forwarded ones from a
// trusted proxy, when they are well formed).
func (s *Server) baseURL(c *fiber.Ctx) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	scheme, host := "http", string(c.Request().URI().Host())
	if c.Context().IsTLS() {
		scheme = "https"
	}
	if s.trusted(c) {
		if p := firstValue(c, fiber.HeaderXForwardedProto); p == "http" || p == "https" {
			scheme = p
		}
		if h := firstValue(c, fiber.HeaderXForwardedHost); validHost(h) {
			host = h
		}
	}
	return scheme + "://" + host
}

func firstValue(c *fiber.Ctx, header string) string {
	v, _, _ := strings.Cut(string(c.Request().Header.Peek(header)), ",")
	return strings.TrimSpace(v)
}

// validHost reports whether h is a host name or address, with an optional
// port: what a link may carry.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		_, err := netip.ParseAddr(host[1 : len(host)-1])
		return err == nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
