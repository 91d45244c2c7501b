package deploy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/relay"
)

var runbookFull = flag.Bool("runbook.full", false, "run the runbook test at full size: three replicas, the demo season, a webhook, a failed start, a backup restored, a replica killed (make test-cluster)")

// shBlocks returns the ```sh blocks of a Markdown file, in order.
func shBlocks(t *testing.T, path string) []string {
	t.Helper()
	var blocks []string
	for _, b := range natstest.Blocks(t, path) {
		if b.Lang == "sh" {
			blocks = append(blocks, b.Text)
		}
	}
	return blocks
}

// runbookTools are what the runbook's prerequisites name, found as the
// script finds them: missing, the test fails under CI and is skipped,
// saying so, elsewhere.
func runbookTools(t *testing.T) {
	t.Helper()
	var missing, install []string
	need := func(tool, how string) {
		missing, install = append(missing, tool), append(install, how)
	}
	for _, tool := range []string{"make", "openssl", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			need(tool, "apt-get install "+tool)
		}
	}
	if _, err := exec.LookPath("nginx"); err != nil {
		if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
			need("nginx", "apt-get install nginx-light")
		}
	}
	if _, err := exec.LookPath("nats-server"); err != nil {
		gopath, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			t.Fatalf("go env GOPATH: %v", err)
		}
		if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(gopath)), "bin", "nats-server")); err != nil {
			need("nats-server", "make deploy-tools")
		}
	}
	if len(missing) > 0 {
		natstest.SkipMissing(t, strings.Join(missing, ", ")+" not installed (deploy/README.md, Prerequisites)", strings.Join(install, "; "))
	}
}

// runbook is a reader following deploy/README.md in one shell: each block
// runs in the environment the blocks before it left.
type runbook struct {
	root string // the repository
	env  []string
	log  strings.Builder
}

func newRunbook(t *testing.T, replicas int, imports string) *runbook {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rb := &runbook{root: root}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FD_") && !strings.HasPrefix(kv, "LOCAL_CLUSTER_") && !strings.HasPrefix(kv, "TMPDIR=") {
			rb.env = append(rb.env, kv)
		}
	}
	rb.env = append(rb.env, "TMPDIR="+tmp, "LOCAL_CLUSTER_REPLICAS="+strconv.Itoa(replicas), "LOCAL_CLUSTER_IMPORT="+imports)
	rb.env = append(rb.env, hold(t, filepath.Join(tmp, "local-cluster"))...)
	// Whatever happens, nothing the script started outlives the test.
	t.Cleanup(func() {
		if out, err := rb.command(filepath.Join(root, "deploy/local-cluster.sh"), "down").CombinedOutput(); err != nil {
			t.Errorf("local-cluster.sh down: %v\n%s", err, out)
		}
	})
	return rb
}

// hold returns the settings of a local cluster in dir whose servers take
// ports of their own (LOCAL_CLUSTER_PORT=0). What must be known before its
// server starts is a relay the test holds: the proxy's leads to nginx's
// unix socket, and each node's route to the port the node got, once
// run/ports names it (the routes of the first node up are dialled before
// the other nodes exist).
func hold(t *testing.T, dir string) []string {
	t.Helper()
	proxy := relay.Start(t)
	proxy.Forward(filepath.Join(dir, "nginx", "https.sock"))
	routes := make([]*relay.Relay, 3)
	addrs := make([]string, len(routes))
	for i := range routes {
		routes[i] = relay.Start(t)
		addrs[i] = routes[i].Addr()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			got := ports(dir)
			for i, r := range routes {
				if p := got[fmt.Sprintf("route-%d", i+1)]; p != "" {
					r.Forward("127.0.0.1:" + p)
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return []string{"LOCAL_CLUSTER_DIR=" + dir, "LOCAL_CLUSTER_PORT=0",
		"LOCAL_CLUSTER_ROUTES=" + strings.Join(addrs, ","), "LOCAL_CLUSTER_PROXY=" + proxy.Addr()}
}

// ports reads the ports an up in dir recorded (run/ports: KIND-N=PORT,
// the last line of a key counting).
func ports(dir string) map[string]string {
	got := map[string]string{}
	b, _ := os.ReadFile(filepath.Join(dir, "run", "ports"))
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			got[k] = v
		}
	}
	return got
}

func (rb *runbook) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = rb.root, rb.env
	return cmd
}

