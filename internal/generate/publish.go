package generate

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

// publisher writes the world through one editor batch: many entities in
// flight at once, and a fixture's revisions one after the other, each
// naming the one before it, so that edit streams cost no round trip each.
type publisher struct {
	batch *editor.Batch
	err   error // the first refused write: the run stops

	messages, fixtures, target int

	progress    io.Writer
	start, last time.Time
}

func newPublisher(ed *editor.Editor, progress io.Writer, target int) *publisher {
	now := time.Now()
	return &publisher{batch: ed.Batch(), progress: progress, target: target, start: now, last: now}
}

// done counts a write, or keeps its error for the run to stop with.
func (p *publisher) done(what string) func(editor.Change, error) {
	return func(ch editor.Change, err error) {
		if err != nil {
			if p.err == nil {
				p.err = fmt.Errorf("publish %s: %w", what, err)
			}
			return
		}
		p.messages += ch.Revisions
	}
}

// add publishes a new entity.
func (p *publisher) add(ctx context.Context, v any) error {
	if err := p.batch.Create(ctx, v, p.done(fmt.Sprintf("%T", v))); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return p.err
}

// fixture publishes the revisions of a fixture of c.
func (p *publisher) fixture(ctx context.Context, c *model.Competition, j *fixtureJob) error {
	count := p.done(fmt.Sprintf("fixture %d", j.final.ID))
	err := p.batch.Fixture(ctx, c, j.final.ID, nil, func(*model.Fixture) ([]model.Fixture, error) { return j.states(), nil },
		func(ch editor.Change, err error) {
			count(ch, err)
			if err == nil {
				p.fixtures++
				p.report(false)
			}
		})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return p.err
}

// flush publishes everything still to come and waits for the stream.
func (p *publisher) flush(ctx context.Context) error {
	if err := p.batch.Flush(ctx); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	if p.err != nil {
		return p.err
	}
	p.report(true)
	return nil
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
