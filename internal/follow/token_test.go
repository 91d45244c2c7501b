package follow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/livefake"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/model"
)

// TestTokensOnlyWhereTheOperatorSays: a live feed's token goes to the
// feed's host, which editors choose, so a follower reads a token file
// only under --token-files and a variable only if --token-vars lists it;
// otherwise the feed fails naming the flag and nothing is sent at all.
// Before, `--token-file /etc/shadow` (or `--token-env FD_NATS_URL`) sent
// the file's first line (the NATS password) to any public host.
func TestTokensOnlyWhereTheOperatorSays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "football-data.token")
	if err := os.WriteFile(good, []byte(fdoToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		file, env   string
		files, vars []string
		err         string // "" for a feed that polls
	}{
		{"a file outside the folders", secret, "", []string{dir}, nil, "is not under a folder given to --token-files"},
		{"a link out of the folder", filepath.Join(dir, "link"), "", []string{dir}, nil, "is not under a folder given to --token-files"},
		{"files with no folder given", good, "", nil, nil, "this follower has none"},
		{"a variable not listed", "", "FD_NATS_URL", nil, []string{"FD_TEST_TOKEN"}, "FD_NATS_URL is not one given to `ingest follow --token-vars`"},
		{"a file in the folder", good, "", []string{dir}, nil, ""},
		{"a variable listed", "", "FD_TEST_TOKEN", nil, []string{"FD_TEST_TOKEN"}, ""},
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			fk, err := livefake.NewFootballDataOrg(fdoToken, livefake.FootballDataOrgFreePlan)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = fk.Close() })
			ed := natstest.Editor(t, w.store)
			fd := model.Feed{Name: "v4", Format: "football-data-org", URL: fk.URL, Competitions: []model.LeagueCode{"PL"},
				TokenFile: tt.file, TokenEnv: tt.env, EverySeconds: 600, CreateTeams: true}
			if _, err := ed.AddFeed(w.ctx, fd); err != nil {
				t.Fatal(err)
			}
			if fd, err = ed.Feed(w.ctx, "v4"); err != nil {
				t.Fatal(err)
			}
			w.start("f1", func(c *follow.Config) {
				roomy(c)
				c.TokenFiles, c.TokenVars = tt.files, tt.vars
				c.Getenv = func(k string) string {
					return map[string]string{"FD_TEST_TOKEN": fdoToken, "FD_NATS_URL": "nats://ingest:hunter2@nats:4222"}[k]
				}
			})
			st := w.waitStatusIn(t, fd, "a poll", func(st follow.Status) bool { return !st.LastFetch.IsZero() })
			calls := 0
			for _, n := range fk.Calls() {
				calls += n
			}
			switch {
			case tt.err != "" && (!strings.Contains(st.LastError, tt.err) || calls != 0):
				t.Errorf("last error %q after %d calls; want %q and no call", st.LastError, calls, tt.err)
			case tt.err == "" && (st.LastError != "" || calls == 0):
				t.Errorf("last error %q after %d calls; want the feed polled", st.LastError, calls)
			}
		})
	}
}
