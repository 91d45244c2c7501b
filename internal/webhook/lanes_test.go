package webhook

import (
	"testing"
	"time"
)

// TestLanes walks one lane through its states: a share of the workers,
// the circuit opening after failures in a row, the park, the probe, a
// longer park after a failed probe, and closing on a success.
func TestLanes(t *testing.T) {
	cfg := Config{PerWebhook: 2, CircuitAfter: 3, Park: time.Minute, MaxRetryDelay: 3 * time.Minute, Timeout: 10 * time.Second}
	l := newLanes(&cfg)
	t0 := time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	type step struct {
		name string
		// admit at at, or report the attempt started at start as ended
		// at at with o.
		admit      bool
		at, start  time.Duration
		o          outcome
		want       verdict
		minD, maxD time.Duration // the hand-back delay's range
		change     change
		until      time.Duration
	}
	steps := []step{
		{name: "first", admit: true, at: 0, want: attempt},
		{name: "second", admit: true, at: time.Second, want: attempt},
		{name: "third waits as long as the oldest has run", admit: true, at: 5 * time.Second, want: busy, minD: 5 * time.Second, maxD: 5 * time.Second},
		{name: "first failure", at: 6 * time.Second, start: 0, o: failed},
		{name: "a slot again", admit: true, at: 6 * time.Second, want: attempt},
		{name: "second failure", at: 7 * time.Second, start: time.Second, o: failed},
		{name: "third failure opens", at: 8 * time.Second, start: 6 * time.Second, o: failed, change: opened, until: 8*time.Second + time.Minute},
		{name: "parked", admit: true, at: 9 * time.Second, want: parked, minD: 59 * time.Second, maxD: 59*time.Second + 15*time.Second},
		{name: "the probe", admit: true, at: 8*time.Second + time.Minute, want: attempt},
		{name: "busy while probing", admit: true, at: 9*time.Second + time.Minute, want: busy, minD: 9 * time.Second, maxD: 9 * time.Second},
		{name: "failed probe parks twice as long", at: 10*time.Second + time.Minute, start: 8*time.Second + time.Minute, o: failed, change: opened,
			until: 10*time.Second + 3*time.Minute},
		{name: "second probe", admit: true, at: 10*time.Second + 3*time.Minute, want: attempt},
		{name: "abandoned probe", at: 11*time.Second + 3*time.Minute, start: 10*time.Second + 3*time.Minute, o: abandoned},
		{name: "third probe", admit: true, at: 12*time.Second + 3*time.Minute, want: attempt},
		{name: "success closes", at: 13*time.Second + 3*time.Minute, start: 12*time.Second + 3*time.Minute, o: succeeded, change: closed},
		{name: "open again", admit: true, at: 14*time.Second + 3*time.Minute, want: attempt},
		{name: "one failure does not open", at: 15*time.Second + 3*time.Minute, start: 14*time.Second + 3*time.Minute, o: failed},
	}
	for _, s := range steps {
		if s.admit {
			v, d := l.admit("h", at(s.at))
			if v != s.want || d < s.minD || d > s.maxD {
				t.Errorf("%s: admit %v after %s, want %v after %s to %s", s.name, v, d, s.want, s.minD, s.maxD)
			}
			continue
		}
		c, until := l.done("h", at(s.start), at(s.at), s.o)
		var wantUntil time.Time
		if s.change == opened {
			wantUntil = at(s.until)
		}
		if c != s.change || !until.Equal(wantUntil) {
			t.Errorf("%s: done %v until %s, want %v until %s", s.name, c, until, s.change, wantUntil)
		}
	}
}
