package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestWebhookVerifiedByReplica: a replica verifies a new webhook's host
// when --webhook-allow lets it reach it, and does not even connect
// otherwise (retrying, as the host stays pending until given up).
func TestWebhookVerifiedByReplica(t *testing.T) {
	var asked atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, r.URL.Query().Get("fd_challenge"))
	}))
	defer recv.Close()
	tests := []struct {
		allow     string
		want      webhook.Status
		wantError string
		wantAsked int64
	}{
		{"127.0.0.1/32", webhook.Verified, "", 1},
		{"*.example.org", webhook.Pending, "not public and not in --webhook-allow", 0},
	}
	for _, tt := range tests {
		t.Run(tt.allow, func(t *testing.T) {
			asked.Store(0)
			r := startReplica(t, freePort(t), true, "--webhook-allow", tt.allow)
			s := r.store()
			addClient(t, s, "acme", model.TierRegistered, 50)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := model.Webhook{Name: "live", Client: "acme", URL: recv.URL + "/hook"}
			if _, _, err := natstest.Editor(t, s).AddWebhook(ctx, h); err != nil {
				t.Fatal(err)
			}
			created := natstest.All[model.Webhook](t, s, events.KindWebhook)[events.Subject(events.KindWebhook, "live")].Created
			for {
				states, err := webhook.ReadStates(ctx, s.Conn())
				if err != nil {
					t.Fatal(err)
				}
				st, _, err := states.Get(ctx, "live", created)
				if err != nil {
					t.Fatal(err)
				}
				if st.Status == tt.want && (st.Verification != "") == (tt.wantError != "") && strings.Contains(st.Verification, tt.wantError) {
					if got := asked.Load(); got != tt.wantAsked {
						t.Errorf("receiver asked %d times, want %d", got, tt.wantAsked)
					}
					return
				}
				if ctx.Err() != nil {
					t.Fatalf("state %+v, want %s", st, tt.want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
