// Package scripts_test runs `make run` (scripts/run.sh) as a newcomer
// would: at a terminal, on the demo data, and stopped with Ctrl-C.
package scripts_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/relay"
)

// demo is a run of scripts/run.sh at a terminal (script(1) gives it one),
// so that Ctrl-C is a keystroke, as for a newcomer.
type demo struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	out   strings.Builder
	done  chan error
}

func startDemo(t *testing.T, env ...string) *demo {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatal("this test needs script(1) (Debian's bsdutils) to run make run at a terminal")
	}
	d := &demo{done: make(chan error, 1)}
	d.cmd = exec.Command(script, "-qfec", "scripts/run.sh", "/dev/null")
	d.cmd.Dir = ".."
	d.cmd.Env = append(os.Environ(), env...)
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	d.cmd.Stdout, d.cmd.Stderr = pw, pw
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// done says the run ended once its output is all read: a run that
	// fails at once shows why.
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			d.mu.Lock()
			d.out.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
		}
	}()
	go func() {
		err := d.cmd.Wait()
		pw.Close()
		<-read
		d.done <- err
	}()
	t.Cleanup(func() {
		if d.cmd.ProcessState == nil {
			_ = d.cmd.Process.Kill()
		}
	})
	return d
}

func (d *demo) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.String()
}

// waitFor waits until the output matches re or the run ends.
func (d *demo) waitFor(t *testing.T, re string) []string {
	t.Helper()
	var m []string
	natstest.CheckFor(t, 3*time.Minute, 50*time.Millisecond, func() error {
		out := d.output()
		if m = regexp.MustCompile(re).FindStringSubmatch(out); m != nil {
			return nil
		}
		select {
		case err := <-d.done:
			d.done <- err
			t.Fatalf("make run ended (%v) before %q:\n%s", err, re, d.output())
		default:
		}
		return fmt.Errorf("no %q:\n%s", re, out)
	})
	return m
}

func getJSON(t *testing.T, url, token string, into any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
	req.Header.Set("X-Auth-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(err)
	}
}

