package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// seasonCopy copies the real Premier League 2025-26 file (a season in
// progress) into a folder of the test, as a source a feed follows, and
// returns its path.
func seasonCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(natstest.SharedData(t, "openfootball-football-json", "2025-26", "en.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "2025-26", "en.1.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// setResult gives the first unplayed match of the season file a result,
// as the source does once it is played.
func setResult(t *testing.T, path, score string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const unplayed = `"team1": "Sunderland AFC",
      "team2": "Brighton & Hove Albion FC",
      "score": {
      }`
	if !bytes.Contains(b, []byte(unplayed)) {
		t.Fatalf("%s: no unplayed Sunderland v Brighton to give a result", path)
	}
	b = bytes.Replace(b, []byte(unplayed), []byte(strings.Replace(unplayed, "{\n      }", `{"ft": [`+score+`]}`, 1)), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// follow runs `ingest follow` in-process with args until the test ends
// or stop is called, which returns its exit code and log.
func (c *cli) follow(t *testing.T, args ...string) (stop func() (int, string)) {
	t.Helper()
	stop, _, _ = c.startFollow(t, args...)
	return stop
}

// startFollow is follow, with the follower's log and whether it ended.
func (c *cli) startFollow(t *testing.T, args ...string) (stop func() (int, string), log *natstest.Buffer, ended func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log = &natstest.Buffer{}
	code := make(chan int, 1)
	env := map[string]string{"FD_NATS_URL": c.srv.URL(), "FD_EDITOR": "tester"}
	go func() {
		code <- run(ctx, append([]string{"follow"}, args...), func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, log)
	}()
	var once sync.Once
	var got int
	stop = func() (int, string) {
		once.Do(func() { cancel(); got = <-code })
		return got, log.String()
	}
	t.Cleanup(func() { stop() })
	ended = func() bool {
		select {
		case c := <-code:
			code <- c // for stop
			return true
		default:
			return false
		}
	}
	return stop, log, ended
}

// followAdmin runs `ingest follow` as follow does, with its admin
// listener on a port it takes itself, and returns once it listens, with
// the address it got, read from its log as an operator would.
func (c *cli) followAdmin(t *testing.T, args ...string) (stop func() (int, string), admin string) {
	t.Helper()
	stop, log, ended := c.startFollow(t, append([]string{"--admin-listen", "127.0.0.1:0"}, args...)...)
	natstest.CheckFor(t, 30*time.Second, 10*time.Millisecond, func() error {
		for line := range strings.Lines(log.String()) {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "admin listening" {
				admin = l.Addr
				return nil
			}
		}
		if ended() {
			code, out := stop()
			t.Fatalf("follow ended (exit %d) before it listened:\n%s", code, out)
		}
		return fmt.Errorf("follow has not logged where it listens:\n%s", log.String())
	})
	return stop, admin
}

// getURL returns the status and body of a GET.
func getURL(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestFeedCommands: feeds are data in the stream, managed with `feed
// add|list|show|pause|resume|remove`; a file URL works; `ingest follow`
// keeps them current and shows what it did in `feed show`, on its admin
// listener's /metrics (every fd_feed_ series the dashboard and the
// alerts name) and /readyz.
func TestFeedCommands(t *testing.T) {
	c := newCLI(t)
	path := seasonCopy(t)
	url := "file://" + path
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"feed", "add", "pl", "--url", url}, exitInvalid, "format"},
		{[]string{"feed", "add", "pl", "--format", "json", "--url", url}, exitInvalid, "must be one a feed can follow: engsoccerdata, football-data, football-data-org, footballcsv, openfootball, openligadb, squads"},
		{[]string{"feed", "add", "pl", "--format", "openfootball", "--url", "ftp://example.org/x.json"}, exitInvalid, "url"},
		{[]string{"feed", "add", "pl", "--format", "openfootball", "--url", "file://relative/x.json"}, exitInvalid, "url"},
		{[]string{"feed", "add", "pl", "--format", "openfootball", "--url", url, "--every", "500ms"}, exitInvalid, "every"},
		{[]string{"feed", "add", "pl", "--format", "openfootball", "--url", url, "--every", "often"}, exitInvalid, "every"},
		{[]string{"feed", "add", "pl", "--format", "openfootball", "--url", url, "--league", "ZZZ"}, exitInvalid, "league"},
		{[]string{"feed", "add", "PL", "--format", "openfootball", "--url", url}, exitInvalid, "name"},
		{[]string{"feed", "show", "nope"}, exitNotFound, "no such feed"},
		{[]string{"follow", "--max-shrink", "2"}, exitInvalid, `--max-shrink "2": must be a number more than 0 and at most 1 (see ingest help follow)`},
	} {
		code, out, errOut := c.run(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.err) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("ingest %s: exit %d, %q%q; want %d and one line naming %q", strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.err)
		}
	}
	if out := c.ok("feed", "add", "pl", "--format", "openfootball", "--url", url, "--every", "1s", "--create-teams"); !strings.Contains(out, "feed pl created") {
		t.Fatalf("feed add: %s", out)
	}
	if code, _, errOut := c.run("feed", "add", "pl", "--format", "openfootball", "--url", url); code != exitConflict {
		t.Errorf("feed add of an existing name: exit %d %s, want a conflict", code, errOut)
	}
	if out := c.ok("feed", "list"); !regexp.MustCompile(`(?m)^pl\s+openfootball\s+active\s+1s\s+-\s+-\s+file://`).MatchString(out) {
		t.Errorf("feed list before any poll:\n%s", out)
	}

	stop, admin := c.followAdmin(t, "--lease", "1s", "--holder", "f1", "--feed-files", filepath.Dir(path))
	show := c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl")
	for _, want := range []string{`format:\s+openfootball`, `lease holder:\s+f1`, `matches:\s+380`, `etag:\s+"`, `changes published:\s+4\d\d`,
		`teams:\s+created when unknown`, `next poll:\s+20`, `last error:\s+-`} {
		if !regexp.MustCompile(want).MatchString(show) {
			t.Errorf("feed show lacks %s:\n%s", want, show)
		}
	}
	// The file untouched: not modified, by its size and time.
	c.waitOutput(t, `last result:\s+not_modified`, "feed", "show", "pl")
	setResult(t, path, "3, 3")
	c.waitOutput(t, `last result:\s+changed`, "feed", "show", "pl")
	if out := c.ok("show", "fixture", fixtureOf(t, c, "Sunderland", "Brighton")); !strings.Contains(out, `"fullTime": {`) {
		t.Errorf("the result did not reach the fixture:\n%s", out)
	}

	t.Run("the dashboard and the alerts use metrics the follower exports", func(t *testing.T) {
		status, body := getURL(t, "http://"+admin+"/metrics")
		if status != 200 {
			t.Fatalf("/metrics: %d", status)
		}
		exported := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) `).FindAllStringSubmatch(body, -1) {
			exported[m[1]] = true
		}
		for _, file := range []string{"../../deploy/grafana/footballd.json", "../../deploy/prometheus/alerts.yml"} {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			names := regexp.MustCompile(`\bfd_feed_[a-z0-9_]+`).FindAllString(string(b), -1)
			if len(names) == 0 {
				t.Errorf("%s names no fd_feed_ metric", file)
			}
			slices.Sort(names)
			for _, name := range slices.Compact(names) {
				if !exported[name] {
					t.Errorf("%s uses %s, which the follower does not export", file, name)
				}
			}
		}
		if status, body := getURL(t, "http://"+admin+"/readyz"); status != 200 || !strings.Contains(body, "ready") {
			t.Errorf("/readyz: %d %s", status, body)
		}
	})

	c.ok("feed", "pause", "pl")
	c.waitOutput(t, `(?m)^pl\s+openfootball\s+paused`, "feed", "list")
	c.waitOutput(t, `lease holder:\s+none`, "feed", "show", "pl")
	c.ok("feed", "resume", "pl")
	c.waitOutput(t, `lease holder:\s+f1`, "feed", "show", "pl")
	c.ok("feed", "remove", "pl")
	c.waitOutput(t, `(?m)state:\s+removed[\s\S]*lease holder:\s+none`, "feed", "show", "pl")
	if code, _, errOut := c.run("feed", "pause", "pl"); code != exitNotFound {
		t.Errorf("feed pause of a removed feed: exit %d %s", code, errOut)
	}
	// Added again, the name starts afresh: a new status, nothing to
	// publish (the data is there).
	c.ok("feed", "add", "pl", "--format", "openfootball", "--url", url, "--every", "1s")
	show = c.waitOutput(t, `last result:\s+unchanged`, "feed", "show", "pl")
	if !regexp.MustCompile(`changes published:\s+0\n`).MatchString(show) {
		t.Errorf("the feed added again:\n%s", show)
	}
	code, log := stop()
	if code != exitOK || !strings.Contains(log, `"msg":"following"`) || !strings.Contains(log, `"msg":"stopped"`) {
		t.Errorf("follow: exit %d, log:\n%s", code, log)
	}
}

// fixtureOf finds the id of the 2025-26 Premier League fixture of two
// teams, home first, by the start of their names, through the API's way of listing
// a competition's fixtures: the stream.
func fixtureOf(t *testing.T, c *cli, home, away string) string {
	t.Helper()
	s := natstest.MustOpen(t, c.srv)
	var id string
	for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
		h, a := strings.Index(f.Source, "|"+home), strings.Index(f.Source, "|"+away)
		if h >= 0 && a > h && strings.Contains(f.Source, ":PL:2025:") {
			id = strconv.Itoa(f.ID)
		}
	}
	if id == "" {
		t.Fatalf("no fixture %s v %s", home, away)
	}
	return id
}

// TestFollowKill9: two `ingest follow` processes (the built binary) follow
// one feed; the one holding its lease is killed with SIGKILL; the other
// takes over within seconds and publishes the next change once; SIGTERM
// stops it cleanly, giving its lease up.
func TestFollowKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ingest binary")
	}
	bin := filepath.Join(t.TempDir(), "ingest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c := newCLI(t)
	path := seasonCopy(t)
	c.ok("feed", "add", "pl", "--format", "openfootball", "--url", "file://"+path, "--every", "1s", "--create-teams")
	start := func(holder string) (*exec.Cmd, *natstest.Buffer) {
		log := &natstest.Buffer{}
		cmd := exec.Command(bin, "follow", "--holder", holder, "--lease", "1s", "--admin-listen", "", "--feed-files", filepath.Dir(path))
		cmd.Env = append(os.Environ(), "FD_NATS_URL="+c.srv.URL())
		cmd.Stderr = log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd, log
	}
	a, _ := start("a")
	c.waitOutput(t, `(?s)lease holder:\s+a.*last result:\s+changed`, "feed", "show", "pl")
	b, blog := start("b")
	store := natstest.MustOpen(t, c.srv)
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = a.Wait()
	// What a published before it died may still be landing (its publishes
	// are asynchronous); b publishes nothing before it holds the lease,
	// at least a second from now. The stream's end, once it stays put for
	// 100 ms, is where "since the kill" starts.
	var seq uint64
	natstest.CheckFor(t, 5*time.Second, 100*time.Millisecond, func() error {
		last, err := store.LastSeq(context.Background())
		if err != nil || last != seq {
			seq = last
			return fmt.Errorf("stream's last sequence %d, %v: still moving", last, err)
		}
		return nil
	})
	c.waitOutput(t, `lease holder:\s+b`, "feed", "show", "pl")
	t.Logf("b holds the lease %s after a was killed (lease 1s)", time.Since(killed).Round(10*time.Millisecond))
	setResult(t, path, "0, 2")
	// Every message since the kill is a revision of the fixture whose
	// result came: nothing else, nothing twice. A result is a status path
	// (TIMED → IN_PLAY → FINISHED), each step a revision of its own
	// published after the one before (internal/editor), so the change is
	// whole only once the fixture is FINISHED: a history read when the
	// first step had landed lacked the second, which the stream's end
	// read after it counted. The end is read before the history, so that
	// every message up to it is in the history.
	fixture := fixtureOf(t, c, "Sunderland", "Brighton")
	c.waitOutput(t, `"status": "FINISHED"`, "show", "fixture", fixture)
	last, err := store.LastSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hist := c.ok("history", "fixture", fixture)
	var after int
	for _, m := range regexp.MustCompile(`(?m)^revision (\d+) `).FindAllStringSubmatch(hist, -1) {
		if n, _ := strconv.ParseUint(m[1], 10, 64); n > seq {
			after++
		}
	}
	if after == 0 || uint64(after) != last-seq || !strings.Contains(hist, "fullTime.away: 2") {
		t.Errorf("%d messages published since the kill, %d of them revisions of fixture %s, want all and the result 0-2:\n%s\nb's log:\n%s",
			last-seq, after, fixture, hist, blog.String())
	}
	if err := b.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := b.Wait(); err != nil {
		t.Errorf("follow after SIGTERM: %v\n%s", err, blog.String())
	}
	c.waitOutput(t, `lease holder:\s+none`, "feed", "show", "pl")
}
