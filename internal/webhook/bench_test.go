package webhook_test

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// BenchmarkDeliveryLatency measures, on loopback, the time from an event
// handed to a replica (Publish) to its arrival at the receiver: publish to
// the queue, fan-out, delivery, signed POST. The baseline, in the same
// run, is a plain POST of the same body to the same receiver; ratio is
// p50 against the baseline's p50.
func BenchmarkDeliveryLatency(b *testing.B) {
	w := newWorld(b)
	w.add("h", "reg", nil)
	r := w.start(func(c *webhook.Config) { c.Timeout, c.AckWait = 10*time.Second, 15*time.Second })
	w.waitState("h", status(webhook.Verified))
	// Warm up connections and the consumers.
	for range 10 {
		r.d.Publish([]push.Event{w.event(push.FixtureUpdate, "PL", model.TierAnonymous)})
		<-w.recv.arrived
	}
	sample := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	body, _ := sample.Body("https://api.test", push.V1)
	base := make([]time.Duration, 0, b.N)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		resp, err := http.Post(w.recv.srv.URL+"/baseline", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		<-w.recv.arrived
		base = append(base, time.Since(start))

		ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
		start = time.Now()
		r.d.Publish([]push.Event{ev})
		d := <-w.recv.arrived
		lat = append(lat, d.at.Sub(start))
	}
	b.StopTimer()
	p := func(ds []time.Duration, q float64) time.Duration {
		slices.Sort(ds)
		return ds[min(len(ds)-1, int(float64(len(ds))*q))]
	}
	b.ReportMetric(float64(p(lat, .5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(p(lat, .99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(p(base, .5).Microseconds()), "baseline-p50-µs")
	b.ReportMetric(float64(p(lat, .5))/float64(p(base, .5)), "ratio")
}
