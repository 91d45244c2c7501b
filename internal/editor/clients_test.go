package editor_test

import (
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestEveryTokenIssuedIsPointedAtItsClient: adding a client and rotating
// its token each write the token's pointer, before the client; a dry run
// writes neither.
func TestEveryTokenIssuedIsPointedAtItsClient(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)
	ed := natstest.Editor(t, s)
	acme := model.Client{Name: "acme", Tier: model.TierRegistered, PerMinute: 50}

	dry := natstest.Editor(t, s)
	dry.DryRun = true
	if _, _, err := dry.AddClient(ctx, acme); err != nil {
		t.Fatal(err)
	}
	if ptrs := natstest.All[model.ClientToken](t, s, events.KindClientToken); len(ptrs) != 0 {
		t.Fatalf("a dry run wrote pointers: %v", ptrs)
	}
	added, addCh, err := ed.AddClient(ctx, acme)
	if err != nil {
		t.Fatal(err)
	}
	rotated, _, err := ed.RotateClient(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	ptrs := natstest.All[model.ClientToken](t, s, events.KindClientToken)
	for _, token := range []string{added, rotated} {
		subject := events.Subject(events.KindClientToken, model.HashToken(token))
		if p, ok := ptrs[subject]; !ok || p.Client != "acme" || p.TokenHash != model.HashToken(token) {
			t.Errorf("%s: %+v %v, want a pointer to acme", subject, p, ok)
		}
	}
	if len(ptrs) != 2 {
		t.Errorf("%d pointers, want 2: %v", len(ptrs), ptrs)
	}
	ptr, err := s.Get(ctx, events.Subject(events.KindClientToken, model.HashToken(added)))
	if err != nil || ptr.Seq >= addCh.Seq {
		t.Errorf("the pointer of the token added is at %d (%v), want before the client's %d", ptr.Seq, err, addCh.Seq)
	}
}
