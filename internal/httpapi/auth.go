package httpapi

import (
	"bytes"
	"strconv"
	"sync"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// request is what the API learns about a request on its way: the request
// headers it reads (observe), who makes it (authenticate) and the buffer
// its cache key is built in. It is stored in the request's locals, looked
// up once by each stage (observe, authenticate, the route's handler) and
// handed on from there, and reused from request to request (observe takes
// one and gives it back), so that a cached response allocates nothing:
// nothing uses it after the request's handlers return (the event stream
// copies what it needs before).
type request struct {
	// Who makes the request.
	name string
	tier model.Tier
	snap readmodel.Snapshot
	ver  apiVersion

	key []byte

	// The request headers the API reads, found in one pass over them
	// (fasthttp's Peek normalizes the name it is given on every call, four
	// times the cost): views of the request's own buffer, nil when absent.
	// The pass also has fasthttp parse a Cookie header, which API clients
	// do not send (browsers on /docs do).
	token, responseControl, ifNoneMatch, acceptEncoding []byte
	// What a proxy says of the scheme and host the client asked for,
	// believed only from a trusted proxy (appendBaseURL): every cache key
	// reads them, and two Peeks were a sixth of a cached table's handler.
	forwardedProto, forwardedHost []byte
	// unfoldable is set by v4's match lists, whose answer varies with
	// X-Unfold-Goals.
	unfoldable bool
}

// localKey names a request's local value. Pointers, so that fasthttp's
// search of the request's values compares words, not strings.
type localKey struct{ name string }

var requestKey = &localKey{"request"}

var requests = sync.Pool{New: func() any { return &request{key: make([]byte, 0, 256)} }}

func requestOf(c *fiber.Ctx) *request { return c.Locals(requestKey).(*request) }

// readHeaders finds the request headers the API reads, the first of each
// name as Peek would (fasthttp has normalized the names as it parsed them),
// into r, which is zero: new from the pool, or reset by observe when its
// last request ended.
func (r *request) readHeaders(h *fasthttp.RequestHeader) {
	var seen [6]bool
	first := func(i int, dst *[]byte, v []byte) {
		if !seen[i] {
			seen[i], *dst = true, v
		}
	}
	h.VisitAll(func(k, v []byte) {
		switch string(k) {
		case "X-Auth-Token":
			first(0, &r.token, v)
		case hResponseControlName:
			first(1, &r.responseControl, v)
		case fiber.HeaderIfNoneMatch:
			first(2, &r.ifNoneMatch, v)
		case fiber.HeaderAcceptEncoding:
			first(3, &r.acceptEncoding, v)
		case fiber.HeaderXForwardedProto:
			first(4, &r.forwardedProto, v)
		case fiber.HeaderXForwardedHost:
			first(5, &r.forwardedHost, v)
		}
	})
}

const hResponseControlName = "X-Response-Control"

// exposed lets browser clients read the counter headers: v1's names, and
// v4's, which counts the minute's requests under its own name.
const (
	exposed   = "X-API-Version, X-Response-Control, X-Authenticated-Client, X-RequestCounter-Reset, X-RequestsAvailable, X-Requests-Available"
	exposedV4 = "X-API-Version, X-Authenticated-Client, X-RequestCounter-Reset, X-Requests-Available-Minute"
)

// Header names as the spec spells them, the bytes written on the wire:
// clients that read headers case-sensitively (PHP arrays, some R and shell
// code) depend on it. Every response has fasthttp's name normalization
// turned off (methods), and these are set with SetCanonical, which takes
// the name as it is without a second look.
var (
	hAPIVersion        = []byte("X-API-Version")
	hAllowOrigin       = []byte("Access-Control-Allow-Origin")
	hExposeHeaders     = []byte("Access-Control-Expose-Headers")
	hAuthenticated     = []byte("X-Authenticated-Client")
	hCounterReset      = []byte("X-RequestCounter-Reset")
	hRequestsAvailable = []byte("X-RequestsAvailable")
	hRequestsAvail2    = []byte("X-Requests-Available")
	hRequestsMinute    = []byte("X-Requests-Available-Minute")
	hResponseControl   = []byte(hResponseControlName)
	hETag              = []byte("ETag")
	hCacheControl      = []byte("Cache-Control")
	hVary              = []byte("Vary")
	hContentEncoding   = []byte("Content-Encoding")

	vAllowOrigin   = []byte("*")
	vExposeHeaders = []byte(exposed)
	vExposeV4      = []byte(exposedV4)
	vVary          = []byte("Accept-Encoding, X-Response-Control, X-Auth-Token")
	vVaryToken     = []byte("Accept-Encoding, X-Auth-Token")
	vVaryUnfold    = []byte("Accept-Encoding, X-Auth-Token, X-Unfold-Goals")
	vVaryEncoding  = []byte("Accept-Encoding")
	vHTML          = []byte("text/html; charset=utf-8")
	vJavaScript    = []byte("text/javascript; charset=utf-8")
	vGzip          = []byte("gzip")
	vContentType   = []byte(contentTypeJSON)
	vAnonymous     = []byte("anonymous")
)

// tokenHashes remembers the hash of tokens that belonged to a client when
// they were seen, so that a known caller's request does not hash its token
// again. Only tokens of clients enter it, so it is bounded by the clients
// and their rotations; the client itself is still looked up in the
// request's snapshot, so a revoked or rotated token stops working at once.
// A map under a lock rather than a sync.Map: looked up with the header's
// bytes, it builds no string per request. Each server has its own.
type tokenHashes struct {
	mu sync.RWMutex
	m  map[string]string // token → hash
}

// hash returns the token's hash and whether it was remembered.
func (th *tokenHashes) hash(token []byte) (string, bool) {
	th.mu.RLock()
	h, ok := th.m[string(token)]
	th.mu.RUnlock()
	if ok {
		return h, true
	}
	return model.HashToken(string(token)), false
}

func (th *tokenHashes) remember(token []byte, hash string) {
	th.mu.Lock()
	th.m[string(token)] = hash
	th.mu.Unlock()
}

// authenticate recognises the caller from X-Auth-Token (or, on the event
// stream, which browsers open without headers, the token query parameter:
// the access log shows paths only), counts the request
// against the caller's limits and sets the headers every response carries.
// An empty or missing token is anonymous; a token that is malformed or not
// registered is refused, never taken as anonymous. A token the read model
// does not know is looked up in the stream first (tokenLookups), so that a
// client added a moment ago is not refused by a replica that is behind.
// Nothing is served before the replica is ready.
//
// Every version shares the clients, their limits and the budget: a request
// to /v4 counts as one to /v1 does. What differs is said in the version's
// words: v4 names the remaining requests X-Requests-Available-Minute, and
// refuses an unknown token with upstream's message.
func (s *Server) authenticate(ver apiVersion) fiber.Handler {
	version := []byte(ver)
	expose, available, invalidToken := vExposeHeaders, [][]byte{hRequestsAvailable, hRequestsAvail2},
		"invalid API token: no active client has this X-Auth-Token (tokens are letters a-z and digits 1-9); send none to be anonymous"
	if ver == v4 {
		expose, available, invalidToken = vExposeV4, [][]byte{hRequestsMinute}, "Your API token is invalid."
	}
	return func(c *fiber.Ctx) error {
		if err := s.whenReady(c); err != nil {
			return err
		}
		h := &c.Response().Header
		h.SetCanonical(hAPIVersion, version)
		h.SetCanonical(hAllowOrigin, vAllowOrigin)
		h.SetCanonical(hExposeHeaders, expose)
		// The snapshot's time is the one fasthttp read as the request came in.
		snap := s.model.SnapshotAt(c.Context().Time())
		who := requestOf(c)
		raw := bytes.TrimSpace(who.token)
		if len(raw) == 0 && c.Path() == eventsPath {
			raw = bytes.TrimSpace(c.Context().QueryArgs().Peek("token"))
		}
		cl, known, lookups := s.caller(c, raw, snap)
		var v verdict
		if known {
			// At most two rules, in an array on the stack.
			rules := [2]limit{{max: cl.PerMinute, period: time.Minute}}
			n := 1
			if cl.PerDay > 0 {
				rules[1], n = limit{max: cl.PerDay, period: 24 * time.Hour}, 2
			}
			v = s.limits.take(subject{client: cl.Name}, c.Context().Time(), rules[:n]...)
			h.SetCanonical(hAuthenticated, []byte(cl.Name))
		} else {
			// Anonymous requests, and requests with a token nobody has
			// (which are refused below), count against the caller's IP.
			v = s.limits.take(subject{addr: s.clientAddr(c)}, c.Context().Time(), limit{max: s.opts.AnonymousPerDay, period: 24 * time.Hour})
			h.SetCanonical(hAuthenticated, vAnonymous)
		}
		var num [20]byte
		h.SetCanonical(hCounterReset, strconv.AppendInt(num[:0], int64(v.resetIn), 10))
		remaining := strconv.AppendInt(num[:0], int64(v.remaining), 10)
		for _, name := range available {
			h.SetCanonical(name, remaining)
		}
		if !lookups.allowed {
			return s.lookupsSpent(c, lookups)
		}
		if len(raw) > 0 && !known {
			return badRequest("%s", invalidToken)
		}
		if !v.allowed {
			kind := "registered"
			if !known {
				kind = "anonymous"
			}
			s.metrics.rateLimit.WithLabelValues(kind).Inc()
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(v.resetIn))
			return &apiError{fiber.StatusTooManyRequests, "You reached your request limit. Wait " + strconv.Itoa(v.resetIn) + " seconds."}
		}
		who.name, who.tier, who.snap, who.ver = "anonymous", model.TierAnonymous, snap, ver
		if known {
			who.name, who.tier = cl.Name, cl.Tier
		}
		return c.Next()
	}
}

