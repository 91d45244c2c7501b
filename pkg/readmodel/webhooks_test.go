package readmodel_test

import (
	"context"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// Webhooks and their clients by name, as the webhook dispatcher reads
// them: removed webhooks stay (marked), revoked clients go.
func TestWebhooksAndClientsByName(t *testing.T) {
	store := natstest.MustOpen(t, natstest.MustStart(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = m.Run(runCtx, store) }()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	secret, _ := model.NewWebhookSecret()
	hook := func(name, client string, removed bool) *model.Webhook {
		return &model.Webhook{Name: name, Client: client, URL: "https://example.org/" + name, Secret: secret, Created: time.Unix(1, 0), Removed: removed}
	}
	natstest.Put(t, store,
		&model.Client{Name: "acme", Tier: model.TierDonating, PerMinute: 1, TokenHash: model.HashToken("a")},
		&model.Client{Name: "old", Tier: model.TierRegistered, PerMinute: 1, TokenHash: model.HashToken("b")},
		hook("zeta", "acme", false), hook("alpha", "acme", false), hook("mid", "old", false))
	seq := natstest.Put(t, store,
		&model.Client{Name: "old", Tier: model.TierRegistered, PerMinute: 1, TokenHash: model.HashToken("b"), Revoked: true},
		hook("mid", "old", true))
	s := waitSeq(ctx, t, m, seq)
	if c, ok := s.ClientNamed("acme"); !ok || c.Tier != model.TierDonating {
		t.Errorf("ClientNamed(acme) = %+v, %v", c, ok)
	}
	if _, ok := s.ClientNamed("old"); ok {
		t.Errorf("a revoked client is found by name")
	}
	var got []string
	for _, w := range s.Webhooks() {
		name := w.Name
		if w.Removed {
			name += " (removed)"
		}
		got = append(got, name)
	}
	if want := []string{"alpha", "mid (removed)", "zeta"}; !equalLines(got, want) {
		t.Errorf("Webhooks() = %q, want %q", got, want)
	}
}
