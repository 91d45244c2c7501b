package follow

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/netguard"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a follower. Every knob but Store and State has a
// default.
type Config struct {
	Store *events.Store
	State *State
	// Holder names this follower in leases and statuses (default: host,
	// process id and a random suffix, new at every start).
	Holder string
	// Editor is recorded with every change a feed publishes (default
	// "follower"); the source is "feed NAME".
	Editor string
	// LeaseTTL is how long a lease outlives its holder's last renewal
	// (default 6s): a killed follower's feeds are taken over after about
	// that long. The holder renews every third of it.
	LeaseTTL time.Duration
	// Concurrency bounds the feeds polled at once (default 4).
	Concurrency int
	// MaxShrink is the share of the last good document's matches a new
	// one may lose before it is refused as suspect (default 0.2; 1 never
	// refuses).
	MaxShrink float64
	// ConnectTimeout bounds a connection and its TLS handshake (default
	// 10s), HeaderTimeout the wait for the response's headers (30s),
	// FetchTimeout the whole fetch, body included (2m); MaxBody is the
	// largest body read (32 MiB), MinRate the bytes a second a body must
	// come at on average once started (4 KiB; slots.go).
	ConnectTimeout, HeaderTimeout, FetchTimeout time.Duration
	MaxBody, MinRate                            int64
	// Allow is where feeds may be fetched from besides public addresses
	// (--feed-allow; default none); Files the folders file URLs may name
	// (--feed-files; default none, so file URLs are refused).
	Allow *netguard.Allow
	Files []string
	// TokenFiles are the folders a live feed's --token-file may name,
	// TokenVars the environment variables its --token-env may (default
	// none): a token is sent to the feed's host, which an editor chooses,
	// so what it is read from is the operator's to say.
	TokenFiles, TokenVars []string
	// MaxBackoff caps the wait after failures (default 1h, and never
	// less than a feed's own schedule).
	MaxBackoff time.Duration
	// Log receives one line per failed poll and per change (default:
	// discarded).
	Log *slog.Logger
	// Registerer receives the metrics (nil: not registered).
	Registerer prometheus.Registerer
	// Getenv reads the environment variables feeds name their tokens
	// by (default os.Getenv).
	Getenv func(string) string
}

// Config's defaults and bounds, which `ingest follow`'s flags share.
const (
	DefaultLeaseTTL       = 6 * time.Second
	DefaultConcurrency    = 4
	DefaultMaxShrink      = 0.2
	DefaultConnectTimeout = 10 * time.Second
	DefaultHeaderTimeout  = 30 * time.Second
	DefaultFetchTimeout   = 2 * time.Minute
	DefaultMaxBody        = 32 << 20
	DefaultMinRate        = 4 << 10
	DefaultMaxBackoff     = time.Hour
	// MinLeaseTTL leaves a holder that renews every third of the lease
	// time to reach NATS between renewals.
	MinLeaseTTL = 300 * time.Millisecond
)

