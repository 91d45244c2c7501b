package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// apiError is the one error shape of the API: a status and a hint that says
// which parameter, which value and what was expected.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &apiError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func restricted(format string, args ...any) error {
	return &apiError{http.StatusForbidden, fmt.Sprintf(format, args...)}
}

// errorHandler writes every error as {"error": "…"}: the API's own errors
// with their status, Fiber's routing errors (404, 405) with theirs, and
// anything else as a 500 whose cause is logged, not shown.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	status, msg := http.StatusInternalServerError, "internal error; it has been logged"
	var ae *apiError
	var fe *fiber.Error
	switch {
	case errors.As(err, &ae):
		status, msg = ae.status, ae.msg
	case errors.As(err, &fe):
		status = fe.Code
		switch fe.Code {
		case http.StatusNotFound:
			msg = fmt.Sprintf("no resource at %s; see %s/v1/openapi.json for the paths", c.Path(), s.baseURL(c))
		case http.StatusMethodNotAllowed:
			msg = fmt.Sprintf("method %s is not allowed; use GET, HEAD or OPTIONS", c.Method())
		default:
			msg = fe.Message
		}
	default:
		s.log.Error("request failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	if status == http.StatusMethodNotAllowed {
		c.Set(fiber.HeaderAllow, "GET, HEAD, OPTIONS")
	}
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Status(status)
	if c.Method() == fiber.MethodHead {
		return nil
	}
	return c.Send(errorBody(msg))
}

func errorBody(msg string) []byte {
	b, _ := jsonMarshal(map[string]string{"error": msg})
	return b
}
