package webhook

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// lanes share a replica's delivery workers among the webhooks, so that a
// receiver that is slow, or never answers, delays no other webhook's
// deliveries: a webhook's lane holds at most PerWebhook attempts at once,
// and a worker that takes one of its deliveries beyond that hands it back
// at once, for later, rather than wait. Each lane is also a circuit
// breaker: after CircuitAfter failed attempts in a row the webhook is
// parked (the circuit is open) and its deliveries are handed back unsent
// until Park has passed; then one attempt, the probe, is let through. A
// success closes the circuit; a failure parks the webhook again, twice as
// long each time, up to MaxRetryDelay.
//
// Lanes live in one replica's memory, one per registration: each replica
// parks a receiver on what its own attempts met, and notes its circuit's
// changes in the webhook's state (State.Circuit).
type lanes struct {
	perWebhook, after int
	park, maxPark     time.Duration
	timeout           time.Duration

	mu sync.Mutex
	m  map[string]*lane
}

// lane is one registration's attempts on this replica.
type lane struct {
	// started holds when each attempt in flight started.
	started []time.Time
	// avg is a moving average of the attempts' durations.
	avg time.Duration
	// failures counts the failed attempts in a row.
	failures int
	// open is the circuit's state: parked until until, then probed.
	open  bool
	until time.Time
	park  time.Duration
	// probe is when the probe in flight started (zero: none).
	probe time.Time
}

// minHandBack is the shortest wait of a delivery handed back because its
// lane is full: about what an attempt on a healthy receiver takes.
const minHandBack = 50 * time.Millisecond

func newLanes(cfg *Config) *lanes {
	return &lanes{perWebhook: cfg.PerWebhook, after: cfg.CircuitAfter, park: cfg.Park, maxPark: cfg.MaxRetryDelay,
		timeout: cfg.Timeout, m: map[string]*lane{}}
}

// verdict is what admit decides of a delivery.
type verdict int

const (
	// attempt: go on, and report the outcome to done.
	attempt verdict = iota
	// busy: the lane holds all the attempts it may; hand the delivery
	// back for the delay.
	busy
	// parked: the circuit is open; hand the delivery back for the delay.
	parked
)

// admit decides whether a delivery of the registration key may be
// attempted now; when it may not, how long to hand it back for.
func (l *lanes) admit(key string, now time.Time) (verdict, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.m[key]
	if ln == nil {
		ln = &lane{}
		l.m[key] = ln
	}
	switch {
	case ln.open && now.Before(ln.until):
		// Spread over a quarter of the park, so that the deliveries
		// parked together do not all come back at the probe.
		wait := ln.until.Sub(now)
		return parked, wait + rand.N(ln.park/4+1)
	case ln.open && !ln.probe.IsZero():
		// A probe is in flight: the lane is known once it ends, at the
		// latest after the timeout.
		return busy, max(minHandBack, ln.probe.Add(l.timeout).Sub(now))
	case ln.open:
		ln.probe = now
	case len(ln.started) >= l.perWebhook:
		// A slot is free once the oldest attempt ends: soon on a healthy
		// receiver, later the longer it has been running.
		return busy, min(max(minHandBack, ln.avg, now.Sub(slices.MinFunc(ln.started, time.Time.Compare))), l.timeout)
	}
	ln.started = append(ln.started, now)
	return attempt, 0
}

// outcome is how an attempt ended.
type outcome int

const (
	succeeded outcome = iota
	failed
	// abandoned: the replica stopped; the attempt says nothing of the
	// receiver.
	abandoned
)

// change is what an attempt did to its lane's circuit.
type change int

const (
	unchanged change = iota
	// opened: the webhook is parked, until the time done returns.
	opened
	// closed: the webhook is no longer parked.
	closed
)

// done reports how the attempt of key admitted at start ended, at now.
func (l *lanes) done(key string, start, now time.Time, o outcome) (change, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.m[key]
	if ln == nil {
		return unchanged, time.Time{} // forgotten meanwhile (removed)
	}
	if i := slices.Index(ln.started, start); i >= 0 {
		ln.started = slices.Delete(ln.started, i, i+1)
	}
	probe := ln.probe.Equal(start)
	if probe {
		ln.probe = time.Time{}
	}
	if o == abandoned {
		return unchanged, time.Time{}
	}
	d := now.Sub(start)
	if ln.avg == 0 {
		ln.avg = d
	}
	ln.avg += (d - ln.avg) / 4
	if o == succeeded {
		ln.failures = 0
		if !ln.open {
			return unchanged, time.Time{}
		}
		ln.open, ln.park = false, 0
		return closed, time.Time{}
	}
	ln.failures++
	switch {
	case probe:
		ln.park = min(2*ln.park, l.maxPark)
	case !ln.open && ln.failures >= l.after:
		ln.open, ln.park = true, l.park
	default:
		// Still closed, or an attempt that was in flight when the
		// circuit opened: the park stands.
		return unchanged, time.Time{}
	}
	ln.until = now.Add(ln.park)
	return opened, ln.until
}

// forget drops the lane of a removed registration.
func (l *lanes) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, key)
}
