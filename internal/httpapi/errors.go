package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/footdata/footballd/pkg/model"
	"github.com/gofiber/fiber/v2"
)

// The API's errors are the domain's (model.Error: a code and a hint that
// says which parameter, which value and what was expected), and a few that
// only HTTP has (apiError: 405, 414, 429, 503). statusOf maps both to a
// status, in one place.

type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &model.Error{Code: model.Invalid, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &model.Error{Code: model.NotFound, Message: fmt.Sprintf(format, args...)}
}

func restricted(format string, args ...any) error {
	return &model.Error{Code: model.Restricted, Message: fmt.Sprintf(format, args...)}
}

// statusOfCode is the status of each domain error code.
var statusOfCode = map[model.Code]int{
	model.Invalid:    http.StatusBadRequest,
	model.NotFound:   http.StatusNotFound,
	model.Conflict:   http.StatusConflict,
	model.Restricted: http.StatusForbidden,
	model.Internal:   http.StatusInternalServerError,
}

// panicked is a panic recovered on the request path, with the stack of
// the goroutine where it happened.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// recovered runs next and returns a panic in it as a *panicked error.
// fasthttp recovers nothing: a handler's panic would end the process, and
// with it every request the replica serves, and the same URL would then
// end the next replica a load balancer sends it to.
func recovered(next func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicked{value: v, stack: debug.Stack()}
		}
	}()
	return next()
}

// reportPanic logs a recovered panic once, with its stack, and counts it.
func (s *Server) reportPanic(method, path string, p *panicked) {
	s.metrics.panics.Inc()
	s.log.Error("request panicked", "method", method, "path", path, "panic", fmt.Sprint(p.value), "stack", string(p.stack))
}

// streamWriter guards a body stream writer, which fasthttp runs after the
// handler on a goroutine of its own, where a panic would end the process.
// The response's head has gone out by then: the stream just ends, and the
// panic is reported as a handler's is.
func (s *Server) streamWriter(c *fiber.Ctx, sw func(w *bufio.Writer)) func(w *bufio.Writer) {
	// The request's views do not outlive the handler.
	method, path := strings.Clone(c.Method()), strings.Clone(c.Path())
	return func(w *bufio.Writer) {
		defer func() {
			if v := recover(); v != nil {
				s.reportPanic(method, path, &panicked{value: v, stack: debug.Stack()})
			}
		}()
		sw(w)
	}
}

// errorHandler writes every error as {"error": "…"} ({"message": "…",
// "errorCode": status} under /v4, as v4 clients read it): the API's own errors
// with their status, Fiber's routing errors (404, 405) with theirs, and
// anything else, a handler's panic too, as a 500 whose cause is logged, not
// shown.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	status, msg := http.StatusInternalServerError, "internal error; it has been logged"
	var ae *apiError
	var me *model.Error
	var fe *fiber.Error
	var pe *panicked
	switch {
	case errors.As(err, &pe):
		s.reportPanic(c.Method(), c.Path(), pe)
		// What the handler set before it panicked (a body stream, its
		// length, ETag, Content-Encoding) is not the error's.
		c.Context().Response.Reset()
		c.Context().Response.Header.DisableNormalizing()
	case errors.As(err, &ae):
		status, msg = ae.status, ae.msg
	case errors.As(err, &me) && me.Code != model.Internal:
		if st, ok := statusOfCode[me.Code]; ok {
			status, msg = st, me.Error()
		} else {
			// A code without a status would go out as status 0, which
			// fasthttp sends as 200.
			s.log.Error("request failed: error code without a status", "code", string(me.Code), "path", c.Path(), "err", err)
		}
	case errors.As(err, &fe):
		status = fe.Code
		switch fe.Code {
		case http.StatusNotFound:
			msg = s.notFound(requestPath(c.Request().Header.RequestURI()), s.baseURL(c))
		case http.StatusMethodNotAllowed:
			msg = fmt.Sprintf("method %s is not allowed; use GET, HEAD or OPTIONS", c.Method())
		default:
			msg = fe.Message
		}
	default:
		s.log.Error("request failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	writeError(c.Context(), status, msg)
	return nil
}

// writeError writes an error response of status with msg, in the shape of
// the request's API version: the one writer of error responses (the
// errorHandler's, and the 405 of methods the router does not know).
func writeError(ctx *fasthttp.RequestCtx, status int, msg string) {
	h := &ctx.Response.Header
	if status == http.StatusMethodNotAllowed {
		h.Set(fiber.HeaderAllow, "GET, HEAD, OPTIONS")
	}
	v := apiVersionOf(requestPath(ctx.Request.Header.RequestURI()))
	if v != "" {
		h.Set("X-API-Version", string(v))
	}
	h.SetContentType(contentTypeJSON)
	h.Set(fiber.HeaderCacheControl, "no-store")
	ctx.SetStatusCode(status)
	if ctx.IsHead() {
		ctx.Response.ResetBody()
		return
	}
	ctx.SetBody(errorBody(v, status, msg))
}

// errorBody is the body of an error of the API version v.
func errorBody(v apiVersion, status int, msg string) []byte {
	if v == v4 {
		b, _ := jsonMarshal(struct {
			Message   string `json:"message"`
			ErrorCode int    `json:"errorCode"`
		}{msg, status})
		return b
	}
	b, _ := jsonMarshal(map[string]string{"error": msg})
	return b
}

// notFound is the message of a 404 at path: what the version the path asks
// for serves, so that a v4 client is not sent to v1's document, and where
// the reference is.
func (s *Server) notFound(path, base string) string {
	switch v := apiVersionOf(path); v {
	case "":
		return fmt.Sprintf("no resource at %s; the v1 API is served under /v1 and the v4 API under /v4; see %s/docs for the reference", path, base)
	case v1:
		return fmt.Sprintf("no resource at %s; the v1 API serves %s; see %s/v1/openapi.json for the paths", path, s.served[v], base)
	default:
		return fmt.Sprintf("no resource at %s; the %s API serves %s; see %s/docs for the reference", path, v, s.served[v], base)
	}
}

// servedResources lists, for each API version, the resources its routes
// serve ("/v4/areas, /v4/competitions, … and /v4/teams"), read off the
// routes once so that the 404 hints follow routes.go.
func servedResources(routes []fiber.Route) map[apiVersion]string {
	byVersion := map[apiVersion][]string{}
	for _, r := range routes {
		// A wildcard route is alpha's refusal of v1's resources (403),
		// which alpha does not serve.
		v := apiVersionOf(r.Path)
		if v == "" || strings.Contains(r.Path, "*") {
			continue
		}
		rest := strings.TrimPrefix(r.Path, "/"+string(v)+"/")
		if rest == r.Path || rest == "" {
			continue
		}
		first, _, _ := strings.Cut(rest, "/")
		res := "/" + string(v) + "/" + first
		if !slices.Contains(byVersion[v], res) {
			byVersion[v] = append(byVersion[v], res)
		}
	}
	out := make(map[apiVersion]string, len(byVersion))
	for v, list := range byVersion {
		slices.Sort(list)
		last := len(list) - 1
		if last == 0 {
			out[v] = list[0]
			continue
		}
		out[v] = strings.Join(list[:last], ", ") + " and " + list[last]
	}
	return out
}
