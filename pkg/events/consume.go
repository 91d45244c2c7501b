package events

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Event is one message of the stream as a consumer sees it.
type Event struct {
	Kind Kind
	// Key is the subject's tokens after the kind (competition and fixture
	// id for a fixture).
	Key     []string
	Subject string
	Seq     uint64
	Time    time.Time
	Editor  string
	Source  string
	// Data is the message body; Decode reads it. Each message has its
	// own (the NATS client hands every message over in a buffer of its
	// own), so a handler may keep it beyond the call.
	Data []byte
}

// Progress tells a consumer how far it is.
type Progress struct {
	// Ready becomes true once every entity that existed when the
	// consumption started has been delivered; it goes back to false only
	// when the stream is replaced (ErrStreamReplaced), for the replay of
	// the new one.
	Ready bool
	// Pending is the number of messages the server still has for us.
	Pending uint64
	// Seq is the stream sequence of the last event delivered.
	Seq uint64
}

// Handler receives events one at a time, in stream order. An error stops the
// consumption and is returned by Consume.
type Handler func(Event, Progress) error

// Consume delivers the current state of every entity matching filter (the
// last message per subject: start-up cost follows entities, not edits),
// then keeps delivering live changes in stream order until ctx ends. The
// replay and the live phase are one ordered consumer, so nothing falls
// between them. onReady, if not nil, is called once, after the handler has
// seen every entity that existed at the start (at once if there were none),
// and once more after each replay of a replaced stream.
//
// With onRetry set, a consumer lost to the server (a node restarted, a
// stream leader elected elsewhere) is replaced by one that resumes after
// the last event delivered, so a replica rides out a cluster's faults
// instead of stopping: only the handler's errors and ctx end Consume, and
// each interruption is reported to onRetry. Without it (a one-off read
// such as Scan, whose caller decides what to do) an interruption ends
// Consume with its error, but for a consumer merely lost (lostConsumer),
// which is replaced within StreamConfig.Patience.
//
// A stream that was replaced (restored from a backup, or deleted and made
// again) is an interruption too, ErrStreamReplaced: what was delivered
// belongs to a stream that no longer exists, and resuming after its last
// sequence would skip the new stream's messages up to there. onRetry hears
// of it before anything of the new stream is delivered; the consumption
// then starts over as if Consume had just been called, the replay of
// every entity and a new onReady included.
//
// A consumer that stalls (the stream holds a message matching filter
// after the last one delivered, and nothing more has been delivered for
// StreamConfig.StallAfter) is an interruption too, a *StallError: a
// consumer whose node restarted can go on sending heartbeats without ever
// delivering what was published meanwhile, and the client cannot tell.
// With onRetry set, it is replaced by one that resumes after the last
// event delivered, like a lost one.
func (s *Store) Consume(ctx context.Context, filter string, h Handler, onReady func(), onRetry func(error)) error {
	if filter == "" {
		filter = Prefix + ".>"
	}
	c := newConsumption(filter, h, onReady)
	delay, began := retryMin, time.Now()
	for {
		err := s.consume(ctx, c)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case c.handlerErr != nil:
			return c.handlerErr
		case err == nil:
			return nil
		case onRetry == nil && (!lostConsumer(err) || time.Since(began) > s.cfg.Patience):
			return err
		case onRetry != nil:
			onRetry(err)
		}
		if errors.Is(err, ErrStreamReplaced) {
			c = newConsumption(filter, h, onReady)
			delay = retryMin
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, retryMax)
		if c.delivered > 0 {
			delay = retryMin
		}
	}
}

// lostConsumer is whether err is the loss of a consumer that another
// would make good: one that missed its heartbeats, skipped a message or
// was deleted on the server. A caller that reads once (Scan, the
// editor's loads) has it replaced, within the store's patience, as
// jetstream's ordered consumers replaced themselves, rather than being
// failed by a node that was slow to answer.
func lostConsumer(err error) bool {
	return errors.Is(err, jetstream.ErrNoHeartbeat) || errors.Is(err, errSkipped) ||
		errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound)
}

// Pauses between attempts to consume again after losing a consumer.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 5 * time.Second
)

// ErrStreamReplaced is the interruption of a consumption whose stream was
// replaced: deleted, restored from a backup or made again.
var ErrStreamReplaced = errors.New("the stream was replaced (restored from a backup, or deleted)")