// TestMakeRun: the demo starts, prints a token that works, serves the
// corrected demo data, refuses to start a second time on the same ports
// or data, and Ctrl-C ends it with exit 0.
func TestMakeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the demo")
	}
	// Every port 0: the replica and its NATS take free ones, which the
	// demo prints and the replica's log names.
	dir := t.TempDir()
	env := []string{"FD_LISTEN=127.0.0.1:0", "FD_NATS_URL=nats://127.0.0.1:0", "FD_EMBEDDED_NATS=" + dir, "FD_ADMIN_LISTEN=127.0.0.1:0",
		"FD_WEBHOOK_ALLOW=127.0.0.1/32"}
	d := startDemo(t, env...)
	token := d.waitFor(t, `export TOKEN=([a-z1-9]+)`)[1]
	d.waitFor(t, `Ctrl-C stops it`)
	listen := d.waitFor(t, `footballd is ready on http://(\S+) `)[1]
	// The last NATS started: make run imports the demo through a replica
	// of its own first, which took another free port.
	started := regexp.MustCompile(`"msg":"embedded nats started","url":"nats://([^"]+)"`).FindAllStringSubmatch(d.output(), -1)
	if started == nil {
		t.Fatalf("make run's replica did not log its NATS address:\n%s", d.output())
	}
	natsAddr := started[len(started)-1][1]

	// The replica it names listens where it was asked to, not on the
	// address the import's replica got: the first make run of a clone
	// served on that port, not on localhost:8080.
	out := d.output()
	configured := regexp.MustCompile(`"msg":"configuration","listen":"([^"]+)"`).FindAllStringSubmatch(out, -1)
	if len(configured) != 2 || configured[1][1] != "127.0.0.1:0" {
		t.Errorf("make run's replicas were configured to listen on %v, want the import's then FD_LISTEN's 127.0.0.1:0:\n%s", configured, out)
	}
	// The address it names answered nothing before the import ended, and
	// each request it suggests answers with data.
	if listened := strings.LastIndex(out, `"msg":"listening","addr":"`+listen+`"`); listened < strings.Index(out, "imported 20 file(s)") {
		t.Errorf("the replica on %s listened before the demo import ended:\n%s", listen, out)
	}
	bannerAnswers(t, out, token)

	base := "http://" + listen + "/v1"
	var comps []struct {
		ID      int    `json:"id"`
		League  string `json:"league"`
		Teams   int    `json:"numberOfTeams"`
		Caption string `json:"caption"`
	}
	getJSON(t, base+"/competitions/", token, &comps)
	byLeague := map[string]int{}
	for _, c := range comps {
		byLeague[c.League] = c.ID
		if c.League == "EL1" && c.Teams != 24 {
			t.Errorf("League One has %d teams, want 24", c.Teams)
		}
	}
	if byLeague["PL"] != 6 {
		t.Errorf("the Premier League is competition %d; the README says 6", byLeague["PL"])
	}
	var fixtures struct {
		Count int `json:"count"`
	}
	getJSON(t, fmt.Sprintf("%s/competitions/%d/fixtures", base, byLeague["EL2"]), token, &fixtures)
	if fixtures.Count != 552 {
		t.Errorf("League Two has %d fixtures, want 552", fixtures.Count)
	}
	var arsenal struct {
		Name string `json:"name"`
	}
	getJSON(t, base+"/teams/57", token, &arsenal)
	if arsenal.Name != "Arsenal FC" {
		t.Errorf("team 57 is %q; the README says Arsenal FC", arsenal.Name)
	}

	// The README's first edit, as written there: a live score for a match
	// of the next Premier League matchday.
	edit, err := docBlock(t, "../README.md", "The first edit", listen, natsAddr).CombinedOutput()
	edited := regexp.MustCompile(`fixture 6/(\d+) updated`).FindSubmatch(edit)
	if err != nil || edited == nil {
		t.Fatalf("the README's first edit: %v\n%s", err, edit)
	}
	var live struct {
		Fixture struct {
			Status string `json:"status"`
		} `json:"fixture"`
	}
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		getJSON(t, base+"/fixtures/"+string(edited[1]), token, &live)
		if live.Fixture.Status != "IN_PLAY" {
			return fmt.Errorf("fixture %s is not served live: %+v", edited[1], live)
		}
		return nil
	})

	// docs/operations.md's second replica beside make run, as written
	// there (only the addresses moved: make run's NATS, and port 0 for
	// the replica's own, read back from its log): it starts, and answers
	// as the first does.
	block := strings.NewReplacer("nats://127.0.0.1:4222", "nats://"+natsAddr, "--listen :8081", "--listen 127.0.0.1:0",
		"127.0.0.1:9091", "127.0.0.1:0").Replace(natstest.BlockAfter(t, "../docs/operations.md", "## Running replicas", "sh").Text)
	replica := exec.Command("bash", "-euo", "pipefail", "-c", "exec "+strings.TrimSpace(block))
	replica.Dir = ".."
	// As the page says: the replicas share the webhook deliveries, and one
	// that refuses loopback fails each it takes until the webhook parks.
	replica.Env = append(os.Environ(), "FD_WEBHOOK_ALLOW=127.0.0.1/32")
	// Read by CheckFor's message while the process writes it: a locked
	// buffer.
	replicaLog := &natstest.Buffer{}
	replica.Stderr = replicaLog
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = replica.Process.Kill(); _ = replica.Wait() }()
	listening := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	var second string
	natstest.CheckFor(t, time.Minute, 50*time.Millisecond, func() error {
		m := listening.FindStringSubmatch(replicaLog.String())
		if m == nil {
			return fmt.Errorf("the documented second replica has not logged where it listens:\n%s", replicaLog.String())
		}
		second = m[1]
		resp, err := http.Get("http://" + second + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = fmt.Errorf("/readyz: %s", resp.Status)
		}
		return fmt.Errorf("the documented second replica is not ready: %v\n%s", err, replicaLog.String())
	})
	for _, path := range []string{"/competitions/", "/competitions/6/leagueTable", "/fixtures/" + string(edited[1]), "/teams/57"} {
		var one, two any
		getJSON(t, base+path, token, &one)
		getJSON(t, "http://"+second+"/v1"+path, token, &two)
		a, _ := json.Marshal(one)
		b, _ := json.Marshal(two)
		// Links name the host asked, the rest must be the same.
		if mine := strings.ReplaceAll(string(b), second, listen); string(a) != mine {
			i := 0
			for i < min(len(a), len(mine)) && a[i] == mine[i] {
				i++
			}
			t.Errorf("GET %s: the documented second replica answers otherwise from byte %d: %.80q, want %.80q", path, i, mine[i:], a[i:])
		}
	}

	webhookWalkthrough(t, natsAddr, string(edited[1]))

	// The README's first requests and docs/tables.md's Superliga, as
	// written there.
	requests := docBlock(t, "../README.md", "In another terminal:", listen, natsAddr)
	if out, err := requests.CombinedOutput(); err != nil || strings.Count(string(out), `"error"`) != 1 || !strings.Contains(string(out), "Arsenal FC") {
		t.Errorf("the README's first requests (one error, a hint, expected): %v\n%.2000s", err, out)
	}
	superliga := docBlock(t, "../docs/tables.md", "Denmark's Superliga", listen, natsAddr)
	if out, err := superliga.CombinedOutput(); err != nil || !strings.Contains(string(out), `rules.phases[1].name: "Relegation round"`) {
		t.Errorf("docs/tables.md's Superliga: %v\n%s", err, out)
	}

	// A second make run on the same ports, or the same data, says so in
	// one line and starts nothing.
	for _, again := range [][]string{{"FD_LISTEN=" + listen, "FD_NATS_URL=nats://" + natsAddr, "FD_EMBEDDED_NATS=" + t.TempDir()},
		{"FD_LISTEN=127.0.0.1:0", "FD_NATS_URL=nats://127.0.0.1:0", "FD_EMBEDDED_NATS=" + dir, "FD_ADMIN_LISTEN=127.0.0.1:0"}} {
		cmd := exec.Command("scripts/run.sh")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), again...)
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !regexp.MustCompile(`^run: .* in use`).Match(out) {
			t.Errorf("a second make run (%v): %v\n%s", again, err, out)
		}
	}

	// Ctrl-C at the terminal.
	if _, err := d.stdin.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.done:
		if err != nil {
			t.Errorf("make run after Ctrl-C: %v\n%s", err, d.output())
		}
	case <-time.After(time.Minute):
		t.Fatalf("make run did not stop on Ctrl-C:\n%s", d.output())
	}

	// On the real clock, once the demo season is over, it says so.
	real := startDemo(t, append(env, "DEMO_NOW=")...)
	real.waitFor(t, `Ctrl-C stops it`)
	bannerAnswers(t, real.output(), real.waitFor(t, `export TOKEN=([a-z1-9]+)`)[1])
	over := time.Now().UTC().After(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	if said := strings.Contains(real.output(), "the demo season (2025-26) is a former season"); said != over {
		t.Errorf("on the real clock (season over: %v), said so: %v\n%s", over, said, real.output())
	}
	if _, err := real.stdin.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	if err := <-real.done; err != nil {
		t.Errorf("second run after Ctrl-C: %v", err)
	}
}

