package follow

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// A slow source must not starve the others. Two bounds see to it: a body
// must keep coming at MinRate on average (rateGrace after the headers,
// and for every MinRate bytes a second more), which a trickle cannot do
// however steadily it sends; and feeds whose last poll failed (a source
// that hung or trickled, among others) share all slots but one, so that
// the feeds that work always find one free.

// rateGrace is how long a body may take to start before MinRate counts.
const rateGrace = 3 * time.Second

// slots are the polls that may run at once.
type slots struct {
	all chan struct{}
	// failing is taken first by a feed whose last poll failed: one fewer
	// than all, so one slot stays for the others (unless there is one).
	failing chan struct{}
}

func newSlots(n int) *slots {
	return &slots{all: make(chan struct{}, n), failing: make(chan struct{}, max(n-1, 1))}
}

// take waits for a slot, for a feed whose last poll failed or not, and
// returns its release; ok is false when ctx ended first.
func (s *slots) take(ctx context.Context, failing bool) (release func(), ok bool) {
	if failing {
		select {
		case s.failing <- struct{}{}:
		case <-ctx.Done():
			return nil, false
		}
	}
	select {
	case s.all <- struct{}{}:
	case <-ctx.Done():
		if failing {
			<-s.failing
		}
		return nil, false
	}
	return func() {
		<-s.all
		if failing {
			<-s.failing
		}
	}, true
}

// tooSlow is why a fetch was cut: its body came slower than MinRate.
type tooSlow struct {
	n    int64
	took time.Duration
	rate int64
}

func (e *tooSlow) Error() string {
	return fmt.Sprintf("the body came too slowly: %d bytes in %s, under the %d bytes a second of --min-rate", e.n, e.took.Round(time.Millisecond), e.rate)
}

// paced reads a body, and cancels its request when the body falls
// behind rate: its deadline moves on with every byte, but only by a
// second for each rate bytes.
type paced struct {
	r     io.Reader
	n     atomic.Int64
	start time.Time
	rate  int64
	timer *time.Timer
}

// pace starts the clock of a body whose headers just came; stop ends it.
func pace(r io.Reader, rate int64, cancel context.CancelCauseFunc) *paced {
	p := &paced{r: r, rate: rate, start: time.Now()}
	p.timer = time.AfterFunc(rateGrace, func() {
		cancel(&tooSlow{n: p.n.Load(), took: time.Since(p.start), rate: rate})
	})
	return p
}

func (p *paced) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		total := p.n.Add(int64(n))
		p.timer.Reset(time.Until(p.start.Add(rateGrace + time.Duration(total*int64(time.Second)/p.rate))))
	}
	return n, err
}

func (p *paced) stop() { p.timer.Stop() }
