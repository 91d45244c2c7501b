package events

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StreamConfig is the one place that says how the stream is kept.
type StreamConfig struct {
	// Name of the stream (default FOOTBALL).
	Name string
	// History is how many revisions of each entity are kept: the audit
	// trail of edits (default 64).
	History int64
	// Replicas: 1 for a single server, 3 for a production cluster. It is
	// Provision's: 0 keeps what the stream has (1 when creating it); Open
	// sets it to what the stream has.
	Replicas int
	// DuplicateWindow is how long the server remembers a message id
	// (default 2 minutes). The writes of a Bulk carry none (see
	// headerChange), so it costs nothing; it stays so that Provision
	// (`ingest stream init`) does not change existing streams.
	DuplicateWindow time.Duration
	// Memory keeps the stream in memory instead of files (benchmarks only).
	Memory bool
	// Patience bounds how long a read, or one message of a Bulk, may go
	// on failing (server restarting, leader moving) before the store gives
	// up (default a minute). It is the store's, not the stream's.
	Patience time.Duration
	// StallAfter is how long a consumer may go without delivering a
	// message the stream holds for it before Consume replaces it
	// (default 5 s, at least MinStallAfter). It is the store's, not the
	// stream's.
	StallAfter time.Duration
}

// MinStallAfter is the shortest StallAfter: the stream is asked once a
// second, and a bound shorter than two of those asks would replace
// consumers that are only slow.
const MinStallAfter = 2 * replacedEvery

// DefaultPatience and DefaultStallAfter are StreamConfig's defaults,
// which the commands' --patience and --stall-after share.
const (
	DefaultPatience   = time.Minute
	DefaultStallAfter = 5 * time.Second
)

// DefaultStream is the stream's name unless configured otherwise.
const DefaultStream = "FOOTBALL"

// RestoredMetadata is the key of the stream's metadata that `ingest
// restore` sets to the time of the restore. A replica that follows the
// stream replays it when the value changes (Consume): a restore replaces
// every message, and its sequences need not go back for it to have.
const RestoredMetadata = "footballd.restored"

func (c *StreamConfig) setDefaults() {
	if c.Name == "" {
		c.Name = DefaultStream
	}
	if c.History == 0 {
		c.History = 64
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = 2 * time.Minute
	}
	if c.Patience == 0 {
		c.Patience = DefaultPatience
	}
	if c.StallAfter == 0 {
		c.StallAfter = DefaultStallAfter
	}
}

// Validate checks the configuration.
func (c *StreamConfig) Validate() error {
	switch {
	case c.History < 1:
		return fmt.Errorf("stream history %d: must be at least 1", c.History)
	case c.Replicas != 0 && c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5:
		return fmt.Errorf("stream replicas %d: must be 1, 3 or 5", c.Replicas)
	case c.DuplicateWindow < time.Second:
		return fmt.Errorf("stream duplicate window %s: must be at least 1s", c.DuplicateWindow)
	case c.Patience < 0:
		return fmt.Errorf("publication patience %s: must not be negative", c.Patience)
	case c.StallAfter < MinStallAfter:
		return fmt.Errorf("stall bound %s: must be at least %s", c.StallAfter, MinStallAfter)
	}
	return nil
}

func (c *StreamConfig) jetstream() jetstream.StreamConfig {
	storage := jetstream.FileStorage
	if c.Memory {
		storage = jetstream.MemoryStorage
	}
	return jetstream.StreamConfig{
		Name:              c.Name,
		Description:       "football data: one subject per entity, each message its full state",
		Subjects:          []string{Prefix + ".>"},
		Retention:         jetstream.LimitsPolicy,
		MaxMsgsPerSubject: c.History,
		Discard:           jetstream.DiscardOld,
		Storage:           storage,
		Replicas:          c.Replicas,
		Duplicates:        c.DuplicateWindow,
		// Direct gets let any replica answer reads of a message. This
		// service's own reads ask the leader (Store.lastMsg says why); the
		// setting stays for operators' tools, and because a replica of an
		// earlier release compares the stream's settings with its own at
		// start (Open), so changing it would stop a rolling upgrade.
		AllowDirect: true,
	}
}

