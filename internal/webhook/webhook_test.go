package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natsembed"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/internal/webhook"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/footdata/footballd/pkg/readmodel"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// world is a NATS server with the event stream, an editor, a read model
// following the stream (what every replica runs) and a receiver.
type world struct {
	t     testing.TB
	ctx   context.Context
	srv   *natsembed.Server
	store *events.Store
	model *readmodel.Model
	recv  *receiver
	seq   atomic.Uint64
}

func newWorld(t testing.TB) *world {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	srv := natstest.MustStart(t)
	w := &world{t: t, ctx: ctx, srv: srv, store: natstest.MustOpen(t, srv), recv: newReceiver(t)}
	ed := natstest.Editor(t, w.store)
	for _, c := range []model.Client{{Name: "reg", Tier: model.TierRegistered}, {Name: "don", Tier: model.TierDonating}} {
		c.PerMinute = 50
		if _, _, err := ed.AddClient(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	m, err := readmodel.New(readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.model = m
	mctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(mctx, w.store) }()
	t.Cleanup(func() { stop(); <-done })
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return w
}

// add registers a webhook of client at the receiver's path /name and
// waits until the read model has it; it returns the secret.
func (w *world) add(name, client string, change func(*model.Webhook)) string {
	w.t.Helper()
	h := model.Webhook{Name: name, Client: client, URL: w.recv.srv.URL + "/" + name}
	if change != nil {
		change(&h)
	}
	secret, ch, err := natstest.Editor(w.t, w.store).AddWebhook(w.ctx, h)
	if err != nil {
		w.t.Fatal(err)
	}
	w.recv.secrets.Store(name, secret)
	for s := w.model.Snapshot(); s.Seq() < ch.Seq; s = w.model.Snapshot() {
		select {
		case <-s.Changed():
		case <-w.ctx.Done():
			w.t.Fatal("the read model never had the webhook")
		}
	}
	return secret
}

// replica is one API replica's dispatcher on its own connection.
type replica struct {
	d    *webhook.Dispatcher
	nc   *nats.Conn
	stop context.CancelFunc
	done chan struct{}
}

// fast is the configuration of the tests: short retries and hand-overs.
func fast(c *webhook.Config) {
	c.Timeout, c.AckWait = 2*time.Second, 3*time.Second
	c.FirstRetry, c.Scan = 100*time.Millisecond, 50*time.Millisecond
}

func (w *world) start(change func(*webhook.Config)) *replica {
	w.t.Helper()
	nc, err := nats.Connect(w.srv.URL())
	if err != nil {
		w.t.Fatal(err)
	}
	allow, err := netguard.ParseAllow("127.0.0.1/32")
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := webhook.Config{Conn: nc, Hooks: func() webhook.Hooks { return w.model.Snapshot() }, PublicURL: "https://api.test", Allow: allow}
	fast(&cfg)
	if change != nil {
		change(&cfg)
	}
	d, err := webhook.New(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, stop := context.WithCancel(w.ctx)
	r := &replica{d: d, nc: nc, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		d.Run(ctx)
	}()
	w.t.Cleanup(r.kill)
	return r
}

// kill stops a replica as a crash would: its connection goes first, so
// that nothing in hand is acknowledged or handed back.
func (r *replica) kill() {
	r.nc.Close()
	r.stop()
	<-r.done
}

// liveSeq is past every edit a test makes: its events stand for live edits
// made after its webhooks were registered.
const liveSeq = 1 << 30

// event returns a fixture event of a competition with a new sequence.
func (w *world) event(kind string, league model.LeagueCode, tier model.Tier) push.Event {
	n := w.seq.Add(1)
	return push.Event{Seq: liveSeq + n, Kind: kind, ID: int32(100 + n), Competition: 7, League: league, Teams: []int32{1, 2},
		Tier: tier, Time: time.Now(), Updates: map[string][2]any{"goalsHomeTeam": {0, 1}}}
}

// state reads a webhook's state as `ingest webhook show` does.
func (w *world) state(name string) webhook.State {
	w.t.Helper()
	states, err := webhook.ReadStates(w.ctx, w.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	var h model.Webhook
	for _, x := range w.model.Snapshot().Webhooks() {
		if x.Name == name {
			h = x
		}
	}
	st, found, err := states.Get(w.ctx, name, h.Created)
	if err != nil {
		w.t.Fatal(err)
	}
	if !found {
		st.Status = webhook.Pending
	}
	return st
}

// waitState waits until the state of name satisfies ok.
func (w *world) waitState(name string, ok func(webhook.State) bool) webhook.State {
	w.t.Helper()
	var st webhook.State
	natstest.CheckFor(w.t, time.Minute, 20*time.Millisecond, func() error {
		if st = w.state(name); !ok(st) {
			return fmt.Errorf("webhook %s: state %+v", name, st)
		}
		return nil
	})
	return st
}

func status(s webhook.Status) func(webhook.State) bool {
	return func(st webhook.State) bool { return st.Status == s }
}

// waitQueueEmpty waits until the work queue holds nothing: every event is
// fanned out and every delivery acknowledged or given up.
func (w *world) waitQueueEmpty() {
	w.t.Helper()
	js, err := jetstream.New(w.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	natstest.CheckFor(w.t, time.Minute, 20*time.Millisecond, func() error {
		s, err := js.Stream(w.ctx, webhook.QueueStream)
		if err != nil {
			return fmt.Errorf("work queue: %w", err)
		}
		if n := s.CachedInfo().State.Msgs; n > 0 {
			return fmt.Errorf("work queue holds %d messages", n)
		}
		return nil
	})
}

// delivery is one request the receiver got.
type delivery struct {
	hook, id string
	status   int
	at       time.Time
	body     []byte
	signed   bool // the signature checked out
}

// receiver is the webhooks' endpoint: /NAME answers verification
// challenges and records deliveries, answering what answer says.
type receiver struct {
	t       testing.TB
	srv     *httptest.Server
	secrets sync.Map // hook → secret
	mu      sync.Mutex
	got     []delivery
	arrived chan delivery
	// challenge answers a verification; answer a delivery (default 200).
	challenge func(hook, challenge string) (int, string)
	answer    func(r *http.Request, hook string, n int) int
	gets      atomic.Int64
}

func newReceiver(t testing.TB) *receiver {
	rc := &receiver{t: t, arrived: make(chan delivery, 10_000),
		challenge: func(_, c string) (int, string) { return http.StatusOK, c }}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(rw http.ResponseWriter, r *http.Request) {
	hook := strings.TrimPrefix(r.URL.Path, "/")
	if r.Method == http.MethodGet {
		rc.gets.Add(1)
		code, body := rc.challenge(hook, r.URL.Query().Get("fd_challenge"))
		rw.WriteHeader(code)
		io.WriteString(rw, body)
		return
	}
	body, _ := io.ReadAll(r.Body)
	secret, _ := rc.secrets.Load(hook)
	d := delivery{hook: hook, id: r.Header.Get("webhook-id"), at: time.Now(), body: body, status: http.StatusOK}
	d.signed = secret != nil && verifySignature(secret.(string), r.Header, body, time.Now())
	rc.mu.Lock()
	n := 0
	for _, x := range rc.got {
		if x.hook == hook && x.id == d.id {
			n++
		}
	}
	rc.mu.Unlock()
	if rc.answer != nil {
		d.status = rc.answer(r, hook, n)
	}
	if d.status == 0 {
		return // the request was abandoned
	}
	rw.WriteHeader(d.status)
	rc.mu.Lock()
	rc.got = append(rc.got, d)
	rc.mu.Unlock()
	rc.arrived <- d
}

// verifySignature is the Standard Webhooks check as a receiver writes it,
// from the specification, apart from the package's Sign: the key is the
// base64 after whsec_, the signed content "<id>.<timestamp>.<body>", the
// header one or more "v1,<base64>" separated by spaces, and the timestamp
// within five minutes.
func verifySignature(secret string, h http.Header, body []byte, now time.Time) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		version, b64, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// deliveries returns what hook got with status, by id.
func (rc *receiver) deliveries(hook string) map[string][]delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string][]delivery{}
	for _, d := range rc.got {
		if d.hook == hook {
			out[d.id] = append(out[d.id], d)
		}
	}
	return out
}

// waitFor waits until ok holds of the receiver.
func (w *world) waitFor(what string, ok func() bool) {
	w.t.Helper()
	natstest.CheckFor(w.t, time.Minute, 10*time.Millisecond, func() error {
		if !ok() {
			return fmt.Errorf("not yet: %s", what)
		}
		return nil
	})
}

// delivered reports whether hook has had a 2xx for every event.
func (w *world) delivered(hook string, evs ...push.Event) func() bool {
	return func() bool {
		got := w.recv.deliveries(hook)
		for _, ev := range evs {
			if !slices.ContainsFunc(got[ev.Key()], func(d delivery) bool { return d.status/100 == 2 }) {
				return false
			}
		}
		return true
	}
}

// The published Standard Webhooks example: a receiver library verifies
// what Sign makes.
func TestSignStandardWebhooksVector(t *testing.T) {
	got, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if _, err := webhook.Sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "id", 1, nil); model.ErrorCode(err) != model.Invalid {
		t.Errorf("a secret without whsec_: %v, want invalid", err)
	}
}

func TestVerification(t *testing.T) {
	tests := []struct {
		name      string
		allow     string
		challenge func(hook, c string) (int, string)
		want      webhook.Status
		wantGets  bool   // the receiver was asked at all
		wantError string // in the state's verification error
	}{
		{"echoes the challenge", "127.0.0.1/32", func(_, c string) (int, string) { return http.StatusOK, c }, webhook.Verified, true, ""},
		{"wrong body", "127.0.0.1/32", func(string, string) (int, string) { return http.StatusOK, "hello" }, webhook.VerificationFailed, true, "without the challenge"},
		{"challenge with 201", "127.0.0.1/32", func(_, c string) (int, string) { return http.StatusCreated, c }, webhook.VerificationFailed, true, "answered 201"},
		{"challenge and more", "127.0.0.1/32", func(_, c string) (int, string) { return http.StatusOK, c + "\n" }, webhook.VerificationFailed, true, "without the challenge"},
		{"loopback not allowed", "10.0.0.0/8,hooks.example.org", func(_, c string) (int, string) { return http.StatusOK, c }, webhook.VerificationFailed, false, "not public and not in --webhook-allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.recv.challenge = tt.challenge
			w.add("h", "reg", nil)
			w.start(func(c *webhook.Config) {
				c.VerifyFor = 500 * time.Millisecond
				c.Allow, _ = netguard.ParseAllow(tt.allow)
			})
			st := w.waitState("h", func(st webhook.State) bool { return st.Status != webhook.Pending })
			if st.Status != tt.want || !strings.Contains(st.Verification, tt.wantError) {
				t.Errorf("state %q (%s), want %q with %q", st.Status, st.Verification, tt.want, tt.wantError)
			}
			if got := w.recv.gets.Load() > 0; got != tt.wantGets {
				t.Errorf("receiver asked: %v, want %v", got, tt.wantGets)
			}
		})
	}
}

// Until a host is verified nothing is sent; what waited is sent once it
// is; a host that fails verification gets nothing and the events held for
// it are counted as dropped.
func TestNothingBeforeVerification(t *testing.T) {
	w := newWorld(t)
	var pass atomic.Bool
	w.recv.challenge = func(hook, c string) (int, string) {
		if hook == "late" && pass.Load() {
			return http.StatusOK, c
		}
		return http.StatusNotFound, ""
	}
	w.add("late", "reg", nil)
	w.add("never", "reg", nil)
	r := w.start(func(c *webhook.Config) { c.VerifyFor = 3 * time.Second })
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitState("late", func(st webhook.State) bool { return st.Verification != "" })
	if got := w.recv.deliveries("late"); len(got) != 0 {
		t.Fatalf("delivered before verification: %v", got)
	}
	pass.Store(true)
	w.waitFor("the held event delivered after verification", w.delivered("late", ev))
	st := w.waitState("never", func(st webhook.State) bool { return st.Status == webhook.VerificationFailed && st.Dropped == 1 })
	if got := w.recv.deliveries("never"); len(got) != 0 {
		t.Errorf("unverified webhook got %v", got)
	}
	if st.Delivered != 0 {
		t.Errorf("unverified webhook state %+v", st)
	}
}

func TestSignedDelivery(t *testing.T) {
	w := newWorld(t)
	w.add("h", "reg", nil)
	r := w.start(nil)
	w.waitState("h", status(webhook.Verified))
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitFor("delivery", w.delivered("h", ev))
	d := w.recv.deliveries("h")[ev.Key()][0]
	if !d.signed {
		t.Errorf("signature does not verify")
	}
	want, _ := ev.Body("https://api.test", push.V1)
	if string(d.body) != string(want) {
		t.Errorf("body %s, want %s", d.body, want)
	}
	st := w.waitState("h", func(st webhook.State) bool { return st.Delivered == 1 })
	if len(st.Last) != 1 || st.Last[0].ID != ev.Key() || st.Last[0].Status != http.StatusOK {
		t.Errorf("state's last attempts %+v", st.Last)
	}
}

// A receiver failing twice gets the same webhook-id each time, then
// succeeds; the failures show in the state.
func TestRetrySameID(t *testing.T) {
	w := newWorld(t)
	w.recv.answer = func(_ *http.Request, _ string, n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	}
	w.add("h", "reg", nil)
	reg := prometheus.NewRegistry()
	r := w.start(func(c *webhook.Config) { c.Registerer = reg })
	w.waitState("h", status(webhook.Verified))
	ev := w.event(push.CompetitionUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitFor("delivery", w.delivered("h", ev))
	got := w.recv.deliveries("h")
	if len(got) != 1 || len(got[ev.Key()]) != 3 {
		t.Fatalf("deliveries %v, want 3 of %s", got, ev.Key())
	}
	ds := got[ev.Key()]
	for i, want := range []int{500, 500, 204} {
		if ds[i].status != want || !ds[i].signed {
			t.Errorf("attempt %d: status %d signed %v, want %d signed", i+1, ds[i].status, ds[i].signed, want)
		}
	}
	if gap1, gap2 := ds[1].at.Sub(ds[0].at), ds[2].at.Sub(ds[1].at); gap1 < 100*time.Millisecond || gap2 < gap1/2 {
		t.Errorf("retry delays %s, %s: want at least the first retry, not shrinking", gap1, gap2)
	}
	st := w.waitState("h", func(st webhook.State) bool { return st.Delivered == 1 })
	if st.Failed != 2 || st.Status != webhook.Verified || len(st.Last) != 3 || st.Last[2].Status != 500 || st.Last[0].Attempt != 3 {
		t.Errorf("state %+v", st)
	}
	for _, m := range []struct {
		name, label string
		want        float64
	}{
		{"fd_webhook_deliveries_total", "delivered", 1},
		{"fd_webhook_deliveries_total", "failed", 2},
		{"fd_webhook_retries_total", "", 2},
		{"fd_webhook_delivery_seconds", "", 1},
		{"fd_webhook_verifications_total", "verified", 1},
	} {
		if got := metric(t, reg, m.name, m.label); got != m.want {
			t.Errorf("%s{%s} = %v, want %v", m.name, m.label, got, m.want)
		}
	}
}

// metric returns the value of a counter (or a histogram's count) of reg
// whose only label, if any, has the value label.
func metric(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() != label {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// A receiver that never succeeds is given up after RetryFor and the
// webhook shown failing.
func TestGiveUpMarksFailing(t *testing.T) {
	w := newWorld(t)
	w.recv.answer = func(*http.Request, string, int) int { return http.StatusBadGateway }
	w.add("h", "reg", nil)
	r := w.start(func(c *webhook.Config) { c.RetryFor = time.Second })
	w.waitState("h", status(webhook.Verified))
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	st := w.waitState("h", status(webhook.Failing))
	if st.GaveUp != 1 || st.Failed < 2 || st.Delivered != 0 {
		t.Errorf("state %+v", st)
	}
	w.waitQueueEmpty()
}

// Two replicas derive and publish the same events: each is delivered once.
func TestTwoReplicasDeliverOnce(t *testing.T) {
	w := newWorld(t)
	w.add("h", "reg", nil)
	a, b := w.start(nil), w.start(nil)
	w.waitState("h", status(webhook.Verified))
	var evs []push.Event
	for range 50 {
		evs = append(evs, w.event(push.FixtureUpdate, "PL", model.TierAnonymous))
	}
	for i := range evs {
		// Each replica publishes every event, as each derives it.
		a.d.Publish(evs[i : i+1])
		b.d.Publish(evs[i : i+1])
	}
	w.waitFor("every event delivered", w.delivered("h", evs...))
	w.waitQueueEmpty()
	got := w.recv.deliveries("h")
	if len(got) != len(evs) {
		t.Errorf("%d ids delivered, want %d", len(got), len(evs))
	}
	for id, ds := range got {
		if len(ds) != 1 {
			t.Errorf("event %s delivered %d times", id, len(ds))
		}
	}
}

// A replica killed while its deliveries hang loses none: the other
// replica delivers them once the first one's hold has lapsed.
func TestKilledReplicaLosesNothing(t *testing.T) {
	w := newWorld(t)
	hung := make(chan struct{}, 100)
	var first atomic.Bool
	first.Store(true)
	w.recv.answer = func(r *http.Request, _ string, _ int) int {
		if first.Load() {
			// The receiver hangs on everything until the replica is killed.
			hung <- struct{}{}
			<-r.Context().Done()
			return 0
		}
		return http.StatusOK
	}
	w.add("h", "reg", nil)
	a := w.start(func(c *webhook.Config) { c.Workers = 3 })
	w.waitState("h", status(webhook.Verified))
	var evs []push.Event
	for range 5 {
		evs = append(evs, w.event(push.FixtureUpdate, "PL", model.TierAnonymous))
	}
	a.d.Publish(evs)
	for range 3 {
		select {
		case <-hung:
		case <-w.ctx.Done():
			t.Fatal("the receiver never got the first deliveries")
		}
	}
	a.kill()
	first.Store(false)
	b := w.start(nil)
	b.d.Publish(evs)
	w.waitFor("every event delivered by the second replica", w.delivered("h", evs...))
	w.waitQueueEmpty()
	for id, ds := range w.recv.deliveries("h") {
		if len(ds) != 1 {
			t.Errorf("event %s answered %d times", id, len(ds))
		}
	}
}

// Each webhook gets what it asks for, and a competition restricted to a
// tier reaches only the webhooks of clients of that tier.
func TestMatching(t *testing.T) {
	w := newWorld(t)
	w.add("reg-all", "reg", nil)
	w.add("don-all", "don", nil)
	w.add("don-fixtures", "don", func(h *model.Webhook) { h.Events = []string{push.FixtureUpdate} })
	w.add("don-pl", "don", func(h *model.Webhook) { h.Leagues = []model.LeagueCode{"PL"} })
	r := w.start(nil)
	for _, h := range []string{"reg-all", "don-all", "don-fixtures", "don-pl"} {
		w.waitState(h, status(webhook.Verified))
	}
	open := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	restricted := w.event(push.FixtureUpdate, "BL1", model.TierDonating)
	table := w.event(push.CompetitionUpdate, "PL", model.TierRegistered)
	r.d.Publish([]push.Event{open, restricted, table})
	want := map[string][]push.Event{
		"reg-all":      {open, table},
		"don-all":      {open, restricted, table},
		"don-fixtures": {open, restricted},
		"don-pl":       {open, table},
	}
	for h, evs := range want {
		w.waitFor(h+" got its events", w.delivered(h, evs...))
	}
	w.waitQueueEmpty()
	for h, evs := range want {
		got := w.recv.deliveries(h)
		if len(got) != len(evs) {
			t.Errorf("%s got %d events, want %d: %v", h, len(got), len(evs), got)
		}
	}
	if _, ok := w.recv.deliveries("reg-all")[restricted.Key()]; ok {
		t.Errorf("the registered client's webhook got the donating tier's competition")
	}
}

// A webhook removed with deliveries pending gets nothing more.
// An event of an edit made before a webhook was registered, fanned out
// after it (an import's thousands of events still queued), is not the
// webhook's: only the later edit's event reaches it.
func TestNothingFromBeforeRegistration(t *testing.T) {
	w := newWorld(t)
	w.add("h", "reg", nil)
	r := w.start(nil)
	w.waitState("h", status(webhook.Verified))
	before, after := w.event(push.FixtureUpdate, "PL", model.TierAnonymous), w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	before.Seq = 1 // the first client's edit, before the webhook's
	r.d.Publish([]push.Event{before, after})
	w.waitFor("the later edit's event", w.delivered("h", after))
	w.waitQueueEmpty()
	if got := w.recv.deliveries("h")[before.Key()]; len(got) != 0 {
		t.Errorf("the event of an edit before the webhook was registered was delivered %d time(s)", len(got))
	}
}

func TestRemovedGetsNothing(t *testing.T) {
	w := newWorld(t)
	w.recv.answer = func(*http.Request, string, int) int { return http.StatusServiceUnavailable }
	w.add("h", "reg", nil)
	r := w.start(nil)
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitState("h", func(st webhook.State) bool { return st.Failed > 0 })
	w.remove("h")
	w.waitQueueEmpty()
	n := len(w.recv.deliveries("h")[ev.Key()])
	time.Sleep(300 * time.Millisecond)
	if got := len(w.recv.deliveries("h")[ev.Key()]); got != n {
		t.Errorf("attempts went on after removal: %d, then %d", n, got)
	}
}

// remove removes a webhook and waits until the read model has seen it.
func (w *world) remove(name string) {
	w.t.Helper()
	ch, err := natstest.Editor(w.t, w.store).RemoveWebhook(w.ctx, name)
	if err != nil {
		w.t.Fatal(err)
	}
	for s := w.model.Snapshot(); s.Seq() < ch.Seq; s = w.model.Snapshot() {
		<-s.Changed()
	}
}

// storedCreated is the registration time in the stored state of name,
// read from the bucket itself; ok is false when the bucket has no state
// of name.
func (w *world) storedCreated(name string) (created time.Time, ok bool) {
	w.t.Helper()
	js, err := jetstream.New(w.store.Conn())
	if err != nil {
		w.t.Fatal(err)
	}
	kv, err := js.KeyValue(w.ctx, webhook.StatesBucket)
	if err != nil {
		w.t.Fatal(err)
	}
	e, err := kv.Get(w.ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return time.Time{}, false
	}
	if err != nil {
		w.t.Fatal(err)
	}
	var st webhook.State
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		w.t.Fatal(err)
	}
	return st.Created, true
}

// A removed webhook's state leaves the bucket, even when attempts in hand
// at its removal end after it; a webhook added again under the name keeps
// the new registration's state.
func TestRemovedStateIsDeleted(t *testing.T) {
	tests := []struct {
		name    string
		failing bool // deliveries fail and are retried when it is removed
		readd   bool // added again under the name after the removal
	}{
		{"removed", false, false},
		{"removed with deliveries failing", true, false},
		{"removed and added again", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if tt.failing {
				w.recv.answer = func(*http.Request, string, int) int { return http.StatusServiceUnavailable }
			}
			w.add("h", "reg", nil)
			reg := prometheus.NewRegistry()
			r := w.start(func(c *webhook.Config) { c.Registerer = reg })
			w.waitState("h", status(webhook.Verified))
			if tt.failing {
				r.d.Publish([]push.Event{w.event(push.FixtureUpdate, "PL", model.TierAnonymous)})
				w.waitState("h", func(st webhook.State) bool { return st.Failed > 0 })
			}
			w.remove("h")
			var want time.Time
			if tt.readd {
				w.add("h", "reg", nil)
				for _, h := range w.model.Snapshot().Webhooks() {
					if h.Name == "h" {
						want = h.Created
					}
				}
				w.waitState("h", status(webhook.Verified))
			}
			w.waitQueueEmpty()
			if tt.readd {
				// The registration under the name is the new one, so no
				// sweep is due: this is a window in which an attempt in
				// hand at the removal (fast's AckWait) must not write the
				// old state back, not a wait for something to happen.
				time.Sleep(3*time.Second + 500*time.Millisecond)
			} else {
				// Past the second sweep of the removal: what an attempt in
				// hand at the removal wrote has been deleted too.
				natstest.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
					if n := metric(t, reg, "fd_webhook_states_swept_total", ""); n < 2 {
						return fmt.Errorf("%v sweeps of the removed state, want 2", n)
					}
					return nil
				})
			}
			if created, ok := w.storedCreated("h"); ok != tt.readd || !created.Equal(want) {
				t.Fatalf("stored state: found %v, created %s; want found %v, created %s", ok, created, tt.readd, want)
			}
		})
	}
}

// A NATS restart costs no event: the dispatcher's work resumes on the
// restarted server, and what was queued before is still there.
func TestSurvivesNATSRestart(t *testing.T) {
	w := newWorld(t)
	var down atomic.Bool
	down.Store(true)
	w.recv.answer = func(*http.Request, string, int) int {
		if down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	w.add("h", "reg", nil)
	r := w.start(nil)
	w.waitState("h", status(webhook.Verified))
	before := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{before})
	w.waitFor("a first failed attempt", func() bool { return len(w.recv.deliveries("h")) > 0 })
	srv, err := w.srv.Restart()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	down.Store(false)
	after := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{after})
	w.waitFor("both events delivered", w.delivered("h", before, after))
}

