package editor

import (
	"context"
	"sort"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// AddClient registers an API client and returns its token, which is stored
// only as a hash and so can never be shown again.
func (e *Editor) AddClient(ctx context.Context, c model.Client) (token string, ch Change, err error) {
	if token, err = model.NewToken(); err != nil {
		return "", Change{}, err
	}
	c.TokenHash = model.HashToken(token)
	if err := c.Validate(); err != nil {
		return "", Change{}, err
	}
	_, prev, err := current[model.Client](ctx, e.Store, events.Subject(events.KindClient, c.Name))
	if err != nil {
		return "", Change{}, err
	}
	if prev != nil {
		return "", Change{}, &model.Error{Code: model.Conflict, Field: "name", Value: c.Name,
			Message: "a client of this name exists (revoke it first, or choose another name)"}
	}
	ch, err = e.put(ctx, &c, nil)
	return token, ch, err
}

// RevokeClient disables a client's token for good.
func (e *Editor) RevokeClient(ctx context.Context, name string) (Change, error) {
	c, prev, err := mustExist[model.Client](ctx, e.Store, events.Subject(events.KindClient, name), "client", name)
	if err != nil {
		return Change{}, err
	}
	c.Revoked = true
	return e.put(ctx, &c, prev)
}

// Clients lists every client, revoked ones included, by name.
func (e *Editor) Clients(ctx context.Context) ([]model.Client, error) {
	var out []model.Client
	err := e.Store.Scan(ctx, events.All(events.KindClient), func(ev events.Event) error {
		c, err := events.Decode[model.Client](ev.Data)
		out = append(out, c)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}
