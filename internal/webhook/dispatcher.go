package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// QueueStream is the work-queue stream of events, verifications and
// deliveries; the names of its durable consumers are the Consumer*
// constants.
const (
	QueueStream      = "FD_WEBHOOK_QUEUE"
	ConsumerFanout   = "fanout"
	ConsumerVerify   = "verify"
	ConsumerDelivery = "deliver"

	subjectPrefix   = "fd.webhook."
	subjectEvent    = subjectPrefix + "event"
	subjectVerify   = subjectPrefix + "verify."
	subjectDelivery = subjectPrefix + "deliver."
)

// publishTimeout bounds the wait for a publish's acknowledgement.
const publishTimeout = 10 * time.Second

// maxPending is how many deliveries may wait for a retry (or be in hand)
// at once, all webhooks together.
const maxPending = 100_000

// Hooks is what the dispatcher reads of the read model: the webhooks, when
// each was registered, and their clients. readmodel.Snapshot has them.
type Hooks interface {
	// Webhooks lists the webhooks, removed ones included, by name.
	Webhooks() []model.Webhook
	// Registered is the stream sequence of the message that registered
	// the webhook named name as it is now (0: not known).
	Registered(name string) uint64
	ClientNamed(name string) (model.Client, bool)
}

// Config configures a Dispatcher; every knob but Conn and Hooks has a
// default.
type Config struct {
	Conn *nats.Conn
	// Hooks returns the read model's current state.
	Hooks func() Hooks
	// PublicURL is the base of the events' links.
	PublicURL string
	// Allow is where webhooks may point (default: public addresses).
	Allow *netguard.Allow
	// Workers is how many deliveries this replica makes at once (16).
	Workers int
	// PerWebhook is how many of them may be for one webhook (a quarter
	// of Workers, at least 1): a slow receiver holds no more.
	PerWebhook int
	// CircuitAfter is how many failed attempts in a row park a webhook
	// (5): its deliveries wait, unsent, for Park (30s), then one attempt
	// probes the receiver; each failed probe parks it twice as long, up
	// to MaxRetryDelay.
	CircuitAfter int
	Park         time.Duration
	// Timeout is how long a receiver has to answer (10s).
	Timeout time.Duration
	// AckWait is how long a replica holds a message before the others may
	// take it over (Timeout + 5s): the delay with which the work of a dead
	// replica is resumed.
	AckWait time.Duration
	// FirstRetry is the first delay after a failed attempt (1s); each
	// later one is as long as the delivery has been failing, up to
	// MaxRetryDelay (3h), until RetryFor (24h) has passed.
	FirstRetry, MaxRetryDelay, RetryFor time.Duration
	// VerifyFor is how long a host verification is retried (1h).
	VerifyFor time.Duration
	// Scan is how often the replica looks for new webhooks (1s).
	Scan time.Duration
	// DuplicateWindow is how long the stream drops a second copy of an
	// event (1h): longer than replicas may lag behind each other.
	DuplicateWindow time.Duration
	// Now is the clock of webhook-timestamp and of the retry schedule. It
	// is the wall clock even in demos: receivers check the timestamp
	// against theirs, and ages are measured from the stream's own times.
	Now        func() time.Time
	Log        *slog.Logger
	Registerer prometheus.Registerer
}

// DefaultWorkers and DefaultTimeout are Config's defaults, which the api
// command's --webhook-workers and --webhook-timeout share.
const (
	DefaultWorkers = 16
	DefaultTimeout = 10 * time.Second
)