// replacedEvery is how often a consumption asks the stream's leader
// whether its stream is still the one it began on: a replaced stream
// need not interrupt the consumer (a consumer made again on the new
// stream resumes after the old one's last sequence), so only asking
// finds it. One stream info request a second per replica.
const replacedEvery = time.Second

// StallError is the interruption of a consumer that stalled: the stream
// held a message for it after the last it delivered, and it delivered
// nothing for longer than the bound.
type StallError struct {
	// Delivered is the stream sequence of the last event delivered, Last
	// that of the last message the stream held for the consumer.
	Delivered, Last uint64
	// After is the bound, StreamConfig.StallAfter.
	After time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("the stream consumer stalled: it delivered up to sequence %d of %d and nothing more for over %s, of the %s a consumer may be behind",
		e.Delivered, e.Last, e.After, StallBound(e.After))
}

// StallBound is the longest a consumption whose stall bound is after
// stays behind its stream (the stream holding a message it has not
// delivered) while the stream has a leader: after, plus a check to notice
// the message and one more by which the bound is found passed (the stream
// is asked every replacedEvery), plus replaceBudget to replace the
// consumer. Behind for that long, Consume has replaced it.
func StallBound(after time.Duration) time.Duration {
	return after + 2*replacedEvery + replaceBudget
}

// replaceBudget bounds the replacement of a consumer that resumes after
// a sequence: each of its requests (the stream's identity, the
// consumer's creation) is bounded by replaceTimeout and tried again until
// the budget is spent; a stream without a leader for longer is
// Consume's to retry.
const (
	replaceBudget  = 2 * time.Second
	replaceTimeout = 500 * time.Millisecond
)

// errSkipped is the interruption of a consumer that skipped a message: a
// consumer sequence that does not follow the one before (messages sent to
// a pull request lost in a reconnection).
var errSkipped = errors.New("the stream consumer skipped a message")

// streamID is what tells one stream from the one that replaced it.
type streamID struct {
	// created is the stream's creation time: a stream keeps it for
	// life, one made again in its place (deleted and created, or
	// restored) has its own. On a cluster it is the same on every node
	// for a stream that was created, not for one that was restored
	// (nats-server 2.15: the nodes' times differ by a tenth of a
	// second), and an election moves the answer from one node to
	// another. So it tells apart only streams without the same restore
	// marker.
	created time.Time
	// restored is the stream's restore marker (RestoredMetadata), which
	// every restore changes, a backup of this same stream's included;
	// it is in the stream's configuration, the same on every node.
	restored string
	// first is the first sequence: it only ever grows on one stream.
	first uint64
}

// consumption is one Consume call's progress across its consumers.
type consumption struct {
	filter  string
	h       Handler
	onReady func()
	// start is the last sequence matching filter when the consumption
	// began, as the stream's leader had it (0 until known, and if the
	// stream had none); known tells. Ready waits for it, not for the
	// consumer to run out of pending messages: the consumer may be served
	// by a follower that has not stored it yet, and runs out early there.
	start uint64
	known bool
	ready bool
	// last is the sequence of the last event delivered; delivered counts
	// the events the current consumer delivered.
	last      uint64
	delivered int
	// cseq is the consumer sequence of the current consumer's last
	// message: the next must follow it (errSkipped).
	cseq       uint64
	handlerErr error
	// seen is last for the stream's watch (watchStream), which reads it
	// while the consumer goes on delivering.
	seen *atomic.Uint64
	// id is the stream the consumption began on, read before its first
	// consumer was made.
	id streamID
}

func newConsumption(filter string, h Handler, onReady func()) *consumption {
	return &consumption{filter: filter, h: h, onReady: onReady, seen: new(atomic.Uint64)}
}

func (c *consumption) markReady() {
	if !c.ready {
		c.ready = true
		if c.onReady != nil {
			c.onReady()
		}
	}
}

// lastResult is the answer to the look-up of the last message matching
// a consumption's filter.
type lastResult struct {
	msg *jetstream.RawStreamMsg
	err error
}

