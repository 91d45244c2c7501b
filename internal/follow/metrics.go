package follow

import "github.com/prometheus/client_golang/prometheus"

// metrics are a follower's. The gauges of a feed are exported by the
// follower that holds its lease only, and deleted when it lets the lease
// go, so that `max by (feed)` over every follower reads the holder's.
type metrics struct {
	fetches     *prometheus.CounterVec
	changes     *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
	interval    *prometheus.GaugeVec
	held        *prometheus.GaugeVec
	heldBack    *prometheus.GaugeVec
	disagree    *prometheus.GaugeVec
	inPlay      *prometheus.GaugeVec
	took        *prometheus.HistogramVec
	calls       *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_feed_fetches_total",
			Help: "Feed polls by result (changed, unchanged, not_modified, held_back, suspect, error, deferred).",
		}, []string{"feed", "result"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_feed_changes_published_total", Help: "Entities a feed created or updated.",
		}, []string{"feed"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_last_success_timestamp_seconds",
			Help: "When the feed was last fetched without an error (its creation until then); exported by the lease holder.",
		}, []string{"feed"}),
		interval: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_interval_seconds", Help: "The feed's schedule: seconds between polls; exported by the lease holder.",
		}, []string{"feed"}),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_lease_held", Help: "1 for each feed this follower holds the lease of: the one that polls it.",
		}, []string{"feed"}),
		heldBack: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_held_back_fixtures", Help: "Fixtures of the feed's last document held back for team names no team has; exported by the lease holder.",
		}, []string{"feed"}),
		disagree: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_disagreements",
			Help: "Fields of fixtures whose stored value (an editor's, another source's) holds against what the feed's source says; exported by the lease holder.",
		}, []string{"feed"}),
		inPlay: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_feed_matches_in_play",
			Help: "Matches in play on a live API feed as its last poll saw them (0 for a file); exported by the lease holder.",
		}, []string{"feed"}),
		took: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fd_feed_poll_seconds", Help: "Time of a poll by result: the fetch, and the parse and writes of a changed document.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60},
		}, []string{"result"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_feed_upstream_calls_total",
			Help: "Calls a live API feed made to its source, by the source's answer (200, 304, 400, 403, 429, 5xx, failed: no answer).",
		}, []string{"feed", "status"}),
	}
	if reg != nil {
		reg.MustRegister(m.fetches, m.changes, m.lastSuccess, m.interval, m.held, m.heldBack, m.disagree, m.inPlay, m.took, m.calls)
	}
	return m
}

// hold exports a feed's gauges as its lease holder, and every result of
// its counters at 0, so that rates and alerts see the first event.
func (m *metrics) hold(feed string, every float64, st Status, created float64) {
	for _, r := range results {
		m.fetches.WithLabelValues(feed, r)
	}
	m.changes.WithLabelValues(feed)
	m.held.WithLabelValues(feed).Set(1)
	m.interval.WithLabelValues(feed).Set(every)
	last := created
	if !st.LastSuccess.IsZero() {
		last = float64(st.LastSuccess.UnixNano()) / 1e9
	}
	m.lastSuccess.WithLabelValues(feed).Set(last)
	m.heldBack.WithLabelValues(feed).Set(float64(heldBack(st)))
	m.disagree.WithLabelValues(feed).Set(float64(len(st.Disagreements)))
	m.inPlay.WithLabelValues(feed).Set(float64(inPlay(st)))
}

// drop deletes the gauges of a feed whose lease this follower let go.
func (m *metrics) drop(feed string) {
	for _, g := range []*prometheus.GaugeVec{m.held, m.interval, m.lastSuccess, m.heldBack, m.disagree, m.inPlay} {
		g.DeleteLabelValues(feed)
	}
}

// inPlay counts the matches in play a live feed's status saw.
func inPlay(st Status) int {
	if st.Live == nil {
		return 0
	}
	return st.Live.InPlay
}

// heldBack counts the fixtures a status holds back.
func heldBack(st Status) int {
	n := 0
	for _, c := range st.HeldBack {
		n += c
	}
	return n
}