func (c *Config) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.Timeout, DefaultTimeout)
	def(&c.AckWait, c.Timeout+5*time.Second)
	def(&c.FirstRetry, time.Second)
	def(&c.MaxRetryDelay, 3*time.Hour)
	def(&c.RetryFor, 24*time.Hour)
	def(&c.VerifyFor, time.Hour)
	def(&c.Scan, time.Second)
	def(&c.DuplicateWindow, time.Hour)
	def(&c.Park, 30*time.Second)
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.PerWebhook == 0 {
		c.PerWebhook = max(1, c.Workers/4)
	}
	if c.CircuitAfter == 0 {
		c.CircuitAfter = 5
	}
	if c.Allow == nil {
		c.Allow = &netguard.Allow{}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Conn == nil || c.Hooks == nil:
		return errors.New("webhooks: a NATS connection and the read model are required")
	case c.Workers < 1:
		return fmt.Errorf("webhook workers %d: must be at least 1", c.Workers)
	case c.PerWebhook < 1 || c.PerWebhook > c.Workers:
		return fmt.Errorf("webhook attempts per webhook %d: must be from 1 to the workers, %d", c.PerWebhook, c.Workers)
	case c.CircuitAfter < 1 || c.Park <= 0 || c.Park > c.MaxRetryDelay:
		return fmt.Errorf("webhook circuit after %d failures, park %s: want at least 1 failure and 0 < park ≤ max retry delay %s", c.CircuitAfter, c.Park, c.MaxRetryDelay)
	case c.AckWait <= c.Timeout:
		return fmt.Errorf("webhook ack wait %s: must be longer than the timeout %s", c.AckWait, c.Timeout)
	case c.FirstRetry <= 0 || c.MaxRetryDelay < c.FirstRetry || c.RetryFor < c.FirstRetry:
		return fmt.Errorf("webhook retries %s, %s, %s: want 0 < first ≤ max delay, first ≤ retry for", c.FirstRetry, c.MaxRetryDelay, c.RetryFor)
	case c.VerifyFor <= 0 || c.Scan <= 0 || c.DuplicateWindow < time.Second:
		return errors.New("webhook verify-for, scan and duplicate window must be positive")
	}
	return nil
}

// Dispatcher is one replica's share of the webhook work.
type Dispatcher struct {
	cfg     Config
	metrics *metrics
	client  *http.Client
	js      jetstream.JetStream
	states  *States
	lanes   *lanes

	mu    sync.Mutex
	queue []push.Event
	wake  chan struct{}

	// verified holds the registrations known to be verified (name and
	// creation): a verified registration stays so.
	verified sync.Map

	notesMu sync.Mutex
	notes   map[string]*pendingNotes // by registration
}

