package main

import (
	"strings"
	"testing"
)

// TestFeedGuard: `feed add` warns at once of a URL the followers refuse
// unless told (it cannot see their flags), as `webhook add` does;
// `follow` refuses a bad --feed-allow or --feed-files in one line; and a
// follower run as docs/feeds.md says refuses the cloud metadata address
// and a file outside its folders, naming the flag that would allow them.
func TestFeedGuard(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct {
		name, url string
		warning   string // "": none
	}{
		{"metadata", "http://169.254.169.254/latest/meta-data/x.json",
			"warning: 169.254.169.254 is not a public address (link local (cloud metadata), RFC 3927): followers refuse it unless they run with --feed-allow naming it, such as --feed-allow 169.254.169.254/32"},
		{"admin", "http://127.0.0.1:9190/metrics", "(loopback, RFC 1122): followers refuse it unless they run with --feed-allow naming it, such as --feed-allow 127.0.0.1/32"},
		{"localhost", "http://localhost:8222/varz", "such as --feed-allow 127.0.0.1/32,::1/128"},
		{"shadow", "file:///etc/shadow", "warning: followers read a file URL only under the folders given to `ingest follow --feed-files`, such as --feed-files /etc"},
		{"public", "https://raw.githubusercontent.com/openfootball/football.json/master/2025-26/en.1.json", ""},
	} {
		code, _, errOut := c.run("feed", "add", tt.name, "--format", "openfootball", "--url", tt.url, "--league", "PL", "--season", "2025")
		if code != exitOK || !strings.Contains(errOut, tt.warning) || (tt.warning == "") != (errOut == "") || strings.Count(errOut, "\n") > 1 {
			t.Errorf("feed add %s: exit %d, stderr %q; want 0 and the warning %q", tt.url, code, errOut, tt.warning)
		}
	}
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"follow", "--feed-allow", "10.0.0.0/33"}, `--feed-allow "10.0.0.0/33": "10.0.0.0/33" is not a CIDR`},
		{[]string{"follow", "--feed-files", "/no/such/folder"}, `--feed-files "/no/such/folder"`},
	} {
		code, _, errOut := c.run(tt.args...)
		if code != exitInvalid || !strings.Contains(errOut, tt.err) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("ingest %s: exit %d, %q; want %d and one line naming %q", strings.Join(tt.args, " "), code, errOut, exitInvalid, tt.err)
		}
	}
	c.follow(t, "--lease", "1s", "--feed-files", t.TempDir())
	for name, want := range map[string]string{
		"metadata": `last error:.*address 169\.254\.169\.254 is not public and not in --feed-allow`,
		"admin":    `last error:.*address 127\.0\.0\.1 is not public and not in --feed-allow`,
		"shadow":   `last error:.*/etc/shadow is not under a folder given to --feed-files`,
	} {
		c.waitOutput(t, want, "feed", "show", name)
	}
}
