// Package deploy holds no code: its tests check the files an operator
// deploys (NATS configuration, systemd unit, Kubernetes manifests,
// dashboard and alert rules) against the service they deploy.
package deploy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	editorpkg "github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/follow"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/provision"
	"github.com/footdata/footballd/internal/relay"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"
)

// natsCluster is the production configuration of deploy/nats, running: three
// nodes on loopback, with certificates from gencerts.sh and fresh passwords.
type natsCluster struct {
	ca        string // the CA's certificate, which clients trust
	servers   []*server.Server
	logs      []*natstest.NATSLog // each node's, for a cluster that does not form
	urls      []string            // nats://127.0.0.1:port of each node, no user
	passwords map[string]string
}

// url is node 0's URL with user's password.
func (c *natsCluster) url(user string) string {
	return strings.Replace(c.urls[0], "nats://", "nats://"+user+":"+c.passwords[user]+"@", 1)
}

// replaceAll replaces each old string of pairs in s and fails when one is
// missing, so that a changed configuration breaks the test instead of going
// untested.
func replaceAll(t *testing.T, name, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s: no %q to rewrite for the test", name, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// startNodes starts the three nodes in dir, each on ports it takes
// itself. Every node is routed to the three, as cluster.conf routes them,
// through relays the test holds (JetStream starts no clustered node
// without routes, and no node's route port is known before it starts);
// each relay leads to its node once the node is up. A node that is not
// ready fails the test with its log.
func startNodes(t *testing.T, c *natsCluster, dir, certs string, nodes []string, clusterConf, secrets string) {
	t.Helper()
	relays := make([]*relay.Relay, len(nodes))
	for i := range nodes {
		relays[i] = relay.Start(t)
	}
	for i, node := range nodes {
		nodeDir := filepath.Join(dir, node)
		if err := os.MkdirAll(nodeDir, 0o755); err != nil {
			t.Fatal(err)
		}
		pairs := []string{
			"/etc/nats/tls/", filepath.Join(certs, node) + "/",
			"/var/lib/nats", filepath.Join(nodeDir, "jetstream"),
			"0.0.0.0:4222", "127.0.0.1:-1",
			"0.0.0.0:6222", "127.0.0.1:-1",
			"http: 127.0.0.1:8222", "",
		}
		for j, other := range nodes {
			pairs = append(pairs, other+":6222", relays[j].Addr())
		}
		conf := replaceAll(t, "cluster.conf", clusterConf, pairs...)
		main := "nats-" + node[len("fd-nats-"):] + ".conf"
		for name, body := range map[string]string{"cluster.conf": conf, "secrets.conf": secrets} {
			if err := os.WriteFile(filepath.Join(nodeDir, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{main, "auth.conf"} {
			b, err := os.ReadFile(filepath.Join("nats", name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(nodeDir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		opts, err := server.ProcessConfigFile(filepath.Join(nodeDir, main))
		if err != nil {
			t.Fatalf("%s: %v", main, err)
		}
		opts.NoSigs = true
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatalf("%s: %v", main, err)
		}
		log := &natstest.NATSLog{}
		s.SetLogger(log, false, false)
		s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("%s: not ready after 10s; its log:\n%s", main, log.String())
		}
		relays[i].Forward(s.ClusterAddr().String())
		c.servers, c.logs = append(c.servers, s), append(c.logs, log)
		c.urls = append(c.urls, "nats://"+s.Addr().String())
	}
}

// startNATSCluster starts nats/nats-{1,2,3}.conf (with cluster.conf and
// auth.conf) in-process. Only what
// cannot work on a test machine is rewritten: certificate and storage
// paths, addresses (loopback, ports the nodes take, routes through the
// test's relays) and the password hashes.
func startNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	natstest.SkipShort(t, "deploy/nats's three-node cluster")
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl not found: gencerts.sh needs it (.ci/run installs it)")
	}
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	nodes := []string{"fd-nats-1", "fd-nats-2", "fd-nats-3"}
	if out, err := exec.Command("bash", append([]string{"nats/gencerts.sh", certs}, nodes...)...).CombinedOutput(); err != nil {
		t.Fatalf("gencerts.sh: %v\n%s", err, out)
	}
	// Clients trust the CA the way deploy/README.md tells operators to:
	// --nats-ca (FD_NATS_CA), for NATS only.
	c := &natsCluster{passwords: map[string]string{}, ca: filepath.Join(certs, "ca.pem")}
	var secrets strings.Builder
	for _, user := range []string{"api", "ingest", "admin", "sys"} {
		b := make([]byte, 12)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		c.passwords[user] = hex.EncodeToString(b)
		hash, err := bcrypt.GenerateFromPassword([]byte(c.passwords[user]), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&secrets, "%s_PASSWORD: %q\n", strings.ToUpper(user), hash)
	}
	clusterConf, err := os.ReadFile("nats/cluster.conf")
	if err != nil {
		t.Fatal(err)
	}
	startNodes(t, c, dir, certs, nodes, string(clusterConf), secrets.String())
	natstest.CheckFor(t, 30*time.Second, 50*time.Millisecond, func() error {
		err := c.formed()
		if err != nil {
			for i, log := range c.logs {
				err = fmt.Errorf("%w\n%s's log:\n%s", err, nodes[i], log.String())
			}
		}
		return err
	})
	return c
}

// formed says what is missing until every node has its two routes and
// JetStream has a meta leader every node follows.
func (c *natsCluster) formed() error {
	leader := false
	for _, s := range c.servers {
		if n := s.NumRoutes(); n < len(c.servers)-1 {
			return fmt.Errorf("the cluster did not form: %s has %d routes over TLS, want %d", s.Name(), n, len(c.servers)-1)
		}
		if !s.JetStreamIsCurrent() {
			return fmt.Errorf("the cluster did not form: %s does not follow a JetStream meta leader", s.Name())
		}
		leader = leader || s.JetStreamIsLeader()
	}
	if !leader {
		return errors.New("the cluster did not form: no JetStream meta leader")
	}
	return nil
}

// oneWebhook is a read model that holds one webhook and its client.
type oneWebhook struct {
	hook   model.Webhook
	client model.Client
}

func (o oneWebhook) Webhooks() []model.Webhook { return []model.Webhook{o.hook} }

// Registered is 0: the test's events come from no edit of the stream.
func (o oneWebhook) Registered(string) uint64 { return 0 }

func (o oneWebhook) ClientNamed(name string) (model.Client, bool) {
	return o.client, name == o.client.Name
}

// connect connects as user (no user: anonymously), collecting the
// permission violations the server reports.
func (c *natsCluster) connect(t *testing.T, user string) (*nats.Conn, chan error, error) {
	t.Helper()
	url := c.urls[0]
	if user != "" {
		url = c.url(user)
	}
	violations := make(chan error, 16)
	opts := []nats.Option{nats.RootCAs(c.ca), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) {
			violations <- err
		}
	})}
	// The service's users get their replies where the service's clients
	// ask for them (events.Connect); the admin's nats CLI on _INBOX.
	if user == "api" || user == "ingest" {
		inbox, err := events.InboxPrefix(user)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, nats.CustomInboxPrefix(inbox))
	}
	nc, err := nats.Connect(url, opts...)
	if err == nil {
		t.Cleanup(nc.Close)
	}
	return nc, violations, err
}

