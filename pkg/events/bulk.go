package events

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// bulkWindow bounds the messages of a Bulk in flight at once.
	bulkWindow = 512
	// maxPause caps one wait for the server to come back.
	maxPause   = time.Second
	ackTimeout = 5 * time.Second
)

// Bulk publishes messages asynchronously with a bounded window; it is the
// one way messages reach the stream. A message whose ack does not come is
// sent again, with the same change id, until it is acknowledged or its
// compare-and-set fails and landed finds the copy sent before, so a server
// restart in the middle loses nothing and doubles nothing. An outage fails
// every message in flight at once: after one wait for the server they are
// all sent again at once, so an outage costs about its own length, not a
// wait per message. A Bulk is not safe for concurrent use, and must not
// hold two messages of one subject at once (the second could not name the
// first's revision).
type Bulk struct {
	s     *Store
	queue []*inflight
	// acks receives the outcome of each send, in the order they come;
	// it has room for the whole window, so that the store's ack handler
	// never waits for the Bulk.
	acks chan *inflight
	// timer times out the oldest send when its ack is late.
	timer *time.Timer
	// resumed is when the last wait for the server ended: a message sent
	// before it failed in the outage already waited for.
	resumed time.Time
	pause   time.Duration
	stats   BulkStats
	// hash and scratch name the messages (msgID), reused from one to
	// the next.
	hash    hash.Hash
	scratch []byte
}

// BulkStats count what a Bulk did.
type BulkStats struct {
	// Sent counts sends, Resent the sends again after a failure, Waits
	// the waits for the server (about one per outage).
	Sent, Resent, Waits int
}

// Stats returns what the bulk did so far.
func (b *Bulk) Stats() BulkStats { return b.stats }

type inflight struct {
	msg       *nats.Msg
	expected  uint64
	sent      time.Time
	firstFail time.Time
	// resent: a conflict may be the message meeting its own first copy,
	// stored before its ack was lost.
	resent bool
	done   func(seq uint64, err error)
	// token names the send in flight to the store's acker; acks is the
	// Bulk's channel its outcome (ackSeq, ackErr) is handed to, and
	// replied says it was received from there.
	token   uint64
	acks    chan *inflight
	ackSeq  uint64
	ackErr  error
	replied bool
}

// Bulk starts a bulk publication.
func (s *Store) Bulk() *Bulk {
	return &Bulk{s: s, hash: sha256.New(), acks: make(chan *inflight, bulkWindow)}
}

// Put queues m. done is called with the outcome of this message (later,
// from Put or Flush): its sequence, or a model.Error with code Conflict
// when the compare-and-set lost, or the server's refusal. Put returns an
// error only when the stream cannot be reached for good: the publication
// must then stop.
func (b *Bulk) Put(ctx context.Context, m Msg, done func(seq uint64, err error)) error {
	for len(b.queue) >= bulkWindow {
		if err := b.settleOldest(ctx); err != nil {
			return err
		}
	}
	return b.send(ctx, &inflight{msg: b.natsMsg(m), expected: m.Expected, done: done, acks: b.acks})
}

// Flush waits until every queued message is done.
func (b *Bulk) Flush(ctx context.Context) error {
	for len(b.queue) > 0 {
		if err := b.settleOldest(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bulk) send(ctx context.Context, f *inflight) error {
	for {
		f.sent = time.Now()
		b.stats.Sent++
		if f.resent {
			b.stats.Resent++
		}
		f.replied = false
		err := b.s.publishAsync(f)
		if err == nil {
			b.queue = append(b.queue, f)
			return nil
		}
		if err := b.failed(ctx, f, err); err != nil {
			b.abandon()
			return err
		}
	}
}

// await waits for the outcome of f's send: its ack, a failure, or a
// timeout when no ack came within ackTimeout.
func (b *Bulk) await(ctx context.Context, f *inflight) error {
	for !f.replied {
		select {
		case g := <-b.acks:
			g.replied = true
			continue
		default:
		}
		wait := time.Until(f.sent.Add(ackTimeout))
		if wait <= 0 && b.s.forget(f) {
			f.ackSeq, f.ackErr = 0, jetstream.ErrAsyncPublishTimeout
			return nil
		}
		// Past the timeout but already settled: its outcome is on the
		// way, so the wait is short.
		wait = max(wait, time.Millisecond)
		if b.timer == nil {
			b.timer = time.NewTimer(wait)
		} else {
			b.timer.Reset(wait)
		}
		select {
		case g := <-b.acks:
			g.replied = true
		case <-b.timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// abandon takes the sends in flight out of the store's acker when the
// publication stops with an error: their acks, if they come, are dropped.
func (b *Bulk) abandon() {
	for _, f := range b.queue {
		b.s.forget(f)
	}
}

func (b *Bulk) settleOldest(ctx context.Context) error {
	f := b.queue[0]
	if err := b.await(ctx, f); err != nil {
		b.abandon()
		return err
	}
	b.queue[0] = nil
	b.queue = b.queue[1:]
	pubErr := f.ackErr
	if pubErr == nil {
		b.pause = 0
		f.done(f.ackSeq, nil)
		return nil
	}
	var apiErr *jetstream.APIError
	switch {
	case IsConflict(pubErr) && !f.resent:
		f.done(0, conflict(f.msg.Subject, f.expected))
		return nil
	case IsConflict(pubErr):
		seq, ok, err := b.s.landed(ctx, f.msg, f.expected)
		if err == nil {
			if ok {
				f.done(seq, nil)
			} else {
				f.done(0, conflict(f.msg.Subject, f.expected))
			}
			return nil
		}
		// A failed check, or errInProcess: ask again after a pause, as
		// after any lost ack; the next answer is the sequence or a
		// conflict that landed settles.
		pubErr = err
	case errors.As(pubErr, &apiErr):
		// The server refused the message itself: sending it again
		// would be refused again.
		f.done(0, fmt.Errorf("publish %s: %w", f.msg.Subject, pubErr))
		return nil
	}
	if err := b.failed(ctx, f, pubErr); err != nil {
		b.abandon()
		return err
	}
	return b.send(ctx, f)
}

// failed counts a failed send of f and, unless f went out before the last
// wait for the server ended (the same outage), waits for the server before
// f is sent again.
func (b *Bulk) failed(ctx context.Context, f *inflight, cause error) error {
	if f.firstFail.IsZero() {
		f.firstFail = time.Now()
	}
	patience := b.s.cfg.Patience
	giveUp := f.firstFail.Add(patience)
	if time.Now().After(giveUp) {
		return fmt.Errorf("publish %s: gave up after %s: %w", f.msg.Subject, patience, cause)
	}
	f.resent = true
	if f.sent.Before(b.resumed) {
		return nil
	}
	b.pause = min(max(2*b.pause, 25*time.Millisecond), maxPause)
	b.stats.Waits++
	err := b.s.awaitServer(ctx, b.pause, giveUp)
	b.resumed = time.Now()
	return err
}

// awaitServer waits for the server before a resend: while the connection
// is down, until it is back (at the latest by giveUp); while it is up (the
// server answering but not ready, or slow), for a pause of d.
func (s *Store) awaitServer(ctx context.Context, d time.Duration, giveUp time.Time) error {
	down := !s.nc.IsConnected()
	until := time.Now().Add(d)
	if down {
		until = giveUp
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(until) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if down && s.nc.IsConnected() {
			return nil
		}
	}
	return nil
}
