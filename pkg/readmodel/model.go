package readmodel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// Config configures a Model. Every field has a default.
type Config struct {
	// Now is the service's clock (default, nil: the wall clock). Current
	// matchdays and the current season follow it, so demos on historic
	// data and tests set it.
	Now func() time.Time
	// SwitchMonth and SwitchDay are the date on which a new season becomes
	// current (default 1 June).
	SwitchMonth time.Month
	SwitchDay   int
	// TickInterval is how often Run recomputes current matchdays (default
	// one minute; the specification asks for at least every five).
	TickInterval time.Duration
	// Log receives a warning for every event the model rejects (default
	// slog.Default()): a rejected event is an entity missing from every
	// answer, so it is never dropped silently. It also hears when the
	// stream's consumer is lost and resumed.
	Log *slog.Logger
	// MaxDelay bounds how long Run holds a live change back to publish it
	// together with the changes right behind it in the stream (default
	// 5ms). A burst (an import while replicas run) then costs one rebuild
	// per competition per MaxDelay instead of one per message.
	MaxDelay time.Duration
	// Events, if set, receives the push events of live messages (never of
	// the initial replay) after each publication that has some, in stream
	// order, once the change is visible to readers. It is called on the
	// writer's goroutine with the writer's lock held: it must not block
	// and must not keep the slice beyond the call if it changes it.
	Events func([]push.Event)
}

// DefaultSwitchMonth and DefaultSwitchDay are the season switch's
// default, 1 June, which the api command's --season-switch shares.
const (
	DefaultSwitchMonth = time.June
	DefaultSwitchDay   = 1
)

func (c *Config) setDefaults() {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.SwitchMonth == 0 {
		c.SwitchMonth = DefaultSwitchMonth
	}
	if c.SwitchDay == 0 {
		c.SwitchDay = DefaultSwitchDay
	}
	if c.TickInterval == 0 {
		c.TickInterval = time.Minute
	}
	if c.MaxDelay == 0 {
		c.MaxDelay = 5 * time.Millisecond
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.SwitchMonth < time.January || c.SwitchMonth > time.December:
		return fmt.Errorf("season switch month %d: must be from 1 to 12", c.SwitchMonth)
	// A day that exists in every year, so that the switch never moves.
	case c.SwitchDay < 1 || time.Date(2001, c.SwitchMonth, c.SwitchDay, 0, 0, 0, 0, time.UTC).Day() != c.SwitchDay:
		return fmt.Errorf("season switch day %d: must be a day of %s in every year", c.SwitchDay, c.SwitchMonth)
	case c.TickInterval <= 0 || c.TickInterval > 5*time.Minute:
		return fmt.Errorf("tick interval %s: must be more than 0 and at most 5m", c.TickInterval)
	case c.MaxDelay < 0 || c.MaxDelay > time.Second:
		return fmt.Errorf("max delay %s: must be from 0 to 1s", c.MaxDelay)
	}
	return nil
}

// Model is the read model of one API replica. One goroutine (Run, or a
// caller of Apply) feeds it events; any number of goroutines read it through
// Snapshot without ever waiting for the writer.
type Model struct {
	cfg Config
	cur atomic.Pointer[world]
	// wallClock is set when the service's clock is the wall clock, so that
	// SnapshotAt can take a reading its caller already has.
	wallClock bool

	ready     chan struct{}
	readyOnce sync.Once
	// replaying is set while the model replays a stream that replaced
	// the one it had applied (Restart): not ready, although ready once
	// before. replaced counts those replacements.
	replaying atomic.Bool
	replaced  atomic.Uint64
	// catchUpTo is the last sequence the stream held when a stalled
	// consumer was replaced (events.StallError), until the model has
	// applied it; catchUpReason says why, stalls counts the replacements.
	catchUpTo     atomic.Uint64
	catchUpReason atomic.Pointer[string]
	stalls        atomic.Uint64

	lastSeq, pending, applied, stale, decodeErrors, publications atomic.Uint64
	// servedSeq is the last event whose effect, if any, responses show:
	// set by each publication, and after a chunk that left nothing to
	// publish (events rejected, stale, or of kinds nothing is derived
	// from).
	servedSeq                 atomic.Uint64
	readySeq                  atomic.Uint64
	replayNanos, rebuildNanos atomic.Int64
	lastDecodeError           atomic.Pointer[string]

	// deferred tells Run's helper goroutine that a change waits for
	// publication.
	deferred chan struct{}

	// mu serialises the writer side: Apply, MarkReady, Tick and deferred
	// publication. It is the only lock; readers never take it.
	mu sync.Mutex
	w  *writer

	// learned are clients read from the stream's leader before the writer
	// applied them (LearnClient), by token hash: replaced whole, never
	// changed, so that readers load it as they load the world.
	learned atomic.Pointer[map[string]learnedClient]
}