// New returns a dispatcher; Run starts it.
func New(cfg Config) (*Dispatcher, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// An ack lost while NATS restarts must end in an error, to publish
	// again, not in a wait for ever.
	js, err := jetstream.New(cfg.Conn, jetstream.WithPublishAsyncTimeout(publishTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return &Dispatcher{cfg: cfg, metrics: newMetrics(cfg.Registerer), client: newClient(cfg), js: js, lanes: newLanes(&cfg),
		wake: make(chan struct{}, 1), notes: map[string]*pendingNotes{}}, nil
}

// dialTimeout bounds connecting to a webhook's host.
const dialTimeout = 5 * time.Second

// newClient is the HTTP client of verifications and deliveries: it dials
// only allowed addresses, uses no proxy, and follows no redirect.
func newClient(cfg Config) *http.Client {
	tr := &http.Transport{
		// No proxy from the environment: it would dial instead of us and
		// so escape the address check.
		Proxy:                 nil,
		DialContext:           cfg.Allow.Dialer("--webhook-allow", dialTimeout),
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   cfg.Workers,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	return &http.Client{Transport: tr, Timeout: cfg.Timeout,
		// A redirect is an answer, not a 2xx: following it could lead to a
		// host the operator did not allow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Publish hands events derived by this replica to the webhooks. It never
// blocks: the events are published to the stream in the background. It is
// the sink the read model's push derivation calls.
func (d *Dispatcher) Publish(evs []push.Event) {
	if len(evs) == 0 {
		return
	}
	d.mu.Lock()
	d.queue = append(d.queue, evs...)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sets up the stream, the bucket and the consumers (trying again for
// as long as NATS does not answer), and works until ctx ends. Messages in
// hand when it ends are handed back, or taken over by another replica once
// AckWait has passed.
func (d *Dispatcher) Run(ctx context.Context) {
	consumers, err := d.setup(ctx)
	for wait := time.Second; err != nil; wait = min(2*wait, 30*time.Second) {
		if ctx.Err() != nil {
			return
		}
		d.cfg.Log.Warn("webhooks not set up yet; retrying", "in", wait.String(), "err", err.Error())
		sleep(ctx, wait)
		consumers, err = d.setup(ctx)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for i, p := range d.pools() {
		f := &fetching{pool: p}
		for range p.workers {
			wg.Go(func() { d.work(ctx, consumers[i], f) })
		}
	}
	wg.Go(func() { d.publishLoop(ctx) })
	wg.Go(func() { d.scanLoop(ctx) })
	wg.Go(func() { d.noteLoop(ctx) })
	<-ctx.Done()
}

// pool is the workers of one durable consumer.
type pool struct {
	name, filter string
	workers      int
	handle       func(context.Context, jetstream.Msg)
}

func (d *Dispatcher) pools() []pool {
	return []pool{
		{ConsumerFanout, subjectEvent, 2, d.fanout},
		{ConsumerVerify, subjectVerify + ">", 2, d.verify},
		{ConsumerDelivery, subjectDelivery + ">", d.cfg.Workers, d.deliver},
	}
}

// setup finds the stream and the bucket (Provision makes them) and creates
// or updates the replica's consumers.
func (d *Dispatcher) setup(ctx context.Context) ([]jetstream.Consumer, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := Check(ctx, d.cfg.Conn); err != nil {
		return nil, err
	}
	states, err := openStates(ctx, d.cfg.Conn)
	if err != nil {
		return nil, err
	}
	d.states = states
	pools := d.pools()
	consumers := make([]jetstream.Consumer, len(pools))
	for i, p := range pools {
		if consumers[i], err = d.makeConsumer(ctx, p); err != nil {
			return nil, err
		}
	}
	return consumers, nil
}

// makeConsumer creates or updates pool p's durable consumer.
func (d *Dispatcher) makeConsumer(ctx context.Context, p pool) (jetstream.Consumer, error) {
	c, err := d.js.CreateOrUpdateConsumer(ctx, QueueStream, jetstream.ConsumerConfig{
		Durable:       p.name,
		FilterSubject: p.filter,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       d.cfg.AckWait,
		// Retries are scheduled by the handlers (NakWithDelay) and end
		// with Term, on time, not on a count.
		MaxDeliver: -1,
		// A delivery waiting for its retry stays pending: this bounds
		// what failing receivers may hold before every delivery waits.
		MaxAckPending: maxPending,
	})
	if err != nil {
		return nil, fmt.Errorf("webhook consumer %s: %w", p.name, events.Explain(d.cfg.Conn, err))
	}
	return c, nil
}

// Check reports whether the work queue and the states bucket exist
// (events.ErrNotProvisioned when one does not), changing nothing.
func Check(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	if _, err := js.Stream(ctx, QueueStream); err != nil {
		return notProvisioned(nc, "webhook stream "+QueueStream, err, jetstream.ErrStreamNotFound)
	}
	if _, err := js.KeyValue(ctx, StatesBucket); err != nil {
		return notProvisioned(nc, "webhook states bucket "+StatesBucket, err, jetstream.ErrBucketNotFound)
	}
	return nil
}

// notProvisioned names what failed: missing (events.ErrNotProvisioned), or
// refused or unanswered.
func notProvisioned(nc *nats.Conn, what string, err, missing error) error {
	if errors.Is(err, missing) {
		return fmt.Errorf("%s: %w", what, events.ErrNotProvisioned)
	}
	return fmt.Errorf("%s: %w", what, events.Explain(nc, err))
}

// Provision creates or updates the work queue and the states bucket, kept
// on replicas servers (0 keeps what each has, 1 when creating it); it
// reports the replicas each had before (0: none), queue first. It is
// events.Provision's companion, run by `ingest stream init`.
func Provision(ctx context.Context, nc *nats.Conn, replicas int) (queueBefore, statesBefore int, err error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, 0, fmt.Errorf("jetstream: %w", err)
	}
	var cfg Config
	cfg.setDefaults()
	st, err := js.Stream(ctx, QueueStream)
	switch {
	case err == nil:
		queueBefore = st.CachedInfo().Config.Replicas
	case !errors.Is(err, jetstream.ErrStreamNotFound):
		return 0, 0, fmt.Errorf("webhook stream %s: %w", QueueStream, events.Explain(nc, err))
	}
	want := queueConfig(cfg, cmp.Or(replicas, queueBefore, 1))
	if err != nil || !sameQueue(st.CachedInfo().Config, want) {
		if _, err := js.CreateOrUpdateStream(ctx, want); err != nil {
			return queueBefore, 0, fmt.Errorf("webhook stream %s: %w", QueueStream, events.Explain(nc, err))
		}
	}
	statesBefore, err = provisionStates(ctx, js, replicas)
	if err != nil {
		err = fmt.Errorf("webhook states bucket %s: %w", StatesBucket, events.Explain(nc, err))
	}
	return queueBefore, statesBefore, err
}

// queueConfig is the work queue's configuration.
func queueConfig(cfg Config, replicas int) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        QueueStream,
		Description: "webhook work: events to fan out, hosts to verify, deliveries to make",
		Subjects:    []string{subjectPrefix + ">"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		Duplicates:  cfg.DuplicateWindow,
		// Nothing is retried longer than this: a bound on what a stream
		// nobody consumes keeps.
		MaxAge: cfg.RetryFor + cfg.MaxRetryDelay + time.Hour,
	}
}

// sameQueue reports whether the stream has every setting queueConfig
// asks for (the server fills in the ones left at their defaults).
func sameQueue(have, want jetstream.StreamConfig) bool {
	return slices.Equal(have.Subjects, want.Subjects) && have.Description == want.Description &&
		have.Retention == want.Retention && have.Storage == want.Storage && have.Replicas == want.Replicas &&
		have.Duplicates == want.Duplicates && have.MaxAge == want.MaxAge
}

// decode reads a work message into v. One that cannot be read never will
// be: it is logged and terminated, and decode reports false.
func (d *Dispatcher) decode(msg jetstream.Msg, what string, v any) bool {
	if err := json.Unmarshal(msg.Data(), v); err != nil {
		d.cfg.Log.Error("webhook "+what+": undecodable, dropped", "subject", msg.Subject(), "err", err.Error())
		_ = msg.Term()
		return false
	}
	return true
}

// work takes one message at a time, so that a replica holds no more than
// it is working on and a busy replica leaves the rest to the others.
func (d *Dispatcher) work(ctx context.Context, cons jetstream.Consumer, f *fetching) {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(fctx))
		cancel()
		switch {
		case ctx.Err() != nil:
		case err == nil:
			d.fetched(f)
			d.handle(ctx, msg, f.pool.handle)
		case errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
			// The consumer answered that it had nothing.
			d.fetched(f)
		default:
			// While NATS is away the connection says so itself; the
			// workers only wait.
			if d.cfg.Conn.IsConnected() {
				d.fetchFailed(ctx, f, err)
			}
			sleep(ctx, time.Second)
		}
	}
}

// fetching is what the workers of a pool know together of their
// consumer's fetches: whether they fail, since when, when the consumer
// was last made again and whether that failed, so that a failure is
// logged and acted on once, not by every worker every second.
type fetching struct {
	pool    pool
	failing atomic.Bool
	mu      sync.Mutex
	since   time.Time
	remade  time.Time
	// unmade is set once a try to make the consumer again has failed
	// and been logged, until the run of failures ends.
	unmade bool
}

// remakeEvery bounds how often a pool's missing consumer is made again.
const remakeEvery = time.Second

// fetchFailed notes a failed fetch of f's consumer: the first of a run of
// failures is logged, and a consumer that is not there (deleted; on a
// fresh cluster, not led yet) is made again, as Run made it.
func (d *Dispatcher) fetchFailed(ctx context.Context, f *fetching, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	missing := errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
		errors.Is(err, jetstream.ErrConsumerDeleted)
	if !f.failing.Load() {
		f.failing.Store(true)
		f.since, f.unmade = now, false
		d.cfg.Log.Warn("webhook fetch failing", "consumer", f.pool.name, "err", err.Error(), "making_it_again", missing)
	}
	if !missing || now.Sub(f.remade) < remakeEvery {
		return
	}
	f.remade = now
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := d.makeConsumer(mctx, f.pool); err != nil {
		if !f.unmade {
			f.unmade = true
			d.cfg.Log.Warn("webhook consumer not made again; retrying every second", "consumer", f.pool.name, "err", err.Error())
		}
		return
	}
	d.cfg.Log.Info("webhook consumer made again", "consumer", f.pool.name)
}

// fetched notes a fetch that reached f's consumer, ending a run of
// failures.
func (d *Dispatcher) fetched(f *fetching) {
	if !f.failing.Load() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing.Load() {
		f.failing.Store(false)
		d.cfg.Log.Info("webhook fetch works again", "consumer", f.pool.name, "after", time.Since(f.since).Round(time.Millisecond).String())
	}
}

// handle does one message's work. A panic in it, a bug, would end the
// replica, and after AckWait the next replica to take the message: it is
// logged with its stack and counted, and the message handed back on the
// schedule of a failed attempt, so that a release without the bug still
// does the work.
func (d *Dispatcher) handle(ctx context.Context, msg jetstream.Msg, handle func(context.Context, jetstream.Msg)) {
	defer func() {
		if v := recover(); v != nil {
			d.metrics.panics.Inc()
			age, _ := d.age(msg)
			delay := d.retryDelay(age)
			d.cfg.Log.Error("webhook work panicked; retrying", "subject", msg.Subject(), "in", delay.String(),
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			_ = msg.NakWithDelay(delay)
		}
	}()
	handle(ctx, msg)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// envelope is an event as the queue carries it: what the fan-out matches
// on and the body every delivery sends.
type envelope struct {
	Key string `json:"key"`
	// Seq is the stream sequence of the edit that caused the event; 0 in
	// events queued before it was carried.
	Seq         uint64           `json:"seq,omitempty"`
	Kind        string           `json:"kind"`
	Competition int32            `json:"competition"`
	League      model.LeagueCode `json:"league"`
	Tier        model.Tier       `json:"tier"`
	Time        time.Time        `json:"time"`
	Body        json.RawMessage  `json:"body"`
	// BodyV4 is the body whose URI names the v4 resource, for webhooks
	// that ask for it; absent in events queued before there was one.
	BodyV4 json.RawMessage `json:"bodyV4,omitempty"`
}

// delivery is one event for one webhook registration.
type delivery struct {
	Webhook string    `json:"webhook"`
	Created time.Time `json:"created"`
	Event   envelope  `json:"event"`
}

// verification asks for one registration's host to be verified.
type verification struct {
	Webhook string    `json:"webhook"`
	Created time.Time `json:"created"`
}

// publishLoop publishes the queued events, each with its key as message
// id so that the copies of every replica are stored once. A failed publish
// is tried again: nothing this replica derived is dropped while it runs.
func (d *Dispatcher) publishLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		d.mu.Lock()
		evs := d.queue
		d.queue = nil
		d.mu.Unlock()
		for len(evs) > 0 && ctx.Err() == nil {
			failed := d.publishEvents(ctx, evs)
			if len(failed) > 0 {
				sleep(ctx, time.Second)
			}
			evs = failed
		}
	}
}

func (d *Dispatcher) publishEvents(ctx context.Context, evs []push.Event) []push.Event {
	futures := make([]jetstream.PubAckFuture, len(evs))
	var failed []push.Event
	for i := range evs {
		ev := &evs[i]
		body, err := ev.Body(d.cfg.PublicURL, push.V1)
		if err != nil {
			d.cfg.Log.Error("webhook event body", "key", ev.Key(), "err", err.Error())
			continue
		}
		bodyV4, err := ev.Body(d.cfg.PublicURL, push.V4)
		if err != nil {
			d.cfg.Log.Error("webhook event body", "key", ev.Key(), "err", err.Error())
			continue
		}
		data, err := json.Marshal(envelope{Key: ev.Key(), Seq: ev.Seq, Kind: ev.Kind, Competition: ev.Competition, League: ev.League,
			Tier: ev.Tier, Time: ev.Time, Body: body, BodyV4: bodyV4})
		if err != nil {
			d.cfg.Log.Error("webhook event", "key", ev.Key(), "err", err.Error())
			continue
		}
		m := nats.NewMsg(subjectEvent)
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, ev.Key())
		if futures[i], err = d.js.PublishMsgAsync(m); err != nil {
			failed = append(failed, *ev)
		}
	}
	var firstErr error
	for i, f := range futures {
		if f == nil {
			continue
		}
		select {
		case <-f.Ok():
		case err := <-f.Err():
			firstErr = cmp.Or(firstErr, err)
			failed = append(failed, evs[i])
		case <-ctx.Done():
			return nil
		}
	}
	if firstErr != nil {
		// One line a batch: while NATS is away every event of it fails
		// the same way (a line per event was thousands in a second).
		d.cfg.Log.Warn("webhook event publish; retrying", "events", len(failed), "first", failed[0].Key(), "err", firstErr.Error())
	}
	return failed
}

// fanout turns one event into one delivery per webhook that asks for it,
// whose client's tier may see it, and that was registered before the
// event's edit. A delivery's message id is the event key and the webhook's
// name, so a fan-out done again after a crash publishes nothing twice.
//
// The fan-out may run well after the edit (thousands of an import's events
// queued before it), so the webhooks it finds may be newer than the event:
// the stream sequences say which came first, as the clocks of the editor
// who registered it and of the server need not agree.
func (d *Dispatcher) fanout(ctx context.Context, msg jetstream.Msg) {
	var ev envelope
	if !d.decode(msg, "event", &ev) {
		return
	}
	hooks := d.cfg.Hooks()
	var futures []jetstream.PubAckFuture
	for _, w := range hooks.Webhooks() {
		c, ok := hooks.ClientNamed(w.Client)
		if w.Removed || !ok || !c.Tier.Allows(ev.Tier) || !w.Wants(ev.Kind, int(ev.Competition), ev.League) || ev.Seq != 0 && ev.Seq <= hooks.Registered(w.Name) {
			continue
		}
		one := ev
		if api, _ := push.ParseAPI(w.Version); api == push.V4 && ev.BodyV4 != nil {
			one.Body = ev.BodyV4
		}
		one.BodyV4 = nil
		data, err := json.Marshal(delivery{Webhook: w.Name, Created: w.Created, Event: one})
		if err != nil {
			d.cfg.Log.Error("webhook delivery", "webhook", w.Name, "err", err.Error())
			continue
		}
		m := nats.NewMsg(subjectDelivery + w.Name)
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, ev.Key+"."+w.Name)
		f, err := d.js.PublishMsgAsync(m)
		if err != nil {
			d.retryLater(msg, time.Second, "fan-out", err)
			return
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			d.retryLater(msg, time.Second, "fan-out", err)
			return
		case <-ctx.Done():
			return
		}
	}
	if err := msg.Ack(); err != nil {
		d.cfg.Log.Warn("webhook event ack", "key", ev.Key, "err", err.Error())
	}
}

func (d *Dispatcher) retryLater(msg jetstream.Msg, delay time.Duration, what string, err error) {
	d.cfg.Log.Warn("webhook "+what+"; retrying", "subject", msg.Subject(), "in", delay.String(), "err", err.Error())
	_ = msg.NakWithDelay(delay)
}

// age is how long ago msg was first stored, measured with the stream's own
// timestamp.
func (d *Dispatcher) age(msg jetstream.Msg) (time.Duration, uint64) {
	meta, err := msg.Metadata()
	if err != nil {
		return 0, 1
	}
	return max(0, d.cfg.Now().Sub(meta.Timestamp)), meta.NumDelivered
}

// retryDelay is the wait after a failed attempt of a message of that age:
// as long as it has been failing, so that the delays double (1s, 2s, 4s,
// …), from FirstRetry up to MaxRetryDelay.
func (d *Dispatcher) retryDelay(age time.Duration) time.Duration {
	return min(max(age, d.cfg.FirstRetry), d.cfg.MaxRetryDelay)
}

// registration says where a webhook registration stands in this
// replica's read model.
type registration int

const (
	current registration = iota
	gone                 // removed, or replaced by a later registration
	unknown              // not seen yet: this replica's model lags
)

// find returns the webhook registration a message is for.
func (d *Dispatcher) find(name string, created time.Time) (model.Webhook, registration) {
	hooks := d.cfg.Hooks().Webhooks()
	i, found := slices.BinarySearchFunc(hooks, name, func(w model.Webhook, name string) int { return strings.Compare(w.Name, name) })
	switch {
	case !found || hooks[i].Created.Before(created):
		return model.Webhook{}, unknown
	case hooks[i].Removed || !hooks[i].Created.Equal(created):
		return model.Webhook{}, gone
	}
	return hooks[i], current
}