func (c *Config) setDefaults() {
	if c.Holder == "" {
		host, _ := os.Hostname()
		b := make([]byte, 3)
		_, _ = rand.Read(b)
		c.Holder = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	if c.Editor == "" {
		c.Editor = "follower"
	}
	if c.LeaseTTL == 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxShrink == 0 {
		c.MaxShrink = DefaultMaxShrink
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.HeaderTimeout == 0 {
		c.HeaderTimeout = DefaultHeaderTimeout
	}
	if c.FetchTimeout == 0 {
		c.FetchTimeout = DefaultFetchTimeout
	}
	if c.MaxBody == 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.MinRate == 0 {
		c.MinRate = DefaultMinRate
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Allow == nil {
		c.Allow = &netguard.Allow{}
	}
}

// Validate checks the configuration; each error names its field.
func (c *Config) Validate() error {
	switch {
	case c.Store == nil || c.State == nil:
		return errors.New("follower: a store and a state are required")
	case c.LeaseTTL < MinLeaseTTL:
		return fmt.Errorf("lease %s: must be at least %s", c.LeaseTTL, MinLeaseTTL)
	case c.Concurrency < 1:
		return fmt.Errorf("concurrency %d: must be at least 1", c.Concurrency)
	case c.MaxShrink <= 0 || c.MaxShrink > 1:
		return fmt.Errorf("max shrink %g: must be more than 0 and at most 1", c.MaxShrink)
	case c.ConnectTimeout <= 0 || c.HeaderTimeout <= 0 || c.FetchTimeout <= 0:
		return fmt.Errorf("timeouts %s, %s, %s: must be more than 0", c.ConnectTimeout, c.HeaderTimeout, c.FetchTimeout)
	case c.MaxBody < 1:
		return fmt.Errorf("max body %d: must be at least 1 byte", c.MaxBody)
	case c.MinRate < 1:
		return fmt.Errorf("min rate %d: must be at least 1 byte a second", c.MinRate)
	case c.MaxBackoff <= 0:
		return fmt.Errorf("max backoff %s: must be more than 0", c.MaxBackoff)
	}
	return nil
}

// Follower polls the feeds whose leases it holds.
type Follower struct {
	cfg   Config
	fetch *fetcher
	m     *metrics
	ready atomic.Bool
	// wake tells Run that a poll ended, and with it set its feed's next
	// poll, which may come before the next round.
	wake chan struct{}

	mu   sync.Mutex
	held map[string]*held
	// seen are the leases of other followers: the revision and when this
	// follower first saw it, on its monotonic clock.
	seen map[string]seenLease
}

// held is a feed whose lease this follower holds.
type held struct {
	feed    model.Feed
	rev     uint64    // the lease's revision
	next    time.Time // next poll
	polling bool
	lost    bool // the lease went to another follower during a poll
	// failing: the last poll failed, so the feed waits for a slot among
	// the failing ones (slots).
	failing bool
	// served is the last poll request (State.RequestPoll) a poll answered,
	// asked the one the next poll answers.
	served, asked uint64
}

type seenLease struct {
	rev   uint64
	since time.Time
}

// New returns a follower; Run runs it.
func New(cfg Config) (*Follower, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var err error
	if cfg.Files, err = folders("--feed-files", cfg.Files); err != nil {
		return nil, err
	}
	if cfg.TokenFiles, err = folders("--token-files", cfg.TokenFiles); err != nil {
		return nil, err
	}
	return &Follower{cfg: cfg, fetch: newFetcher(cfg), m: newMetrics(cfg.Registerer), held: map[string]*held{}, seen: map[string]seenLease{},
		wake: make(chan struct{}, 1)}, nil
}

// Holder is the name this follower holds leases under.
func (f *Follower) Holder() string { return f.cfg.Holder }

// Ready reports whether the follower has read the feeds at least once.
func (f *Follower) Ready() bool { return f.ready.Load() }

// drainWait bounds how long a follower that is stopping lets its polls
// in flight finish (a document half written is written again, whole, by
// the next holder; finishing spares it the work).
const drainWait = 10 * time.Second

// leaseWait bounds a write of a lease that runs to its answer although
// the follower is stopping: a claim or a release.
const leaseWait = 5 * time.Second

// Run polls until ctx ends, then lets the polls in flight finish (for a
// while) and gives its leases up, so that another follower takes them at
// once.
func (f *Follower) Run(ctx context.Context) error {
	pollCtx, stopPolls := context.WithCancel(context.WithoutCancel(ctx))
	defer stopPolls()
	var wg sync.WaitGroup
	sem := newSlots(f.cfg.Concurrency)
	tick := f.cfg.LeaseTTL / 3
	for {
		f.round(ctx, pollCtx, &wg, sem)
		select {
		case <-ctx.Done():
			f.stop(&wg, stopPolls)
			return nil
		case <-time.After(f.sleep(tick)):
		case <-f.wake:
		}
	}
}

// sleep is the time until the next round: the lease's tick, or less when
// a poll is due before it (a live feed polled every second or so would
// otherwise wait for the tick).
func (f *Follower) sleep(tick time.Duration) time.Duration {
	now := time.Now()
	d := tick
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.held {
		if !h.polling {
			d = min(d, max(h.next.Sub(now), minSleep))
		}
	}
	return d
}

// minSleep bounds how often the rounds come when a poll is due.
const minSleep = 20 * time.Millisecond

func (f *Follower) stop(wg *sync.WaitGroup, stopPolls context.CancelFunc) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainWait):
		stopPolls()
		<-done
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaseWait)
	defer cancel()
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, h := range f.held {
		if err := f.cfg.State.release(ctx, name, f.cfg.Holder, h.rev); err != nil {
			f.cfg.Log.Warn("feed lease not released", "feed", name, "err", err.Error())
		}
		f.m.drop(name)
		delete(f.held, name)
	}
}

