package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/backup"
	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// everyStream is what the server keeps for the service: the stream, the
// buckets and the work queue.
var everyStream = []string{events.DefaultStream, "KV_" + events.BudgetsBucket, webhook.QueueStream, "KV_" + webhook.StatesBucket, "KV_" + events.FeedsBucket}

// kept is a stream as a restore must leave it when refused: its extent,
// creation and configuration.
type kept struct {
	Msgs, FirstSeq, LastSeq uint64
	Created                 string
	Config                  jetstream.StreamConfig
}

// keptStreams reads every stream the service keeps.
func keptStreams(t *testing.T, c *cli) map[string]kept {
	t.Helper()
	nc, err := nats.Connect(c.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kept{}
	for _, name := range everyStream {
		st, err := js.Stream(t.Context(), name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		info := st.CachedInfo()
		out[name] = kept{info.State.Msgs, info.State.FirstSeq, info.State.LastSeq, info.Created.String(), info.Config}
	}
	return out
}

// tampered is a backup file taken apart so that a test may change it and
// write it with checksums that agree again, as someone who meant to get a
// change past the checks would.
type tampered struct {
	header backup.Header
	body   []byte
}

func readTampered(t *testing.T, path string) tampered {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	magic, rest, _ := bytes.Cut(raw, []byte("\n"))
	line, rest, _ := bytes.Cut(rest, []byte("\n"))
	_, body, _ := bytes.Cut(rest, []byte("\n"))
	if string(magic) != "footballd-backup 1" {
		t.Fatalf("backup starts %q", magic)
	}
	var f tampered
	if err := json.Unmarshal(line, &f.header); err != nil {
		t.Fatal(err)
	}
	f.body = body
	return f
}

// write writes f with every checksum made again.
func (f tampered) write(t *testing.T, path string) string {
	t.Helper()
	off := 0
	for i, s := range f.header.Streams {
		sum := sha256.Sum256(f.body[off : off+int(s.Size)])
		f.header.Streams[i].SHA256 = hex.EncodeToString(sum[:])
		off += int(s.Size)
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f.header); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(line.Bytes())
	out := fmt.Appendf(nil, "footballd-backup 1\n%ssha256 %s\n", line.Bytes(), hex.EncodeToString(sum[:]))
	if err := os.WriteFile(path, append(out, f.body...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// config sets a field of stream i's configuration in the header.
func (f tampered) config(t *testing.T, i int, field string, value any) tampered {
	t.Helper()
	var fields map[string]any
	if err := json.Unmarshal(f.header.Streams[i].Config, &fields); err != nil {
		t.Fatal(err)
	}
	fields[field] = value
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	f.header.Streams = append([]backup.Stream(nil), f.header.Streams...)
	f.header.Streams[i].Config = b
	return f
}

// TestTamperedRestoreChangesNothing: a backup whose checksums agree but
// which cannot be restored as footballd's (a snapshot damaged and
// checksummed again, a configuration the server refuses or that keeps
// fewer revisions, a header naming the budgets' bucket or another stream,
// a state the snapshot does not have) is refused with --force in one line,
// exit 2, and every stream and bucket is as it was: messages, sequences,
// creation and configuration. The intact file then restores exactly, with
// stream init's configuration.
func TestTamperedRestoreChangesNothing(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	c.okf("fixture put --competition 1 --matchday 1 --home 57 --away 61 --kickoff 2025-08-16T14:00:00Z")
	for _, score := range []string{"1-0", "2-0", "2-1"} {
		c.okf("result 1 --score " + score)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.fdbackup")
	c.ok("backup", good)
	c.okf("team put --name Fulham") // after the backup: only a restore takes it away
	nc, err := nats.Connect(c.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	limits, err := js.KeyValue(t.Context(), events.BudgetsBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := limits.PutString(t.Context(), "caller", "7"); err != nil {
		t.Fatal(err)
	}
	before := keptStreams(t, c)

	orig := readTampered(t, good)
	corrupt := readTampered(t, good)
	corrupt.body = bytes.Clone(corrupt.body)
	corrupt.body[corrupt.header.Streams[0].Size/2] ^= 0x55
	renamed := func(name string) tampered {
		f := readTampered(t, good)
		f.header.Streams[1].Name = name
		return f
	}
	lying := readTampered(t, good)
	lying.header.Streams[0].State.Msgs++
	tests := []struct {
		name string
		file tampered
		want string
	}{
		{"damaged and checksummed again", corrupt, `refused, nothing restored: a server does not restore the snapshot of FOOTBALL: `},
		{"a configuration that does not parse", orig.config(t, 0, "discard", "sideways"), `refused, nothing restored: its configuration of FOOTBALL is not a stream configuration`},
		{"replicas a single server refuses", orig.config(t, 0, "num_replicas", 3), `refused, nothing restored: FOOTBALL was kept on 3 servers and this server is not in a cluster`},
		{"one revision per subject", orig.config(t, 0, "max_msgs_per_subject", 1), `refused, nothing restored: its configuration of FOOTBALL has max_msgs_per_subject 1 where stream init sets 64`},
		{"the budgets' bucket", renamed("KV_" + events.BudgetsBucket), `refused, nothing restored: it names stream KV_FD_LIMITS, which a footballd backup does not hold \(only FOOTBALL, KV_FD_WEBHOOKS\)`},
		{"another stream", renamed("ORDERS"), `refused, nothing restored: it names stream ORDERS, which a footballd backup does not hold`},
		{"a state the snapshot does not have", lying, `refused, nothing restored: the snapshot of FOOTBALL restores as \d+ messages, sequences 1-\d+, its header says`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.file.write(t, filepath.Join(dir, fmt.Sprintf("tampered%d.fdbackup", i)))
			c.refused(exitInvalid, `^ingest: restore: backup ".*": `+tt.want, "restore", "--force", path)
			after := keptStreams(t, c)
			for _, name := range everyStream {
				if b, a := fmt.Sprintf("%+v", before[name]), fmt.Sprintf("%+v", after[name]); a != b {
					t.Errorf("%s after the refused restore:\n%s\nbefore:\n%s", name, a, b)
				}
			}
		})
	}

	c.ok("restore", "--force", good)
	after := keptStreams(t, c)
	for _, s := range orig.header.Streams {
		got := after[s.Name]
		if got.Msgs != s.State.Msgs || (got.Msgs > 0 && got.FirstSeq != s.State.FirstSeq) || got.LastSeq != s.State.LastSeq {
			t.Errorf("%s restored: %+v; want the backup's %s", s.Name, got, s.State)
		}
		init := before[s.Name].Config
		if got.Config.MaxMsgsPerSubject != init.MaxMsgsPerSubject || got.Config.Description != init.Description ||
			got.Config.Metadata[events.RestoredMetadata] == "" {
			t.Errorf("%s restored with %+v; want stream init's configuration and a restore marker", s.Name, got.Config)
		}
	}
	if got := after["KV_"+events.BudgetsBucket]; got.Msgs != 1 {
		t.Errorf("the budgets bucket after a good restore: %+v; want it untouched", got)
	}
}

// newLimitedCLI is newCLI on a server that stores at most maxStore bytes
// of JetStream data: room for a small stream, not for a large backup.
func newLimitedCLI(t *testing.T, maxStore int64) *cli {
	t.Helper()
	ns, err := server.NewServer(&server.Options{ServerName: "limited", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), JetStreamMaxStore: maxStore, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("limited server not ready")
	}
	c := &cli{t: t, srv: &natsembed.Server{Server: ns}}
	t.Cleanup(c.srv.Stop)
	natstest.MustProvision(t, c.srv.URL(), events.StreamConfig{})
	return c
}

// TestRestoreFailingOnTheServerPutsBack: a backup that restores whole on
// the scratch server but not on the server (its storage limit reached
// once the stream is deleted) leaves every stream as it was: the restore
// snapshots what it replaces first and puts it back, and says so in one
// line.
func TestRestoreFailingOnTheServerPutsBack(t *testing.T) {
	src := newCLI(t)
	src.ok("import", "openfootball", natstest.SharedData(t, "openfootball-football-json", "2015-16", "en.1.json"))
	file := filepath.Join(t.TempDir(), "large.fdbackup")
	src.ok("backup", file)

	c := newLimitedCLI(t, 64<<10)
	setup(t, c)
	before := keptStreams(t, c)
	c.refused(exitFailure, `^ingest: restore: restore of FOOTBALL: .*insufficient .*; every stream was put back as it was\n$`, "restore", "--force", file)
	after := keptStreams(t, c)
	for _, name := range everyStream {
		b, a := before[name], after[name]
		// A stream put back is restored from its snapshot: a stream made
		// again, with a creation time of its own (replicas replay it).
		a.Created, b.Created = "", ""
		if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
			t.Errorf("%s after the failed restore:\n%+v\nbefore:\n%+v", name, a, b)
		}
	}
	c.okf("team put --name Fulham")
}