// caller finds the client of the token raw (none: anonymous) in snap, or,
// if the replica has not applied it yet (added a moment ago, the replica
// behind an import), in the stream: then within the caller's address's
// budget of lookups, whose verdict it returns (allowed when it spent none).
func (s *Server) caller(c *fiber.Ctx, raw []byte, snap readmodel.Snapshot) (model.Client, bool, verdict) {
	lookups := verdict{allowed: true}
	if len(raw) == 0 || !model.ValidToken(string(raw)) {
		return model.Client{}, false, lookups
	}
	hash, remembered := s.hashes.hash(raw)
	cl, known := snap.Client(hash)
	if !known {
		var result lookupResult
		cl, result = s.tokens.resolve(hash, func() bool {
			lookups = s.lookups.take(subject{addr: s.clientAddr(c)}, c.Context().Time(), limit{max: s.opts.TokenLookupsPerMinute, period: time.Minute})
			return lookups.allowed
		})
		known = result == tokenFound
	}
	if known && !remembered {
		s.hashes.remember(raw, hash)
	}
	return cl, known, lookups
}

// lookupsSpent refuses a token the replica could not look up because the
// caller's address has spent its lookups of the minute: 429, as the token
// may be a client's that this replica has not applied yet.
func (s *Server) lookupsSpent(c *fiber.Ctx, lookups verdict) error {
	s.metrics.rateLimit.WithLabelValues("token lookup").Inc()
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(lookups.resetIn))
	return &apiError{fiber.StatusTooManyRequests, "too many tokens this replica has not applied from your address: wait " +
		strconv.Itoa(lookups.resetIn) + " seconds, or send none to be anonymous"}
}

