package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestPushV4URIs: an event stream opened with version=v4 and a webhook
// registered with version v4 get the same events as v1's, their URIs
// naming the v4 resources: the match, and the standings of the
// competition's season by league code. Without a version, v1's.
func TestPushV4URIs(t *testing.T) {
	r := startReplica(t, "", "--now", "2026-03-14T17:00:00Z", "--public-url", "https://api.example.org",
		"--webhook-allow", "127.0.0.1/32")
	s := r.store()
	ed, f := smallWorld(t, s)
	ctx := context.Background()
	token := addClient(t, s, "reg", model.TierRegistered, 1000)
	base := "https://api.example.org"
	rows := []struct {
		name, query, version string
		fixture, competition string
	}{
		{"v1 by default", "", "", base + "/v1/fixtures/" + strconv.Itoa(f.ID), base + "/v1/competitions/" + strconv.Itoa(f.CompetitionID)},
		{"v1", "?version=v1", "v1", base + "/v1/fixtures/" + strconv.Itoa(f.ID), base + "/v1/competitions/" + strconv.Itoa(f.CompetitionID)},
		{"v4", "?version=v4", "v4", base + "/v4/matches/" + strconv.Itoa(f.ID), base + "/v4/competitions/PL/standings?season=2025"},
	}
	streams := make([]*eventStream, len(rows))
	receivers := make([]*hookReceiver, len(rows))
	for i, row := range rows {
		streams[i] = r.openStream(t, row.query, map[string]string{"X-Auth-Token": token})
		receivers[i] = newHookReceiver(t)
		name := "hook" + strconv.Itoa(i)
		h := model.Webhook{Name: name, Client: "reg", URL: receivers[i].srv.URL + "/hook", Version: row.version}
		if row.version == "v1" {
			// ingest stores v1 as no version; the replica reads both so.
			h.Version = ""
		}
		secret, _, err := ed.AddWebhook(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		receivers[i].secret.Store(secret)
	}
	r.waitApplied(s)
	hooks := natstest.All[model.Webhook](t, s, events.KindWebhook)
	for i := range rows {
		name := "hook" + strconv.Itoa(i)
		created := hooks[events.Subject(events.KindWebhook, name)].Created
		natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
			states, err := webhook.ReadStates(ctx, s.Conn())
			if err != nil {
				return err
			}
			if st, _, err := states.Get(ctx, name, created); err != nil || st.Status != webhook.Verified {
				return fmt.Errorf("webhook %s: state %+v, %v; want verified", name, st, err)
			}
			return nil
		})
	}

	setResult(t, ed, f.ID, 2, 1)
	uris := func(body string) string {
		_, rest, _ := strings.Cut(body, `"URI":"`)
		uri, _, _ := strings.Cut(rest, `"`)
		return uri
	}
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			want := map[string]string{"Fixture.Update": row.fixture, "Competition.Update": row.competition}
			got := map[string]string{}
			for len(got) < len(want) {
				m, ok := streams[i].next()
				if !ok {
					t.Fatalf("stream: events so far %v, want %v", got, want)
				}
				got[m.event] = uris(m.data)
			}
			for kind, uri := range want {
				if got[kind] != uri {
					t.Errorf("stream %s: URI %q, want %q", kind, got[kind], uri)
				}
			}
			hooked := map[string]string{}
			for len(hooked) < len(want) {
				select {
				case d := <-receivers[i].arrived:
					kind := "Fixture.Update"
					if strings.Contains(d.body, `"Resource":"Competition"`) {
						kind = "Competition.Update"
					}
					if !d.signed {
						t.Errorf("webhook delivery %s not signed", d.id)
					}
					hooked[kind] = uris(d.body)
				case <-time.After(30 * time.Second):
					t.Fatalf("webhook: deliveries so far %v, want %v", hooked, want)
				}
			}
			for kind, uri := range want {
				if hooked[kind] != uri {
					t.Errorf("webhook %s: URI %q, want %q", kind, hooked[kind], uri)
				}
			}
		})
	}
	if st, resp := r.tryStream(t, "?version=v2", map[string]string{"X-Auth-Token": token}); st != nil || resp.status != 400 ||
		!strings.Contains(string(resp.body), "version must be v1 or v4, the API the events' URIs point into, got 'v2'") {
		t.Errorf("version=v2: %d %s", resp.status, resp.body)
	}
}
