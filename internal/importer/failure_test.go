package importer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// TestStreamFailureNamesItsFile: when the stream gives up on a file's
// fixtures, the import's error names that file, not the one being written
// when the failure surfaced. The server denies the importer's user the
// fixtures of the Premier League 2015 (v1 id 398), so that file's fixture
// messages are never stored and the publication gives up on them after
// its patience (a second here, where the service waits a minute); the
// Bundesliga's go through. Denied first, its failure surfaces while the
// Bundesliga's fixtures are queued (the two files' fixtures exceed the
// window); denied last, at the final flush. Each case waits for two acks
// that never come (ackTimeout each) before the publication gives up.
func TestStreamFailureNamesItsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the publication to give up")
	}
	pl := ofFile(t, "openfootball-football-json/2015-16/en.1.json")
	bl := ofFile(t, "openfootball-football-json/2015-16/de.1.json")
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"denied file first", []string{pl, bl}},
		{"denied file last", []string{bl, pl}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := storeDenying(t, events.Prefix+".fixture.398.>")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			im := importer.New(natstest.Editor(t, s), nil)
			err := im.Import(ctx, importer.Formats["openfootball"], tc.files, importer.Options{})
			if err == nil {
				t.Fatal("import succeeded with the Premier League's fixtures denied")
			}
			if !strings.HasPrefix(err.Error(), pl+": ") || strings.Contains(err.Error(), filepath.Base(bl)) {
				t.Errorf("error %q: want it to name %s, the file whose fixtures failed, and only it", err, pl)
			}
		})
	}
}

// storeDenying opens a store on a server of its own whose user may not
// publish to deny.
func storeDenying(t *testing.T, deny string) *events.Store {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(),
		NoSigs: true, NoLog: true, Users: []*server.User{{Username: "importer", Password: "secret",
			Permissions: &server.Permissions{Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{deny}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	// The denied publications are reported to the error handler; the
	// test reads them from the import's error instead.
	nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo("importer", "secret"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := events.Provision(context.Background(), nc, events.StreamConfig{}); err != nil {
		t.Fatal(err)
	}
	s, err := events.Open(context.Background(), nc, events.StreamConfig{Patience: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
