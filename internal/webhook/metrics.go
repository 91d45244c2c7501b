package webhook

import "github.com/prometheus/client_golang/prometheus"

// Results of a delivery attempt, the label of fd_webhook_deliveries_total.
const (
	resultDelivered  = "delivered"  // 2xx in time
	resultFailed     = "failed"     // no 2xx: retried later
	resultGaveUp     = "gave_up"    // no 2xx after the last retry
	resultUnverified = "unverified" // held for a webhook whose verification failed: dropped
	resultRemoved    = "removed"    // the webhook was removed meanwhile: dropped
)

// Reasons a delivery is handed back unsent, the label of
// fd_webhook_deferred_total.
const (
	deferBusy   = "busy"   // its webhook had all the attempts it may have at once
	deferParked = "parked" // its webhook's circuit was open
)

type metrics struct {
	deliveries   *prometheus.CounterVec
	retries      prometheus.Counter
	latency      prometheus.Histogram
	verification *prometheus.CounterVec
	deferred     *prometheus.CounterVec
	circuitOpen  *prometheus.GaugeVec
	swept        prometheus.Counter
	panics       prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_webhook_deliveries_total", Help: "Webhook delivery attempts by result (delivered, failed, gave_up, unverified, removed).",
		}, []string{"result"}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fd_webhook_retries_total", Help: "Webhook deliveries scheduled again after a failed attempt.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fd_webhook_delivery_seconds", Help: "Time from an edit to the 2xx of its webhook delivery.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60, 600, 3600, 86400},
		}),
		verification: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_webhook_verifications_total", Help: "Webhook host verification attempts by result (verified, failed, gave_up).",
		}, []string{"result"}),
		deferred: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fd_webhook_deferred_total", Help: "Webhook deliveries handed back unsent, by reason (busy: the webhook had its share of the workers; parked: its circuit was open).",
		}, []string{"reason"}),
		circuitOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fd_webhook_circuit_open", Help: "1 while this replica has parked the webhook after failed attempts in a row (its circuit is open), else 0.",
		}, []string{"webhook"}),
		swept: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fd_webhook_states_swept_total", Help: "Deletions of a removed webhook's state: one when the removal is seen, one more once the attempts in hand then have ended.",
		}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fd_webhook_panics_total", Help: "Panics of webhook work (fan-out, verification, delivery), recovered: logged with their stack, the message retried later.",
		}),
	}
	// Every result is a series from the start, at 0, so that rates and
	// alerts see the first event rather than a series appearing.
	for _, r := range []string{resultDelivered, resultFailed, resultGaveUp, resultUnverified, resultRemoved} {
		m.deliveries.WithLabelValues(r)
	}
	for _, r := range []string{"verified", "failed", "gave_up"} {
		m.verification.WithLabelValues(r)
	}
	for _, r := range []string{deferBusy, deferParked} {
		m.deferred.WithLabelValues(r)
	}
	if reg != nil {
		reg.MustRegister(m.deliveries, m.retries, m.latency, m.verification, m.deferred, m.circuitOpen, m.swept, m.panics)
	}
	return m
}