// learnedClient is a client as the stream's leader had it at seq.
type learnedClient struct {
	c   model.Client
	seq uint64
}

// New returns an empty model that is not ready yet.
func New(cfg Config) (*Model, error) {
	wallClock := cfg.Now == nil
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, wallClock: wallClock, ready: make(chan struct{}), deferred: make(chan struct{}, 1)}
	m.w = newWriter()
	m.w.derive = cfg.Events != nil
	m.cur.Store(m.w.publish(cfg.Now()))
	return m, nil
}

// Snapshot returns a consistent view of everything applied so far, and the
// clock's time at which it was taken. It costs an atomic load: take one
// per request and ask it everything the request needs.
func (m *Model) Snapshot() Snapshot {
	return Snapshot{w: m.cur.Load(), now: m.cfg.Now().UTC(), cfg: &m.cfg, learned: &m.learned}
}

// SnapshotAt is Snapshot for a caller that has just read the wall clock
// (an HTTP server, as a request comes in): on the wall clock the
// snapshot's time is that reading, one reading fewer per request, which is
// a measurable share of a cached response's cost. Any other clock, or a
// zero wall, is read as Snapshot reads it.
func (m *Model) SnapshotAt(wall time.Time) Snapshot {
	if !m.wallClock || wall.IsZero() {
		return m.Snapshot()
	}
	return Snapshot{w: m.cur.Load(), now: wall.UTC(), cfg: &m.cfg, learned: &m.learned}
}

// LearnClient hands the model a client that its caller read from the
// stream's leader at revision seq (events.Store.ClientByToken) because a
// request came with its token before the writer had applied it. It is a
// cache, not a second source: a snapshot finds the client by its token only
// while the snapshot reflects less of the stream than seq, and from then on
// only as the writer applied it, so that a later rotation or revocation
// takes effect on the replica exactly when it would have without it. A
// client learned again replaces its earlier revision; clients the
// published world has caught up with are let go.
func (m *Model) LearnClient(c model.Client, seq uint64) {
	for {
		old := m.learned.Load()
		applied := m.cur.Load().seq
		next := map[string]learnedClient{}
		if old != nil {
			for h, l := range *old {
				if l.seq > applied && l.c.Name != c.Name {
					next[h] = l
				}
			}
		}
		if seq > applied && !c.Revoked {
			next[c.TokenHash] = learnedClient{c: c, seq: seq}
		}
		if m.learned.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Apply applies one event. Before MarkReady, changes are gathered and not
// yet visible (the initial replay); after it, the change is visible to
// readers when Apply returns. Events must come in stream order; an event not
// newer than what the model holds for its entity is ignored, and a message
// that does not decode into a valid entity is counted and skipped.
func (m *Model) Apply(ev events.Event) {
	v, err := decodeEvent(ev)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.applyLocked(ev, v, err)
	if m.w.ready {
		m.publishLocked()
	}
}

// MarkReady ends the initial replay: it builds every derived index once,
// publishes the result and makes the model ready. Run calls it when the
// stream's replay is done; callers of Apply call it themselves.
func (m *Model) MarkReady() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.markReadyLocked(time.Time{})
}

// markReadyLocked publishes the replay and reports ready; start, if not
// zero, is when the replay began.
func (m *Model) markReadyLocked(start time.Time) {
	m.w.ready = true
	m.readySeq.Store(m.w.seq)
	m.publishLocked()
	m.replaying.Store(false)
	if !start.IsZero() {
		m.replayNanos.Store(int64(time.Since(start)))
	}
	m.readyOnce.Do(func() { close(m.ready) })
}

// Ready reports whether everything present in the stream at start has been
// applied and published, and no replacement of the stream is being
// replayed since (Restart).
func (m *Model) Ready() bool {
	select {
	case <-m.ready:
		return !m.replaying.Load()
	default:
		return false
	}
}

// Restart drops everything applied, for the replay of a stream that
// replaced the one the model followed (events.ErrStreamReplaced): the
// model is not ready until MarkReady ends that replay. The world published
// before stays the snapshot readers get meanwhile; the replay's
// publication replaces it whole. Run restarts by itself; callers of Apply
// call it themselves.
func (m *Model) Restart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.restartLocked()
}