// Store is a connection to the event stream.
type Store struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	cfg    StreamConfig
	// counters are the id counters as this store last wrote them: a
	// writer is usually the only one moving them, so its next
	// reservation is a compare-and-set without reading first (one round
	// trip, not two).
	countersMu sync.Mutex
	counters   map[Kind]counterRev
	// acks takes the acks of the store's publications (Bulk).
	acks acker
}

// ErrNotProvisioned is the error of a stream or bucket the service needs
// that does not exist yet. Only `ingest stream init`, run by an operator
// as a NATS user allowed to manage streams, creates them (Provision);
// every other process finds them as they are, so that no replica or
// editor ever needs the right to change them, and none scales a
// production stream down by starting with other settings.
var ErrNotProvisioned = errors.New("not set up: an operator runs `ingest stream init` as the NATS user admin (with --replicas 3 on a three-node cluster)")

// Open returns a Store on the stream cfg names, as it is: it changes
// nothing of it. A missing stream is ErrNotProvisioned. The lookup is
// retried within cfg.Patience, so that an editor started during a leader
// election waits for it instead of failing.
func Open(ctx context.Context, nc *nats.Conn, cfg StreamConfig) (*Store, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	s := &Store{nc: nc, js: js, cfg: cfg}
	err = s.retry(ctx, func(ctx context.Context) error {
		var err error
		s.stream, err = js.Stream(ctx, cfg.Name)
		return err
	}, func(err error) bool { return errors.Is(err, jetstream.ErrStreamNotFound) })
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return nil, fmt.Errorf("stream %s: %w", cfg.Name, ErrNotProvisioned)
	case err != nil:
		return nil, fmt.Errorf("stream %s: %w", cfg.Name, Explain(nc, err))
	}
	s.cfg.Replicas = s.stream.CachedInfo().Config.Replicas
	return s, nil
}

// Provision creates the stream cfg describes, or updates it to cfg: the
// one way the stream is made or changed (`ingest stream init`, and the
// single-machine mode of cmd/api, which runs its own server). cfg.Replicas
// 0 keeps what the stream has (1 when creating it). It reports the
// replicas the stream had before (0: it did not exist).
func Provision(ctx context.Context, nc *nats.Conn, cfg StreamConfig) (before int, err error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return 0, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, fmt.Errorf("jetstream: %w", err)
	}
	existing, lookupErr := js.Stream(ctx, cfg.Name)
	switch {
	case lookupErr == nil && existing.CachedInfo().Config.Mirror != nil:
		// A region's copy of the home stream (deploy/README.md, "Several
		// regions"). Updating it to cfg would make the server promote it
		// to a stream of its own, which then stops following home while
		// the region's replicas go on serving it.
		return 0, fmt.Errorf("stream %s here is a mirror of %s, a region's copy: stream init sets up the home cluster only; point it there", cfg.Name, existing.CachedInfo().Config.Mirror.Name)
	case lookupErr == nil:
		before = existing.CachedInfo().Config.Replicas
	case !errors.Is(lookupErr, jetstream.ErrStreamNotFound):
		return 0, fmt.Errorf("stream %s: %w", cfg.Name, Explain(nc, lookupErr))
	}
	cfg.Replicas = cmp.Or(cfg.Replicas, before, 1)
	want := cfg.jetstream()
	if lookupErr == nil && sameStreamConfig(existing.CachedInfo().Config, want) {
		return before, nil
	}
	if _, err := js.CreateOrUpdateStream(ctx, want); err != nil {
		return before, fmt.Errorf("create or update stream %s: %w", cfg.Name, Explain(nc, err))
	}
	return before, nil
}

