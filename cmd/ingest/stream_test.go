package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/crypto/bcrypt"
)

// bare runs ingest against url, with extra environment.
func bare(t *testing.T, url, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	env := map[string]string{"FD_NATS_URL": url, "FD_EDITOR": "tester"}
	code := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestStreamInit: on a new server nothing but `stream init` creates the
// stream, buckets and work queue; an edit before it fails with what to
// run; it is idempotent.
func TestStreamInit(t *testing.T) {
	srv, err := natsembed.Start(natsembed.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	url := srv.URL()
	steps := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"an edit before init", []string{"team put", "--name", "Arsenal FC"}, exitFailure, nil, "stream FOOTBALL: not set up: an operator runs `ingest stream init`"},
		{"info before init", []string{"stream info"}, exitFailure, []string{"FOOTBALL          -", "missing"}, "5 of 5 not set up"},
		{"bad replicas", []string{"stream init", "--replicas", "2"}, exitInvalid, nil, "--replicas 2: must be 1, 3 or 5"},
		{"init", []string{"stream init"}, exitOK, []string{"FOOTBALL: created, 1 replica(s)", "FD_LIMITS: created, 1 replica(s)",
			"FD_WEBHOOK_QUEUE: created, 1 replica(s)", "FD_WEBHOOKS: created, 1 replica(s)", "FD_FEEDS: created, 1 replica(s)"}, ""},
		{"init again", []string{"stream init"}, exitOK, []string{"FOOTBALL: 1 replica(s), unchanged", "FD_WEBHOOKS: 1 replica(s), unchanged",
			"FD_FEEDS: 1 replica(s), unchanged"}, ""},
		{"an edit after init", []string{"team put", "--name", "Arsenal FC"}, exitOK, []string{"team 57 created"}, ""},
		{"info after init", []string{"stream info"}, exitOK, []string{"FOOTBALL", "KV_FD_LIMITS", "FD_WEBHOOK_QUEUE", "KV_FD_WEBHOOKS", "KV_FD_FEEDS"}, ""},
	}
	for _, s := range steps {
		args := append(strings.Fields(s.args[0]), s.args[1:]...)
		code, out, errOut := bare(t, url, "", args...)
		if code != s.code || (s.stderr == "") != (errOut == "") || !strings.Contains(errOut, s.stderr) {
			t.Fatalf("%s: exit %d, stderr %q; want %d and %q\nstdout: %s", s.name, code, errOut, s.code, s.stderr, out)
		}
		for _, want := range s.stdout {
			if !strings.Contains(out, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, want, out)
			}
		}
	}
}

// TestStreamInitLeavesMirror: pointed at a region's leaf node, whose
// FOOTBALL is a mirror of the home stream, `stream init` refuses and the
// mirror stays one (the server would otherwise promote it to a stream of
// its own, which no longer follows home).
func TestStreamInitLeavesMirror(t *testing.T) {
	srv, err := natsembed.Start(natsembed.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	nc, err := events.Dial{URL: srv.URL(), Name: "admin"}.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "HOME", Subjects: []string{"home.>"}}); err != nil {
		t.Fatal(err)
	}
	mirror, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: events.DefaultStream, Mirror: &jetstream.StreamSource{Name: "HOME"}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := bare(t, srv.URL(), "", "stream", "init")
	const want = "stream FOOTBALL here is a mirror of HOME, a region's copy: stream init sets up the home cluster only"
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("stream init on a mirror: exit %d, stderr %q; want %d and %q\nstdout: %s", code, errOut, exitFailure, want, out)
	}
	info, err := mirror.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Mirror == nil || len(info.Config.Subjects) > 0 {
		t.Errorf("after stream init FOOTBALL has mirror %+v and subjects %v; want the mirror of HOME, no subjects", info.Config.Mirror, info.Config.Subjects)
	}
}