// consume runs one consumer: from the start of the consumption, or after
// the last event delivered.
//
// The consumer is ordered as jetstream's ordered consumers are (in
// memory, on one node, without acknowledgements, each message checked to
// follow the one before), but made here: jetstream's replaces itself after
// a missed heartbeat or a reconnection with a request it waits on for up
// to 10 s, holding the lock its Stop needs, so that a stalled consumer
// could not be interrupted for that long (a replica 10.8 s behind with a
// stall bound of 2 s). Ours ends instead, and Consume replaces it within
// replaceBudget.
func (s *Store) consume(ctx context.Context, c *consumption) error {
	c.delivered, c.cseq = 0, 0
	cfg := jetstream.ConsumerConfig{
		FilterSubject:     c.filter,
		DeliverPolicy:     jetstream.DeliverLastPerSubjectPolicy,
		AckPolicy:         jetstream.AckNonePolicy,
		InactiveThreshold: consumerIdle,
		Replicas:          1,
		MemoryStorage:     true,
	}
	// The first consumer delivers the last message of every subject,
	// which costs the server a pass over them (a third of a second at a
	// million subjects): it has the time of any request, and the store's
	// patience. One that resumes after a sequence is cheap: its requests
	// are tried again within replaceBudget, which bounds a replica's
	// time behind (StallBound).
	timeout, budget := requestTimeout, s.cfg.Patience
	// A consumption that delivered something, or became ready on an empty
	// stream (nothing delivered, last 0), resumes: the first consumer's
	// pass is behind it.
	resume := c.last > 0 || c.ready
	if resume {
		// Everything after the last event delivered: the subjects whose
		// last message came before it have been delivered already.
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, c.last+1
		timeout, budget = replaceTimeout, replaceBudget
	}
	rctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	replaced := func(err error) bool { return errors.Is(err, ErrStreamReplaced) }
	if err := retryWithin(rctx, timeout, budget, func(ctx context.Context) error {
		_, err := s.sameStream(ctx, c)
		return err
	}, replaced); err != nil {
		return fmt.Errorf("consume %s: %w", c.filter, err)
	}
	var lastMsg chan lastResult
	if !c.known {
		// The last message matching filter when we start: once it has
		// been delivered, everything that existed has been. Asked while
		// the consumer is created (the server takes a third of a second
		// for that at a million subjects, the look-up a tenth of it): a
		// message published between the two only makes ready wait for
		// it.
		lastMsg = make(chan lastResult, 1)
		go func() {
			last, err := s.lastMsg(ctx, c.filter)
			lastMsg <- lastResult{last, err}
		}()
	}
	var cons jetstream.Consumer
	consErr := retryWithin(rctx, timeout, budget, func(ctx context.Context) error {
		var err error
		cons, err = s.js.CreateConsumer(ctx, s.cfg.Name, cfg)
		return err
	}, replaced)
	if lastMsg != nil {
		switch r := <-lastMsg; {
		case errors.Is(r.err, jetstream.ErrMsgNotFound):
		case r.err != nil:
			if consErr == nil {
				s.deleteConsumer(cons)
			}
			return fmt.Errorf("consume %s: %w", c.filter, r.err)
		default:
			c.start = r.msg.Sequence
		}
		c.known = true
		if c.start == 0 {
			c.markReady()
		}
	}
	if consErr != nil {
		if resume && !replaced(consErr) {
			if err := s.catchUp(ctx, c); err != nil {
				return err
			}
		}
		return fmt.Errorf("consume %s: %w", c.filter, consErr)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(1024), jetstream.PullHeartbeat(consumerHeartbeat),
		jetstream.WithMessagesErrOnMissingHeartbeat(true))
	if err != nil {
		s.deleteConsumer(cons)
		return fmt.Errorf("consume %s: %w", c.filter, err)
	}
	err = s.deliver(ctx, c, it)
	// A consumer that failed is left to expire (consumerIdle): the node
	// that has it may be the one that is gone, and asking it would hold
	// its replacement up.
	if err == nil || ctx.Err() != nil || c.handlerErr != nil {
		s.deleteConsumer(cons)
	}
	return err
}