// sameStreamConfig reports whether the stream has every setting Provision
// asks for (the server fills in the ones it leaves at their defaults).
func sameStreamConfig(have, want jetstream.StreamConfig) bool {
	return slices.Equal(have.Subjects, want.Subjects) && have.Description == want.Description &&
		have.Retention == want.Retention && have.MaxMsgsPerSubject == want.MaxMsgsPerSubject &&
		have.Discard == want.Discard && have.Storage == want.Storage && have.Replicas == want.Replicas &&
		have.Duplicates == want.Duplicates && have.AllowDirect == want.AllowDirect
}

// Connect dials NATS as d says and opens the store on the stream.
func Connect(ctx context.Context, d Dial, cfg StreamConfig) (*Store, error) {
	nc, err := d.Conn()
	if err != nil {
		return nil, err
	}
	s, err := Open(ctx, nc, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

// InboxPrefix is the prefix of the subjects replies to the client name
// come back on: "_INBOX_" and the name, which must be one subject token.
func InboxPrefix(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, ".*> \t\r\n") {
		return "", fmt.Errorf("client name %q: want one NATS subject token (no dots, wildcards or spaces), it names the client's inbox", name)
	}
	return "_INBOX_" + name, nil
}

// Redacted returns urls, NATS server URLs separated by commas, with their
// passwords masked: the form for logs and error messages.
func Redacted(urls string) string {
	parts := strings.Split(urls, ",")
	for i, one := range parts {
		u, err := neturl.Parse(strings.TrimSpace(one))
		if err != nil {
			parts[i] = "(invalid URL)"
			continue
		}
		parts[i] = u.Redacted()
	}
	return strings.Join(parts, ",")
}

// Close closes the store's connection.
func (s *Store) Close() { s.nc.Close() }

// Conn returns the store's NATS connection.
func (s *Store) Conn() *nats.Conn { return s.nc }

// LastSeq returns the stream's last sequence.
func (s *Store) LastSeq(ctx context.Context) (uint64, error) {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("stream info: %w", err)
	}
	return info.State.LastSeq, nil
}

// Revision is one stored state of an entity.
type Revision struct {
	Subject string
	Seq     uint64
	Time    time.Time
	Editor  string
	Source  string
	Data    []byte
}

// Message headers.
const (
	HeaderEditor = "Fd-Editor"
	HeaderSource = "Fd-Source"
)

// requestTimeout bounds one request to the server. A reply lost while the
// server restarts would otherwise hold the caller until its own deadline;
// with it the request fails in time to be tried again.
const requestTimeout = 5 * time.Second

// retry runs a request that is safe to repeat, each try bounded by
// requestTimeout, until it succeeds, fails for good (done reports which),
// or the store's patience or ctx runs out: a leader election on a cluster
// takes seconds, and a read that gave up during one would fail an edit
// that waiting would have let through.
func (s *Store) retry(ctx context.Context, try func(ctx context.Context) error, done func(error) bool) error {
	return retryWithin(ctx, requestTimeout, s.cfg.Patience, try, done)
}

// retryWithin is retry with each try bounded by timeout, tried again
// until budget is spent.
func retryWithin(ctx context.Context, timeout, budget time.Duration, try func(ctx context.Context) error, done func(error) bool) error {
	giveUp := time.Now().Add(budget)
	var err error
	for attempt := 1; ; attempt++ {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		err = try(tctx)
		cancel()
		if err == nil || done(err) || ctx.Err() != nil || time.Now().After(giveUp) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(time.Duration(attempt)*100*time.Millisecond, time.Second)):
		}
	}
}

