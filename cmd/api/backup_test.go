package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// backedUp are the streams `ingest backup` takes (cmd/ingest, backedUp).
var backedUp = []string{"FOOTBALL", "KV_" + webhook.StatesBucket}

// natsUnderTest is NATS as a backup test sees it: where it is, how a
// replica and an editor reach it, and how to destroy its storage.
type natsUnderTest struct {
	url      string
	replicas int
	// wipe stops every server, deletes its storage and starts it empty
	// on the same ports.
	wipe func()
}

func singleServer(t *testing.T) natsUnderTest {
	opts := natsembed.Options{Dir: t.TempDir()}
	srv, err := natsembed.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Port = srv.Addr().(*net.TCPAddr).Port
	t.Cleanup(func() { srv.Stop() })
	return natsUnderTest{url: srv.URL(), replicas: 1, wipe: func() {
		srv.Stop()
		if err := os.RemoveAll(opts.Dir); err != nil {
			t.Fatal(err)
		}
		if srv, err = natsembed.Start(opts); err != nil {
			t.Fatal(err)
		}
	}}
}

func threeNodes(t *testing.T) natsUnderTest {
	c := natstest.StartCluster(t)
	return natsUnderTest{url: c.URL(0), replicas: 3, wipe: func() {
		for i := range c.Nodes {
			c.Stop(i)
			if err := os.RemoveAll(c.Opts[i].Dir); err != nil {
				t.Fatal(err)
			}
		}
		for i := range c.Nodes {
			c.Start(i)
		}
	}}
}

// connectAdmin connects as `ingest backup` does, once JetStream answers
// (a cluster just started elects its leader first).
func connectAdmin(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := events.Dial{URL: url, Name: "ingest"}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	natstest.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := js.AccountInfo(ctx); err != nil {
			return fmt.Errorf("JetStream does not answer at %s: %w", url, err)
		}
		return nil
	})
	return nc
}