// deliver hands the messages of it to c's handler until the consumer
// fails, its stream is found replaced or ctx ends.
func (s *Store) deliver(ctx context.Context, c *consumption, it jetstream.MessagesContext) error {
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	replaced := s.watchStream(ctx, c, it.Stop)
	defer replaced.stop()
	for {
		msg, err := it.Next()
		if err != nil {
			if rerr := replaced.stop(); rerr != nil {
				return fmt.Errorf("consume %s after sequence %d: %w", c.filter, c.last, rerr)
			}
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return ctx.Err()
			}
			return fmt.Errorf("consume %s after sequence %d: %w", c.filter, c.last, err)
		}
		seq, cseq, pending, at, ok := ackInfo(msg.Reply())
		if !ok {
			md, err := msg.Metadata()
			if err != nil {
				return fmt.Errorf("consume %s: %w", c.filter, err)
			}
			seq, cseq, pending, at = md.Sequence.Stream, md.Sequence.Consumer, md.NumPending, md.Timestamp
		}
		if cseq != c.cseq+1 {
			return fmt.Errorf("consume %s after sequence %d: %w (consumer sequence %d after %d)", c.filter, c.last, errSkipped, cseq, c.cseq)
		}
		c.cseq = cseq
		if seq <= c.last {
			continue
		}
		kind, key, _ := KeyOf(msg.Subject())
		hdr := msg.Headers()
		ev := Event{Kind: kind, Key: key, Subject: msg.Subject(), Seq: seq, Time: at,
			Editor: hdr.Get(HeaderEditor), Source: hdr.Get(HeaderSource), Data: msg.Data()}
		if err := c.deliver(ev, pending); err != nil {
			return err
		}
	}
}

// deliver hands one event to the handler, pending more after it, and
// records it delivered.
func (c *consumption) deliver(ev Event, pending uint64) error {
	nowReady := c.ready || ev.Seq >= c.start
	if err := c.h(ev, Progress{Ready: nowReady, Pending: pending, Seq: ev.Seq}); err != nil {
		c.handlerErr = err
		return err
	}
	c.last = ev.Seq
	c.seen.Store(ev.Seq)
	c.delivered++
	if nowReady {
		c.markReady()
	}
	return nil
}

// catchUp delivers what the stream holds after the last event delivered,
// read from the stream's leader one message at a time, until it has read
// everything, a read fails or replaceBudget is spent. It stands in for a
// consumer that cannot be made: a cluster makes consumers through its
// meta leader, elected anew for seconds after that leader's node
// restarts, while the stream's own leader goes on taking edits and
// answering reads (a replica stayed 6 s behind, failing to make one).
func (s *Store) catchUp(ctx context.Context, c *consumption) error {
	giveUp := time.Now().Add(replaceBudget)
	for time.Now().Before(giveUp) {
		rctx, cancel := context.WithTimeout(ctx, replaceTimeout)
		m, err := s.nextMsg(rctx, c.filter, c.last+1)
		cancel()
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return nil
		case err != nil:
			return fmt.Errorf("catch up on %s after sequence %d: %w", c.filter, c.last, err)
		}
		kind, key, _ := KeyOf(m.Subject)
		ev := Event{Kind: kind, Key: key, Subject: m.Subject, Seq: m.Sequence, Time: m.Time,
			Editor: m.Header.Get(HeaderEditor), Source: m.Header.Get(HeaderSource), Data: m.Data}
		if err := c.deliver(ev, 0); err != nil {
			return err
		}
	}
	return nil
}

// sameStream reads the stream's identity from its leader: the first time,
// it becomes the consumption's; afterwards a stream that is gone, or that
// differs from it (created at another time, restored since, or with its
// first or last sequence behind what the consumption saw), is
// ErrStreamReplaced. Other errors (a leader being elected) are returned
// as they are, for the caller to try again. It returns the stream's last
// sequence, for the stall check.
func (s *Store) sameStream(ctx context.Context, c *consumption) (uint64, error) {
	ictx, cancel := context.WithTimeout(ctx, requestTimeout)
	info, err := s.stream.Info(ictx)
	cancel()
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound) && c.known:
		return 0, fmt.Errorf("%w: it is gone", ErrStreamReplaced)
	case err != nil:
		return 0, fmt.Errorf("stream info: %w", err)
	}
	last := info.State.LastSeq
	id := streamID{created: info.Created, restored: info.Config.Metadata[RestoredMetadata], first: info.State.FirstSeq}
	if !c.known {
		c.id = id
		return last, nil
	}
	// The same restore marker is the same stream whatever the creation
	// times say: a restored stream's is the answering node's (streamID).
	sameRestore := id.restored != "" && id.restored == c.id.restored
	switch {
	case id.restored != "" && id.restored != c.id.restored:
		return 0, fmt.Errorf("%w: restored %s", ErrStreamReplaced, id.restored)
	case !sameRestore && !id.created.Equal(c.id.created):
		return 0, fmt.Errorf("%w: created %s, not %s", ErrStreamReplaced, id.created.UTC().Format(time.RFC3339Nano), c.id.created.UTC().Format(time.RFC3339Nano))
	case id.first < c.id.first || last < c.last:
		return 0, fmt.Errorf("%w: its sequences %d-%d went back from %d-%d", ErrStreamReplaced, id.first, last, c.id.first, c.last)
	}
	return last, nil
}