// Get returns the current revision of subject, as the stream's leader has
// it, or an error with code model.NotFound.
func (s *Store) Get(ctx context.Context, subject string) (Revision, error) {
	var m *jetstream.RawStreamMsg
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		m, err = s.lastMsg(ctx, subject)
		return err
	}, func(err error) bool { return errors.Is(err, jetstream.ErrMsgNotFound) })
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Revision{}, notFound(subject)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("get %s: %w", subject, err)
	}
	return Revision{Subject: m.Subject, Seq: m.Sequence, Time: m.Time, Data: m.Data,
		Editor: m.Header.Get(HeaderEditor), Source: m.Header.Get(HeaderSource)}, nil
}

// lastMsg reads the last message of subject (wildcards allowed) from the
// stream's leader, or fails with jetstream.ErrMsgNotFound.
//
// Not with jetstream's GetLastMsgForSubject: on a stream that allows direct
// gets it sends one, which any replica may answer, a follower that lags
// included (NATS promises no read-after-write for them). Every read a
// decision rests on comes here: a write that read a stale state equal to
// the one it wants would report "unchanged" and skip itself, an update
// lost; a replica or a scan would call itself ready before it had seen
// everything. The leader answers in JSON with the message in base64; an
// import's CPU per fixture did not change measurably with it
// (docs/archive/performance-rounds.md, "The write path reads from the leader").
func (s *Store) lastMsg(ctx context.Context, subject string) (*jetstream.RawStreamMsg, error) {
	return s.leaderMsg(ctx, subject, msgGetRequest{LastFor: subject})
}

// nextMsg reads the first message of subject at or after sequence seq
// from the stream's leader, or fails with jetstream.ErrMsgNotFound.
func (s *Store) nextMsg(ctx context.Context, subject string, seq uint64) (*jetstream.RawStreamMsg, error) {
	return s.leaderMsg(ctx, subject, msgGetRequest{NextFor: subject, Seq: seq})
}

// leaderMsg sends the message get req, of subject, to the stream's leader.
func (s *Store) leaderMsg(ctx context.Context, subject string, req msgGetRequest) (*jetstream.RawStreamMsg, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", subject, err)
	}
	reply, err := s.nc.RequestWithContext(ctx, jetstream.DefaultAPIPrefix+"STREAM.MSG.GET."+s.cfg.Name, body)
	if err != nil {
		return nil, err
	}
	var resp msgGetResponse
	if err := json.Unmarshal(reply.Data, &resp); err != nil {
		return nil, fmt.Errorf("get %s: reply %q: %w", subject, reply.Data, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrMsgNotFound
	case resp.Error != nil:
		return nil, resp.Error
	case resp.Message == nil:
		return nil, fmt.Errorf("get %s: reply %q: %w", subject, reply.Data, jetstream.ErrInvalidJetStreamResponse)
	}
	m := resp.Message
	var hdr nats.Header
	if len(m.Header) > 0 {
		if hdr, err = nats.DecodeHeadersMsg(m.Header); err != nil {
			return nil, fmt.Errorf("get %s: headers: %w", subject, err)
		}
	}
	return &jetstream.RawStreamMsg{Subject: m.Subject, Sequence: m.Sequence, Header: hdr, Data: m.Data, Time: m.Time}, nil
}

// msgGetRequest and msgGetResponse are the JetStream API's message get, as
// far as lastMsg and nextMsg use it.
type msgGetRequest struct {
	LastFor string `json:"last_by_subj,omitempty"`
	NextFor string `json:"next_by_subj,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
}

type msgGetResponse struct {
	Error   *jetstream.APIError `json:"error"`
	Message *struct {
		Subject  string    `json:"subject"`
		Sequence uint64    `json:"seq"`
		Header   []byte    `json:"hdrs"`
		Data     []byte    `json:"data"`
		Time     time.Time `json:"time"`
	} `json:"message"`
}

// Load returns the current state of subject and its revision.
func Load[T any](ctx context.Context, s *Store, subject string) (T, Revision, error) {
	rev, err := s.Get(ctx, subject)
	if err != nil {
		var zero T
		return zero, rev, err
	}
	v, err := Decode[T](rev.Data)
	return v, rev, err
}
