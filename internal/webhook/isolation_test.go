package webhook_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkDeliveryBesideHangingReceiver measures a healthy webhook's
// delivery latency (Publish to arrival), events published every 50ms, with
// the defaults (16 workers, 10s timeout): alone, and beside a webhook
// whose receiver never answers. One op is one event.
func BenchmarkDeliveryBesideHangingReceiver(b *testing.B) {
	for _, hanging := range []bool{false, true} {
		b.Run(fmt.Sprint("hanging=", hanging), func(b *testing.B) {
			w := newWorld(b)
			w.recv.answer = func(r *http.Request, hook string, _ int) int {
				if hook == "hung" {
					<-r.Context().Done()
					return 0
				}
				return http.StatusOK
			}
			w.add("ok", "reg", nil)
			if hanging {
				w.add("hung", "reg", nil)
			}
			r := w.start(func(c *webhook.Config) {
				c.Timeout, c.AckWait, c.FirstRetry = 10*time.Second, 15*time.Second, time.Second
			})
			w.waitState("ok", status(webhook.Verified))
			if hanging {
				w.waitState("hung", status(webhook.Verified))
			}
			sent := map[string]time.Time{}
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			b.ResetTimer()
			for range b.N {
				ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
				sent[ev.Key()] = time.Now()
				r.d.Publish([]push.Event{ev})
				<-tick.C
			}
			var lat []time.Duration
			for len(lat) < b.N {
				select {
				case d := <-w.recv.arrived:
					if d.hook == "ok" {
						lat = append(lat, d.at.Sub(sent[d.id]))
					}
				case <-w.ctx.Done():
					b.Fatalf("%d of %d healthy deliveries", len(lat), b.N)
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			q := func(q float64) float64 {
				return float64(lat[min(len(lat)-1, int(float64(len(lat))*q))].Microseconds()) / 1000
			}
			b.ReportMetric(q(.5), "p50-ms")
			b.ReportMetric(q(.99), "p99-ms")
			b.ReportMetric(q(1), "max-ms")
		})
	}
}

// A receiver that hangs holds no more than its share of the workers: the
// other webhook's deliveries all arrive while the hanging receiver still
// holds its requests (the timeout, 20 s, is far off), and once it answers
// it gets each of its events, once.
func TestHangingReceiverDelaysNoOther(t *testing.T) {
	w := newWorld(t)
	release := make(chan struct{})
	w.recv.answer = func(r *http.Request, hook string, _ int) int {
		if hook == "hung" {
			select {
			case <-release:
			case <-r.Context().Done():
				return 0
			}
		}
		return http.StatusOK
	}
	w.add("hung", "reg", nil)
	w.add("ok", "reg", nil)
	r := w.start(func(c *webhook.Config) { c.Workers, c.Timeout, c.AckWait = 4, 20*time.Second, 25*time.Second })
	w.waitState("hung", status(webhook.Verified))
	w.waitState("ok", status(webhook.Verified))
	var evs []push.Event
	for range 12 {
		evs = append(evs, w.event(push.FixtureUpdate, "PL", model.TierAnonymous))
	}
	r.d.Publish(evs)
	natstest.CheckFor(t, 15*time.Second, 10*time.Millisecond, func() error {
		if !w.delivered("ok", evs...)() {
			return fmt.Errorf("the healthy webhook got %d of %d events while the other receiver hung", len(w.recv.deliveries("ok")), len(evs))
		}
		return nil
	})
	if got := len(w.recv.deliveries("hung")); got != 0 {
		t.Fatalf("the hanging receiver answered %d deliveries before it was released", got)
	}
	close(release)
	w.waitFor("every event delivered to the released receiver", w.delivered("hung", evs...))
	w.waitQueueEmpty()
	for _, hook := range []string{"hung", "ok"} {
		for id, ds := range w.recv.deliveries(hook) {
			if len(ds) != 1 {
				t.Errorf("%s: event %s delivered %d times", hook, id, len(ds))
			}
		}
	}
}

// A receiver that keeps failing is parked after CircuitAfter failed
// attempts in a row: nothing is sent to it until the park is over, then
// one attempt probes it; once it answers, the circuit closes and every
// event is delivered, once.
func TestFailingReceiverIsParked(t *testing.T) {
	w := newWorld(t)
	var down atomic.Bool
	down.Store(true)
	w.recv.answer = func(*http.Request, string, int) int {
		if down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	w.add("h", "reg", nil)
	reg := prometheus.NewRegistry()
	// One attempt at a time: the three failures are the first three.
	r := w.start(func(c *webhook.Config) {
		c.Workers, c.CircuitAfter, c.Park, c.Registerer = 4, 3, 500*time.Millisecond, reg
	})
	w.waitState("h", status(webhook.Verified))
	var evs []push.Event
	for range 5 {
		evs = append(evs, w.event(push.FixtureUpdate, "PL", model.TierAnonymous))
	}
	r.d.Publish(evs)
	st := w.waitState("h", func(st webhook.State) bool { return st.Circuit == webhook.CircuitOpen })
	if got := gauge(t, reg, "fd_webhook_circuit_open", "h"); got != 1 {
		t.Errorf("fd_webhook_circuit_open{webhook=h} = %v while parked, want 1", got)
	}
	down.Store(false)
	w.waitFor("every event delivered after the park", w.delivered("h", evs...))
	w.waitQueueEmpty()
	// The park began when the third failed attempt ended.
	parkedFrom := st.ParkedUntil.Add(-500 * time.Millisecond)
	failures := 0
	for id, ds := range w.recv.deliveries("h") {
		ok := 0
		for _, d := range ds {
			if d.status == http.StatusOK {
				ok++
			} else {
				failures++
			}
			if d.at.After(parkedFrom) && d.at.Before(st.ParkedUntil) {
				t.Errorf("event %s: attempt at %s, while parked from %s until %s", id, d.at.Format(time.RFC3339Nano),
					parkedFrom.Format(time.RFC3339Nano), st.ParkedUntil.Format(time.RFC3339Nano))
			}
		}
		if ok != 1 {
			t.Errorf("event %s answered 200 %d times", id, ok)
		}
	}
	st = w.waitState("h", func(st webhook.State) bool { return st.Circuit == "" && st.Delivered == uint64(len(evs)) })
	if failures < 3 || st.Failed != uint64(failures) || st.Parked == 0 || !st.ParkedUntil.IsZero() {
		t.Errorf("state %+v after %d failed attempts, want at least 3 failed, some parked, the circuit closed", st, failures)
	}
	if got := gauge(t, reg, "fd_webhook_circuit_open", "h"); got != 0 {
		t.Errorf("fd_webhook_circuit_open{webhook=h} = %v once closed, want 0", got)
	}
	if got := metric(t, reg, "fd_webhook_deferred_total", "parked"); got == 0 {
		t.Errorf("fd_webhook_deferred_total{reason=parked} = 0")
	}
}

// gauge is the value of a gauge of reg whose only label has the value
// label (-1 when there is none).
func gauge(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == name && m.GetLabel()[0].GetValue() == label {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}