// behind returns the sequence of the last message matching c's filter if
// it comes after the last event delivered, 0 otherwise; ok is false when
// the look-up (bounded by ctx) failed, which tells nothing. streamLast, the
// stream's last sequence, spares the look-up while nothing is newer; the
// look-up then finds the last message that exists, so that a deleted or
// purged one, which no consumer delivers, is not waited for.
func (s *Store) behind(ctx context.Context, c *consumption, streamLast uint64) (last uint64, ok bool) {
	delivered := c.seen.Load()
	if streamLast <= delivered {
		return 0, true
	}
	msg, err := s.lastMsg(ctx, c.filter)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, true
	case err != nil:
		return 0, false
	case msg.Sequence <= delivered:
		return 0, true
	}
	return msg.Sequence, true
}

// streamWatch is a consumer's watch over its stream (watchStream).
type streamWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// watchStream asks every replacedEvery whether c's stream was replaced
// (sameStream) or its consumer stalled (stalled) and, once either is
// found, calls interrupt. The watch ends with stop, which returns
// ErrStreamReplaced or the *StallError if it found one, nil otherwise;
// the consumer calls it before it returns, so the watch never outlives it.
func (s *Store) watchStream(ctx context.Context, c *consumption, interrupt func()) *streamWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &streamWatch{cancel: cancel, done: make(chan struct{})}
	// A copy: the consumer goes on changing c.last meanwhile; the watch
	// compares with the last sequence delivered when it began, which is
	// as good a lower bound.
	at := *c
	go func() {
		defer close(w.done)
		tick := time.NewTicker(replacedEvery)
		defer tick.Stop()
		var stall stallClock
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if w.err = s.checkStream(ctx, c, &at, &stall); w.err != nil {
				interrupt()
				return
			}
		}
	}()
	return w
}

// checkStream asks whether c's stream was replaced (as it was when at
// was taken) or its consumer stalled, and returns the error that says
// so, if either. The asks share a tick: a leader being elected must not
// hold up the next one for longer, which would stretch the stall bound.
func (s *Store) checkStream(ctx context.Context, c, at *consumption, stall *stallClock) error {
	ctx, cancel := context.WithTimeout(ctx, replacedEvery)
	defer cancel()
	last, err := s.sameStream(ctx, at)
	switch {
	case errors.Is(err, ErrStreamReplaced):
		return err
	case err != nil:
		// A leader being elected: the stall clock goes on, neither
		// reset nor checked, until the stream answers again.
		return nil
	}
	behind, ok := s.behind(ctx, c, last)
	if !ok {
		return nil
	}
	return stall.check(behind, c.seen.Load(), s.cfg.StallAfter, time.Now())
}

// stallClock times how long a consumer has been behind without
// delivering anything.
type stallClock struct {
	since     time.Time
	delivered uint64
}

// check is told, at now, the last message the consumer is behind (0:
// none) and the last it delivered; it returns a *StallError once the
// consumer has been behind for longer than after with no delivery in
// between.
func (k *stallClock) check(behind, delivered uint64, after time.Duration, now time.Time) error {
	switch {
	case behind == 0:
		k.since = time.Time{}
	case k.since.IsZero() || delivered != k.delivered:
		k.since, k.delivered = now, delivered
	case now.Sub(k.since) > after:
		return &StallError{Delivered: delivered, Last: behind, After: after}
	}
	return nil
}

// stop ends the watch and says whether it found the stream replaced.
func (w *streamWatch) stop() error {
	w.cancel()
	<-w.done
	return w.err
}

