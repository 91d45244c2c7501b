package generate

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/footdata/footballd/pkg/events"
)

// job is an entity to publish: the states it goes through, oldest first,
// each published as a revision of its own.
type job interface {
	revisions() int
	// state returns revision i, checked against revision i-1. It is
	// called once per revision, in order.
	state(i int) (any, error)
}

// once is an entity with a single revision.
type once struct{ v any }

func (o once) revisions() int         { return 1 }
func (o once) state(int) (any, error) { return o.v, nil }

// item is a job on its way: the next revision to publish and the
// revision it replaces.
type item struct {
	job     job
	next    int
	prev    *events.Revision
	fixture bool
}

// publisher streams jobs through one events.Bulk. A job's next revision is
// queued as soon as the stream has acknowledged the previous one, so that
// the compare-and-set of every revision names the one before it, while
// many jobs are in flight at once: edit streams cost no round trip each.
type publisher struct {
	bulk    *events.Bulk
	meta    events.Meta
	pending []*item // jobs whose next revision may go
	err     error   // the first refused write: the run stops

	messages, fixtures, target int

	progress    io.Writer
	start, last time.Time
}

func newPublisher(s *events.Store, meta events.Meta, progress io.Writer, target int) *publisher {
	now := time.Now()
	return &publisher{bulk: s.Bulk(), meta: meta, progress: progress, target: target, start: now, last: now}
}

// add publishes a new job, after the follow-up revisions waiting.
func (p *publisher) add(ctx context.Context, j job, fixture bool) error {
	if err := p.drain(ctx); err != nil {
		return err
	}
	return p.put(ctx, &item{job: j, fixture: fixture})
}

// drain queues the revisions whose previous one has been acknowledged.
func (p *publisher) drain(ctx context.Context) error {
	for len(p.pending) > 0 {
		it := p.pending[0]
		p.pending[0] = nil
		p.pending = p.pending[1:]
		if err := p.put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// flush publishes everything still to come and waits for the stream.
func (p *publisher) flush(ctx context.Context) error {
	for {
		if err := p.drain(ctx); err != nil {
			return err
		}
		if err := p.bulk.Flush(ctx); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
		if p.err != nil {
			return p.err
		}
		if len(p.pending) == 0 {
			p.report(true)
			return nil
		}
	}
}

func (p *publisher) put(ctx context.Context, it *item) error {
	v, err := it.job.state(it.next)
	if err != nil {
		return err
	}
	err = p.bulk.Put(ctx, events.Write{Value: v, Prev: it.prev, Meta: p.meta}, func(r events.Result, err error) {
		if err != nil {
			if p.err == nil {
				p.err = fmt.Errorf("publish revision %d of %T: %w", it.next+1, v, err)
			}
			return
		}
		if r.Changed {
			p.messages++
		}
		if it.next == 0 && it.fixture {
			p.fixtures++
			p.report(false)
		}
		it.next++
		if it.next < it.job.revisions() {
			it.prev = &events.Revision{Subject: r.Subject, Seq: r.Seq}
			p.pending = append(p.pending, it)
		}
	})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return p.err
}

// reportEvery is how often progress is written.
const reportEvery = 500 * time.Millisecond

func (p *publisher) report(final bool) {
	if p.progress == nil {
		return
	}
	now := time.Now()
	if !final && now.Sub(p.last) < reportEvery {
		return
	}
	p.last = now
	rate := float64(p.fixtures) / max(now.Sub(p.start).Seconds(), 1e-9)
	fmt.Fprintf(p.progress, "\rgenerate: %d/%d fixtures, %d messages, %.0f fixtures/s ", p.fixtures, p.target, p.messages, rate)
	if final {
		fmt.Fprintln(p.progress)
	}
}