// round reads the feeds, keeps the leases (renews its own, takes free and
// expired ones, gives up those of feeds paused or removed) and starts the
// polls that are due.
func (f *Follower) round(ctx, pollCtx context.Context, wg *sync.WaitGroup, sem *slots) {
	ed := &editor.Editor{Store: f.cfg.Store}
	feeds, err := ed.Feeds(ctx)
	if err != nil {
		if ctx.Err() == nil {
			f.cfg.Log.Warn("feeds not read", "err", err.Error())
		}
		return
	}
	f.ready.Store(true)
	active := map[string]model.Feed{}
	for _, fd := range feeds {
		if !fd.Removed && !fd.Paused {
			active[fd.Name] = fd
		}
	}
	f.forget(ctx, active)
	for _, fd := range feeds {
		if _, ok := active[fd.Name]; !ok || ctx.Err() != nil {
			continue
		}
		if err := f.keepLease(ctx, fd); err != nil && ctx.Err() == nil {
			f.cfg.Log.Warn("feed lease", "feed", fd.Name, "err", err.Error())
		}
	}
	f.requests(ctx)
	f.pollDue(ctx, pollCtx, wg, sem)
}

// requests makes each held feed whose poll was asked for since its last
// poll due now. One get a held feed a round: the follower watches no key.
func (f *Follower) requests(ctx context.Context) {
	f.mu.Lock()
	names := make([]string, 0, len(f.held))
	for name, h := range f.held {
		if !h.polling {
			names = append(names, name)
		}
	}
	f.mu.Unlock()
	for _, name := range names {
		rev, err := f.cfg.State.pollRequested(ctx, name)
		if err != nil {
			if ctx.Err() == nil {
				f.cfg.Log.Warn("feed poll request not read", "feed", name, "err", err.Error())
			}
			continue
		}
		f.mu.Lock()
		if h, ok := f.held[name]; ok && !h.polling && rev > h.served {
			h.asked, h.next = rev, time.Now()
		}
		f.mu.Unlock()
	}
}

// forget drops what the follower knows of feeds no longer active, and
// gives back the leases it holds on them (or on a feed removed and added
// again under the same name) unless a poll of it is running.
func (f *Follower) forget(ctx context.Context, active map[string]model.Feed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for name := range f.seen {
		if _, ok := active[name]; !ok {
			delete(f.seen, name)
		}
	}
	for name, h := range f.held {
		if fd, ok := active[name]; (!ok || !fd.Created.Equal(h.feed.Created)) && !h.polling {
			if err := f.cfg.State.release(ctx, name, f.cfg.Holder, h.rev); err != nil {
				f.cfg.Log.Warn("feed lease not released", "feed", name, "err", err.Error())
			}
			f.m.drop(name)
			delete(f.held, name)
		}
	}
}

// pollDue starts a poll of each held feed that is due and not being
// polled, as the slots allow.
func (f *Follower) pollDue(ctx, pollCtx context.Context, wg *sync.WaitGroup, sem *slots) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.held {
		if h.polling || now.Before(h.next) || ctx.Err() != nil {
			continue
		}
		h.polling = true
		failing := h.failing
		wg.Go(func() {
			release, ok := sem.take(pollCtx, failing)
			if !ok {
				return
			}
			defer release()
			f.poll(pollCtx, h)
		})
	}
}