// observe records every request's route, status and latency, holds the
// request's state for the handlers after it, passes on only what the API
// can answer (guard) and what is not a preflight, and answers a panic of
// any handler after it with a 500 (recovered).
func (s *Server) observe(c *fiber.Ctx) error {
	// fasthttp read the clock as it handed the request over: one reading
	// fewer per request.
	start := c.Context().Time()
	s.metrics.inFlight.Add(1)
	defer s.metrics.inFlight.Add(-1)
	r := requests.Get().(*request)
	r.readHeaders(&c.Request().Header)
	c.Locals(requestKey, r)
	defer func() {
		// A request given back must not keep its snapshot's world alive,
		// nor views of a request that is over.
		*r = request{key: r.key}
		requests.Put(r)
	}()
	err := recovered(func() error {
		if err := guard(c); err != nil || s.preflight(c) {
			return err
		}
		return c.Next()
	})
	if err != nil {
		if herr := s.app.ErrorHandler(c, err); herr != nil {
			return herr
		}
	}
	route := c.Route()
	// A request no route took ends on the middleware of "/", which is
	// also the index's path: only a request for "/" itself is the index's.
	if (route.Path == "/" && c.Path() != "/") || route.Path == "" {
		route = nil
	}
	took := time.Since(start)
	s.metrics.request(route, c.Response().StatusCode(), took)
	if s.opts.AccessLog {
		// The path only: a browser's token travels in the query string.
		s.log.Info("request", "method", c.Method(), "path", requestPath(c.Request().Header.RequestURI()), "status", c.Response().StatusCode(),
			"ms", float64(took.Microseconds())/1000, "client", s.clientAddr(c), "caller", string(c.Response().Header.Peek("X-Authenticated-Client")))
	}
	return nil
}
