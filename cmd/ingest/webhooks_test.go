package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/nats-io/nats.go"
)

// replica runs what an API replica runs for webhooks against the CLI's
// server: a read model and a dispatcher allowed to reach loopback.
func (c *cli) replica(t *testing.T, change ...func(*webhook.Config)) *webhook.Dispatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	nc, err := nats.Connect(c.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := events.Open(ctx, nc, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	allow, _ := netguard.ParseAllow("127.0.0.0/8")
	cfg := webhook.Config{Conn: nc, Hooks: func() webhook.Hooks { return m.Snapshot() }, Allow: allow,
		PublicURL: "https://api.test", Scan: 20 * time.Millisecond}
	for _, ch := range change {
		ch(&cfg)
	}
	d, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2)
	go func() { _ = m.Run(ctx, store); done <- struct{}{} }()
	go func() { d.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done; nc.Close() })
	return d
}

// waitOutput runs a command until its output matches want.
func (c *cli) waitOutput(t *testing.T, want string, args ...string) string {
	t.Helper()
	re := regexp.MustCompile(want)
	var out string
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		if out = c.ok(args...); !re.MatchString(out) {
			return fmt.Errorf("ingest %s: output does not match %q:\n%s", strings.Join(args, " "), want, out)
		}
		return nil
	})
	return out
}

// liveSeq is past every edit a test makes: the events a test publishes
// itself stand for edits made after its webhooks were added (fan-out
// skips a webhook for the edits before its registration).
const liveSeq = 1 << 30