func (m *Model) restartLocked() {
	m.replaying.Store(true)
	m.replaced.Add(1)
	old := m.w
	m.w = newWriter()
	m.w.derive = old.derive
	// Versions go on from the old writer's: rendered responses are
	// cached under the versions of what they show, and a version used
	// again would serve the replaced stream's.
	m.w.gen = old.gen
	m.learned.Store(nil)
	m.lastSeq.Store(0)
	// The replay that follows makes the model not ready by itself.
	m.catchUpTo.Store(0)
	m.pending.Store(0)
}

// WaitReady waits until the model is ready for the first time, or ctx
// ends.
func (m *Model) WaitReady(ctx context.Context) error {
	select {
	case <-m.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Tick recomputes every competition's current matchday at now, publishing
// the competitions whose matchday moved. Run calls it every TickInterval.
func (m *Model) Tick(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.w.ready {
		return
	}
	if m.w.tick(now.Unix()) {
		m.publishLocked()
	}
}

// Run replays the stream into the model, marks it ready, then follows live
// changes until ctx ends, recomputing current matchdays meanwhile. It
// returns ctx's error, or the stream's if consumption fails.
//
// Messages are decoded on several goroutines (decoding is most of the cost
// of a replay) and applied by one, in stream order; see pipeline.
func (m *Model) Run(ctx context.Context, store *events.Store) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { m.background(ctx) })
	p := newPipeline(m, &wg)
	err := store.Consume(ctx, events.Prefix+".>", p.handle, p.ready, func(err error) {
		if errors.Is(err, events.ErrStreamReplaced) {
			m.cfg.Log.Warn("stream replaced: replaying it, not ready meanwhile", "err", err.Error())
			p.restart()
			return
		}
		if serr := (*events.StallError)(nil); errors.As(err, &serr) {
			m.stalled(serr)
			m.cfg.Log.Warn("stream consumer stalled: replaced it, not ready until caught up", "err", err.Error(), "catch_up_to", serr.Last)
			return
		}
		m.cfg.Log.Warn("stream consumer lost: resuming after the last event applied", "err", err.Error())
	})
	p.close()
	cancel()
	wg.Wait()
	// Nothing held back outlives the consumer.
	m.flush()
	return err
}

// stalled records the replacement of a consumer that stalled: the model
// is behind the stream until it has applied e.Last, and says so (Stats),
// so that load balancers route elsewhere meanwhile.
func (m *Model) stalled(e *events.StallError) {
	reason := e.Error() + ": replaced it, catching up"
	m.catchUpReason.Store(&reason)
	m.catchUpTo.Store(e.Last)
	m.stalls.Add(1)
}

// applyChunk applies a chunk of decoded events from Run. While the stream
// says more messages are already waiting, publication is held back for at
// most MaxDelay so that a burst is published in a few steps; background
// publishes what is held if the next message is late.
func (m *Model) applyChunk(c *chunk) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range c.evs {
		m.pending.Store(c.pending[i])
		m.applyLocked(c.evs[i], c.vals[i], c.errs[i])
	}
	if c.restart {
		m.restartLocked()
		return
	}
	if c.ready {
		// The final build allocates the derived lists and every table
		// (about 250 MB at 1M fixtures). Collected now, the replay's
		// garbage leaves room for them in memory the process has already
		// touched: otherwise the heap grows into fresh pages (the kernel
		// zeroing pages was 18 % of a 1M replay's samples in perf), and
		// the collector's cycle runs during the build, marking the new
		// tables too.
		runtime.GC()
		m.markReadyLocked(c.start)
		return
	}
	if !m.w.ready {
		return
	}
	if !m.w.b.dirty {
		m.servedSeq.Store(m.lastSeq.Load())
		return
	}
	if len(c.evs) == 0 || c.pending[len(c.evs)-1] == 0 || time.Since(m.w.b.since) >= m.cfg.MaxDelay {
		m.publishLocked()
		return
	}
	select {
	case m.deferred <- struct{}{}:
	default:
	}
}

// background runs beside Run's consumer: the matchday ticker and the
// deadline of held-back changes.
func (m *Model) background(ctx context.Context) {
	tick := time.NewTicker(m.cfg.TickInterval)
	defer tick.Stop()
	var flush <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			m.Tick(m.cfg.Now())
		case <-m.deferred:
			if flush == nil {
				flush = time.After(m.cfg.MaxDelay)
			}
		case <-flush:
			flush = nil
			m.flush()
		}
	}
}

// flush publishes changes held back by applyChunk.
func (m *Model) flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.w.ready && m.w.b.dirty {
		m.publishLocked()
	}
}

