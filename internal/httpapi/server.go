package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/internal/wire"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

const contentTypeJSON = "application/json;charset=UTF-8"

// writeTimeout bounds the writing of a response, and of each flush of an
// event stream.
const writeTimeout = 30 * time.Second

// The defaults of Options, which the api command's flags share.
const (
	// DefaultAnonymousPerDay is the spec's limit of anonymous requests
	// (part 8).
	DefaultAnonymousPerDay = 100
	DefaultCacheBytes      = 256 << 20
	// DefaultTrustedProxyHeader is the header trusted proxies pass the
	// client's address in.
	DefaultTrustedProxyHeader = fiber.HeaderXForwardedFor
	DefaultStreamsPerIP       = 1
	DefaultStreamsPerClient   = 5
	DefaultKeepAlive          = 15 * time.Second
	DefaultTokenLookupTimeout = time.Second
)

// The bounds of Options that the api command's flags share: a keepalive
// longer than a minute outlasts the idle timeouts of common proxies, and a
// request held longer than 10s for a token lookup is better refused.
const (
	MaxKeepAlive          = time.Minute
	MaxTokenLookupTimeout = 10 * time.Second
)

// Options configure a Server. Every field but Model has a default.
type Options struct {
	Model *readmodel.Model
	// PublicURL is the base of the absolute links in responses
	// (https://api.example.org); empty means the request's scheme and Host.
	PublicURL string
	// CacheBytes is the budget of the rendered-response cache.
	CacheBytes int64
	// TrustedProxies are the addresses of the proxies in front of the
	// replica: only from them are the proxy header and X-Forwarded-Host
	// and -Proto believed.
	TrustedProxies []netip.Prefix
	// TrustedProxyHeader names the header in which trusted proxies pass
	// the client's address (default X-Forwarded-For).
	TrustedProxyHeader string
	// AnonymousPerDay is the limit of anonymous requests per client
	// address and day (default 100, the spec's).
	AnonymousPerDay int
	// Registry receives the metrics (default: a new registry).
	Registry *prometheus.Registry
	Log      *slog.Logger
	// AccessLog logs every request (method, path, status, time, caller) at
	// info level.
	AccessLog bool
	// Hub is the replica's live events, served at /v1/events; nil serves
	// none.
	Hub *push.Hub
	// StreamsPerIP and StreamsPerClient bound the event streams an
	// anonymous client address (default 1) and a registered client
	// (default 5) may hold open on this replica.
	StreamsPerIP, StreamsPerClient int
	// KeepAlive is how often an idle event stream gets a comment line, so
	// that proxies do not close it (default 15s).
	KeepAlive time.Duration
	// TokenLookupTimeout bounds how long a request with a token the read
	// model does not have waits for the stream's leader to say whose it is
	// (LookUpTokens); after it the token is refused as unknown (default 1s).
	TokenLookupTimeout time.Duration
	// TokenLookupsPerMinute bounds the lookups of such tokens that one
	// client address may cause on this replica a minute (default 30);
	// beyond it such a token is refused with 429 without a lookup.
	TokenLookupsPerMinute int
	// ConnsPerIP bounds the connections one peer address may hold open on
	// this replica (default 256); a trusted proxy's are not bounded.
	ConnsPerIP int
	// BodyDir is the directory of the files the largest cached bodies are
	// sent from (wire.Bodies): empty, or one that refuses them (logged),
	// keeps them in memory files.
	BodyDir string
}

