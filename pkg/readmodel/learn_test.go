package readmodel_test

import (
	"testing"

	"github.com/footdata/footballd/pkg/model"
)

// TestLearnedClientIsACacheOnly: a client learned from the stream's leader
// at a revision the model has not applied is found by its token while the
// published world is behind that revision; from then on the world alone
// decides, so a rotation or a revocation applied later wins, and a
// revision learned that the world has passed is ignored.
func TestLearnedClientIsACacheOnly(t *testing.T) {
	f := newFeed(t, t0)
	f.m.MarkReady()
	f.put(teams()...)
	client := func(name, token string, revoked bool) *model.Client {
		return &model.Client{Name: name, Tier: model.TierRegistered, PerMinute: 50, TokenHash: model.HashToken(token), Revoked: revoked}
	}
	steps := []struct {
		name   string
		do     func()
		tokens map[string]string // token → the client it should find, "" none
	}{
		{"nothing learned", func() {}, map[string]string{"aaa": ""}},
		// The pointer serves lookups: the model applies it as nothing,
		// and does not reject it.
		{"a token's pointer", func() { f.put(&model.ClientToken{TokenHash: model.HashToken("aaa"), Client: "acme"}) },
			map[string]string{"aaa": ""}},
		{"learned two revisions ahead", func() { f.m.LearnClient(*client("acme", "aaa", false), f.seq+2) },
			map[string]string{"aaa": "acme"}},
		{"an unrelated event, the world still behind", func() { f.put(&model.Team{ID: 6, Name: "Foxtrot FC"}) },
			map[string]string{"aaa": "acme"}},
		{"the writer applies the revision learned", func() { f.put(client("acme", "aaa", false)) },
			map[string]string{"aaa": "acme"}},
		{"rotated after", func() { f.put(client("acme", "bbb", false)) },
			map[string]string{"aaa": "", "bbb": "acme"}},
		{"a revision learned that the world has passed", func() { f.m.LearnClient(*client("acme", "aaa", false), f.seq-1) },
			map[string]string{"aaa": "", "bbb": "acme"}},
		{"another client learned one ahead", func() { f.m.LearnClient(*client("zed", "ccc", false), f.seq+1) },
			map[string]string{"ccc": "zed", "bbb": "acme"}},
		{"the writer applies it", func() { f.put(client("zed", "ccc", false)) },
			map[string]string{"ccc": "zed"}},
		{"revoked after", func() { f.put(client("zed", "ccc", true)) },
			map[string]string{"ccc": ""}},
		{"a revoked client learned is not found", func() { f.m.LearnClient(*client("yan", "ddd", true), f.seq+1) },
			map[string]string{"ddd": ""}},
	}
	for _, st := range steps {
		st.do()
		s := f.snap()
		for token, want := range st.tokens {
			c, ok := s.Client(model.HashToken(token))
			if ok != (want != "") || c.Name != want {
				t.Errorf("%s: token %s finds %q (%v), want %q", st.name, token, c.Name, ok, want)
			}
		}
	}
	if st := f.m.Stats(); st.DecodeErrors != 0 {
		t.Errorf("%d events rejected: %s", st.DecodeErrors, st.LastDecodeError)
	}
}
