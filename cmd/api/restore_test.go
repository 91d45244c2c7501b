package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// restoreBackup restores plan as `ingest restore` does: the whole file
// staged on a scratch server with stream init's configurations first; on
// replicas servers (0: as in the backup).
func restoreBackup(ctx context.Context, t *testing.T, b *backup.File, nc *nats.Conn, plan []backup.Step, replicas int) error {
	t.Helper()
	staged, err := b.Stage(ctx, func(ctx context.Context, nc *nats.Conn) error {
		_, err := provision.Run(ctx, nc, events.StreamConfig{})
		return err
	})
	if err != nil {
		return err
	}
	return b.Restore(ctx, nc, plan, staged, replicas, nil)
}

// TestReplicaNoticesRestore: a replica that serves one data set while the
// stream is deleted and another data set's backup restored in its place
// (as `ingest restore` does) goes not ready at once, with the reason on
// /readyz and in fd_stream_replaced_total, replays the restored stream
// and then serves what a replica started afterwards serves, and follows
// the next edits. A forced restore in one step, over a stream with an
// edit more than the backup, is noticed as well, by both replicas. On one
// server and on a three-node cluster (R3), where a leader elected
// elsewhere must not look like a replacement: the restored stream's
// leader is moved after the first restore.
func TestReplicaNoticesRestore(t *testing.T) {
	tests := []struct {
		name string
		nats func(*testing.T) natsUnderTest
	}{
		{"one server", singleServer},
		{"three nodes, R3", threeNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { replicaNoticesRestore(t, tt.nats(t)) })
	}
}

func replicaNoticesRestore(t *testing.T, n natsUnderTest) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	flags := []string{"--now", "2016-03-14T17:00:00Z", "--anonymous-per-day", "100000000", "--public-url", "http://api.test"}

	// The backup: another data set, on a server of its own.
	home := singleServer(t)
	natstest.MustProvision(t, home.url, events.StreamConfig{})
	importFiles(t, connectStore(t, home.url), "openfootball-football-json/2015-16/en.1.json")
	file := filepath.Join(t.TempDir(), "england.fdbackup")
	if _, err := backup.Write(ctx, connectAdmin(t, home.url), file, "test", backedUp, nil); err != nil {
		t.Fatal(err)
	}
	b, err := backup.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	natstest.MustProvisionEventually(t, n.url, events.StreamConfig{Replicas: n.replicas})
	s := connectStore(t, n.url)
	importFiles(t, s, "openfootball-football-json/2015-16/de.1.json")
	r := startReplica(t, n.url, flags...)
	r.waitApplied(s)

	admin := connectAdmin(t, n.url)
	js, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	// The first step of a forced restore, held there.
	if err := js.DeleteStream(ctx, events.DefaultStream); err != nil {
		t.Fatal(err)
	}
	natstest.CheckFor(t, 15*time.Second, 20*time.Millisecond, func() error {
		resp := r.do("GET", "/readyz", nil)
		if resp.status != 503 || !strings.Contains(string(resp.body), `"reason":"the stream was replaced`) {
			return fmt.Errorf("/readyz with the stream deleted: %d %s", resp.status, resp.body)
		}
		return nil
	})
	if got := r.metric("fd_stream_replaced_total"); got != 1 {
		t.Errorf("fd_stream_replaced_total %v, want 1", got)
	}
	if got := r.metric("fd_ready"); got != 0 {
		t.Errorf("fd_ready %v while replaying, want 0", got)
	}
	if resp := r.do("GET", "/v1/competitions/", nil); resp.status != 503 || !strings.Contains(string(resp.body), "after a restore") {
		t.Errorf("a request while replaying: %d %s; want 503, replaying", resp.status, resp.body)
	}
	plan, err := b.Plan(ctx, admin, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := restoreBackup(ctx, t, b, admin, plan, n.replicas); err != nil {
		t.Fatal(err)
	}
	waitReplayed(t, r, s, 1)
	if n.replicas > 1 {
		// The election a loaded cluster holds now and then, made
		// certain: the restored stream answered by another leader is
		// the same stream.
		moveStreamLeader(ctx, t, js)
	}
	fresh := startReplica(t, n.url, flags...)
	fresh.waitApplied(s)
	sameAnswers(t, r, fresh)

	// The next edit is followed.
	ed := natstest.Editor(t, s)
	if _, _, err := ed.PutTeam(ctx, 57, func(tm *model.Team) error { tm.ShortName = new("Gunners"); return nil }); err != nil {
		t.Fatal(err)
	}
	r.waitApplied(s)
	fresh.waitApplied(s)
	if resp := r.do("GET", "/v1/teams/57", nil); !strings.Contains(string(resp.body), `"shortName":"Gunners"`) {
		t.Errorf("the edit after the restore is not served: %d %s", resp.status, resp.body)
	}
	sameAnswers(t, r, fresh)

	// A forced restore in one step: the stream goes back by the edit.
	if plan, err = b.Plan(ctx, admin, true); err != nil {
		t.Fatal(err)
	}
	if err := restoreBackup(ctx, t, b, admin, plan, n.replicas); err != nil {
		t.Fatal(err)
	}
	waitReplayed(t, r, s, 2)
	waitReplayed(t, fresh, s, 1)
	if resp := r.do("GET", "/v1/teams/57", nil); resp.status != 200 || strings.Contains(string(resp.body), `"shortName":"Gunners"`) {
		t.Errorf("after the second restore the replica still serves the edit it took away: %d %s", resp.status, resp.body)
	}
	sameAnswers(t, r, fresh)
}

