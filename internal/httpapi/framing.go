package httpapi

import (
	"bytes"
	"errors"
	"net"
	"net/http"

	"github.com/valyala/fasthttp"
)

// fasthttp is lenient where HTTP/1.1 (RFC 9112) is strict, and a proxy in
// front that reads a request otherwise than the replica does lets a client
// hide a second request in the first's body (request smuggling): it takes
// Transfer-Encoding over a Content-Length beside it, the last of several
// Content-Lengths, any coding as chunked, and a request without Host. The
// replica refuses those before anything else reads the request; where the
// request's end is in doubt (Content-Length and Transfer-Encoding
// disagree), it also closes the connection, so that no byte after it is
// read as a request (§6.3).

// framingProblem is what is wrong with how a request says where it ends
// or which host it is for: "" if nothing; fatal if the request's end is in
// doubt and the connection must close after the answer.
type framingProblem struct {
	msg   string
	fatal bool
}

// headerCounts are the framing headers of a request as sent.
type headerCounts struct {
	contentLengths, codings, hosts int
	contentLength                  []byte // the first
	lengthsDiffer, notChunked      bool
	emptyHost                      bool
}

// framing checks the framing headers of a parsed request, from the raw
// header lines fasthttp keeps (its parsed view has dropped the duplicates).
// It reads them in place: every request passes through it.
func framing(h *fasthttp.RequestHeader) framingProblem {
	c := countHeaders(h.RawHeaders())
	switch {
	case c.codings > 0 && c.contentLengths > 0:
		return framingProblem{"the request has both Content-Length and Transfer-Encoding: its end is ambiguous (RFC 9112 §6.3)", true}
	case c.lengthsDiffer:
		return framingProblem{"the request has Content-Length headers that differ: its end is ambiguous (RFC 9112 §6.3)", true}
	case c.codings > 1 || c.notChunked:
		return framingProblem{"Transfer-Encoding other than a single chunked is not supported (RFC 9112 §6.3)", true}
	case c.codings > 0 && !h.IsHTTP11():
		return framingProblem{"Transfer-Encoding in an HTTP/1.0 request: its end is ambiguous (RFC 9112 §6.1)", true}
	case c.hosts > 1:
		return framingProblem{"the request has more than one Host header (RFC 9112 §3.2)", false}
	case c.hosts == 0 && h.IsHTTP11():
		return framingProblem{"an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)", false}
	case c.emptyHost:
		return framingProblem{"the Host header is empty; it names the host the request is for", false}
	}
	return framingProblem{}
}

// countHeaders counts the framing headers in raw header lines. It looks
// at a line's value only when its name has the length of one of theirs.
func countHeaders(raw []byte) headerCounts {
	var c headerCounts
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		colon := bytes.IndexByte(line, ':')
		switch {
		case colon == len("Host") && bytes.EqualFold(line[:colon], []byte("Host")):
			c.hosts++
			c.emptyHost = c.emptyHost || len(bytes.TrimSpace(line[colon+1:])) == 0
		case colon == len("Content-Length") && bytes.EqualFold(line[:colon], []byte("Content-Length")):
			value := bytes.TrimSpace(line[colon+1:])
			c.contentLengths++
			if c.contentLengths == 1 {
				c.contentLength = value
			} else if !bytes.Equal(value, c.contentLength) {
				c.lengthsDiffer = true
			}
		case colon == len("Transfer-Encoding") && bytes.EqualFold(line[:colon], []byte("Transfer-Encoding")):
			c.codings++
			c.notChunked = c.notChunked || !bytes.EqualFold(bytes.TrimSpace(line[colon+1:]), []byte("chunked"))
		}
	}
	return c
}

// parseError answers a request fasthttp could not parse, in place of its
// own answer, which repeats the request's head, a token and cookies
// included: the status and a message that says what kind of fault it was,
// never what the request held. fasthttp closes the connection after it.
func (s *Server) parseError(ctx *fasthttp.RequestCtx, err error) {
	status, msg := http.StatusBadRequest, "malformed HTTP request: its request line, a header or its body could not be parsed (RFC 9112)"
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.As(err, &small):
		status, msg = http.StatusRequestHeaderFieldsTooLarge, "the request's headers are over 16 KiB"
	case errors.As(err, &netErr) && netErr.Timeout():
		status, msg = http.StatusRequestTimeout, "the request did not arrive in time"
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, msg = http.StatusRequestEntityTooLarge, "the request's body is too large"
	}
	writeError(ctx, status, msg)
}