// ackInfo reads a message's stream and consumer sequences, pending count and time from
// its reply subject, $JS.ACK.<stream>.<consumer>.<delivered>.<stream
// seq>.<consumer seq>.<time>.<pending>, or the same with a domain and an
// account hash before the stream and a token after pending, where
// jetstream's Metadata reads them, without the metadata it builds (an
// allocation and a dozen cuts a message: 4 % of a replay's CPU at 1M). ok
// is false for anything else, a number that is not plain digits included:
// the caller then asks Metadata, so that this is a shortcut, never a
// second reading of the format.
func ackInfo(reply string) (seq, cseq, pending uint64, at time.Time, ok bool) {
	rest, found := strings.CutPrefix(reply, "$JS.ACK.")
	if !found {
		return 0, 0, 0, time.Time{}, false
	}
	var tok [10]string
	n := 0
	for more := true; more; n++ {
		if n == len(tok) {
			return 0, 0, 0, time.Time{}, false
		}
		tok[n], rest, more = strings.Cut(rest, ".")
	}
	// Where the stream sequence is; the consumer's, time and pending
	// follow at +1, +2, +3.
	var at0 int
	switch n {
	case 7:
		at0 = 3
	case 9, 10:
		at0 = 5
	default:
		return 0, 0, 0, time.Time{}, false
	}
	seq, ok1 := digits(tok[at0])
	cseq, ok2 := digits(tok[at0+1])
	ts, ok3 := digits(tok[at0+2])
	pending, ok4 := digits(tok[at0+3])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, 0, 0, time.Time{}, false
	}
	return seq, cseq, pending, time.Unix(0, int64(ts)), true
}

// digits reads a decimal number of at most 19 digits, which cannot
// overflow.
func digits(s string) (uint64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// Scan reads the current state of every entity matching filter and returns
// once it has seen them all: the writer's way to load what exists.
func (s *Store) Scan(ctx context.Context, filter string, fn func(Event) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := s.Consume(ctx, filter, func(ev Event, p Progress) error {
		return fn(ev)
	}, cancel, nil)
	// Consume ends with Canceled when Scan cancels it, having seen
	// everything; a caller's context that ended first is that context's
	// error, never a complete scan (a follower stopping read an empty
	// list of feeds as complete and gave up its leases).
	if parent.Err() != nil {
		return fmt.Errorf("scan %s: %w", filter, parent.Err())
	}
	if errors.Is(err, context.Canceled) && context.Cause(ctx) == context.Canceled {
		return nil
	}
	return err
}

// History returns every stored revision of subject, oldest first.
func (s *Store) History(ctx context.Context, subject string) ([]Revision, error) {
	last, err := s.Get(ctx, subject)
	if err != nil {
		return nil, err
	}
	cons, err := s.js.OrderedConsumer(ctx, s.cfg.Name, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{subject},
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		InactiveThreshold: consumerIdle,
	})
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", subject, err)
	}
	defer s.deleteConsumer(cons)
	// One iterator over the consumer: each Next or Fetch of an ordered
	// consumer would replace it with a new one and delete the old one in
	// the background, after History returned.
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", subject, err)
	}
	defer it.Stop()
	var revs []Revision
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", subject, err)
		}
		md, err := msg.Metadata()
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", subject, err)
		}
		h := msg.Headers()
		revs = append(revs, Revision{Subject: subject, Seq: md.Sequence.Stream, Time: md.Timestamp,
			Editor: h.Get(HeaderEditor), Source: h.Get(HeaderSource), Data: msg.Data()})
		if md.Sequence.Stream >= last.Seq {
			return revs, nil
		}
	}
}

// consumerIdle is how long the server keeps a consumer nobody pulls from:
// short, so that a reader that died leaves nothing behind for long (the
// server caps consumers per stream).
const consumerIdle = 30 * time.Second

// consumerHeartbeat is how often an idle consumer's server says it is
// there; two missed, the client replaces the consumer. A consumer lives on
// one node: with the client's default of 5 s, a replica whose consumer's
// node restarted went 10 s without applying anything.
const consumerHeartbeat = time.Second

// deleteConsumer removes a consumer we are done with at once, rather than
// leaving it to expire: an importer scanning per competition would
// otherwise pile up hundreds of idle consumers.
func (s *Store) deleteConsumer(cons jetstream.Consumer) {
	info := cons.CachedInfo()
	if info == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.js.DeleteConsumer(ctx, s.cfg.Name, info.Name) // best effort: it expires anyway
}
