package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
			r := startReplica(t, "", "--webhook-allow", tt.allow)
			s := r.store()
			addClient(t, s, "acme", model.TierRegistered, 50)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := model.Webhook{Name: "live", Client: "acme", URL: recv.URL + "/hook"}
			if _, _, err := natstest.Editor(t, s).AddWebhook(ctx, h); err != nil {
				t.Fatal(err)
			}
			created := natstest.All[model.Webhook](t, s, events.KindWebhook)[events.Subject(events.KindWebhook, "live")].Created
			natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
				states, err := webhook.ReadStates(ctx, s.Conn())
				var st webhook.State
				if err == nil {
					st, _, err = states.Get(ctx, "live", created)
				}
				if err != nil || st.Status != tt.want || (st.Verification != "") != (tt.wantError != "") || !strings.Contains(st.Verification, tt.wantError) {
					return fmt.Errorf("webhook state %+v (%v), want %s with verification error %q", st, err, tt.want, tt.wantError)
				}
				return nil
			})
			if got := asked.Load(); got != tt.wantAsked {
				t.Errorf("receiver asked %d times, want %d", got, tt.wantAsked)
			}
		})
	}
}

// hookReceiver records what a webhook endpoint gets, checking each
// signature as a Standard Webhooks receiver does.
type hookReceiver struct {
	srv     *httptest.Server
	secret  atomic.Value // string
	arrived chan hookDelivery
}

type hookDelivery struct {
	id     string
	body   string
	signed bool
	at     time.Time
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{arrived: make(chan hookDelivery, 100)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, r.URL.Query().Get("fd_challenge"))
			return
		}
		body, _ := io.ReadAll(r.Body)
		secret, _ := h.secret.Load().(string)
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		mac := hmac.New(sha256.New, key)
		fmt.Fprintf(mac, "%s.%s.%s", r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body)
		want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
		h.arrived <- hookDelivery{id: r.Header.Get("webhook-id"), body: string(body), signed: r.Header.Get("webhook-signature") == want, at: time.Now()}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// TestWebhookDeliversEdits: an edit made while two replicas run reaches a
// verified webhook as the events it caused, each once, signed, with the
// public URL; a restricted competition's events do not reach a client
// below its tier.
func TestWebhookDeliversEdits(t *testing.T) {
	flags := []string{"--now", "2026-03-14T17:00:00Z", "--public-url", "https://api.example.org", "--webhook-allow", "127.0.0.1/32"}
	a := startReplica(t, "", flags...)
	b := startReplica(t, a.nats, flags...)
	s := a.store()
	ed, f := smallWorld(t, s)
	ctx := context.Background()
	_, gold, err := ed.PutCompetition(ctx, 0, func(c *model.Competition) error {
		*c = model.Competition{League: "CL", Year: 2025, Caption: "Gold Cup 2025/26", Type: model.TypeLeague, NumberOfMatchdays: 2,
			Tier: model.TierDonating, Teams: []model.CompetitionTeam{{TeamID: f.HomeTeamID}, {TeamID: f.AwayTeamID}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, goldFixture, err := ed.PutFixture(ctx, 0, false, func(g *model.Fixture) error {
		*g = f
		g.ID, g.CompetitionID = 0, gold.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	addClient(t, s, "reg", model.TierRegistered, 1000)
	recv := newHookReceiver(t)
	secret, _, err := ed.AddWebhook(ctx, model.Webhook{Name: "live", Client: "reg", URL: recv.srv.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	recv.secret.Store(secret)
	a.waitApplied(s)
	b.waitApplied(s)
	created := natstest.All[model.Webhook](t, s, events.KindWebhook)[events.Subject(events.KindWebhook, "live")].Created
	waitWebhook(t, s.Conn(), created, webhook.Verified)

	// The restricted competition's edit first: the webhook's first
	// delivery must be the public one.
	setResult(t, ed, goldFixture.ID, 0, 1)
	start := time.Now()
	setResult(t, ed, f.ID, 2, 1)
	want := map[string]string{
		"/v1/fixtures/" + strconv.Itoa(f.ID):                `"Updates":{"goalsAwayTeam":[null,1],"goalsHomeTeam":[null,2],"status":["TIMED","IN_PLAY"]}`,
		"/v1/competitions/" + strconv.Itoa(f.CompetitionID): `"Resource":"Competition"`,
	}
	// How many events an edit gives is the derivation's business: take
	// what comes until the wanted ones are in and a second passes quietly.
	// That second is a window in which a duplicate or restricted delivery
	// would show, not a wait for something to happen: nothing ends it
	// sooner.
	restricted := []string{"/v1/fixtures/" + strconv.Itoa(goldFixture.ID) + `"`, "/v1/competitions/" + strconv.Itoa(gold.ID) + `"`}
	seen := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for len(want) > 0 || len(seen) == 0 || time.Now().Before(deadline) {
		select {
		case d := <-recv.arrived:
			if len(seen) == 0 {
				t.Logf("edit → first webhook delivery on loopback: %s", d.at.Sub(start))
			}
			if seen[d.id] || !d.signed || !strings.Contains(d.body, `"URI":"https://api.example.org/v1/`) ||
				strings.Contains(d.body, restricted[0]) || strings.Contains(d.body, restricted[1]) {
				t.Errorf("delivery %s (signed %v, seen before %v): %s", d.id, d.signed, seen[d.id], d.body)
			}
			seen[d.id] = true
			for uri, part := range want {
				if strings.Contains(d.body, uri+`"`) && strings.Contains(d.body, part) {
					delete(want, uri)
				}
			}
			if len(want) == 0 {
				deadline = time.Now().Add(time.Second)
			}
		case <-time.After(time.Until(deadline)):
			if len(want) > 0 {
				t.Fatalf("deliveries so far %v; none yet with %v", seen, want)
			}
		}
	}
}