func (m *Model) applyLocked(ev events.Event, v any, decodeErr error) {
	err := decodeErr
	if err == nil {
		var a, b int32
		live := m.w.deriving()
		if live {
			a, b = m.w.compsOf(v)
		}
		if live && m.w.b.dirty && a != 0 && m.w.conflicts(a, b) {
			// One live message per competition and publication, so that
			// its push events are the same on every replica (push.go).
			m.publishLocked()
		}
		err = m.w.apply(ev, v)
		if err == nil && live && a != 0 {
			m.w.noteLive(ev.Seq, ev.Time, a, b)
		}
	}
	switch {
	case err == errStale:
		m.stale.Add(1)
	case err != nil:
		m.decodeErrors.Add(1)
		msg := fmt.Sprintf("%s (seq %d): %v", ev.Subject, ev.Seq, err)
		m.lastDecodeError.Store(&msg)
		m.cfg.Log.Warn("event rejected: its entity is not served", "subject", ev.Subject, "seq", ev.Seq, "reason", err.Error())
	default:
		m.applied.Add(1)
	}
	// Stored once ev is applied: a publication made above, before ev,
	// takes lastSeq for what it serves.
	m.lastSeq.Store(ev.Seq)
}

func (m *Model) publishLocked() {
	start := time.Now()
	next := m.w.publish(m.cfg.Now())
	prev := m.cur.Swap(next)
	m.servedSeq.Store(m.lastSeq.Load())
	close(prev.next)
	if evs := m.w.pushed; len(evs) > 0 {
		m.w.pushed = nil
		m.cfg.Events(evs)
	}
	m.publications.Add(1)
	m.rebuildNanos.Add(int64(time.Since(start)))
}

// Stats are the model's progress and health figures, for metrics.
type Stats struct {
	Ready bool
	// LastSeq is the stream sequence of the last event applied.
	LastSeq uint64
	// ServedSeq is the stream sequence of the last event the published
	// snapshot, the one responses are made from, takes in. It trails
	// LastSeq while applied changes wait to be published
	// (Config.MaxDelay): an edit is in every response once ServedSeq has
	// reached it, not LastSeq.
	ServedSeq uint64
	// ReadySeq is the stream sequence the replay ended at: push events
	// (Config.Events) come from the messages after it.
	ReadySeq uint64
	// Replaying is set while the model replays a stream that replaced
	// the one it followed; Replaced counts the replacements.
	Replaying bool
	Replaced  uint64
	// CatchingUp is set after a consumer that stalled was replaced
	// (events.StallError), until the model has applied what the stream
	// held then; CatchUpReason says why. Stalls counts the replacements.
	CatchingUp    bool
	CatchUpReason string
	Stalls        uint64
	// Pending is the number of messages the server still had for this
	// replica when the last one was delivered: the replica's lag.
	Pending uint64
	// Applied counts events that changed the model; Stale those ignored
	// because the model already held a newer state of their entity.
	Applied, Stale uint64
	// DecodeErrors counts messages skipped because they did not decode
	// into a valid entity; LastDecodeError describes the latest.
	DecodeErrors    uint64
	LastDecodeError string
	// ReplayDuration is how long the last replay took (Run only): the
	// initial one, or that of a stream that replaced it.
	ReplayDuration time.Duration
	// Publications counts snapshots published; RebuildTime is the time
	// spent building them (derived data: tables, indexes).
	Publications uint64
	RebuildTime  time.Duration
}

// Stats returns the current figures; it never waits for the writer.
func (m *Model) Stats() Stats {
	s := Stats{
		Ready:          m.Ready(),
		LastSeq:        m.lastSeq.Load(),
		ServedSeq:      m.servedSeq.Load(),
		ReadySeq:       m.readySeq.Load(),
		Replaying:      m.replaying.Load(),
		Replaced:       m.replaced.Load(),
		Stalls:         m.stalls.Load(),
		Pending:        m.pending.Load(),
		Applied:        m.applied.Load(),
		Stale:          m.stale.Load(),
		DecodeErrors:   m.decodeErrors.Load(),
		ReplayDuration: time.Duration(m.replayNanos.Load()),
		Publications:   m.publications.Load(),
		RebuildTime:    time.Duration(m.rebuildNanos.Load()),
	}
	if e := m.lastDecodeError.Load(); e != nil {
		s.LastDecodeError = *e
	}
	if to := m.catchUpTo.Load(); to > s.LastSeq {
		s.CatchingUp = true
		if r := m.catchUpReason.Load(); r != nil {
			s.CatchUpReason = *r
		}
	}
	return s
}
