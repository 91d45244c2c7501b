package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
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
	r := startReplica(t, natstest.FreeAddr(t), true)
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
// and says in its log that it waits; once NATS is up it replays and serves.
func TestWaitsForNATS(t *testing.T) {
	natsAddr := natstest.FreeAddr(t)
	addr := natstest.FreeAddr(t)
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", addr, "--admin-listen", "", "--nats", "nats://" + natsAddr, "--drain", "0s"},
			func(string) string { return "" }, io.Discard, logs)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "nats not reachable yet; retrying") {
		if time.Now().After(deadline) {
			t.Fatalf("no word of waiting for NATS:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, body := get(t, "http://"+addr+"/v1/competitions"); status != 503 || !strings.Contains(body, "starting") {
		t.Errorf("while waiting for NATS: %d %s", status, body)
	}
	host, port, _ := net.SplitHostPort(natsAddr)
	p, _ := strconv.Atoi(port)
	ns, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), Host: host, Port: p})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Stop()
	for {
		if status, _ := get(t, "http://"+addr+"/readyz"); status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after NATS came up:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `"msg":"connected to nats"`) || !strings.Contains(logs.String(), `"msg":"configuration"`) {
		t.Errorf("log lacks the connection or the configuration:\n%s", logs.String())
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