// TestNATSConfiguration runs the cluster of deploy/nats and checks what it
// promises: TLS for clients and routes, no anonymous access, and each user
// allowed what its role needs and nothing that changes the data of another.
func TestNATSConfiguration(t *testing.T) {
	c := startNATSCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("clients must use TLS", func(t *testing.T) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(c.urls[0], "nats://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			TLSRequired  bool `json:"tls_required"`
			AuthRequired bool `json:"auth_required"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "INFO ")), &info); err != nil {
			t.Fatalf("INFO %q: %v", line, err)
		}
		if !info.TLSRequired || !info.AuthRequired {
			t.Errorf("server INFO: tls_required %v, auth_required %v; want both", info.TLSRequired, info.AuthRequired)
		}
	})

	t.Run("no anonymous or unknown users", func(t *testing.T) {
		for _, url := range []string{c.urls[0], strings.Replace(c.url("api"), c.passwords["api"], "wrong", 1),
			strings.Replace(c.urls[0], "nats://", "nats://nobody:x@", 1)} {
			nc, err := nats.Connect(url, nats.RootCAs(c.ca))
			if err == nil {
				nc.Close()
				t.Errorf("%s: connected, want an authorization violation", events.Redacted(url))
				continue
			}
			if !errors.Is(err, nats.ErrAuthorization) {
				t.Errorf("%s: %v, want an authorization violation (not a TLS error)", events.Redacted(url), err)
			}
		}
	})

	// Replies carry what the asker reads (stream messages, budgets, the
	// webhook deliveries a replica pulls from its work queue): no user of
	// the service may subscribe to another's, or to every client's.
	inboxes := []struct{ user, subject string }{
		{"ingest", "_INBOX.>"},
		{"ingest", "_INBOX_api.>"},
		{"ingest", ">"},
		{"api", "_INBOX.>"},
		{"api", "_INBOX_ingest.>"},
		{"api", "_INBOX_*.>"},
	}
	for _, tc := range inboxes {
		t.Run(tc.user+" subscribes to "+tc.subject, func(t *testing.T) {
			nc, violations, err := c.connect(t, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := nc.SubscribeSync(tc.subject); err != nil {
				t.Fatal(err)
			}
			// The server answers the subscription's refusal before the
			// flush's PONG; the handler runs on its own goroutine.
			if err := nc.Flush(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-violations:
			case <-time.After(5 * time.Second):
				t.Errorf("%s may subscribe to %s, want a permissions violation", tc.user, tc.subject)
			}
		})
	}
	// The service's own code paths, as each role runs them: the admin
	// sets the stream up at R3 (`ingest stream init --replicas 3`), the
	// others find it as it is.
	admin, err := events.Dial{URL: c.url("admin"), Name: "admin", CA: c.ca}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	done, err := provision.Run(ctx, admin, events.StreamConfig{Replicas: 3})
	if err != nil {
		t.Fatalf("admin sets the stream up at R3: %v", err)
	}
	for _, r := range done {
		if r.After != 3 {
			t.Errorf("%s at R%d, want R3", r.Name, r.After)
		}
	}
	editor, err := events.Connect(ctx, events.Dial{URL: c.url("ingest"), Name: "ingest", CA: c.ca}, events.StreamConfig{})
	if err != nil {
		t.Fatalf("editor opens the stream: %v", err)
	}
	defer editor.Close()
	seq, err := editor.Publish(ctx, events.Msg{Subject: "football.league.XX", Body: []byte(`{"code":"XX"}`), Meta: events.Meta{Editor: "test"}})
	if err != nil {
		t.Fatalf("editor publishes an edit: %v", err)
	}

	t.Run("an editor reads an entity from the stream's leader", func(t *testing.T) {
		rev, err := editor.Get(ctx, "football.league.XX")
		if err != nil || rev.Seq != seq || string(rev.Data) != `{"code":"XX"}` || rev.Editor != "test" {
			t.Errorf("Get: %+v, %v; want sequence %d, the body and the editor as published", rev, err, seq)
		}
		if _, err := editor.Get(ctx, "football.league.ZZ"); model.ErrorCode(err) != model.NotFound {
			t.Errorf("Get of an entity never written: %v, want not found", err)
		}
	})

	t.Run("a replica reads the stream and shares budgets", func(t *testing.T) {
		replica, err := events.Connect(ctx, events.Dial{URL: c.url("api"), Name: "api", CA: c.ca}, events.StreamConfig{})
		if err != nil {
			t.Fatalf("replica opens the stream: %v", err)
		}
		defer replica.Close()
		budgets, err := replica.Budgets(ctx)
		if err != nil {
			t.Fatalf("replica opens %s: %v", events.BudgetsBucket, err)
		}
		if got, _, err := budgets.Take(ctx, "test.key", 10, 4); err != nil || got != 4 {
			t.Errorf("Take: got %d, %v; want 4", got, err)
		}
		cctx, stop := context.WithCancel(ctx)
		var seen uint64
		err = replica.Consume(cctx, "", func(ev events.Event, _ events.Progress) error {
			seen = ev.Seq
			return nil
		}, stop, nil)
		if !errors.Is(err, context.Canceled) || seen != seq {
			t.Errorf("Consume: %v, last sequence %d; want canceled after %d", err, seen, seq)
		}
	})

	// The subject of the token's pointer the editor writes below.
	var pointer string
	t.Run("a replica finds a client just added by its token", func(t *testing.T) {
		token, added, err := natstest.Editor(t, editor).AddClient(ctx, model.Client{Name: "acme", Tier: model.TierRegistered, PerMinute: 50})
		if err != nil {
			t.Fatalf("the editor adds a client and its token's pointer: %v", err)
		}
		pointer = events.Subject(events.KindClientToken, model.HashToken(token))
		replica, err := events.Connect(ctx, events.Dial{URL: c.url("api"), Name: "api", CA: c.ca}, events.StreamConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer replica.Close()
		if c, seq, err := replica.ClientByToken(ctx, model.HashToken(token)); err != nil || c.Name != "acme" || seq != added.Seq {
			t.Errorf("ClientByToken as the api user: %+v at %d, %v; want acme at %d", c, seq, err, added.Seq)
		}
	})

	t.Run("a replica delivers webhooks through its work queue", func(t *testing.T) {
		got := make(chan string, 16)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				io.WriteString(w, r.URL.Query().Get("fd_challenge"))
				return
			}
			got <- r.Header.Get("webhook-id")
		}))
		defer recv.Close()
		nc, violations, err := c.connect(t, "api")
		if err != nil {
			t.Fatal(err)
		}
		secret, err := model.NewWebhookSecret()
		if err != nil {
			t.Fatal(err)
		}
		hooks := oneWebhook{hook: model.Webhook{Name: "live", Client: "acme", URL: recv.URL + "/live", Secret: secret},
			client: model.Client{Name: "acme", Tier: model.TierRegistered}}
		allow, err := netguard.ParseAllow("127.0.0.1/32")
		if err != nil {
			t.Fatal(err)
		}
		d, err := webhook.New(webhook.Config{Conn: nc, Hooks: func() webhook.Hooks { return hooks }, PublicURL: "https://api.test",
			Allow: allow, Registerer: prometheus.NewRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		dctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); d.Run(dctx) }()
		defer func() { stop(); <-done }()
		ev := push.Event{Seq: seq, Kind: push.FixtureUpdate, ID: 9, Competition: 1, League: "PL", Tier: model.TierAnonymous,
			Time: time.Now(), Updates: map[string][2]any{"status": {"TIMED", "IN_PLAY"}}}
		d.Publish([]push.Event{ev})
		select {
		case id := <-got:
			if id != ev.Key() {
				t.Errorf("webhook-id %q, want %q", id, ev.Key())
			}
		case err := <-violations:
			t.Fatalf("the replica was refused: %v", err)
		case <-time.After(60 * time.Second):
			t.Fatal("no delivery within 60s as the api user")
		}
		select {
		case err := <-violations:
			t.Errorf("the replica was refused: %v", err)
		default:
		}
	})

	cases := []struct {
		user, subject string
		allowed       bool
	}{
		{"ingest", "football.league.YY", true},
		{"api", "football.league.YY", false},
		{"api", "football.league.XX", false},
		{"api", "$JS.API.STREAM.UPDATE.FOOTBALL", false},
		{"api", "$JS.API.STREAM.CREATE.KV_FD_LIMITS", false},
		{"api", "$JS.API.STREAM.UPDATE.KV_FD_WEBHOOKS", false},
		{"api", "$JS.API.STREAM.UPDATE.FD_WEBHOOK_QUEUE", false},
		{"ingest", "$JS.API.STREAM.CREATE.FOOTBALL", false},
		{"ingest", "$JS.API.STREAM.UPDATE.FOOTBALL", false},
		{"ingest", "$JS.API.STREAM.UPDATE.KV_FD_WEBHOOKS", false},
		{"admin", "$JS.API.STREAM.UPDATE.FOOTBALL", true},
		{"api", "$JS.API.STREAM.PURGE.FOOTBALL", false},
		{"api", "$JS.API.STREAM.DELETE.FOOTBALL", false},
		{"api", "$JS.API.STREAM.DELETE.KV_FD_LIMITS", false},
		{"ingest", "$JS.API.STREAM.PURGE.FOOTBALL", false},
		{"ingest", "$JS.API.STREAM.DELETE.FOOTBALL", false},
		{"ingest", "$KV.FD_LIMITS.somebody", false},
		{"ingest", "$JS.API.STREAM.UPDATE.KV_FD_FEEDS", false},
		{"ingest", "$JS.API.STREAM.DELETE.KV_FD_FEEDS", false},
		{"ingest", "$JS.API.STREAM.PURGE.KV_FD_FEEDS", false},
		{"api", "$KV.FD_FEEDS.lease.pl", false},
		{"api", "$JS.API.STREAM.MSG.GET.KV_FD_FEEDS", false},
		// The feeds' leases are read from the bucket's leader too.
		{"ingest", "$JS.API.DIRECT.GET.KV_FD_FEEDS.lease.pl", false},
		{"admin", "$JS.API.STREAM.INFO.FOOTBALL", true},
		// Reads of the stream's messages go to its leader, never to a
		// follower that may lag (Store.lastMsg).
		{"ingest", "$JS.API.STREAM.MSG.GET.FOOTBALL", true},
		{"api", "$JS.API.STREAM.MSG.GET.FOOTBALL", true},
		{"ingest", "$JS.API.DIRECT.GET.FOOTBALL", false},
		{"ingest", "$JS.API.DIRECT.GET.FOOTBALL.football.league.XX", false},
		{"api", "$JS.API.DIRECT.GET.FOOTBALL", false},
		{"api", "$JS.API.DIRECT.GET.FOOTBALL.football.league.XX", false},
	}
	for _, tc := range cases {
		t.Run(tc.user+" "+tc.subject, func(t *testing.T) {
			nc, violations, err := c.connect(t, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			// A refused publish gets no reply, only an error on the
			// connection; an allowed one is answered (a JetStream ack or
			// API response).
			replied := make(chan error, 1)
			go func() {
				_, err := nc.Request(tc.subject, []byte(`{}`), 10*time.Second)
				replied <- err
			}()
			select {
			case v := <-violations:
				if tc.allowed {
					t.Errorf("refused: %v", v)
				}
			case err := <-replied:
				if !tc.allowed || err != nil {
					t.Errorf("answered (%v); want allowed %v", err, tc.allowed)
				}
			}
		})
	}
	var subjects []string
	if err := editor.Scan(ctx, "", func(ev events.Event) error {
		subjects = append(subjects, ev.Subject)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"football.league.XX", pointer, "football.client.acme", "football.league.YY"}; !slices.Equal(subjects, want) {
		t.Errorf("stream holds %v, want %v: the editor's edits and none of the replica's", subjects, want)
	}

	t.Run("the follower keeps a feed as the ingest user", func(t *testing.T) {
		followAsIngest(t, ctx, c, editor)
	})
}

// followAsIngest runs `ingest follow`'s code as the NATS user ingest: it
// reads the feeds, takes a feed's lease in FD_FEEDS, fetches a real file
// from a source, publishes its fixtures, polls again with a conditional
// request, and gives the lease up when it stops, all without a
// permission refused.
func followAsIngest(t *testing.T, ctx context.Context, c *natsCluster, editor *events.Store) {
	body, err := os.ReadFile(natstest.SharedData(t, "openfootball-football-json", "2025-26", "en.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "en.1.json", time.Unix(1_770_000_000, 0), bytes.NewReader(body))
	}))
	defer src.Close()
	var log bytes.Buffer
	var mu sync.Mutex
	dial := events.Dial{URL: c.url("ingest"), Name: "ingest", CA: c.ca,
		Log: slog.New(slog.NewJSONHandler(lockedWriter{&mu, &log}, nil))}
	store, err := events.Connect(ctx, dial, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	state, err := follow.Open(ctx, store.Conn())
	if err != nil {
		t.Fatalf("the follower opens %s: %v", events.FeedsBucket, err)
	}
	ed := &editorpkg.Editor{Store: editor, Meta: events.Meta{Editor: "test"}}
	if _, err := ed.AddFeed(ctx, model.Feed{Name: "pl", Format: "openfootball", URL: src.URL + "/2025-26/en.1.json", EverySeconds: 1, CreateTeams: true}); err != nil {
		t.Fatal(err)
	}
	fd, err := ed.Feed(ctx, "pl")
	if err != nil {
		t.Fatal(err)
	}
	// The source is the test's, on loopback.
	allow, err := netguard.ParseAllow("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	f, err := follow.New(follow.Config{Store: store, State: state, Holder: "f1", LeaseTTL: time.Second, Log: slog.New(slog.NewJSONHandler(lockedWriter{&mu, &log}, nil)),
		Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Run(fctx) }()
	var st follow.Status
	natstest.CheckFor(t, 90*time.Second, 50*time.Millisecond, func() error {
		if st, _, err = state.Status(ctx, "pl", fd.Created); err != nil {
			t.Fatal(err)
		}
		if st.Result != follow.ResultNotModified {
			mu.Lock()
			defer mu.Unlock()
			return fmt.Errorf("no conditional poll: status %+v\nlog:\n%s", st, log.String())
		}
		return nil
	})
	if st.Matches != 380 || st.Changes < 380 || st.Holder != "f1" {
		t.Errorf("status %+v, want the 380 matches published by f1", st)
	}
	stop()
	<-done
	if holder, err := state.Holder(ctx, "pl"); err != nil || holder != "" {
		t.Errorf("lease after the follower stopped: %q, %v; want given up", holder, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(log.String(), "ermission") || strings.Contains(log.String(), "level\":\"WARN") {
		t.Errorf("the follower was refused or warned:\n%s", log.String())
	}
}

// lockedWriter serialises the writes of several loggers.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