// secretOf is the signing secret webhook add printed.
func secretOf(t *testing.T, out string) string {
	m := regexp.MustCompile(`(?m)^secret: (whsec_\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no secret in %s", out)
	}
	return m[1]
}

func TestWebhookCommands(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, r.URL.Query().Get("fd_challenge"))
		}
	}))
	defer recv.Close()
	c.okf("client add acme --tier registered")
	c.okf("client add gone")
	c.okf("client revoke gone")

	out := c.okf("webhook add live --client acme --url " + recv.URL + "/hook --events Fixture.Update --competitions 1 --leagues pl")
	add := out
	for _, want := range []string{`webhook live created`, `url: "` + recv.URL + `/hook"`, `leagues\[0\]: "PL"`, `(?m)^secret: whsec_[A-Za-z0-9+/]{43}=\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("webhook add: output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "whsec_"); n != 1 {
		t.Errorf("webhook add shows the secret %d times:\n%s", n, out)
	}
	if out := c.okf("--dry-run webhook add other --client acme --url https://example.org/x"); !strings.Contains(out, "would be created") || strings.Contains(out, "whsec_") {
		t.Errorf("dry run: %s", out)
	}
	c.waitOutput(t, `(?m)^live\s+acme\s+\S+/hook\s+pending verification$`, "webhook", "list")

	d := c.replica(t)
	show := c.waitOutput(t, `state:\s+verified since`, "webhook", "show", "live")
	for _, want := range []string{`events:\s+Fixture.Update`, `competitions:\s+1\n`, `leagues:\s+PL\n`, `version:\s+v1\n`, `delivered:\s+0`, `circuit:\s+closed\n`} {
		if !regexp.MustCompile(want).MatchString(show) {
			t.Errorf("webhook show lacks %q:\n%s", want, show)
		}
	}
	ev := push.Event{Seq: liveSeq, Kind: push.FixtureUpdate, ID: 9, Competition: 1, League: "PL", Tier: model.TierAnonymous, Time: time.Now(),
		Updates: map[string][2]any{"status": {"TIMED", "IN_PLAY"}}}
	d.Publish([]push.Event{ev})
	show = c.waitOutput(t, `delivered:\s+1`, "webhook", "show", "live")
	if !regexp.MustCompile(`(?m)^\S+\s+` + strconv.Itoa(liveSeq) + `\.Fixture\.Update\.9\s+1\s+200\s+`).MatchString(show) {
		t.Errorf("webhook show lacks the last delivery:\n%s", show)
	}

	// The secret is shown once: never by show or history.
	for _, cmd := range []string{"show webhook live", "history webhook live"} {
		if out := c.okf(cmd); strings.Contains(out, secretOf(t, add)) || !strings.Contains(out, "whsec_(hidden)") {
			t.Errorf("ingest %s shows the signing secret:\n%s", cmd, out)
		}
	}

	// version v4: the events' URIs name v4's resources (cmd/api's
	// TestPushV4URIs follows a delivery).
	if out := c.okf("webhook add live4 --client acme --url " + recv.URL + "/v4 --version v4"); !strings.Contains(out, `version: "v4"`) {
		t.Errorf("webhook add --version v4: %s", out)
	}
	if show := c.okf("webhook show live4"); !regexp.MustCompile(`version:\s+v4\n`).MatchString(show) {
		t.Errorf("webhook show of a v4 webhook:\n%s", show)
	}

	c.okf("webhook remove live")
	c.waitOutput(t, `(?m)^live\s+acme\s+\S+\s+removed$`, "webhook", "list")
	// The name of a removed webhook may be given again.
	c.okf("webhook add live --client acme --url " + recv.URL + "/again")

	refusals := []struct {
		args string
		code int
		want string
	}{
		{"webhook add x --client acme --url ftp://example.org/x", exitInvalid, `url "ftp://example.org/x": must be an absolute http or https URL`},
		{"webhook add x --client acme --url /relative", exitInvalid, `url "/relative": must be an absolute http or https URL`},
		{"webhook add x --client acme --url https://user:pw@example.org/", exitInvalid, `url "https://user:pw@example.org/": must be`},
		{"webhook add x --client acme --url https://example.org/x --events Team.Update", exitInvalid, `events "Team.Update": must be Fixture.Update or Competition.Update`},
		{"webhook add x --client acme --url https://example.org/x --competitions 0", exitInvalid, `competitions "0": must be a positive whole number`},
		{"webhook add x --client acme --url https://example.org/x --competitions 99", exitNotFound, `competitions "99": no such competition`},
		{"webhook add x --client acme --url https://example.org/x --leagues ZZZ9", exitInvalid, `league "ZZZ9": is not a known league code`},
		{"webhook add x --client nobody --url https://example.org/x", exitNotFound, `client "nobody": no such client`},
		{"webhook add x --client gone --url https://example.org/x", exitInvalid, `client "gone": is revoked`},
		{"webhook add Bad! --client acme --url https://example.org/x", exitInvalid, `name "Bad!": must be 1 to 63`},
		{"webhook add live --client acme --url https://example.org/x", exitConflict, `a webhook of this name exists`},
		{"webhook add x y --client acme --url https://example.org/x", exitInvalid, `want one webhook NAME`},
		{"webhook add x --client acme --url https://example.org/x --version v2", exitInvalid, `version "v2": must be v1 or v4`},
		{"webhook show nobody", exitNotFound, `webhook "nobody": no such webhook`},
		{"webhook remove nobody", exitNotFound, `webhook "nobody": no such webhook`},
	}
	for _, tt := range refusals {
		code, _, errOut := c.run(strings.Fields(tt.args)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("ingest %s: exit %d %q, want %d with %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// A webhook whose receiver keeps failing is parked by the replicas, and
// `webhook show` says so, with the time of the next attempt.
func TestWebhookShowParked(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, r.URL.Query().Get("fd_challenge"))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer recv.Close()
	c.okf("client add acme --tier registered")
	c.okf("webhook add down --client acme --url " + recv.URL + "/hook")
	d := c.replica(t, func(cfg *webhook.Config) { cfg.CircuitAfter, cfg.Park = 1, time.Hour })
	c.waitOutput(t, `state:\s+verified since`, "webhook", "show", "down")
	for seq := uint64(liveSeq); seq <= liveSeq+1; seq++ {
		d.Publish([]push.Event{{Seq: seq, Kind: push.FixtureUpdate, ID: 9, Competition: 1, League: "PL", Tier: model.TierAnonymous, Time: time.Now(),
			Updates: map[string][2]any{"status": {"TIMED", "IN_PLAY"}}}})
	}
	c.waitOutput(t, `(?s)circuit:\s+open: parked after failed attempts in a row, until \S+Z, when one attempt probes the receiver\n.*failed attempts:\s+[12]\n.*put off while parked:\s+[1-9]`, "webhook", "show", "down")
}

// TestWebhookAddWarnsNotPublic: a webhook whose host is an address the
// replicas refuse unless allowed is registered, with a warning at once
// saying what to allow; a public or named host gets none.
func TestWebhookAddWarnsNotPublic(t *testing.T) {
	c := newCLI(t)
	c.okf("client add acme --tier registered")
	tests := []struct {
		url, warn string
	}{
		{"http://127.0.0.1:8999/football", "FD_WEBHOOK_ALLOW=127.0.0.1/32"},
		{"http://localhost:8999/football", "127.0.0.1/32,::1/128"},
		{"http://[::1]:8999/football", "FD_WEBHOOK_ALLOW=::1/128"},
		{"http://10.1.2.3/football", "FD_WEBHOOK_ALLOW=10.1.2.3/32"},
		{"http://[64:ff9b::7f00:1]/x", "64:ff9b::7f00:1/128"},
		{"https://hooks.acme.example/football", ""},
		{"https://203.0.114.7/football", ""},
	}
	for i, tt := range tests {
		code, out, errOut := c.run("webhook", "add", fmt.Sprintf("hook%d", i), "--client", "acme", "--url", tt.url)
		if code != exitOK || !strings.Contains(out, "secret: whsec_") {
			t.Fatalf("%s: exit %d\n%s%s", tt.url, code, out, errOut)
		}
		if (tt.warn == "") != (errOut == "") || !strings.Contains(errOut, tt.warn) || strings.Count(errOut, "\n") > 1 {
			t.Errorf("%s: stderr %q, want one warning line with %q", tt.url, errOut, tt.warn)
		}
	}
}
