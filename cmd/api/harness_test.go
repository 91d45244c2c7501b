package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// replica is a running cmd/api, started through run as main does.
type replica struct {
	t      testing.TB
	base   string // http://127.0.0.1:port
	admin  string // http://127.0.0.1:port of the admin listener
	nats   string
	cancel context.CancelFunc
	done   chan error
	logs   *natstest.Buffer
	once   *sync.Once // shared by the copies forTest makes
}

// forTest is the replica as test t sees it: what fails in its requests is
// t's failure. The tests that share a world's replica each take one.
func (r *replica) forTest(t testing.TB) *replica {
	c := *r
	c.t = t
	return &c
}

// startReplica runs the API with the given extra flags (which may
// override the harness's) and waits for /readyz. With natsURL empty it
// runs its own NATS server too (single-machine mode), whose URL is r.nats.
func startReplica(t testing.TB, natsURL string, extra ...string) *replica {
	t.Helper()
	args := []string{"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--drain", "0s"}
	if natsURL == "" {
		args = append(args, "--nats", "nats://127.0.0.1:0", "--embedded-nats", t.TempDir())
	} else {
		args = append(args, "--nats", natsURL)
	}
	r := launch(t, append(args, extra...)...)
	r.waitReady()
	return r
}

// launch runs the API with args, as main does, and returns once it
// listens, stopped when the test ends. Its listeners (and an embedded
// NATS server) bind the ports the args give, port 0 for any free one: the
// addresses are read back from the lines of its log that tell an operator
// where it listens, so no test picks a port for the replica to bind.
func launch(t testing.TB, args ...string) *replica {
	t.Helper()
	return launchEnv(t, nil, args...)
}

// launchEnv is launch with the environment env (launch's is empty).
func launchEnv(t testing.TB, env map[string]string, args ...string) *replica {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{t: t, cancel: cancel, done: make(chan error, 1), logs: &natstest.Buffer{}, once: new(sync.Once)}
	// The lines launch reads are info's: a test's own --log-level in
	// args must keep them.
	go func() {
		r.done <- run(ctx, append([]string{"--log-level", "info"}, args...), func(k string) string { return env[k] }, io.Discard, r.logs)
	}()
	t.Cleanup(r.stop)
	wantAdmin, embedded := lastFlag(args, "--admin-listen") != "", lastFlag(args, "--embedded-nats") != ""
	var stopped error
	natstest.CheckFor(t, 60*time.Second, 10*time.Millisecond, func() error {
		select {
		case err := <-r.done:
			stopped = fmt.Errorf("run ended: %v", err)
			r.done <- nil // for the cleanup's stop: the end is reported here
			return nil
		default:
		}
		at := logged(r.logs.String())
		r.base, r.admin, r.nats = "http://"+at["listening"], "http://"+at["admin listening"], at["embedded nats started"]
		if !embedded {
			r.nats = lastFlag(args, "--nats")
		}
		if at["listening"] == "" || wantAdmin && at["admin listening"] == "" || embedded && r.nats == "" {
			return fmt.Errorf("the api has not logged where it listens:\n%s", r.logs.String())
		}
		return nil
	})
	if stopped != nil {
		t.Fatalf("api stopped before it listened: %v\n%s", stopped, r.logs.String())
	}
	return r
}

// lastFlag is the value the last --name in args gives it, as the flag
// package reads them ("" when there is none).
func lastFlag(args []string, name string) string {
	v := ""
	for i, a := range args {
		if val, ok := strings.CutPrefix(a, name+"="); ok {
			v = val
		} else if a == name && i+1 < len(args) {
			v = args[i+1]
		}
	}
	return v
}

// logged reads, from a replica's JSON log, where it listens: the address
// of "listening" and "admin listening", the URL of "embedded nats
// started", by message.
func logged(logs string) map[string]string {
	at := map[string]string{}
	for line := range strings.Lines(logs) {
		var l struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
			URL  string `json:"url"`
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		switch l.Msg {
		case "listening", "admin listening":
			at[l.Msg] = l.Addr
		case "embedded nats started":
			at[l.Msg] = l.URL
		}
	}
	return at
}

