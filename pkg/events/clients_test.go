package events_test

import (
	"testing"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestClientByToken: a token's pointer leads to its client only while the
// client holds that token and is active; the client's own subject decides.
func TestClientByToken(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	ctx := ctxT(t)
	ed := natstest.Editor(t, s)
	client := func(name string) model.Client {
		return model.Client{Name: name, Tier: model.TierRegistered, PerMinute: 50}
	}
	added, addCh, err := ed.AddClient(ctx, client("acme"))
	if err != nil {
		t.Fatal(err)
	}
	// A second client of the name fails after its pointer is written.
	refused, _, err := ed.AddClient(ctx, client("acme"))
	if model.ErrorCode(err) != model.Conflict {
		t.Fatalf("second acme: %v, want a conflict", err)
	}
	old, _, err := ed.AddClient(ctx, client("rotated"))
	if err != nil {
		t.Fatal(err)
	}
	rotated, rotCh, err := ed.RotateClient(ctx, "rotated")
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := ed.AddClient(ctx, client("revoked"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.RevokeClient(ctx, "revoked"); err != nil {
		t.Fatal(err)
	}
	// A client written by an editor from before the pointers has none.
	legacy := client("legacy")
	legacy.TokenHash = model.HashToken("legacytoken")
	natstest.Put(t, s, &legacy)

	tests := []struct {
		name     string
		hash     string
		wantName string // "" for not found
		wantSeq  uint64
	}{
		{"added", model.HashToken(added), "acme", addCh.Seq},
		{"add refused as a conflict", model.HashToken(refused), "", 0},
		{"rotated, the old token", model.HashToken(old), "", 0},
		{"rotated, the new token", model.HashToken(rotated), "rotated", rotCh.Seq},
		{"revoked", model.HashToken(revoked), "", 0},
		{"no pointer", legacy.TokenHash, "", 0},
		{"never issued", model.HashToken("nobody"), "", 0},
		{"a wildcard is no hash", "*", "", 0},
		{"upper-case hex is no hash", "A" + model.HashToken(added)[1:], "", 0},
	}
	for _, tt := range tests {
		c, seq, err := s.ClientByToken(ctx, tt.hash)
		switch {
		case tt.wantName == "" && model.ErrorCode(err) != model.NotFound:
			t.Errorf("%s: %+v %d %v, want not found", tt.name, c, seq, err)
		case tt.wantName != "" && (err != nil || c.Name != tt.wantName || seq != tt.wantSeq || c.TokenHash != tt.hash):
			t.Errorf("%s: %+v at %d, %v; want %s at %d", tt.name, c, seq, err, tt.wantName, tt.wantSeq)
		}
	}
}

// BenchmarkClientByToken is the lookup a replica makes for a token it has
// not applied: one leader read for a token nobody holds, two for a client's.
func BenchmarkClientByToken(b *testing.B) {
	s := natstest.MustOpen(b, natstest.MustStart(b))
	token, _, err := natstest.Editor(b, s).AddClient(b.Context(), model.Client{Name: "acme", Tier: model.TierRegistered, PerMinute: 50})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		hash string
		want model.Code
	}{{"unknown", model.HashToken("nobody"), model.NotFound}, {"found", model.HashToken(token), ""}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.ClientByToken(b.Context(), bc.hash); model.ErrorCode(err) != bc.want {
					b.Fatal(err)
				}
			}
		})
	}
}