// TestStreamInitUpgrades: on a three-node cluster, `stream init` at R1
// and then `--replicas 3` moves everything to R3; an editor's start
// changes nothing back.
func TestStreamInitUpgrades(t *testing.T) {
	c := natstest.StartCluster(t)
	url := c.URL(0)
	var code int
	var out, errOut string
	// The cluster elects its meta leader first.
	natstest.CheckFor(t, 60*time.Second, 250*time.Millisecond, func() error {
		if code, out, errOut = bare(t, url, "", "stream", "init"); code != exitOK {
			return fmt.Errorf("stream init: exit %d\n%s%s", code, out, errOut)
		}
		return nil
	})
	if code != exitOK || !strings.Contains(out, "FOOTBALL: created, 1 replica(s)") {
		t.Fatalf("stream init: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = bare(t, url, "", "stream", "init", "--replicas", "3")
	for _, want := range []string{"FOOTBALL: 1 → 3 replica(s)", "FD_LIMITS: 1 → 3 replica(s)", "FD_WEBHOOK_QUEUE: 1 → 3 replica(s)", "FD_WEBHOOKS: 1 → 3 replica(s)", "FD_FEEDS: 1 → 3 replica(s)"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("stream init --replicas 3: exit %d, want %q\n%s%s", code, want, out, errOut)
		}
	}
	if code, out, errOut := bare(t, url, "", "team", "put", "--name", "Arsenal FC"); code != exitOK {
		t.Fatalf("team put: exit %d\n%s%s", code, out, errOut)
	}
	s, err := events.Connect(context.Background(), events.Dial{URL: url, Name: "check"}, events.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, out, _ := bare(t, url, "", "stream", "info"); strings.Count(out, "  3  ") < 5 {
		t.Errorf("stream info after the upgrade and an edit, want 5 at R3:\n%s", out)
	}
}

// TestEditDuringLeaderElection: an edit made while the stream's leader
// is gone waits for the election (--patience) instead of failing, and
// lands once.
func TestEditDuringLeaderElection(t *testing.T) {
	c := natstest.StartCluster(t)
	natstest.MustProvisionEventually(t, c.URL(0), events.StreamConfig{Replicas: 3})
	url := c.URL(0)
	if code, out, errOut := bare(t, url, "", "team", "put", "--name", "Arsenal FC"); code != exitOK {
		t.Fatalf("team put: exit %d\n%s%s", code, out, errOut)
	}
	leader := c.Node(natstest.StreamLeader(t, url))
	c.Stop(leader)
	code, out, errOut := bare(t, c.URL((leader+1)%3), "", "team", "put", "--id", "57", "--name", "Arsenal FC", "--short-name", "Arsenal")
	if code != exitOK || !strings.Contains(out, "team 57 updated") {
		t.Fatalf("team put during the election: exit %d\n%s%s", code, out, errOut)
	}
	c.Start(leader)
	_, hist, _ := bare(t, c.URL((leader+1)%3), "", "history", "team", "57")
	if n := strings.Count(hist, "tester"); n != 2 {
		t.Errorf("team 57 has %d revisions by the tester, want 2 (created, then updated once):\n%s", n, hist)
	}
	// With every node gone, an edit gives up after --patience, saying why.
	for i := range 3 {
		if c.Nodes[i] != nil {
			c.Stop(i)
		}
	}
	start := time.Now()
	code, _, errOut = bare(t, url, "", "--patience", "2s", "team", "put", "--id", "57", "--name", "Arsenal FC", "--short-name", "Gunners")
	if code != exitFailure || errOut == "" || time.Since(start) > 30*time.Second {
		t.Errorf("with no server: exit %d after %s: %s", code, time.Since(start), errOut)
	}
	if code, _, errOut := bare(t, url, "", "--patience", "soon", "team", "put", "--id", "57", "--name", "Arsenal FC", "--short-name", "Gunners"); code != exitInvalid || !strings.Contains(errOut, `--patience "soon"`) {
		t.Errorf("--patience soon: exit %d: %s", code, errOut)
	}
}

// TestPasswd: the hash verifies with bcrypt, in both forms; bad input is
// refused with one line.
func TestPasswd(t *testing.T) {
	code, out, errOut := bare(t, "", "s3cret-pw\n", "passwd")
	if code != exitOK || bcrypt.CompareHashAndPassword([]byte(strings.TrimSpace(out)), []byte("s3cret-pw")) != nil {
		t.Fatalf("passwd: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = bare(t, "", "", "passwd", "--user", "api", "--generate")
	password, ok := strings.CutPrefix(strings.TrimSpace(errOut), "password: ")
	hash, found := strings.CutPrefix(strings.TrimSpace(out), "API_PASSWORD: ")
	if code != exitOK || !ok || !found || bcrypt.CompareHashAndPassword([]byte(strings.Trim(hash, `"`)), []byte(password)) != nil {
		t.Fatalf("passwd --user api --generate: exit %d, %q %q", code, out, errOut)
	}
	for _, stdin := range []string{"", "\n", "with@at\n", "with space\n", strings.Repeat("x", 100) + "\n", strings.Repeat("y", 10<<20)} {
		if code, _, errOut := bare(t, "", stdin, "passwd"); code != exitInvalid || strings.Count(errOut, "\n") != 1 {
			t.Errorf("passwd with %q: exit %d, %q", stdin, code, errOut)
		}
	}
}

// startAuthServer starts a NATS server in-process with the users and
// permissions of deploy/nats/auth.conf, as shipped; only the password
// hashes (secrets.conf) are the test's. It returns the URL of each user.
func startAuthServer(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	auth, err := os.ReadFile("../../deploy/nats/auth.conf")
	if err != nil {
		t.Fatal(err)
	}
	var secrets strings.Builder
	for _, user := range []string{"api", "ingest", "admin", "sys"} {
		hash, err := bcrypt.GenerateFromPassword([]byte(user+"-pw"), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&secrets, "%s_PASSWORD: %q\n", strings.ToUpper(user), hash)
	}
	main := fmt.Sprintf("listen: \"127.0.0.1:-1\"\njetstream: {store_dir: %q}\ninclude ./auth.conf\n", filepath.Join(dir, "js"))
	for name, text := range map[string]string{"auth.conf": string(auth), "secrets.conf": secrets.String(), "main.conf": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "main.conf"))
	if err != nil {
		t.Fatal(err)
	}
	opts.NoSigs, opts.NoLog = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	hostport := strings.TrimPrefix(srv.ClientURL(), "nats://")
	urls := map[string]string{}
	for _, user := range []string{"api", "ingest", "admin"} {
		urls[user] = "nats://" + user + ":" + user + "-pw@" + hostport
	}
	return urls
}

// TestOperatorCommandsNeedAdmin: the operators' commands, run as a user of
// deploy/nats/auth.conf who may not run them, fail at once with who may,
// and report nothing as done; as admin they run. Before, `stream init` as
// ingest printed "FOOTBALL: 1 replica(s), unchanged" and failed after 30 s.
func TestOperatorCommandsNeedAdmin(t *testing.T) {
	urls := startAuthServer(t)
	backupFile := filepath.Join(t.TempDir(), "b.fdbackup")
	for _, args := range [][]string{{"stream", "init"}, {"stream", "info"}, {"backup", backupFile}} {
		if code, out, errOut := bare(t, urls["admin"], "", args...); code != exitOK {
			t.Fatalf("ingest %s as admin: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	const want = "this needs the NATS user admin (`env admin`, see deploy/README.md)"
	for _, user := range []string{"ingest", "api"} {
		for _, args := range [][]string{{"stream", "init"}, {"stream", "init", "--replicas", "1"}, {"stream", "info"},
			{"backup", backupFile + ".2"}, {"restore", "--force", backupFile}} {
			start := time.Now()
			code, out, errOut := bare(t, urls[user], "", args...)
			took := time.Since(start)
			name := user + ": ingest " + strings.Join(args, " ")
			if code == exitOK || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%s: exit %d, stderr %q; want a failure, one line saying %q", name, code, errOut, want)
			}
			// The restore says what the file holds before it connects.
			if strings.Contains(out, "replica(s)") || strings.Contains(out, "NAME") || strings.Contains(out, "snapshot") || strings.Contains(out, "restored") {
				t.Errorf("%s: stdout reports steps as done or shown:\n%s", name, out)
			}
			if took > 5*time.Second {
				t.Errorf("%s: refused after %s, want at once", name, took.Round(time.Millisecond))
			}
		}
	}
}