// untilReady waits for /readyz, or returns the error of a replica that
// stopped before it was ready.
func (r *replica) untilReady() error {
	var stopped error
	natstest.CheckFor(r.t, 60*time.Second, 20*time.Millisecond, func() error {
		select {
		case err := <-r.done:
			stopped = fmt.Errorf("run ended: %v", err)
			return nil
		default:
		}
		resp, err := http.Get(r.base + "/readyz")
		if err != nil {
			return fmt.Errorf("api not ready: %v\n%s", err, r.logs.String())
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("api not ready: /readyz %d %s\n%s", resp.StatusCode, body, r.logs.String())
		}
		return nil
	})
	return stopped
}

func (r *replica) waitReady() {
	r.t.Helper()
	if err := r.untilReady(); err != nil {
		r.done <- nil // for the cleanup's stop: the end is reported here
		r.t.Fatalf("api stopped before ready: %v\n%s", err, r.logs.String())
	}
}

// waitStopped waits for a replica told to stop (by a signal the test sent)
// to end without error within 15 s; what says in which state, for the
// failure.
func (r *replica) waitStopped(t testing.TB, what string) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
		r.done <- nil // for the cleanup's stop
	case <-time.After(15 * time.Second):
		t.Fatal(strings.TrimSpace("replica did not stop " + what))
	}
}

// stop stops the replica as SIGTERM does, once.
func (r *replica) stop() {
	r.once.Do(func() {
		r.cancel()
		select {
		case err := <-r.done:
			if err != nil {
				r.t.Errorf("api run: %v", err)
			}
		case <-time.After(30 * time.Second):
			r.t.Error("api did not stop within 30s")
		}
	})
}

// store connects an editor's store to the replica's NATS.
func (r *replica) store() *events.Store {
	r.t.Helper()
	s, err := events.Connect(context.Background(), events.Dial{URL: r.nats, Name: "test"}, events.StreamConfig{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(s.Close)
	return s
}

func importFiles(t testing.TB, s *events.Store, files ...string) {
	t.Helper()
	for _, f := range files {
		if sum := natstest.Import(t, s, "openfootball", importer.Options{}, natstest.SharedData(t, f)); len(sum.Rejected) > 0 {
			t.Fatalf("import %s: rejected %v", f, sum.Rejected)
		}
	}
}

// response is what a request got.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *replica) do(method, path string, header map[string]string) response {
	r.t.Helper()
	req, err := http.NewRequest(method, r.base+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// Go's client adds gzip on its own unless told: ask for identity so
	// that tests see the bytes as sent unless they ask for gzip.
	if _, ok := header["Accept-Encoding"]; !ok {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

// volatile fields differ from run to run and are masked in golden files.
var volatile = regexp.MustCompile(`"lastUpdated":"[^"]*"`)

// golden compares body with testdata/name.json (indented), rewriting it
// with -update.
func golden(t testing.TB, name string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", name, err, body)
	}
	masked := volatile.ReplaceAll(body, []byte(`"lastUpdated":"(masked)"`))
	var out bytes.Buffer
	if err := json.Indent(&out, masked, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update to create it)", name, err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s: body differs from %s (go test -update rewrites it)\n%s", name, path, firstDiff(string(want), out.String()))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n want %s\n got  %s", i+1, w, g)
		}
	}
	return ""
}

// addClient registers an API client and returns its token.
func addClient(t testing.TB, s *events.Store, name string, tier model.Tier, perMinute int) string {
	t.Helper()
	token, _, err := natstest.Editor(t, s).AddClient(context.Background(), model.Client{Name: name, Tier: tier, PerMinute: perMinute})
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// metric reads one series (name with its labels, as /metrics prints it)
// from the admin listener; 0 when it is not there.
func (r *replica) metric(series string) float64 {
	r.t.Helper()
	resp, err := http.Get(r.admin + "/metrics")
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				r.t.Fatalf("%s: %v", series, err)
			}
			return f
		}
	}
	return 0
}