// bannerAnswers sends each request make run's banner suggests, as
// printed, and checks it answers 200 with data: no empty list, no count
// of 0.
func bannerAnswers(t *testing.T, out, token string) {
	t.Helper()
	_, banner, _ := strings.Cut(out, "footballd is ready on ")
	tries := regexp.MustCompile(`(?m)^  curl (?:-H "X-Auth-Token: \$TOKEN" )?'?(http://[^ '\r\n]+)`).FindAllStringSubmatch(banner, -1)
	if len(tries) < 5 {
		t.Fatalf("make run's banner suggests %d requests, want 5:\n%s", len(tries), banner)
	}
	for _, try := range tries {
		req, err := http.NewRequestWithContext(context.Background(), "GET", try[1], nil)
		if err != nil {
			t.Fatalf("the banner's %q: %v", try[1], err)
		}
		req.Header.Set("X-Auth-Token", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) == "[]" || strings.Contains(string(body), `"count":0,`) {
			t.Errorf("the banner's %s: %d %.200s, want data", try[1], resp.StatusCode, body)
		}
	}
}

// webhookWalkthrough runs docs/push.md's webhook commands and its receiver
// program as written there beside make run started with
// FD_WEBHOOK_ALLOW=127.0.0.1/32: the receiver passes the host
// verification, and a live edit reaches it, signed. Only the addresses
// move: the receiver listens on port 0 and prints the one it got, and
// the webhook, registered before the receiver runs (it needs the secret
// webhook add prints), points at a relay the test holds, which leads to
// the receiver once it listens.
func webhookWalkthrough(t *testing.T, natsAddr, fixture string) {
	t.Helper()
	// Built first, so that it runs as soon as webhook add has printed
	// the secret: until then the replicas' attempts fail.
	src := filepath.Join(t.TempDir(), "receiver.go")
	if err := os.WriteFile(src, []byte(strings.ReplaceAll(natstest.BlockAfter(t, "../docs/push.md", "A receiver in Go", "go").Text, "127.0.0.1:8999", "127.0.0.1:0")), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "receiver")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("docs/push.md's receiver does not build: %v\n%s", err, out)
	}
	hook := relay.Start(t)
	sh := strings.ReplaceAll(natstest.BlockAfter(t, "../docs/push.md", "## Webhooks", "sh").Text, "127.0.0.1:8999", hook.Addr())
	out, err := shell(sh, natsAddr).CombinedOutput()
	secret := regexp.MustCompile(`(?m)^secret: (whsec_\S+)$`).FindSubmatch(out)
	if err != nil || secret == nil || !strings.Contains(string(out), "warning: 127.0.0.1 is not a public address") {
		t.Fatalf("docs/push.md's webhook commands: %v\n%s", err, out)
	}
	recv := exec.Command(bin)
	recv.Env = append(os.Environ(), "FD_WEBHOOK_SECRET="+string(secret[1]))
	var got natstest.Buffer
	recv.Stdout, recv.Stderr = &got, &got
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = recv.Process.Kill(); _ = recv.Wait() }()
	receiving := regexp.MustCompile(`receiving on http://(\S+)/football`)
	natstest.CheckFor(t, time.Minute, 50*time.Millisecond, func() error {
		m := receiving.FindStringSubmatch(got.String())
		if m == nil {
			return fmt.Errorf("the receiver has not printed where it listens:\n%s", got.String())
		}
		hook.Forward(m[1])
		return nil
	})
	ingest := func(args ...string) string {
		c := exec.Command("bin/ingest", args...)
		c.Dir = ".."
		c.Env = append(os.Environ(), "FD_NATS_URL=nats://"+natsAddr)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("ingest %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	natstest.CheckFor(t, time.Minute, 200*time.Millisecond, func() error {
		if show := ingest("webhook", "show", "acme-live"); !strings.Contains(show, "verified since") {
			return fmt.Errorf("the receiver is not verified:\n%s\n%s", show, got.String())
		}
		return nil
	})
	ingest("result", fixture, "--score", "2-0", "--status", "IN_PLAY")
	update := regexp.MustCompile(`(?m)^\d+\.Fixture\.Update\.` + fixture + ` \{.*"goalsHomeTeam":\[1,2\]`)
	// Every 200 ms, not 50: each try runs ingest for the failure's message.
	natstest.CheckFor(t, time.Minute, 200*time.Millisecond, func() error {
		if out := got.String(); !update.MatchString(out) {
			return fmt.Errorf("the receiver printed no signed Fixture.Update of fixture %s:\n%s\n%s", fixture, out, ingest("webhook", "show", "acme-live"))
		}
		return nil
	})
}

// docBlock is the first sh block of the Markdown file at path after the
// text after, as a command to run from the repository with make run's
// addresses.
func docBlock(t *testing.T, path, after, listen, natsAddr string) *exec.Cmd {
	t.Helper()
	return shell(strings.ReplaceAll(natstest.BlockAfter(t, path, after, "sh").Text, "localhost:8080", listen), natsAddr)
}

// shell runs script with bash from the repository, its ingest commands
// pointed at the NATS of make run.
func shell(script, natsAddr string) *exec.Cmd {
	c := exec.Command("bash", "-euo", "pipefail", "-c", script)
	c.Dir = ".."
	c.Env = append(os.Environ(), "FD_NATS_URL=nats://"+natsAddr)
	return c
}