// TestLostConsumersAreMadeAgain: a replica whose work queue consumers are
// gone (deleted by an operator; on a fresh cluster, not yet led) makes
// them again and delivers what was published meanwhile, saying so once
// for each consumer rather than once a second for each of its twenty
// workers. Before, its workers fetched from consumers that no longer
// existed, each logging "no responders" every second, and delivered
// nothing until the replica restarted.
func TestLostConsumersAreMadeAgain(t *testing.T) {
	w := newWorld(t)
	w.add("h", "reg", nil)
	var logs natstest.Buffer
	r := w.start(func(c *webhook.Config) { c.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	w.waitState("h", status(webhook.Verified))
	js, err := jetstream.New(r.nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{webhook.ConsumerFanout, webhook.ConsumerVerify, webhook.ConsumerDelivery} {
		if err := js.DeleteConsumer(w.ctx, webhook.QueueStream, name); err != nil {
			t.Fatalf("delete consumer %s: %v", name, err)
		}
	}
	ev := w.event(push.FixtureUpdate, "PL", model.TierAnonymous)
	r.d.Publish([]push.Event{ev})
	w.waitFor("the event delivered through consumers made again", w.delivered("h", ev))
	// A few seconds more of the workers' pace, to see whether they go on
	// logging.
	time.Sleep(3 * time.Second)
	if n := strings.Count(logs.String(), "webhook fetch failing"); n == 0 || n > 3 {
		t.Errorf("%d log lines of failed fetches, want one for each consumer lost:\n%s", n, logs.String())
	}
}

// TestUnmakeableConsumersAreSaidOnce: while a lost consumer cannot be
// made again (here its stream is gone), the replica tries once a second
// and says so once for each consumer, not at every try.
func TestUnmakeableConsumersAreSaidOnce(t *testing.T) {
	w := newWorld(t)
	var logs natstest.Buffer
	r := w.start(func(c *webhook.Config) { c.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	js, err := jetstream.New(r.nc)
	if err != nil {
		t.Fatal(err)
	}
	// Once the consumers are there, the stream goes with them.
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		_, err := js.Consumer(w.ctx, webhook.QueueStream, webhook.ConsumerDelivery)
		return err
	})
	if err := js.DeleteStream(w.ctx, webhook.QueueStream); err != nil {
		t.Fatal(err)
	}
	// Several tries of each pool: the first failure within a second of
	// the deletion (the workers' pace), one try a second after it.
	natstest.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if n := strings.Count(logs.String(), "webhook fetch failing"); n < 3 {
			return fmt.Errorf("%d pools failing, want 3", n)
		}
		return nil
	})
	time.Sleep(3 * time.Second)
	if n := strings.Count(logs.String(), "not made again"); n == 0 || n > 3 {
		t.Errorf("%d log lines of consumers not made again over 3 s, want one for each consumer:\n%s", n, logs.String())
	}
}
