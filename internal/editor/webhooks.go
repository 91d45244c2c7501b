package editor

import (
	"context"
	"sort"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// AddWebhook registers a client's webhook and returns its signing secret,
// which the editor passes on to the client. The client must exist and not
// be revoked; the competitions and leagues asked for must exist. The name
// of a removed webhook may be given again.
func (e *Editor) AddWebhook(ctx context.Context, w model.Webhook) (secret string, ch Change, err error) {
	if secret, err = model.NewWebhookSecret(); err != nil {
		return "", Change{}, err
	}
	w.Secret, w.Created = secret, e.now().UTC()
	subject := events.Subject(events.KindWebhook, w.Name)
	ch, err = e.run(ctx, func(ctx context.Context) (plan, error) {
		if err := e.checkWebhookRefs(ctx, &w); err != nil {
			return plan{}, err
		}
		cur, rev, err := load[model.Webhook](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		if rev != nil && !cur.Removed {
			return plan{}, &model.Error{Code: model.Conflict, Field: "name", Value: w.Name,
				Message: "a webhook of this name exists (remove it with `ingest webhook remove`, or choose another name)"}
		}
		return e.newPlan(ctx, rev, &w)
	}, false)
	return secret, ch, err
}

// checkWebhookRefs checks what a new webhook refers to: its client, its
// competitions and its leagues.
func (e *Editor) checkWebhookRefs(ctx context.Context, w *model.Webhook) error {
	c, _, err := mustLoad[model.Client](ctx, e, events.Subject(events.KindClient, w.Client), "client", w.Client)
	if err != nil {
		return err
	}
	if c.Revoked {
		return model.Invalidf("client", w.Client, "is revoked")
	}
	for _, id := range w.Competitions {
		_, rev, err := e.loadCompetition(ctx, id)
		if err != nil {
			return err
		}
		if rev == nil {
			return &model.Error{Code: model.NotFound, Field: "competitions", Value: strconv.Itoa(id), Message: "no such competition"}
		}
	}
	for _, l := range w.Leagues {
		if _, err := e.League(ctx, l); err != nil {
			return err
		}
	}
	return nil
}

// RemoveWebhook stops a webhook for good: nothing more is delivered to it.
func (e *Editor) RemoveWebhook(ctx context.Context, name string) (Change, error) {
	ch, _, err := update[model.Webhook]{subject: events.Subject(events.KindWebhook, name), field: "webhook", key: name,
		change: func(w *model.Webhook) error { w.Removed = true; return nil },
		then: func(_ context.Context, cur, _ *model.Webhook) ([]any, error) {
			if cur.Removed {
				return nil, &model.Error{Code: model.NotFound, Field: "webhook", Value: name, Message: "no such webhook (it was removed)"}
			}
			return nil, nil
		}}.run(ctx, e)
	return ch, err
}

// Webhooks lists every webhook, removed ones included, by name.
func (e *Editor) Webhooks(ctx context.Context) ([]model.Webhook, error) {
	var out []model.Webhook
	err := e.Store.Scan(ctx, events.All(events.KindWebhook), func(ev events.Event) error {
		w, err := events.Decode[model.Webhook](ev.Data)
		out = append(out, w)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Webhook returns one webhook, removed or not.
func (e *Editor) Webhook(ctx context.Context, name string) (model.Webhook, error) {
	w, _, err := mustLoad[model.Webhook](ctx, e, events.Subject(events.KindWebhook, name), "webhook", name)
	if err != nil {
		return model.Webhook{}, err
	}
	return *w, nil
}
