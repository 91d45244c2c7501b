package editor

import (
	"context"
	"sort"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// AddClient registers an API client and returns its token, which is stored
// only as a hash and so can never be shown again. The name of a revoked
// client may be given again. The token's pointer (model.ClientToken) is
// written before the client, so that once AddClient returns, a replica
// that has not applied the client yet finds it from the token.
func (e *Editor) AddClient(ctx context.Context, c model.Client) (token string, ch Change, err error) {
	if token, err = model.NewToken(); err != nil {
		return "", Change{}, err
	}
	c.TokenHash = model.HashToken(token)
	subject := events.Subject(events.KindClient, c.Name)
	ch, err = e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.Client](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		if rev != nil && !cur.Revoked {
			return plan{}, &model.Error{Code: model.Conflict, Field: "name", Value: c.Name,
				Message: "a client of this name exists (rotate its token with `ingest client rotate`, revoke it, or choose another name)"}
		}
		if err := e.pointToken(ctx, c.TokenHash, c.Name); err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, &c)
	}, false)
	return token, ch, err
}

// RevokeClient disables a client's token for good.
func (e *Editor) RevokeClient(ctx context.Context, name string) (Change, error) {
	return e.editClient(ctx, name, func(c *model.Client) error {
		c.Revoked = true
		return nil
	})
}

// RotateClient gives a client a new token, shown once; the old one stops
// working as soon as the replicas have the change, the new one at once (its
// pointer is written first, as AddClient's).
func (e *Editor) RotateClient(ctx context.Context, name string) (token string, ch Change, err error) {
	if token, err = model.NewToken(); err != nil {
		return "", Change{}, err
	}
	ch, err = e.editClient(ctx, name, func(c *model.Client) error {
		if c.Revoked {
			return model.Invalidf("name", name, "the client is revoked: add it again with `ingest client add`")
		}
		c.TokenHash = model.HashToken(token)
		return e.pointToken(ctx, c.TokenHash, name)
	})
	return token, ch, err
}

// pointToken writes the pointer from a token's hash to the client it is
// being issued to. It goes first: a pointer whose client write then fails
// leads nowhere (events.Store.ClientByToken checks the client), whereas a
// client without its pointer would work on a lagging replica only once that
// replica applied it. A pointer is never changed: every token is new.
func (e *Editor) pointToken(ctx context.Context, hash, client string) error {
	ptr := model.ClientToken{TokenHash: hash, Client: client}
	_, err := e.run(ctx, func(ctx context.Context) (plan, error) { return e.newPlan(ctx, nil, &ptr) }, false)
	return err
}

func (e *Editor) editClient(ctx context.Context, name string, change func(*model.Client) error) (Change, error) {
	ch, _, err := update[model.Client]{subject: events.Subject(events.KindClient, name), field: "client", key: name, change: change}.run(ctx, e)
	return ch, err
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