func (rb *runbook) getenv(key string) string {
	for _, kv := range slices.Backward(rb.env) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// run runs one block with bash -euo pipefail, as the reader's shell, and
// keeps the environment it leaves.
func (rb *runbook) run(block string) (string, error) {
	envFile := filepath.Join(rb.getenv("TMPDIR"), "runbook.env")
	cmd := rb.command("bash", "-euo", "pipefail", "-c", block+"\nenv -0 >"+envFile+"\n")
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(&rb.log, "$ %s%s", block, out)
	if err != nil {
		return string(out), err
	}
	b, err := os.ReadFile(envFile)
	if err != nil {
		return string(out), err
	}
	rb.env = strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	return string(out), nil
}

// client trusts the proxy's CA, as curl --cacert "$FD_CA" does.
func (rb *runbook) client(t *testing.T) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(rb.getenv("FD_CA"))
	if err != nil {
		t.Fatalf("FD_CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("FD_CA %s holds no certificate", rb.getenv("FD_CA"))
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// get asks url with the local client's token.
func (rb *runbook) get(c *http.Client, url string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Auth-Token", rb.getenv("TOKEN"))
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// servers are every replica directly and the proxy.
func (rb *runbook) servers() []string {
	return append(strings.Fields(rb.getenv("FD_REPLICAS")), rb.getenv("FD_URL"))
}

// fixtureIs waits until every replica, and the proxy, serves fixture id
// with status and the home side's goals.
func (rb *runbook) fixtureIs(t *testing.T, id, status string, home int) {
	t.Helper()
	c := rb.client(t)
	for _, server := range rb.servers() {
		natstest.CheckFor(t, 10*time.Second, 50*time.Millisecond, func() error {
			code, body, err := rb.get(c, server+"/v1/fixtures/"+id)
			if err != nil {
				return fmt.Errorf("%s has not served the edit of fixture %s: %w", server, id, err)
			}
			var f struct {
				Fixture struct {
					Status string `json:"status"`
					Result struct {
						Home *int `json:"goalsHomeTeam"`
					} `json:"result"`
				} `json:"fixture"`
			}
			if code != http.StatusOK {
				return fmt.Errorf("%s has not served the edit of fixture %s: %d %s", server, id, code, body)
			}
			if err := json.Unmarshal(body, &f); err != nil {
				return fmt.Errorf("%s has not served the edit of fixture %s: %w", server, id, err)
			}
			if f.Fixture.Status != status || f.Fixture.Result.Home == nil || *f.Fixture.Result.Home != home {
				return fmt.Errorf("%s has not served the edit of fixture %s: got %s", server, id, body)
			}
			return nil
		})
	}
}

// step is what the test checks after (or before) the block that matches
// its pattern.
type step struct {
	block  string // a regular expression the block matches
	check  func(t *testing.T, rb *runbook, out string)
	before bool // check before the block runs (out is empty)
}

// TestRunbook follows deploy/README.md to the letter: every ```sh block,
// in order, in one shell, against the cluster deploy/local-cluster.sh
// starts, and checks what each promises. make test runs two replicas and
// one league; make test-cluster (-runbook.full) three replicas, the demo
// season, a webhook delivered once, a backup restored, a failed start and
// a replica killed behind nginx.
func TestRunbook(t *testing.T) {
	natstest.SkipShort(t, "the runbook on a local cluster")
	runbookTools(t)
	replicas, imports := 2, "demo/2025-26/en.1.json"
	if *runbookFull {
		replicas, imports = 3, "demo/2025-26/*.json"
	}
	blocks := shBlocks(t, "README.md")
	steps := []step{
		{block: `(?m)local-cluster\.sh up$`, check: checkUp(replicas)},
		{block: `local-cluster\.sh status`, check: checkEnv},
		{block: `passwd --generate`, check: checkPasswd},
		{block: `stream init --replicas 3`, check: checkStream},
		{block: `ingest result`, check: checkEdit},
		{block: `(?m)local-cluster\.sh down$`, check: checkDown},
	}
	// The backup and the restore (a down --purge and an up) run at full
	// size only: make test stays within a minute and a half.
	fullOnly := regexp.MustCompile(`ingest backup|up --restore`)
	if *runbookFull {
		var answers map[string][]byte
		steps = append(steps,
			step{block: `(?m)local-cluster\.sh up$`, check: checkFailedUp},
			step{block: `ingest result`, check: checkWebhook},
			step{block: `ingest backup`, before: true, check: func(t *testing.T, rb *runbook, _ string) { answers = rb.crawl(t) }},
			step{block: `up --restore`, check: func(t *testing.T, rb *runbook, out string) { checkRestored(t, rb, out, answers) }},
			step{block: `(?m)local-cluster\.sh down$`, check: checkFailover, before: true},
		)
	}
	for _, s := range steps {
		if !slices.ContainsFunc(blocks, regexp.MustCompile(s.block).MatchString) {
			t.Fatalf("deploy/README.md has no sh block matching %q", s.block)
		}
	}

	var rb *runbook
	for i, block := range blocks {
		if !*runbookFull && fullOnly.MatchString(block) {
			t.Logf("sh block %d runs with -runbook.full (make test-cluster):\n%s", i+1, block)
			continue
		}
		if rb == nil {
			rb = newRunbook(t, replicas, imports)
		}
		for _, s := range steps {
			if s.before && regexp.MustCompile(s.block).MatchString(block) {
				s.check(t, rb, "")
			}
		}
		out, err := rb.run(block)
		if err != nil {
			t.Fatalf("deploy/README.md, sh block %d: %v\n%s", i+1, err, rb.log.String())
		}
		for _, s := range steps {
			if !s.before && regexp.MustCompile(s.block).MatchString(block) {
				s.check(t, rb, out)
			}
		}
	}
	if t.Failed() {
		t.Log(rb.log.String())
	}
}

func checkUp(replicas int) func(*testing.T, *runbook, string) {
	return func(t *testing.T, rb *runbook, out string) {
		for _, want := range []string{"NATS: three nodes", strconv.Itoa(replicas) + " API replicas ready", "nginx terminating TLS", "imported"} {
			if !strings.Contains(out, want) {
				t.Errorf("up printed no %q:\n%s", want, out)
			}
		}
		// Every replica serves all that was written when up returns: the
		// README's next request goes to any of them. Before, up waited for
		// each to know the token, which a replica asks the stream for, and
		// a replica whose consumer was being replaced served nothing of the
		// import (the runbook's 404).
		info, err := rb.command("bash", "-c", `eval "$(deploy/local-cluster.sh env admin)" && bin/ingest stream info`).CombinedOutput()
		if err != nil {
			t.Fatalf("stream info as admin: %v\n%s", err, info)
		}
		var last string
		for line := range strings.Lines(string(info)) {
			if f := strings.Fields(line); len(f) > 3 && f[0] == "FOOTBALL" {
				last = f[3]
			}
		}
		got := ports(rb.getenv("LOCAL_CLUSTER_DIR"))
		for i := 1; i <= replicas; i++ {
			resp, err := http.Get("http://127.0.0.1:" + got["api-"+strconv.Itoa(i)] + "/readyz")
			if err != nil {
				t.Fatalf("api-%d: %v", i, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := `{"status":"ready","sequence":` + last + `}`; string(body) != want {
				t.Errorf("api-%d answers /readyz %s as up returns; want %s (stream info:\n%s)", i, body, want, info)
			}
		}
		// A second up refuses in one line, starting nothing; so does one in
		// another folder on fixed ports, one of them in use (held here).
		held := relay.Start(t)
		_, port, _ := net.SplitHostPort(held.Addr())
		for _, c := range []struct {
			env  []string
			want string
		}{
			{nil, "already up"},
			{[]string{"LOCAL_CLUSTER_DIR=" + filepath.Join(rb.getenv("TMPDIR"), "other"), "LOCAL_CLUSTER_PORT=" + port}, "port " + port + " is in use"},
		} {
			up := rb.command("deploy/local-cluster.sh", "up")
			up.Env = append(slices.Clip(up.Env), c.env...)
			again, err := up.CombinedOutput()
			if err == nil || strings.Count(strings.TrimSpace(string(again)), "\n") != 0 || !strings.Contains(string(again), c.want) {
				t.Errorf("up (%q) while up: %v\n%s", c.env, err, again)
			}
		}
	}
}

// checkFailedUp: an up whose proxy fails stops the nodes and replicas it
// had started, and shows why.
func checkFailedUp(t *testing.T, rb *runbook, _ string) {
	dir := filepath.Join(rb.getenv("TMPDIR"), "failing")
	up := rb.command("deploy/local-cluster.sh", "up")
	up.Env = append(append(slices.Clip(up.Env), hold(t, dir)...), "LOCAL_CLUSTER_REPLICAS=1", "NGINX=/bin/false")
	out, err := up.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "local-cluster: nginx -t") || !strings.Contains(string(out), "up failed; stopping what it started") {
		t.Fatalf("up with a failing nginx: %v\n%s", err, out)
	}
	got := ports(dir)
	for _, server := range []string{"client-1", "client-2", "client-3", "api-1"} {
		if got[server] == "" {
			t.Errorf("up recorded no port of %s:\n%s", server, out)
		} else if c, err := net.Dial("tcp", "127.0.0.1:"+got[server]); err == nil {
			c.Close()
			t.Errorf("%s's port %s still answers after a failed up:\n%s", server, got[server], out)
		}
	}
}

// checkFailover: with a replica killed, nginx sends every request to the
// others.
func checkFailover(t *testing.T, rb *runbook, _ string) {
	pid, err := os.ReadFile(filepath.Join(rb.getenv("LOCAL_CLUSTER_DIR"), "run", "api-1.pid"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	if err != nil {
		t.Fatalf("api-1.pid: %v", err)
	}
	p, err := os.FindProcess(n)
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		t.Fatalf("kill api-1: %v", err)
	}
	c := rb.client(t)
	for range 20 {
		if code, body, err := rb.get(c, rb.getenv("FD_URL")+"/v1/competitions/?season=2025"); err != nil || code != http.StatusOK {
			t.Fatalf("through the proxy with api-1 killed: %d %s %v", code, body, err)
		}
	}
}

// checkEnv: every replica ready, directly and through the proxy, on TLS
// with the CA the script made.
func checkEnv(t *testing.T, rb *runbook, out string) {
	if got := len(strings.Fields(rb.getenv("FD_REPLICAS"))); got == 0 {
		t.Fatalf("env set no FD_REPLICAS")
	}
	if !strings.HasPrefix(rb.getenv("FD_URL"), "https://") {
		t.Errorf("FD_URL %q is not https", rb.getenv("FD_URL"))
	}
	c := rb.client(t)
	for _, server := range rb.servers() {
		if code, body, err := rb.get(c, server+"/readyz"); err != nil || code != http.StatusOK {
			t.Errorf("%s/readyz: %d %s %v", server, code, body, err)
		}
	}
	if !strings.Contains(out, ": running") || strings.Contains(out, ": stopped") {
		t.Errorf("status:\n%s", out)
	}
}

// checkPasswd: the hash --generate prints is the one of the password it
// prints, in the form secrets.conf takes.
func checkPasswd(t *testing.T, rb *runbook, out string) {
	if !regexp.MustCompile(`\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}`).MatchString(out) {
		t.Errorf("ingest passwd printed no bcrypt hash:\n%s", out)
	}
}

// checkStream: the stream, buckets and work queue are at three copies,
// and a second init changed nothing.
func checkStream(t *testing.T, rb *runbook, out string) {
	if !strings.Contains(out, "FOOTBALL: 3 replica(s), unchanged") {
		t.Errorf("stream init after local-cluster.sh's did not leave FOOTBALL unchanged:\n%s", out)
	}
	for _, name := range []string{"FOOTBALL", "KV_FD_LIMITS", "FD_WEBHOOK_QUEUE", "KV_FD_WEBHOOKS", "KV_FD_FEEDS"} {
		if !regexp.MustCompile(`(?m)^` + name + `\s+3\s`).MatchString(out) {
			t.Errorf("stream info shows no %s at 3 replicas:\n%s", name, out)
		}
	}
}

var updated = regexp.MustCompile(`fixture \d+/(\d+) updated`)

// checkEdit: the live score is served by every replica and the proxy.
func checkEdit(t *testing.T, rb *runbook, out string) {
	m := updated.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the edit updated no fixture:\n%s", out)
	}
	rb.fixtureIs(t, m[1], "IN_PLAY", 1)
	// What the runbook says ingest may not do, it cannot.
	if init, err := rb.command("bin/ingest", "stream", "init").CombinedOutput(); err == nil || !strings.Contains(string(init), "NATS user ingest may not") {
		t.Errorf("stream init as ingest: %v\n%s", err, init)
	}
}

// crawl asks every replica directly for the competitions of the season
// and each one's teams, table and fixtures: path and replica → body.
func (rb *runbook) crawl(t *testing.T) map[string][]byte {
	t.Helper()
	c := rb.client(t)
	replicas := strings.Fields(rb.getenv("FD_REPLICAS"))
	get := func(replica, path string) []byte {
		code, body, err := rb.get(c, replica+path)
		if err != nil || code != http.StatusOK {
			t.Fatalf("%s%s: %d %s %v", replica, path, code, body, err)
		}
		return body
	}
	var comps []struct {
		ID int `json:"id"`
	}
	list := "/v1/competitions/?season=2025"
	if err := json.Unmarshal(get(replicas[0], list), &comps); err != nil || len(comps) == 0 {
		t.Fatalf("%s: %v, %d competitions", list, err, len(comps))
	}
	paths := []string{list}
	for _, comp := range comps {
		for _, sub := range []string{"", "/teams", "/leagueTable", "/fixtures"} {
			paths = append(paths, fmt.Sprintf("/v1/competitions/%d%s", comp.ID, sub))
		}
	}
	// By the replica's number: each takes a new port at every up.
	answers := map[string][]byte{}
	for n, replica := range replicas {
		for _, path := range paths {
			answers[fmt.Sprintf("%s (replica %d)", path, n+1)] = get(replica, path)
		}
	}
	return answers
}

// checkRestored: after down --purge and up --restore, every replica
// serves byte for byte what it served before the backup.
func checkRestored(t *testing.T, rb *runbook, out string, before map[string][]byte) {
	if !strings.Contains(out, "restored") {
		t.Errorf("up --restore did not say it restored:\n%s", out)
	}
	after := rb.crawl(t)
	if len(after) != len(before) {
		t.Errorf("%d answers after the restore, %d before", len(after), len(before))
	}
	differ := 0
	for key, body := range before {
		if !bytes.Equal(after[key], body) {
			if differ++; differ <= 3 {
				t.Errorf("%s after the restore:\n%.300s\nbefore:\n%.300s", key, after[key], body)
			}
		}
	}
	t.Logf("restore: %d answers of %d replicas compared, %d differ", len(before), len(strings.Fields(rb.getenv("FD_REPLICAS"))), differ)
}

// checkDown: nothing the script started runs on.
func checkDown(t *testing.T, rb *runbook, out string) {
	status, err := rb.command("deploy/local-cluster.sh", "status").CombinedOutput()
	if err == nil || strings.Contains(string(status), ": running") {
		t.Errorf("status after down: %v\n%s", err, status)
	}
}

// receiver is a webhook endpoint as README.md's: it answers the host
// verification, checks signatures and counts deliveries by webhook-id.
type receiver struct {
	mu     sync.Mutex
	secret string
	seen   map[string]int
	bad    []string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if c := req.URL.Query().Get("fd_challenge"); req.Method == http.MethodGet {
		io.WriteString(w, c)
		return
	}
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), body)
	if req.Header.Get("webhook-signature") != "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)) {
		r.bad = append(r.bad, string(body))
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	r.seen[req.Header.Get("webhook-id")]++
}

// checkWebhook: a webhook registered by an editor, an edit, and every
// replica sharing the delivery: the receiver gets the event once.
func checkWebhook(t *testing.T, rb *runbook, out string) {
	r := &receiver{seen: map[string]int{}}
	srv := httptest.NewServer(r)
	defer srv.Close()
	add, err := rb.command("bin/ingest", "webhook", "add", "runbook", "--client", "local", "--url", srv.URL+"/football", "--events", "Fixture.Update").CombinedOutput()
	m := regexp.MustCompile(`secret: (whsec_\S+)`).FindSubmatch(add)
	if err != nil || m == nil {
		t.Fatalf("ingest webhook add: %v\n%s", err, add)
	}
	r.mu.Lock()
	r.secret = string(m[1])
	r.mu.Unlock()
	id := updated.FindStringSubmatch(out)[1]
	if edit, err := rb.command("bin/ingest", "result", id, "--score", "2-0", "--status", "IN_PLAY").CombinedOutput(); err != nil {
		t.Fatalf("ingest result: %v\n%s", err, edit)
	}
	rb.fixtureIs(t, id, "IN_PLAY", 2)
	var delivered float64
	natstest.CheckFor(t, 30*time.Second, 50*time.Millisecond, func() error {
		delivered = 0
		admin := ports(rb.getenv("LOCAL_CLUSTER_DIR"))
		for n := range strings.Fields(rb.getenv("FD_REPLICAS")) {
			v, err := metric(fmt.Sprintf("http://127.0.0.1:%s/metrics", admin[fmt.Sprintf("admin-%d", n+1)]), `fd_webhook_deliveries_total{result="delivered"}`)
			if err != nil {
				return fmt.Errorf("the webhook's delivery: %w", err)
			}
			delivered += v
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if delivered < 1 || len(r.seen) < 1 {
			return fmt.Errorf("the webhook's delivery: %v delivered by the replicas, %d received", delivered, len(r.seen))
		}
		return nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Errorf("deliveries with a bad signature: %q", r.bad)
	}
	for id, n := range r.seen {
		if n != 1 {
			t.Errorf("webhook-id %s delivered %d times", id, n)
		}
	}
	if int(delivered) != len(r.seen) {
		t.Errorf("the replicas count %v deliveries; the receiver got %d events", delivered, len(r.seen))
	}
	t.Logf("webhook: %d event(s), each delivered once, signed", len(r.seen))
}

// metric reads one sample of a Prometheus text exposition; absent is 0.
func metric(url, sample string) (float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(sample+" ")); ok {
			return strconv.ParseFloat(string(v), 64)
		}
	}
	return 0, nil
}

// TestRunbookPrerequisites: the runbook's table of prerequisites names the
// nats-server of go.mod, and CI installs every Debian package it names.
func TestRunbookPrerequisites(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`(?s)## Prerequisites\n(.*?)\n## `).FindSubmatch(readme)
	if section == nil {
		t.Fatal("deploy/README.md has no Prerequisites section")
	}
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`github.com/nats-io/nats-server/v2 (v\S+)`).FindSubmatch(gomod)
	if version == nil {
		t.Fatal("go.mod requires no nats-server")
	}
	for _, m := range regexp.MustCompile(`nats-server(?:/v2@| )(v[0-9.]+)`).FindAllSubmatch(section[1], -1) {
		if !bytes.Equal(m[1], version[1]) {
			t.Errorf("deploy/README.md names nats-server %s; go.mod requires %s", m[1], version[1])
		}
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	installs := map[string]bool{}
	for _, m := range regexp.MustCompile(`missing\+=\(([^)]*)\)`).FindAllSubmatch(ci, -1) {
		for _, pkg := range strings.Fields(string(m[1])) {
			installs[pkg] = true
		}
	}
	packages := regexp.MustCompile("`apt-get install ([^`]*)`").FindAllSubmatch(section[1], -1)
	if len(packages) == 0 {
		t.Fatal("the Prerequisites name no Debian package")
	}
	for _, m := range packages {
		for _, pkg := range strings.Fields(string(m[1])) {
			if !installs[pkg] {
				t.Errorf("deploy/README.md has readers install %s; .ci/run does not", pkg)
			}
		}
	}
}