func (o *Options) setDefaults() {
	if o.CacheBytes == 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.AnonymousPerDay == 0 {
		o.AnonymousPerDay = DefaultAnonymousPerDay
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
		o.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.TrustedProxyHeader == "" {
		o.TrustedProxyHeader = DefaultTrustedProxyHeader
	}
	if o.StreamsPerIP == 0 {
		o.StreamsPerIP = DefaultStreamsPerIP
	}
	if o.StreamsPerClient == 0 {
		o.StreamsPerClient = DefaultStreamsPerClient
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.TokenLookupTimeout == 0 {
		o.TokenLookupTimeout = DefaultTokenLookupTimeout
	}
	if o.TokenLookupsPerMinute == 0 {
		o.TokenLookupsPerMinute = DefaultTokenLookupsPerMinute
	}
	if o.ConnsPerIP == 0 {
		o.ConnsPerIP = DefaultConnsPerIP
	}
	o.PublicURL = strings.TrimRight(o.PublicURL, "/")
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Model == nil {
		return fmt.Errorf("httpapi: a read model is required")
	}
	if o.PublicURL != "" {
		u, err := url.Parse(o.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("public URL %q: must be an absolute http or https URL", o.PublicURL)
		}
	}
	if o.AnonymousPerDay < 1 {
		return fmt.Errorf("anonymous limit %d: must be at least 1 request a day", o.AnonymousPerDay)
	}
	if o.StreamsPerIP < 1 || o.StreamsPerClient < 1 {
		return fmt.Errorf("event streams per IP %d and per client %d: must be at least 1", o.StreamsPerIP, o.StreamsPerClient)
	}
	if o.KeepAlive < 0 || o.KeepAlive > MaxKeepAlive {
		return fmt.Errorf("event stream keepalive %s: must be more than 0 and at most %s", o.KeepAlive, MaxKeepAlive)
	}
	if o.TokenLookupTimeout < 0 || o.TokenLookupTimeout > MaxTokenLookupTimeout {
		return fmt.Errorf("token lookup timeout %s: must be more than 0 and at most %s", o.TokenLookupTimeout, MaxTokenLookupTimeout)
	}
	if o.TokenLookupsPerMinute < 1 {
		return fmt.Errorf("token lookups per minute %d: must be at least 1", o.TokenLookupsPerMinute)
	}
	if o.ConnsPerIP < 1 {
		return fmt.Errorf("connections per IP %d: must be at least 1", o.ConnsPerIP)
	}
	if o.CacheBytes < 1<<20 {
		return fmt.Errorf("cache size %d bytes: must be at least 1 MiB", o.CacheBytes)
	}
	return nil
}

// Server is the HTTP API of one replica.
type Server struct {
	opts  Options
	model *readmodel.Model
	app   *fiber.App
	cache *renderCache
	// bodyFiles keeps the large bodies' files (nil: memory files);
	// the render cache's pool lends the buffers of the smaller ones.
	bodyFiles *wire.Bodies
	limits    *limiter
	// lookups counts each client address's lookups of tokens the replica
	// has not applied; local, never shared: it bounds this replica's reads
	// of the leader.
	lookups *limiter
	metrics *metrics
	streams streamSlots
	tokens  *tokenLookups
	conns   *connLimit
	hashes  tokenHashes
	// streamEnd is set once the replica reaches NATS (ShareStream).
	streamEnd atomic.Pointer[StreamEnd]
	log       *slog.Logger
	// draining makes /readyz fail while the server shuts down.
	draining chan struct{}
	// waiting is why the replica has not started replaying yet (nil:
	// nothing in the way), for /readyz.
	waiting atomic.Pointer[string]
	// served is what each API version serves, for its 404s (notFound).
	served map[apiVersion]string
}

// New builds the server and its routes.
func New(opts Options) (*Server, error) {
	opts.setDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cache, err := newRenderCache(opts.CacheBytes)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, model: opts.Model, cache: cache, limits: newLimiter(nil, opts.Log),
		lookups: newLimiter(nil, opts.Log),
		log:     opts.Log, draining: make(chan struct{}), streams: streamSlots{n: map[string]int{}, freed: make(chan struct{})},
		hashes: tokenHashes{m: map[string]string{}}}
	if opts.BodyDir != "" {
		if s.bodyFiles, err = wire.OpenBodies(opts.BodyDir); err != nil {
			s.log.Warn("large cached bodies kept in memory files", "err", err)
		}
	}
	s.metrics = newMetrics(opts.Registry, opts.Model, s.limits, func() bool { status, _ := s.readiness(); return status == fiber.StatusOK })
	s.tokens = newTokenLookups(opts.Model, opts.Log, opts.Registry, opts.TokenLookupTimeout)
	s.conns = newConnLimit(opts.Registry, opts.ConnsPerIP, func(a netip.Addr) bool { return len(opts.TrustedProxies) > 0 && s.trustedAddr(a) })
	s.app = fiber.New(fiber.Config{
		AppName:               "footballd",
		DisableStartupMessage: true,
		ErrorHandler:          s.errorHandler,
		// Real clients send trailing slashes; paths are case-sensitive
		// (leagueTable).
		StrictRouting:   false,
		CaseSensitive:   true,
		ReadBufferSize:  readBuffer,
		WriteBufferSize: wire.WriteBuffer,
		ReadTimeout:     30 * time.Second,
		WriteTimeout:    writeTimeout,
		IdleTimeout:     120 * time.Second,
		JSONEncoder:     json.Marshal,
	})
	s.routes()
	s.served = servedResources(s.app.GetRoutes(true))
	s.app.Server().Handler = s.methods(s.app.Server().Handler)
	// In place of Fiber's, which answers with fasthttp's message: the
	// request's head, its token among it.
	s.app.Server().ErrorHandler = s.parseError
	return s, nil
}

// App returns the Fiber application (Test, Shutdown).
func (s *Server) App() *fiber.App { return s.app }

// Serve answers the connections ln accepts until the application shuts
// down, at most ConnsPerIP at a time from one address but a trusted
// proxy's. Its TCP connections move their deadlines lazily (wire.Listener).
func (s *Server) Serve(ln net.Listener) error {
	return s.app.Listener(wire.Listener{Listener: ln, Admit: s.conns.admit})
}

// ShareBudgets counts callers' requests against budgets every replica
// shares (events.Budgets) rather than this replica's alone. The replica
// calls it once it reaches NATS, before it is ready.
func (s *Server) ShareBudgets(b Budget) { s.limits.share(b) }

// LookUpTokens has the replica look a token its read model does not have
// up in the stream itself (src: the replica's events.Store) before it
// refuses it, so that a client works on every replica as soon as `ingest
// client add` returns, however far behind the replica is. The replica calls
// it once it reaches NATS; until then such a token is refused.
func (s *Server) LookUpTokens(src TokenSource) { s.tokens.src.Store(&src) }

// Drain makes the replica report not ready, so load balancers stop sending
// new requests before it shuts down.
func (s *Server) Drain() {
	select {
	case <-s.draining:
	default:
		close(s.draining)
	}
}

// Waiting says why the replica cannot replay the stream yet (NATS
// unreachable, the stream not set up, a right missing), for /readyz and
// the operator reading it; "" clears it.
func (s *Server) Waiting(reason string) {
	if reason == "" {
		s.waiting.Store(nil)
		return
	}
	s.waiting.Store(&reason)
}

// Close releases the cache.
func (s *Server) Close() { s.cache.close() }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