// keepLease renews fd's lease when this follower holds it, and takes it
// when it is free or its holder has not renewed it for a whole time to
// live.
func (f *Follower) keepLease(ctx context.Context, fd model.Feed) error {
	st := f.cfg.State
	now := time.Now()
	f.mu.Lock()
	h, mine := f.held[fd.Name]
	var rev uint64
	if mine {
		rev = h.rev
	}
	f.mu.Unlock()
	if mine {
		// The renewal runs to its answer even when the follower is
		// stopping: one abandoned on the way may still be written, at a
		// revision the release would not know, and the release would
		// then fail (the server may store it after the release's read).
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseWait)
		next, ok, err := st.claim(cctx, fd.Name, f.cfg.Holder, rev, now)
		cancel()
		if err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if !ok {
			f.cfg.Log.Warn("feed lease lost to another follower", "feed", fd.Name)
			h.lost = true
			f.m.drop(fd.Name)
			delete(f.held, fd.Name)
			return nil
		}
		h.rev, h.feed = next, fd
		return nil
	}
	l, rev, err := st.lease(ctx, fd.Name)
	if err != nil {
		return err
	}
	if rev != 0 && l.Holder != f.cfg.Holder {
		f.mu.Lock()
		s, ok := f.seen[fd.Name]
		if !ok || s.rev != rev {
			f.seen[fd.Name] = seenLease{rev: rev, since: now}
		}
		f.mu.Unlock()
		if !ok || s.rev != rev || now.Sub(s.since) < f.cfg.LeaseTTL {
			return nil
		}
	}
	// Taken to its answer as a renewal is, and held, so that a follower
	// stopping now gives it up.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseWait)
	defer cancel()
	next, ok, err := st.claim(cctx, fd.Name, f.cfg.Holder, rev, now)
	if err != nil || !ok {
		return err
	}
	status, _, err := st.Status(cctx, fd.Name, fd.Created)
	if err != nil {
		return err
	}
	if rev != 0 && l.Holder != f.cfg.Holder {
		f.cfg.Log.Info("feed lease taken over", "feed", fd.Name, "from", l.Holder)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.seen, fd.Name)
	f.held[fd.Name] = &held{feed: fd, rev: next, next: status.NextPoll, failing: status.Failures > 0, served: status.PollServed}
	f.m.hold(fd.Name, fd.Every().Seconds(), status, float64(fd.Created.UnixNano())/1e9)
	return nil
}

// outcome is what one poll found.
type outcome struct {
	result  string
	err     error
	fetched validators
	// accepted: a document was written (or found the same as the last
	// one); hash and matches are its.
	accepted bool
	hash     string
	matches  int
	changes  int
	heldBack map[string]int
	rejected int
	// judged: the document's fixtures were decided by the rule of
	// importer.Disagreement, which left disagreements.
	judged        bool
	disagreements []importer.Disagreement
	said          map[int]map[string]string
	// live is a live API feed's state after the poll; every the time
	// until its next poll (0: the feed's schedule); retryAt the time
	// before which the source takes no call (a 429, a budget spent).
	live    *Live
	every   time.Duration
	retryAt time.Time
	// doc is the live API's document written (nil: none).
	doc *importer.Doc
}

// poll fetches a feed, writes what changed, and records the outcome.
func (f *Follower) poll(ctx context.Context, h *held) {
	f.mu.Lock()
	fd, asked := h.feed, h.asked
	f.mu.Unlock()
	start := time.Now()
	st, _, err := f.cfg.State.Status(ctx, fd.Name, fd.Created)
	var out outcome
	if err != nil {
		out = outcome{result: ResultError, err: err}
	} else {
		out = f.follow(ctx, h, fd, st)
	}
	now := time.Now()
	f.m.took.WithLabelValues(out.result).Observe(now.Sub(start).Seconds())
	next, err := f.cfg.State.update(ctx, fd.Name, fd.Created, func(s *Status) {
		f.record(s, fd, out, now)
		s.PollServed = max(s.PollServed, asked)
	})
	if err != nil && ctx.Err() == nil {
		f.cfg.Log.Warn("feed status not written", "feed", fd.Name, "err", err.Error())
	}
	if err != nil {
		// The status is the schedule: without it, poll again after the
		// feed's interval.
		next.NextPoll = now.Add(fd.Every())
	}
	f.report(fd, out, next)
	f.mu.Lock()
	defer f.mu.Unlock()
	h.polling, h.next, h.failing = false, next.NextPoll, next.Failures > 0
	h.served = max(h.served, next.PollServed, asked)
	select {
	case f.wake <- struct{}{}:
	default:
	}
	if !h.lost && !next.LastSuccess.IsZero() {
		f.m.lastSuccess.WithLabelValues(fd.Name).Set(float64(next.LastSuccess.UnixNano()) / 1e9)
		f.m.heldBack.WithLabelValues(fd.Name).Set(float64(heldBack(next)))
		f.m.disagree.WithLabelValues(fd.Name).Set(float64(len(next.Disagreements)))
	}
	if !h.lost {
		f.m.inPlay.WithLabelValues(fd.Name).Set(float64(inPlay(next)))
	}
}