// connectStore connects an editor's store.
func connectStore(t *testing.T, url string) *events.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := events.Connect(ctx, events.Dial{URL: url, Name: "test"}, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// served is one answer of a crawl: what must not change across a
// backup and restore.
type served struct {
	status     int
	etag, body string
}

func crawl(t *testing.T, r *replica, paths []string) map[string]served {
	t.Helper()
	out := map[string]served{}
	for _, p := range paths {
		resp := r.do("GET", p, nil)
		out[p] = served{resp.status, resp.header.Get("ETag"), string(resp.body)}
	}
	return out
}

// TestBackupRestore: after a backup, the destruction of NATS's storage
// and a restore, a new API replica serves every page of a crawl with the
// bytes and ETag the replica before served, from the same stream
// sequences, and the webhook keeps its state: on one server and on a
// three-node cluster (R3, as in production). A forced restore over the
// streams then replaces them.
func TestBackupRestore(t *testing.T) {
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Query().Get("fd_challenge"))
	}))
	defer recv.Close()
	tests := []struct {
		name  string
		nats  func(*testing.T) natsUnderTest
		files []string
	}{
		{"one server", singleServer, []string{"openfootball-football-json/2015-16/en.1.json", "openfootball-football-json/2015-16/de.1.json"}},
		{"three nodes, R3", threeNodes, []string{"openfootball-football-json/2015-16/en.1.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.nats(t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			natstest.MustProvisionEventually(t, n.url, events.StreamConfig{Replicas: n.replicas})
			s := connectStore(t, n.url)
			importFiles(t, s, tt.files...)
			flags := []string{"--now", "2026-03-14T17:00:00Z", "--public-url", "http://api.test",
				"--anonymous-per-day", "100000000", "--webhook-allow", "127.0.0.1/32"}
			before := startReplica(t, n.url, flags...)
			addClient(t, s, "acme", model.TierRegistered, 50)
			if _, _, err := natstest.Editor(t, s).AddWebhook(ctx, model.Webhook{Name: "live", Client: "acme", URL: recv.URL + "/hook"}); err != nil {
				t.Fatal(err)
			}
			created := natstest.All[model.Webhook](t, s, events.KindWebhook)[events.Subject(events.KindWebhook, "live")].Created
			state := waitWebhook(t, s.Conn(), created, webhook.Verified)
			before.waitApplied(s)
			paths := crawlPaths(t, before)
			want := crawl(t, before, paths)
			wantSeq := before.metric("fd_stream_served_sequence")
			before.stop()
			s.Close()

			admin := connectAdmin(t, n.url)
			file := filepath.Join(t.TempDir(), "footballd.fdbackup")
			if _, err := backup.Write(ctx, admin, file, "test", backedUp, nil); err != nil {
				t.Fatal(err)
			}
			admin.Close()

			n.wipe()
			admin = connectAdmin(t, n.url)
			b, err := backup.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			plan, err := b.Plan(ctx, admin, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range plan {
				if step.Existing != nil {
					t.Errorf("stream %s exists on the wiped servers: %+v", step.Stream.Name, step.Existing)
				}
			}
			if err := restoreBackup(ctx, t, b, admin, plan, 0); err != nil {
				t.Fatal(err)
			}
			waitReplicas(t, admin, n.replicas)
			// What the backup leaves out is made again, as the runbook's
			// `ingest stream init --replicas N` after a restore does.
			natstest.MustProvision(t, n.url, events.StreamConfig{Replicas: n.replicas})
			if got := waitWebhook(t, admin, created, webhook.Verified); !reflect.DeepEqual(got, state) {
				t.Errorf("webhook state after restore %+v, before %+v", got, state)
			}

			after := startReplica(t, n.url, flags...)
			s = connectStore(t, n.url)
			after.waitApplied(s)
			if got := after.metric("fd_stream_served_sequence"); got != wantSeq {
				t.Errorf("the replica serves sequence %v after the restore, %v before", got, wantSeq)
			}
			got := crawl(t, after, paths)
			differ := 0
			for _, p := range paths {
				if got[p] != want[p] {
					if differ++; differ <= 3 {
						t.Errorf("%s after the restore: %d, ETag %s, %s\nbefore: %d, ETag %s, %s", p,
							got[p].status, got[p].etag, first(got[p].body), want[p].status, want[p].etag, first(want[p].body))
					}
				}
			}
			if differ > 0 || t.Failed() {
				t.Fatalf("%d of %d pages differ", differ, len(paths))
			}
			t.Logf("%d pages the same, with their ETags, at sequence %v", len(paths), wantSeq)

			// Once more over the streams now there, as --force does: each
			// is deleted, then restored.
			after.stop()
			if plan, err = b.Plan(ctx, admin, true); err != nil {
				t.Fatal(err)
			}
			if err := restoreBackup(ctx, t, b, admin, plan, 0); err != nil {
				t.Fatalf("forced restore over the restored streams: %v", err)
			}
			waitReplicas(t, admin, n.replicas)
		})
	}
}

// waitReplicas waits until every restored stream is kept on replicas
// servers, each current.
func waitReplicas(t *testing.T, nc *nats.Conn, replicas int) {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range backedUp {
		natstest.CheckFor(t, 30*time.Second, 50*time.Millisecond, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			st, err := js.Stream(ctx, name)
			var info *jetstream.StreamInfo
			if err == nil {
				info, err = st.Info(ctx)
			}
			current := 0
			if err == nil && info.Cluster != nil {
				for _, p := range info.Cluster.Replicas {
					if p.Current {
						current++
					}
				}
			}
			if err != nil || info.Config.Replicas != replicas || current != replicas-1 {
				return fmt.Errorf("stream %s after the restore: %v, %+v; want %d replicas, current", name, err, info, replicas)
			}
			return nil
		})
	}
}

// waitWebhook waits until the webhook registered at created has status
// in the states bucket on nc, and returns its state.
func waitWebhook(t *testing.T, nc *nats.Conn, created time.Time, status webhook.Status) webhook.State {
	t.Helper()
	var st webhook.State
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		states, err := webhook.ReadStates(ctx, nc)
		if err == nil {
			st, _, err = states.Get(ctx, "live", created)
		}
		if err != nil || st.Status != status {
			return fmt.Errorf("webhook state %+v (%v), want %s", st, err, status)
		}
		return nil
	})
	return st
}

func first(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return strings.TrimSpace(s)
}
