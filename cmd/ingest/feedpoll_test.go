package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFeedPoll: `feed poll` has the follower holding a feed poll it at
// once, whatever its schedule (an hour here), and shows what the poll
// found; `feed resume` polls at once too; a paused feed, or no follower,
// is said so.
func TestFeedPoll(t *testing.T) {
	c := newCLI(t)
	path := seasonCopy(t)
	c.ok("feed", "add", "pl", "--format", "openfootball", "--url", "file://"+path, "--every", "1h", "--create-teams")
	stop := c.follow(t, "--admin-listen", "", "--lease", "1s", "--holder", "f1", "--feed-files", filepath.Dir(path))
	c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl")

	poll := func(want string) {
		t.Helper()
		start := time.Now()
		out := c.ok("feed", "poll", "pl")
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("feed poll: want %s in\n%s", want, out)
		}
		// The follower's round (a third of --lease) and the poll.
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("feed poll took %s, want a few seconds at most", took.Round(time.Millisecond))
		}
	}
	setResult(t, path, "3, 3")
	poll(`feed pl polled by f1 at 20\S+: changed, [1-9]\d* change\(s\) published\nnext poll: 20`)
	poll(`feed pl polled by f1 at 20\S+: not_modified, 0 change\(s\) published`)

	c.ok("feed", "pause", "pl")
	if code, _, errOut := c.run("feed", "poll", "pl"); code != exitInvalid || !strings.Contains(errOut, "is paused: only an active feed is polled (`ingest feed resume pl` polls a paused one at once)") {
		t.Errorf("feed poll of a paused feed: exit %d %s", code, errOut)
	}
	// Changed while paused: the poll at the resumption finds it.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(`{"ft": [3, 3]}`), []byte(`{"ft": [4, 4]}`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("feed", "resume", "pl"); !strings.Contains(out, "poll requested") {
		t.Errorf("feed resume:\n%s", out)
	}
	show := c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl")
	if !regexp.MustCompile(`next poll:\s+\S+`).MatchString(show) {
		t.Errorf("feed show after the resumption:\n%s", show)
	}

	stop()
	code, _, errOut := c.run("feed", "poll", "pl", "--wait", "1s")
	if code != exitFailure || !strings.Contains(errOut, "no follower polled feed pl within 1s: is `ingest follow` running?") {
		t.Errorf("feed poll with no follower: exit %d %s", code, errOut)
	}
}