// follow fetches fd conditionally on its status st and writes the
// document unless it is the last one again, does not parse or is suspect.
// A live API's feed is polled by its upstream instead.
func (f *Follower) follow(ctx context.Context, h *held, fd model.Feed, st Status) outcome {
	if up, ok := upstreams[fd.Format]; ok {
		return f.followAPI(ctx, h, fd, st, up)
	}
	var v validators
	// A document that was not written whole (names held back, fixtures
	// rejected) is fetched whole again: an alias added since lets it in.
	if st.clean() {
		v = st.validators()
	}
	got, err := f.fetch.fetch(ctx, fd.URL, v)
	switch {
	case err != nil:
		return outcome{result: ResultError, err: fmt.Errorf("fetch: %w", err)}
	case got.NotModified:
		return outcome{result: ResultNotModified, fetched: v}
	}
	out, _ := f.write(ctx, h, fd, st, got, docName(fd.URL), docFile, time.Time{})
	return out
}

// docKind says how a fetched document is written.
type docKind int

const (
	// docFile is a feed's file: the same bytes again are not parsed, and
	// the shrink guard applies.
	docFile docKind = iota
	// docWhole is a live API's whole season: parsed every time (a match
	// goes live at its kick-off, bytes unchanged), the shrink guard
	// applies.
	docWhole
	// docPart is a live API's matchday or day: parsed every time, no
	// shrink guard, the match count of the last whole season kept.
	docPart
	// docCalendar is one of several seasons a live API's feed reads in
	// turn (football-data.org's competitions): parsed every time, its
	// match count kept, no shrink guard, since the seasons differ.
	docCalendar
)

// write parses a fetched document and writes it unless it is the last
// one again, does not parse or is suspect; now is when a live API's
// matches are read as of (zero for a file). It returns the document
// parsed, nil when it was not.
func (f *Follower) write(ctx context.Context, h *held, fd model.Feed, st Status, got fetched, name string, kind docKind, now time.Time) (outcome, *importer.Doc) {
	format, ok := importer.Formats[fd.Format]
	if !ok || !format.Fetchable() {
		return outcome{result: ResultError, err: fmt.Errorf("format %q: not one this follower reads from a fetched document", fd.Format)}, nil
	}
	sum := sha256.Sum256(got.Body)
	hash := hex.EncodeToString(sum[:])
	if kind == docFile && hash == st.Hash && st.clean() {
		return outcome{result: ResultUnchanged, fetched: got.validators, accepted: true, hash: hash, matches: st.Matches}, nil
	}
	if len(got.Body) == 0 {
		return outcome{result: ResultError, err: errors.New("the source answered an empty document")}, nil
	}
	ed := &editor.Editor{Store: f.cfg.Store, Meta: events.Meta{Editor: f.cfg.Editor, Source: importer.FeedSource(fd.Name)}}
	im := importer.New(ed, nil)
	opts := importer.Options{League: fd.League, Season: fd.Season, HoldUnknownTeams: !fd.CreateTeams, Now: now,
		Feed: fd.Name, Disagreements: st.Disagreements, Said: st.Said}
	doc, err := im.Parse(ctx, format, name, got.Body, opts)
	if err != nil {
		return outcome{result: ResultError, err: fmt.Errorf("refused: %w", err)}, nil
	}
	n := doc.Matches()
	if lost := st.Matches - n; (kind == docFile || kind == docWhole) && st.Matches > 0 && float64(lost) > f.cfg.MaxShrink*float64(st.Matches) {
		return outcome{result: ResultSuspect, err: fmt.Errorf("refused as suspect: %d matches, %d fewer than the %d of the last good document "+
			"(more than %g%% lost); nothing written. If the source really shrank, remove the feed and add it again", n, lost, st.Matches, f.cfg.MaxShrink*100)}, nil
	}
	if kind == docPart {
		n = st.Matches
	}
	f.mu.Lock()
	lost := h.lost
	f.mu.Unlock()
	if lost {
		return outcome{result: ResultError, err: errors.New("the lease went to another follower before the document was written")}, nil
	}
	if err := im.ImportDoc(ctx, doc, opts); err != nil {
		return outcome{result: ResultError, err: fmt.Errorf("write: %w", err), changes: im.Summary.Changes()}, nil
	}
	return summarize(im.Summary, got.validators, hash, n), doc
}

// summarize is the outcome of a document written.
func summarize(s importer.Summary, v validators, hash string, matches int) outcome {
	for _, r := range s.Rejected {
		if r.Line == 0 {
			return outcome{result: ResultError, err: fmt.Errorf("refused: %w", r.Err), changes: s.Changes()}
		}
	}
	out := outcome{result: ResultUnchanged, fetched: v, accepted: true, hash: hash, matches: matches,
		changes: s.Changes(), heldBack: s.HeldBack, rejected: s.Fixtures.Rejected, judged: true, disagreements: s.Disagreements, said: s.Said}
	switch {
	case len(s.HeldBack) > 0:
		out.result = ResultHeldBack
	case out.changes > 0:
		out.result = ResultChanged
	}
	if out.rejected > 0 {
		out.err = fmt.Errorf("%d fixture(s) rejected, the first: %s", out.rejected, s.Rejected[0])
	}
	return out
}

