package httpapi

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/internal/buildinfo"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the replica's Prometheus series.
type metrics struct {
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	cache     *prometheus.CounterVec
	rateLimit *prometheus.CounterVec
	// inFlight counts the requests being answered: an integer added to
	// with one atomic instruction, where a Gauge's float takes a loop of
	// compare-and-swap.
	inFlight atomic.Int64
	// Event streams (/v1/events).
	streamsOpen    prometheus.Gauge
	streamsDropped prometheus.Counter
	eventsSent     prometheus.Counter
	// panics counts the handlers' panics recovered (recovered).
	panics prometheus.Counter

	// The series every request touches, resolved once rather than by
	// hashing label values per request: cache hits and misses, and per
	// route and status (a fixed set) the request counter and latency.
	cacheHit, cacheMiss prometheus.Counter
	series              sync.Map // routeStatus → routeSeries
}

// routeStatus keys a request's series by the route Fiber matched (a
// pointer, cheaper to hash than its path), nil for a request no route
// took.
type routeStatus struct {
	route  *fiber.Route
	status int
}

type routeSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// request counts one answered request of route (nil: unmatched) with
// status and its time.
func (m *metrics) request(route *fiber.Route, status int, took time.Duration) {
	k := routeStatus{route, status}
	v, ok := m.series.Load(k)
	if !ok {
		name := "unmatched"
		if route != nil {
			name = route.Path
		}
		v, _ = m.series.LoadOrStore(k, routeSeries{m.requests.WithLabelValues(name, strconv.Itoa(status)), m.latency.WithLabelValues(name)})
	}
	rs := v.(routeSeries)
	rs.requests.Inc()
	rs.latency.Observe(took.Seconds())
}

func newMetrics(reg prometheus.Registerer, model *readmodel.Model, limits *limiter, ready func() bool) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fd_http_request_duration_seconds", Help: "Time to answer a request, by route.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"route"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_render_cache_total", Help: "Rendered-response cache lookups by result (hit, miss).",
		}, []string{"result"}),
		rateLimit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_rate_limit_rejections_total", Help: "Requests refused with 429, by caller kind (registered, anonymous; token lookup: a token the replica has not applied, from an address that has spent its lookups).",
		}, []string{"caller"}),
		streamsOpen: prometheus.NewGauge(prometheus.GaugeOpts{Name: "fd_event_streams_open", Help: "Event streams (/v1/events) open on this replica."}),
		streamsDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "fd_event_streams_dropped_total",
			Help: "Event streams closed with a reset because their client fell behind the events held."}),
		eventsSent: prometheus.NewCounter(prometheus.CounterOpts{Name: "fd_event_stream_events_sent_total", Help: "Events written to event streams."}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{Name: "fd_http_panics_total",
			Help: "Panics of request handlers and event streams, recovered: answered 500 (a stream just ends) and logged with their stack."}),
	}
	m.cacheHit, m.cacheMiss = m.cache.WithLabelValues("hit"), m.cache.WithLabelValues("miss")
	build := buildinfo.Read()
	stats := func(f func(readmodel.Stats) float64) func() float64 {
		return func() float64 { return f(model.Stats()) }
	}
	reg.MustRegister(m.requests, m.latency, m.cache, m.rateLimit, m.streamsOpen, m.streamsDropped, m.eventsSent, m.panics,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_http_in_flight_requests", Help: "Requests being answered."},
			func() float64 { return float64(m.inFlight.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_build_info", Help: "The running build: always 1.",
			ConstLabels: prometheus.Labels{"version": build.Version, "commit": build.Commit, "goversion": build.GoVersion}},
			func() float64 { return 1 }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_ready", Help: "1 while the replica is ready for traffic (replayed, not draining)."},
			func() float64 {
				if ready() {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fd_rate_limit_budget_errors_total",
			Help: "Takes of the shared request budget that failed, answered from a local lease instead."},
			func() float64 { return float64(limits.errors.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_stream_pending_messages", Help: "Messages the stream holds that this replica has not applied yet."},
			stats(func(s readmodel.Stats) float64 { return float64(s.Pending) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_stream_last_applied_sequence", Help: "Stream sequence of the last event applied."},
			stats(func(s readmodel.Stats) float64 { return float64(s.LastSeq) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_stream_served_sequence",
			Help: "Stream sequence of the last event in the data responses are made from (trails the last applied while changes wait to be published)."},
			stats(func(s readmodel.Stats) float64 { return float64(s.ServedSeq) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fd_stream_replaced_total",
			Help: "Times the stream was found replaced (restored from a backup, or deleted) and replayed from its start; fd_ready is 0 during each replay."},
			stats(func(s readmodel.Stats) float64 { return float64(s.Replaced) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fd_stream_stalls_total",
			Help: "Times this replica's stream consumer stalled (a message held for it undelivered for longer than the stall bound) and was replaced; fd_ready is 0 until it has caught up."},
			stats(func(s readmodel.Stats) float64 { return float64(s.Stalls) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fd_events_applied_total", Help: "Events applied to the read model."},
			stats(func(s readmodel.Stats) float64 { return float64(s.Applied) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "fd_events_rejected_total", Help: "Events skipped because they did not decode into a valid entity."},
			stats(func(s readmodel.Stats) float64 { return float64(s.DecodeErrors) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fd_replay_duration_seconds", Help: "Time from start to the end of the initial replay (0 until ready)."},
			stats(func(s readmodel.Stats) float64 { return s.ReplayDuration.Seconds() })),
	)
	return m
}
