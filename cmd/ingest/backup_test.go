package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// newWipeableCLI is newCLI on a server whose storage wipe destroys: it
// stops the server, deletes its directory and starts an empty one on the
// same port, nothing provisioned.
func newWipeableCLI(t *testing.T) (c *cli, wipe func()) {
	t.Helper()
	opts := natsembed.Options{Dir: t.TempDir()}
	srv, err := natsembed.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Port = srv.Addr().(*net.TCPAddr).Port
	c = &cli{t: t, srv: srv}
	t.Cleanup(func() { c.srv.Stop() })
	natstest.MustProvision(t, srv.URL(), events.StreamConfig{})
	return c, func() {
		c.srv.Stop()
		if err := os.RemoveAll(opts.Dir); err != nil {
			t.Fatal(err)
		}
		if c.srv, err = natsembed.Start(opts); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackupAndRestore: `ingest backup`, the server's storage destroyed,
// `ingest restore` and `ingest stream init`, as the runbook has them, give
// back every revision with its sequence and time, the webhook with its
// state as a replica left it, and the next edit a new sequence.
func TestBackupAndRestore(t *testing.T) {
	c, wipe := newWipeableCLI(t)
	c.ok("import", "openfootball", natstest.SharedData(t, "openfootball-football-json", "2015-16", "en.1.json"))
	c.okf("result 1 --score 2-1 --half-time 1-1")
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, r.URL.Query().Get("fd_challenge"))
		}
	}))
	defer recv.Close()
	c.okf("client add acme --tier registered")
	c.okf("webhook add live --client acme --url " + recv.URL + "/hook")
	t.Run("a replica verifies the webhook and delivers to it", func(t *testing.T) {
		d := c.replica(t)
		c.waitOutput(t, `state:\s+verified since`, "webhook", "show", "live")
		d.Publish([]push.Event{{Seq: liveSeq, Kind: push.FixtureUpdate, ID: 1, Competition: 1, League: "PL", Tier: model.TierAnonymous, Time: time.Now(),
			Updates: map[string][2]any{"status": {"TIMED", "IN_PLAY"}}}})
		c.waitOutput(t, `delivered:\s+1`, "webhook", "show", "live")
	})
	reads := [][]string{{"webhook", "show", "live"}, {"webhook", "list"}, {"history", "fixture", "1"}, {"show", "fixture", "1"},
		{"history", "client", "acme"}}
	before := map[string]string{}
	for _, args := range reads {
		before[strings.Join(args, " ")] = c.ok(args...)
	}

	file := filepath.Join(t.TempDir(), "footballd.fdbackup")
	out := c.ok("backup", file)
	m := regexp.MustCompile(`^FOOTBALL: (\d+) messages, sequences 1-(\d+), snapshot [\d.]+ [KM]iB in \S+\nKV_FD_WEBHOOKS: 1 message, sequence \d+, snapshot \d+ B in \S+\nwrote ` +
		regexp.QuoteMeta(file) + ` in \S+\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("backup said:\n%s", out)
	}
	last, _ := strconv.Atoi(m[2])

	wipe()
	if code, _, errOut := c.run("stream", "info"); code == exitOK || !strings.Contains(errOut, "5 of 5 not set up") {
		t.Fatalf("after the wipe, stream info: exit %d, %s", code, errOut)
	}
	c.refused(exitFailure, `^ingest: backup: snapshot of FOOTBALL: .*stream not found; not set up: an operator runs`, "backup", file+".2")
	out = c.ok("restore", file)
	for _, want := range []string{`(?m)^` + regexp.QuoteMeta(file) + `: [\d.]+ [KM]iB, written \S+ by ingest version`,
		`(?m)^FOOTBALL: create ` + m[1] + ` messages, sequences 1-` + m[2] + `$`,
		`(?m)^FOOTBALL: restored, ` + m[1] + ` messages, sequences 1-` + m[2] + `, in \S+$`,
		`(?m)^KV_FD_WEBHOOKS: restored, 1 message, sequence \d+, in `} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("restore: output lacks %q:\n%s", want, out)
		}
	}
	c.okf("stream init")
	for _, args := range reads {
		if got, want := c.ok(args...), before[strings.Join(args, " ")]; got != want {
			t.Errorf("ingest %s after the restore:\n%s\nbefore:\n%s", strings.Join(args, " "), got, want)
		}
	}
	out = c.okf("result 1 --score 3-1")
	if h := c.okf("history fixture 1"); !strings.Contains(h, "revision "+strconv.Itoa(last+1)+" ") {
		t.Errorf("the first edit after the restore is not sequence %d:\n%s\n%s", last+1, out, h)
	}
}

// TestRestoreRefusals: a damaged file, a stream that holds messages (no
// --force) and bad arguments are refused in one line before anything is
// deleted; --dry-run shows the plan and changes nothing; --force replaces
// the stream with the backup's.
func TestRestoreRefusals(t *testing.T) {
	c := newCLI(t)
	setup(t, c)
	dir := t.TempDir()
	file := filepath.Join(dir, "good.fdbackup")
	lastSeq := func() uint64 {
		t.Helper()
		seq, err := natstest.MustOpen(t, c.srv).LastSeq(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	c.ok("backup", file)
	backedUp := lastSeq()
	c.okf("team put --name Fulham") // after the backup: a restore takes it away
	now := lastSeq()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	changed := append([]byte(nil), raw...)
	changed[len(changed)-100] ^= 1
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"cut short", []string{"restore", "--force", write("cut.fdbackup", raw[:len(raw)-1000])}, exitInvalid,
			`^ingest: restore: backup ".*cut.fdbackup": damaged, nothing restored: truncated: the snapshot of \S+ has \d+ of its \d+ bytes\n$`},
		{"a byte changed", []string{"restore", "--force", write("changed.fdbackup", changed)}, exitInvalid,
			`^ingest: restore: backup ".*changed.fdbackup": damaged, nothing restored: the snapshot of KV_FD_WEBHOOKS does not match its checksum\n$`},
		{"not a backup", []string{"restore", "--force", write("notes.txt", []byte("hello\n"))}, exitInvalid,
			`^ingest: restore: backup ".*notes.txt": is not a footballd backup \(its first line is not "footballd-backup 1"\)\n$`},
		{"no such file", []string{"restore", filepath.Join(dir, "nothing")}, exitInvalid, `^ingest: restore: backup ".*nothing": cannot be read: no such file or directory\n$`},
		{"stream holds messages", []string{"restore", file}, exitConflict,
			`^ingest: restore: stream "FOOTBALL": exists with \d+ messages, sequences 1-\d+; nothing restored \(restore with --force to replace it: running API replicas replay the restored stream\)\n$`},
		{"no file", []string{"restore"}, exitInvalid, `^ingest: restore: want one backup FILE\n$`},
		{"replicas", []string{"restore", "--replicas", "2", file}, exitInvalid, `^ingest: restore: --replicas 2: want 1, 3 or 5\n$`},
		{"backup without file", []string{"backup"}, exitInvalid, `^ingest: backup: want one FILE to write\n$`},
		{"backup dry run", []string{"backup", "--dry-run", file}, exitInvalid, `^ingest: backup: --dry-run: a backup changes nothing on the server`},
		{"backup into no directory", []string{"backup", filepath.Join(dir, "none", "b.fdbackup")}, exitFailure, `^ingest: backup: backup .*none/b.fdbackup: open .*: no such file or directory\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.refused(tt.code, tt.want, tt.args...)
			if got := lastSeq(); got != now {
				t.Errorf("the stream's last sequence is %d, was %d: the refused restore changed it", got, now)
			}
		})
	}

	out := c.ok("restore", "--force", "--dry-run", file)
	if !regexp.MustCompile(`(?m)^FOOTBALL: replace the stream there \(\d+ messages, sequences 1-`+strconv.FormatUint(now, 10)+`\) with \d+ messages`).MatchString(out) ||
		!strings.HasSuffix(out, "dry run: nothing restored\n") || lastSeq() != now {
		t.Errorf("dry run said:\n%s", out)
	}
	c.ok("restore", "--force", file)
	if got := lastSeq(); got != backedUp {
		t.Errorf("after restore --force the last sequence is %d, want the backup's %d", got, backedUp)
	}
	if code, _, _ := c.run("show", "team", "4"); code != exitNotFound {
		t.Errorf("the team added after the backup is still there after restore --force (exit %d)", code)
	}
}