func (s *Status) validators() validators {
	return validators{ETag: s.ETag, LastModified: s.LastModified}
}

// docName is the name a document is parsed under: its URL's path (a
// file's, for a file URL), which names league and season as a file's
// path does.
func docName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Path == "" {
		return rawURL
	}
	return u.Path
}

// record writes a poll's outcome into the feed's status.
func (f *Follower) record(s *Status, fd model.Feed, out outcome, now time.Time) {
	s.Holder, s.LastFetch, s.Result = f.cfg.Holder, now, out.result
	s.Changes += uint64(out.changes)
	failed := out.result == ResultError || out.result == ResultSuspect
	switch {
	case out.result == ResultDeferred:
		// No call was made: neither a success nor a failure, and the
		// stale-feed alert still counts from the last success.
	case failed:
		s.Failures++
		s.LastError, s.ErrorAt = out.err.Error(), now
	default:
		s.Failures = 0
		s.LastSuccess = now
		if out.err != nil {
			s.LastError, s.ErrorAt = out.err.Error(), now
		}
	}
	if out.result != ResultNotModified && out.result != ResultDeferred && !failed {
		s.ETag, s.LastModified = out.fetched.ETag, out.fetched.LastModified
	}
	if out.accepted {
		s.Hash, s.Matches, s.HeldBack, s.Rejected = out.hash, out.matches, out.heldBack, out.rejected
	}
	if out.judged {
		s.Disagreements, s.Said = out.disagreements, out.said
	}
	if out.live != nil {
		s.Live = out.live
	}
	switch {
	case out.every > 0 && s.Failures == 0:
		s.NextPoll = now.Add(out.every)
	case out.every > 0:
		// A live feed backs off from its pace, not from the hours it
		// waits when no match is on.
		s.NextPoll = now.Add(f.wait(out.every, s.Failures))
	default:
		s.NextPoll = now.Add(f.wait(fd.Every(), s.Failures))
	}
	if out.retryAt.After(s.NextPoll) {
		s.NextPoll = out.retryAt
	}
}

// wait is the time until the next poll: the feed's interval, give or
// take a tenth so that feeds added together spread out; after failures,
// twice as long for each in a row, capped at MaxBackoff (or the interval,
// if longer), with half of it random so that followers of many feeds of
// one failing host do not come back together.
func (f *Follower) wait(every time.Duration, failures int) time.Duration {
	if failures == 0 {
		return every - every/10 + mrand.N(every/5+1)
	}
	d := every
	limit := max(f.cfg.MaxBackoff, every)
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + mrand.N(d/2+1)
}

// report counts a poll's outcome and logs it: one line per failure, per
// document held back, and per change.
func (f *Follower) report(fd model.Feed, out outcome, st Status) {
	f.m.fetches.WithLabelValues(fd.Name, out.result).Inc()
	f.m.changes.WithLabelValues(fd.Name).Add(float64(out.changes))
	log := f.cfg.Log.With("feed", fd.Name)
	switch {
	case out.result == ResultSuspect:
		log.Warn("feed refused as suspect", "url", fd.URL, "err", out.err.Error(), "failures", st.Failures, "next_poll", st.NextPoll.Format(time.RFC3339))
	case out.result == ResultError:
		log.Warn("feed poll failed", "url", fd.URL, "err", out.err.Error(), "failures", st.Failures, "next_poll", st.NextPoll.Format(time.RFC3339))
	case out.result == ResultHeldBack:
		names := slices.Sorted(maps.Keys(out.heldBack))
		log.Warn("feed held fixtures back: no team has these names (add a spelling with `ingest team alias`, or add the feed with --create-teams)",
			"names", strings.Join(names, ", "), "fixtures", heldBack(Status{HeldBack: out.heldBack}), "changes", out.changes)
	case out.err != nil:
		log.Warn("feed published with rejections", "err", out.err.Error(), "changes", out.changes)
	case out.changes > 0:
		log.Info("feed published changes", "changes", out.changes)
	}
}