// moveStreamLeader has the stream's leader step down and waits until
// another node leads it.
func moveStreamLeader(ctx context.Context, t *testing.T, js jetstream.JetStream) {
	t.Helper()
	st, err := js.Stream(ctx, events.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	was := st.CachedInfo().Cluster.Leader
	var resp struct {
		Error *jetstream.APIError `json:"error"`
	}
	msg, err := js.Conn().RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+events.DefaultStream, nil)
	if err == nil {
		err = json.Unmarshal(msg.Data, &resp)
	}
	if err == nil && resp.Error != nil {
		err = resp.Error
	}
	if err != nil {
		t.Fatalf("stream leader step down: %v", err)
	}
	natstest.CheckFor(t, 30*time.Second, 50*time.Millisecond, func() error {
		info, err := st.Info(ctx)
		if err != nil || info.Cluster == nil || info.Cluster.Leader == "" || info.Cluster.Leader == was {
			return fmt.Errorf("the stream is still led by %s, or by none: %v", was, err)
		}
		return nil
	})
}

// waitReplayed waits until r has found its stream replaced replaced
// times, is ready again and serves the stream's last sequence.
func waitReplayed(t *testing.T, r *replica, s *events.Store, replaced float64) {
	t.Helper()
	natstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		last, err := s.LastSeq(context.Background())
		if err != nil {
			return err
		}
		resp := r.do("GET", "/readyz", nil)
		got, served := r.metric("fd_stream_replaced_total"), r.metric("fd_stream_served_sequence")
		if got != replaced || resp.status != 200 || served != float64(last) {
			return fmt.Errorf("replica %s: replaced %v times (want %v), /readyz %d %s, serves %v of %d\n%s",
				r.base, got, replaced, resp.status, resp.body, served, last, r.logs.String())
		}
		return nil
	})
}

// sameAnswers compares a crawl of two replicas.
func sameAnswers(t *testing.T, r, fresh *replica) {
	t.Helper()
	paths := crawlPaths(t, fresh)
	got, want := crawl(t, r, paths), crawl(t, fresh, paths)
	differ := 0
	for _, p := range paths {
		if got[p] != want[p] {
			if differ++; differ <= 3 {
				t.Errorf("%s: the running replica answers %d %s, a replica started afterwards %d %s", p,
					got[p].status, first(got[p].body), want[p].status, first(want[p].body))
			}
		}
	}
	if differ > 0 {
		t.Fatalf("%d of %d pages differ", differ, len(paths))
	}
}
