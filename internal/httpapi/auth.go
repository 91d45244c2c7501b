package httpapi

import (
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
)

// caller is who makes a request, stored in the request's locals.
type caller struct {
	name string
	tier model.Tier
	snap readmodel.Snapshot
	ver  apiVersion
}

const callerKey = "caller"

func callerOf(c *fiber.Ctx) *caller { return c.Locals(callerKey).(*caller) }

// exposed lets browser clients read the counter headers.
const exposed = "X-API-Version, X-Response-Control, X-Authenticated-Client, X-RequestCounter-Reset, X-RequestsAvailable, X-Requests-Available"

// authenticate recognises the caller from X-Auth-Token (or, on the event
// stream, which browsers open without headers, the token query parameter:
// the access log shows paths only), counts the request
// against the caller's limits and sets the headers every response carries.
// An empty or missing token is anonymous; a token that is malformed or not
// registered is refused, never taken as anonymous.
func (s *Server) authenticate(ver apiVersion) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set("X-API-Version", string(ver))
		c.Set("Access-Control-Allow-Origin", "*")
		c.Set("Access-Control-Expose-Headers", exposed)
		snap := s.model.Snapshot()
		who := &caller{name: "anonymous", tier: model.TierAnonymous, snap: snap, ver: ver}
		token := strings.TrimSpace(string(c.Request().Header.Peek("X-Auth-Token")))
		if token == "" && c.Path() == eventsPath {
			token = strings.TrimSpace(string(c.Context().QueryArgs().Peek("token")))
		}
		var cl model.Client
		known := false
		if token != "" && model.ValidToken(token) {
			cl, known = snap.Client(model.HashToken(token))
		}
		var v verdict
		if known {
			who.name, who.tier = cl.Name, cl.Tier
			rules := []limit{{max: cl.PerMinute, period: time.Minute}}
			if cl.PerDay > 0 {
				rules = append(rules, limit{max: cl.PerDay, period: 24 * time.Hour})
			}
			v = s.limits.take("client|"+cl.Name, rules...)
		} else {
			// Anonymous requests, and requests with a token nobody has
			// (which are refused below), count against the caller's IP.
			v = s.limits.take("ip|"+s.clientIP(c), limit{max: s.opts.AnonymousPerDay, period: 24 * time.Hour})
		}
		c.Set("X-Authenticated-Client", who.name)
		c.Set("X-RequestCounter-Reset", strconv.Itoa(v.resetIn))
		c.Set("X-RequestsAvailable", strconv.Itoa(v.remaining))
		c.Set("X-Requests-Available", strconv.Itoa(v.remaining))
		if token != "" && !known {
			return badRequest("invalid API token: no active client has this X-Auth-Token (tokens are letters a-z and digits 1-9); send none to be anonymous")
		}
		if !v.allowed {
			kind := "registered"
			if who.tier == model.TierAnonymous {
				kind = "anonymous"
			}
			s.metrics.rateLimit.WithLabelValues(kind).Inc()
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(v.resetIn))
			return &apiError{fiber.StatusTooManyRequests, "You reached your request limit. Wait " + strconv.Itoa(v.resetIn) + " seconds."}
		}
		c.Locals(callerKey, who)
		return c.Next()
	}
}

// observe records every request's route, status and latency.
func (s *Server) observe(c *fiber.Ctx) error {
	start := time.Now()
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()
	err := c.Next()
	if err != nil {
		if herr := s.app.ErrorHandler(c, err); herr != nil {
			return herr
		}
	}
	route := c.Route().Path
	// A request no route took ends on the middleware of "/", which is
	// also the index's path: only a request for "/" itself is the index's.
	if (route == "/" && c.Path() != "/") || route == "" {
		route = "unmatched"
	}
	took := time.Since(start)
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(c.Response().StatusCode())).Inc()
	s.metrics.latency.WithLabelValues(route).Observe(took.Seconds())
	if s.opts.AccessLog {
		// The path only: a browser's token travels in the query string.
		s.log.Info("request", "method", c.Method(), "path", requestPath(c.Request().Header.RequestURI()), "status", c.Response().StatusCode(),
			"ms", float64(took.Microseconds())/1000, "client", s.clientIP(c), "caller", string(c.Response().Header.Peek("X-Authenticated-Client")))
	}
	return nil
}
