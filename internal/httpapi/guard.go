package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// maxURL bounds a request's target: longer is 414, in the JSON shape like
// every other error. (The read buffer is larger, so that fasthttp itself
// never answers a long URL with 431.)
const (
	maxURL     = 4096
	readBuffer = 16 << 10
)

// guard refuses, before anything else looks at a request, what is not an
// HTTP request the API can answer: an over-long URL and a malformed Host.
func guard(c *fiber.Ctx) error {
	if len(c.Request().Header.RequestURI()) > maxURL {
		return &apiError{http.StatusRequestURITooLong, "the URL is " + strconv.Itoa(len(c.Request().Header.RequestURI())) +
			" bytes long; at most " + strconv.Itoa(maxURL)}
	}
	if h := c.Request().Header.Host(); len(h) > 0 && !validHost(h) {
		return badRequest("Host %q is not a host name or address with an optional port", truncateText(string(h), 80))
	}
	return nil
}

// knownMethods are the methods the router knows; any other never reaches
// it (fasthttp would answer it in plain text), and gets the JSON 405.
var knownMethods = map[string]bool{fiber.MethodGet: true, fiber.MethodHead: true, fiber.MethodPost: true, fiber.MethodPut: true,
	fiber.MethodDelete: true, fiber.MethodConnect: true, fiber.MethodOptions: true, fiber.MethodTrace: true, fiber.MethodPatch: true}

// methods wraps the server's handler: every response keeps its header
// names as set (the spec's spelling, not fasthttp's normalized one), a
// request whose framing or Host is faulty is refused (framing), and a
// request with a method the router does not know is answered here, like
// the router's own 405.
func (s *Server) methods(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.DisableNormalizing()
		if p := framing(&ctx.Request.Header); p.msg != "" {
			if p.fatal {
				ctx.SetConnectionClose()
			}
			writeError(ctx, http.StatusBadRequest, p.msg)
			return
		}
		if knownMethods[string(ctx.Method())] {
			next(ctx)
			return
		}
		writeError(ctx, http.StatusMethodNotAllowed, "method "+truncateText(string(ctx.Method()), 20)+" is not allowed; use GET, HEAD or OPTIONS")
	}
}

// requestPath is the path of a request as sent, also in absolute form
// (GET http://host/v1/… from a client behind a proxy), whatever the Host.
func requestPath(uri []byte) string {
	p := string(uri)
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j:]
		} else {
			p = "/"
		}
	}
	p, _, _ = strings.Cut(p, "?")
	return p
}

// apiVersionOf is the API a path belongs to, "" outside both.
func apiVersionOf(path string) apiVersion {
	for _, v := range []apiVersion{v1, v4, alpha} {
		if p := "/" + string(v); path == p || strings.HasPrefix(path, p+"/") {
			return v
		}
	}
	return ""
}

// whenReady refuses with 503 until the replica has replayed the stream, at
// start or after a restore replaced it: a load balancer that still routes
// to such a replica gets a clear answer, not an unknown token, a missing
// resource or the replaced stream's data.
func (s *Server) whenReady(c *fiber.Ctx) error {
	if !s.model.Ready() {
		c.Set(fiber.HeaderRetryAfter, "1")
		return &apiError{http.StatusServiceUnavailable, "this replica is starting, or replaying the stream after a restore; retry in a moment"}
	}
	return nil
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
