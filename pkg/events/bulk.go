package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// bulkWindow bounds the writes of a Bulk in flight at once.
	bulkWindow = 512
	// bulkAttempts bounds the sends of one message whose ack never came
	// (server restarting, leader moving); about half a minute in all.
	bulkAttempts = 30
	bulkBackoff  = time.Second
	ackTimeout   = 5 * time.Second
)

// Bulk publishes many writes asynchronously with a bounded window. A message
// whose ack does not come is sent again with the same message id until it is
// acknowledged, so a server restart in the middle loses nothing and doubles
// nothing. A Bulk is not safe for concurrent use, and must not hold two
// writes of one subject (the second could not name the first's revision).
type Bulk struct {
	s     *Store
	queue []*inflight
}

type inflight struct {
	msg      *nats.Msg
	expected uint64
	attempt  int
	fut      jetstream.PubAckFuture
	done     func(Result, error)
}

// Bulk starts a bulk publication.
func (s *Store) Bulk() *Bulk { return &Bulk{s: s} }

// Put queues w. done is called with the outcome of this write (possibly
// later, from Put or Flush); a write that changes nothing is done at once.
// Put returns an error only when the stream cannot be reached at all: the
// publication must then stop. Refused writes (conflicts) go to done.
func (b *Bulk) Put(ctx context.Context, w Write, done func(Result, error)) error {
	subject, body, expected, changed, err := prepare(w)
	if err != nil {
		done(Result{}, err)
		return nil
	}
	if !changed {
		done(Result{Subject: subject, Seq: expected}, nil)
		return nil
	}
	for len(b.queue) >= bulkWindow {
		if err := b.settleOldest(ctx); err != nil {
			return err
		}
	}
	return b.send(ctx, &inflight{msg: newMsg(subject, body, expected, w.Meta), expected: expected, done: done})
}

// Flush waits until every queued write is done.
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
		fut, err := b.s.js.PublishMsgAsync(f.msg)
		if err == nil {
			f.fut = fut
			b.queue = append(b.queue, f)
			return nil
		}
		if err := b.retryLater(ctx, f, err); err != nil {
			return err
		}
	}
}

// retryLater counts a failed attempt and waits before the next one.
func (b *Bulk) retryLater(ctx context.Context, f *inflight, cause error) error {
	f.attempt++
	if f.attempt >= bulkAttempts {
		return fmt.Errorf("publish %s: gave up after %d attempts: %w", f.msg.Subject, f.attempt, cause)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(bulkBackoff):
		return nil
	}
}

func (b *Bulk) settleOldest(ctx context.Context) error {
	f := b.queue[0]
	b.queue[0] = nil
	b.queue = b.queue[1:]
	var pubErr error
	select {
	case ack := <-f.fut.Ok():
		f.done(Result{Subject: f.msg.Subject, Seq: ack.Sequence, Changed: true}, nil)
		return nil
	case pubErr = <-f.fut.Err():
	case <-ctx.Done():
		return ctx.Err()
	}
	err := publishError(f.msg.Subject, f.expected, pubErr)
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, ErrConflict) && f.attempt == 0:
		f.done(Result{}, err)
		return nil
	case errors.Is(err, ErrConflict):
		// A resend meeting its own first copy: the lost ack's message
		// was stored after all.
		seq, ok, lerr := b.s.landed(ctx, f.msg.Subject, f.msg)
		if lerr == nil {
			if ok {
				f.done(Result{Subject: f.msg.Subject, Seq: seq, Changed: true}, nil)
			} else {
				f.done(Result{}, err)
			}
			return nil
		}
		err = lerr
	case errors.As(pubErr, &apiErr):
		// The server refused the message itself: sending it again
		// would be refused again.
		f.done(Result{}, err)
		return nil
	}
	if err := b.retryLater(ctx, f, err); err != nil {
		return err
	}
	return b.send(ctx, f)
}
