package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/relay"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAdminListener: /metrics is on the admin listener only, with the
// build, readiness and in-flight series; /healthz and /readyz are on both.
func TestAdminListener(t *testing.T) {
	r := startReplica(t, "")
	r.do("GET", "/v1/competitions", nil)
	if status, _ := get(t, r.base+"/metrics"); status != 404 {
		t.Errorf("/metrics on the API port: %d, want 404", status)
	}
	status, body := get(t, r.admin+"/metrics")
	for _, want := range []string{"fd_http_requests_total", "fd_replay_duration_seconds", "fd_render_cache_total", `fd_build_info{commit="`,
		"fd_ready 1", "fd_http_in_flight_requests", "go_goroutines", "fd_webhook_retries_total", "fd_webhook_delivery_seconds_bucket"} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("admin /metrics lacks %s (%d)", want, status)
		}
	}
	for _, base := range []string{r.base, r.admin} {
		for _, p := range []string{"/healthz", "/readyz"} {
			if status, _ := get(t, base+p); status != 200 {
				t.Errorf("%s%s: %d", base, p, status)
			}
		}
	}
}

// TestWaitsForNATS: a replica started before its NATS server answers 503
// and says in its log and in /readyz why it waits: first NATS unreachable,
// then the stream not set up (and what to run); it changes nothing in
// NATS itself. Once an operator sets the stream up it replays and serves.
func TestWaitsForNATS(t *testing.T) {
	natsAt := relay.Start(t)
	natsAddr := natsAt.Addr()
	r := launch(t, "--listen", "127.0.0.1:0", "--admin-listen", "", "--nats", "nats://"+natsAddr, "--drain", "0s")
	logs := r.logs
	readyz := func(what string, status int, want string) func() error {
		return func() error {
			got, body := get(t, r.base+"/readyz")
			if got != status || !strings.Contains(body, want) {
				return fmt.Errorf("%s: /readyz %d %s\n%s", what, got, body, logs.String())
			}
			return nil
		}
	}
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		if out := logs.String(); !strings.Contains(out, "not reachable") {
			return fmt.Errorf("no word of NATS unreachable:\n%s", out)
		}
		return nil
	})
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, readyz("/readyz does not say NATS is unreachable", 503, `"status":"waiting","reason":"nats at nats://`+natsAddr+` not reachable`))
	if status, body := get(t, r.base+"/v1/competitions"); status != 503 || !strings.Contains(body, "starting") {
		t.Errorf("while waiting for NATS: %d %s", status, body)
	}
	ns, err := natsembed.Start(natsembed.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Stop()
	natsAt.Forward(ns.Addr().String())
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, readyz("/readyz does not say the stream is not set up", 503, "stream FOOTBALL: not set up: an operator runs `ingest stream init`"))
	if !strings.Contains(logs.String(), "ingest stream init") {
		t.Errorf("the log does not say what to run:\n%s", logs.String())
	}
	// The replica created nothing: not the stream, not a bucket.
	nc, err := nats.Connect(ns.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if names := js.StreamNames(context.Background()); names.Err() == nil {
		for name := range names.Name() {
			t.Errorf("the waiting replica created stream %s", name)
		}
	}
	natstest.MustProvision(t, ns.URL(), events.StreamConfig{})
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, readyz("not ready after the stream was set up", 200, ""))
	if !strings.Contains(logs.String(), `"msg":"nats ready"`) || !strings.Contains(logs.String(), `"msg":"configuration"`) {
		t.Errorf("log lacks the connection or the configuration:\n%s", logs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line is not JSON: %s", line)
		}
	}
}

// TestWebhookFlags: a bad webhook flag stops the replica at start with a
// message naming it.
func TestWebhookFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--webhook-allow", "10.0.0.0/33"}, `--webhook-allow "10.0.0.0/33"`},
		{[]string{"--webhook-allow", "*"}, `--webhook-allow "*"`},
		{[]string{"--webhook-workers", "0"}, `--webhook-workers "0": must be a whole number, at least 1`},
		{[]string{"--webhook-timeout", "10"}, `--webhook-timeout "10": must be a duration from 1s to 1m`},
		{[]string{"--webhook-timeout", "2m"}, `--webhook-timeout "2m"`},
	}
	for _, tt := range tests {
		_, err := parseConfig(tt.args, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
	}
	cfg, err := parseConfig(nil, func(k string) string { return map[string]string{"FD_WEBHOOK_ALLOW": "127.0.0.1, *.example.org"}[k] }, io.Discard)
	if err != nil || cfg.webhookAllow.String() != "127.0.0.1/32,*.example.org" || cfg.webhookWorkers != 16 || cfg.webhookTimeout != 10*time.Second {
		t.Errorf("defaults and FD_WEBHOOK_ALLOW: %+v, %v", cfg, err)
	}
}

// TestWaitsForARight: a replica whose NATS user lacks a right it needs
// waits, and says in /readyz and its log which user may not publish to
// which subject and what to do; every line it writes is JSON, the NATS
// client's own errors included.
func TestWaitsForARight(t *testing.T) {
	denied := "$JS.API.STREAM.INFO.KV_FD_LIMITS"
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(),
		NoSigs: true, NoLog: true, Users: []*server.User{{Username: "admin", Password: "a"},
			{Username: "api", Password: "b", Permissions: &server.Permissions{Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{denied}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	hostport := strings.TrimPrefix(srv.ClientURL(), "nats://")
	natstest.MustProvision(t, "nats://admin:a@"+hostport, events.StreamConfig{})

	r := launch(t, "--listen", "127.0.0.1:0", "--admin-listen", "", "--nats", "nats://api:b@"+hostport, "--drain", "0s")
	defer func() {
		// Stopped while it waits, run ends with the reason it never
		// served: this test's point, not its failure.
		r.cancel()
		<-r.done
		r.done <- nil // for the cleanup's stop
	}()
	logs := r.logs
	want := `NATS user api may not publish to \"` + denied + `\"`
	natstest.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
		var status int
		var body []byte
		resp, err := http.Get(r.base + "/readyz")
		if err == nil {
			status = resp.StatusCode
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if status != 503 || !strings.Contains(string(body), want) || !strings.Contains(string(body), "auth.conf") {
			return fmt.Errorf("/readyz: %d %s (%v), want the user, the subject and what to do\n%s", status, body, err, logs.String())
		}
		return nil
	})
	if !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say which right is missing:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "nats not reachable") || strings.Contains(logs.String(), "not reachable") {
		t.Errorf("the log says NATS is unreachable; it was reachable:\n%s", logs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line is not JSON: %s", line)
		}
	}
}

// TestReplaysShareGOGC: replicas replaying side by side in one process
// (as in these tests) raise GOGC once and put back what it was when the
// last replay ends; each saving and restoring its own left the process
// at the replay's 400 when the second saved the first's.
func TestReplaysShareGOGC(t *testing.T) {
	gogc := func() int { v := debug.SetGCPercent(0); debug.SetGCPercent(v); return v }
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	replayStarted()
	replayStarted()
	replayEnded()
	if got := gogc(); got != replayGCPercent {
		t.Errorf("one of two replays ended: GOGC %d, want %d", got, replayGCPercent)
	}
	replayEnded()
	if got := gogc(); got != 100 {
		t.Errorf("both replays ended: GOGC %d, want 100", got)
	}
}
