package editor

import (
	"context"
	"sort"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// AddFeed registers a feed for `ingest follow`. Its league, when given,
// must exist. The name of a removed feed may be given again: it starts
// afresh (its runtime state is kept per creation time).
func (e *Editor) AddFeed(ctx context.Context, f model.Feed) (Change, error) {
	f.Created = e.now().UTC()
	subject := events.Subject(events.KindFeed, f.Name)
	return e.run(ctx, func(ctx context.Context) (plan, error) {
		if f.League != "" {
			if _, err := e.League(ctx, f.League); err != nil {
				return plan{}, err
			}
		}
		cur, rev, err := load[model.Feed](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		if rev != nil && !cur.Removed {
			return plan{}, &model.Error{Code: model.Conflict, Field: "name", Value: f.Name,
				Message: "a feed of this name exists (remove it with `ingest feed remove`, or choose another name)"}
		}
		return e.newPlan(ctx, rev, &f)
	}, false)
}

// PauseFeed stops or (paused false) restarts the polls of a feed.
func (e *Editor) PauseFeed(ctx context.Context, name string, paused bool) (Change, error) {
	return e.editFeed(ctx, name, func(f *model.Feed) { f.Paused = paused })
}

// RemoveFeed stops a feed for good. What it published stays.
func (e *Editor) RemoveFeed(ctx context.Context, name string) (Change, error) {
	return e.editFeed(ctx, name, func(f *model.Feed) { f.Removed = true })
}

func (e *Editor) editFeed(ctx context.Context, name string, change func(*model.Feed)) (Change, error) {
	ch, _, err := update[model.Feed]{subject: events.Subject(events.KindFeed, name), field: "feed", key: name,
		change: func(f *model.Feed) error { change(f); return nil },
		then: func(_ context.Context, cur, _ *model.Feed) ([]any, error) {
			if cur.Removed {
				return nil, &model.Error{Code: model.NotFound, Field: "feed", Value: name, Message: "no such feed (it was removed)"}
			}
			return nil, nil
		}}.run(ctx, e)
	return ch, err
}

// Feeds lists every feed, removed ones included, by name.
func (e *Editor) Feeds(ctx context.Context) ([]model.Feed, error) {
	var out []model.Feed
	err := e.Store.Scan(ctx, events.All(events.KindFeed), func(ev events.Event) error {
		f, err := events.Decode[model.Feed](ev.Data)
		out = append(out, f)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Feed returns one feed, removed or not.
func (e *Editor) Feed(ctx context.Context, name string) (model.Feed, error) {
	f, _, err := mustLoad[model.Feed](ctx, e, events.Subject(events.KindFeed, name), "feed", name)
	if err != nil {
		return model.Feed{}, err
	}
	return *f, nil
}
