package events

import (
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
	// Replicas: 1 for a single server, 3 for a production cluster. 0
	// keeps what the stream has (1 when creating it), so that a writer
	// started with defaults never scales a production stream down.
	Replicas int
	// DuplicateWindow is how long the server remembers a message id
	// (default 2 minutes). The writes of a Bulk carry none (see
	// headerChange), so it costs nothing; it stays so that Open does not
	// change the configuration of existing streams.
	DuplicateWindow time.Duration
	// Memory keeps the stream in memory instead of files (benchmarks only).
	Memory bool
	// Patience bounds how long one message of a Bulk may go on failing
	// (server restarting, leader moving) before the publication gives up
	// (default a minute). It is the store's, not the stream's: Open
	// changes nothing of the stream for it.
	Patience time.Duration
}

func (c *StreamConfig) setDefaults() {
	if c.Name == "" {
		c.Name = "FOOTBALL"
	}
	if c.History == 0 {
		c.History = 64
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = 2 * time.Minute
	}
	if c.Patience == 0 {
		c.Patience = time.Minute
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

// Open creates the stream, or updates it to cfg, and returns a Store on it.
// It is idempotent: every writer and reader calls it at start. A stream
// that already has cfg is left alone, so that a reader whose NATS user may
// not manage the stream (an API replica, deploy/nats) opens it too.
func Open(ctx context.Context, nc *nats.Conn, cfg StreamConfig) (*Store, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	existing, lookupErr := js.Stream(ctx, cfg.Name)
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
		if lookupErr == nil {
			cfg.Replicas = existing.CachedInfo().Config.Replicas
		}
	}
	want := cfg.jetstream()
	if lookupErr == nil && sameStreamConfig(existing.CachedInfo().Config, want) {
		return &Store{nc: nc, js: js, stream: existing, cfg: cfg}, nil
	}
	stream, err := js.CreateOrUpdateStream(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("create or update stream %s: %w", cfg.Name, err)
	}
	return &Store{nc: nc, js: js, stream: stream, cfg: cfg}, nil
}

// sameStreamConfig reports whether the stream has every setting Open asks
// for (the server fills in the ones Open leaves at their defaults).
func sameStreamConfig(have, want jetstream.StreamConfig) bool {
	return slices.Equal(have.Subjects, want.Subjects) && have.Description == want.Description &&
		have.Retention == want.Retention && have.MaxMsgsPerSubject == want.MaxMsgsPerSubject &&
		have.Discard == want.Discard && have.Storage == want.Storage && have.Replicas == want.Replicas &&
		have.Duplicates == want.Duplicates && have.AllowDirect == want.AllowDirect
}

// Connect dials url and opens the store. The connection retries for ever
// on its own after a server restart; Close closes it. name is the client's
// (cmd/api connects as "api", cmd/ingest as "ingest"): replies to its
// requests come back on InboxPrefix(name), so that a NATS user allowed to
// subscribe to its own replies only (deploy/nats/auth.conf) cannot read
// another client's (an editor the webhook deliveries a replica pulls).
func Connect(ctx context.Context, url, name string, cfg StreamConfig) (*Store, error) {
	inbox, err := InboxPrefix(name)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(url, nats.Name(name), nats.CustomInboxPrefix(inbox), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", Redacted(url), err)
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

// requestAttempts bounds the tries of a read that is safe to repeat.
const requestAttempts = 5

// retry runs a request that is safe to repeat, each try bounded by
// requestTimeout, until it succeeds, fails for good (done reports which),
// or the attempts or ctx run out.
func retry(ctx context.Context, try func(ctx context.Context) error, done func(error) bool) error {
	var err error
	for attempt := range requestAttempts {
		tctx, cancel := context.WithTimeout(ctx, requestTimeout)
		err = try(tctx)
		cancel()
		if err == nil || done(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
	}
	return err
}

// Get returns the current revision of subject, as the stream's leader has
// it, or an error with code model.NotFound.
func (s *Store) Get(ctx context.Context, subject string) (Revision, error) {
	var m *jetstream.RawStreamMsg
	err := retry(ctx, func(ctx context.Context) error {
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
// (docs/performance.md, "The write path reads from the leader").
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
