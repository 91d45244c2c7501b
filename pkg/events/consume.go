package events

import (
	"context"
	"errors"
	"fmt"
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
	// Data is the message body; Decode reads it. It is only valid during
	// the handler call.
	Data []byte
}

// Progress tells a consumer how far it is.
type Progress struct {
	// Ready becomes true once every entity that existed when the
	// consumption started has been delivered; it never goes back.
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
// seen every entity that existed at the start (at once if there were none).
func (s *Store) Consume(ctx context.Context, filter string, h Handler, onReady func()) error {
	if filter == "" {
		filter = Prefix + ".>"
	}
	// The last message matching filter when we start: once it has been
	// delivered, everything that existed has been.
	var start uint64
	switch last, err := s.stream.GetLastMsgForSubject(ctx, filter); {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		return fmt.Errorf("consume %s: %w", filter, err)
	default:
		start = last.Sequence
	}
	cons, err := s.js.OrderedConsumer(ctx, s.cfg.Name, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{filter},
		DeliverPolicy:     jetstream.DeliverLastPerSubjectPolicy,
		InactiveThreshold: consumerIdle,
	})
	if err != nil {
		return fmt.Errorf("consume %s: %w", filter, err)
	}
	defer s.deleteConsumer(cons)
	ready := false
	markReady := func() {
		if !ready {
			ready = true
			if onReady != nil {
				onReady()
			}
		}
	}
	if start == 0 {
		markReady()
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(1024))
	if err != nil {
		return fmt.Errorf("consume %s: %w", filter, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return ctx.Err()
			}
			return fmt.Errorf("consume %s: %w", filter, err)
		}
		md, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("consume %s: %w", filter, err)
		}
		seq := md.Sequence.Stream
		nowReady := ready || seq >= start || md.NumPending == 0
		kind, key, _ := KeyOf(msg.Subject())
		hdr := msg.Headers()
		ev := Event{Kind: kind, Key: key, Subject: msg.Subject(), Seq: seq, Time: md.Timestamp,
			Editor: hdr.Get(HeaderEditor), Source: hdr.Get(HeaderSource), Data: msg.Data()}
		if err := h(ev, Progress{Ready: nowReady, Pending: md.NumPending, Seq: seq}); err != nil {
			return err
		}
		if nowReady {
			markReady()
		}
	}
}

// Scan reads the current state of every entity matching filter and returns
// once it has seen them all: the writer's way to load what exists.
func (s *Store) Scan(ctx context.Context, filter string, fn func(Event) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := s.Consume(ctx, filter, func(ev Event, p Progress) error {
		return fn(ev)
	}, cancel)
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
	var revs []Revision
	for {
		msg, err := cons.Next(jetstream.FetchContext(ctx))
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
