package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// startDomain starts an embedded JetStream server in a JetStream domain of
// its own: the home cluster when hubLeaf is empty (it takes leaf node
// connections on a port of its choosing, which leafAddr gives), a
// region's leaf node of the server listening on hubLeaf otherwise.
func startDomain(t *testing.T, domain, hubLeaf string) (s *server.Server, leafAddr string) {
	t.Helper()
	o := &server.Options{ServerName: "fd-" + domain, Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		JetStreamDomain: domain, StoreDir: t.TempDir(), NoSigs: true, NoLog: true}
	if hubLeaf == "" {
		o.LeafNode.Host, o.LeafNode.Port = "127.0.0.1", server.RANDOM_PORT
	} else {
		u, err := url.Parse("nats-leaf://" + hubLeaf)
		if err != nil {
			t.Fatal(err)
		}
		o.LeafNode.Remotes = []*server.RemoteLeafOpts{{URLs: []*url.URL{u}}}
	}
	var err error
	s, err = server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatalf("server of domain %s not ready after 10s", domain)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if hubLeaf == "" {
		// The server writes the port it got back into o before its
		// client listener, which ReadyForConnections waited for, is up.
		leafAddr = net.JoinHostPort(o.LeafNode.Host, strconv.Itoa(o.LeafNode.Port))
	}
	return s, leafAddr
}

// TestRegionalMirror is deploy/README.md's "Several regions": a region's
// leaf node, in a JetStream domain of its own, holds a mirror of the home
// stream under the same name plus the replicas' own bucket and work
// queue; a replica connected to it, started as it is, serves what an
// editor changed at home.
func TestRegionalMirror(t *testing.T) {
	ctx := context.Background()
	hub, hubLeaf := startDomain(t, "hub", "")
	natstest.MustProvision(t, hub.ClientURL(), events.StreamConfig{})
	home, err := events.Connect(ctx, events.Dial{URL: hub.ClientURL(), Name: "editor"}, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.Close)
	importFiles(t, home, "openfootball-football-json/2015-16/en.1.json")

	leaf, _ := startDomain(t, "eu", hubLeaf)
	nc, err := events.Dial{URL: leaf.ClientURL(), Name: "admin"}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// The leaf node may still be connecting: the mirror is created at
	// once, and copies once it is.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: events.DefaultStream, Storage: jetstream.FileStorage,
		Mirror: &jetstream.StreamSource{Name: events.DefaultStream, External: &jetstream.ExternalStream{APIPrefix: "$JS.hub.API"}}}); err != nil {
		t.Fatalf("mirror: %v", err)
	}
	if _, err := events.ProvisionBudgets(ctx, nc, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := webhook.Provision(ctx, nc, 1); err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, leaf.ClientURL())

	var f model.Fixture
	for _, x := range natstest.All[model.Fixture](t, home, events.KindFixture) {
		if x.Result.FullTime != nil {
			f = x
			break
		}
	}
	goals := f.Result.FullTime.Home + 5
	if _, _, err := natstest.Editor(t, home).PutFixture(ctx, f.ID, true, func(x *model.Fixture) error {
		x.Result.FullTime = &model.Score{Home: goals, Away: f.Result.FullTime.Away}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"goalsHomeTeam":%d`, goals)
	natstest.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		got := r.do("GET", fmt.Sprintf("/v1/fixtures/%d", f.ID), nil)
		if got.status != 200 || !strings.Contains(string(got.body), want) {
			return fmt.Errorf("the regional replica does not serve the edit made at home: want %s, got %d %s", want, got.status, got.body)
		}
		return nil
	})
}
