package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// counter is the state of an id sequence: the next id to hand out.
type counter struct {
	Next int `json:"next"`
}

// counterSubject is apart from SubjectOf: counters are not model entities.
func counterSubject(kind Kind) string { return Subject(KindSequence, string(kind)) }

// NextIDs reserves n consecutive ids for new entities of kind and returns
// the first. The reservation is a compare-and-set on the kind's counter, so
// concurrent writers never get the same id.
func (s *Store) NextIDs(ctx context.Context, kind Kind, n int) (int, error) {
	return s.bumpCounter(ctx, kind, func(next int) (int, int) { return next, next + n })
}

// Reserve makes sure the counter of kind hands out ids above id, after an
// editor created an entity with an id of their choosing.
func (s *Store) Reserve(ctx context.Context, kind Kind, id int) error {
	_, err := s.bumpCounter(ctx, kind, func(next int) (int, int) { return next, max(next, id+1) })
	return err
}

func (s *Store) bumpCounter(ctx context.Context, kind Kind, step func(next int) (first, newNext int)) (int, error) {
	subject := counterSubject(kind)
	transient := 0
	for range 100 {
		c := counter{Next: 1}
		var prevSeq uint64
		rev, err := s.Get(ctx, subject)
		switch {
		case model.ErrorCode(err) == model.NotFound:
		case err != nil:
			return 0, err
		default:
			if c, err = Decode[counter](rev.Data); err != nil {
				return 0, err
			}
			prevSeq = rev.Seq
		}
		first, next := step(c.Next)
		if next == c.Next {
			return first, nil
		}
		body, err := Encode(counter{Next: next})
		if err != nil {
			return 0, err
		}
		tctx, cancel := context.WithTimeout(ctx, requestTimeout)
		_, err = s.js.PublishMsg(tctx, newMsg(subject, body, prevSeq, Meta{Source: "id counter"}))
		cancel()
		if err == nil {
			return first, nil
		}
		// A conflict means someone else moved the counter; a lost ack
		// (server restarting) may have moved it for us. Either way the
		// next round reads it again: ids are never handed out twice, at
		// worst a block is skipped.
		if err = publishError(subject, prevSeq, err); !errors.Is(err, ErrConflict) {
			if transient++; transient >= requestAttempts || ctx.Err() != nil {
				return 0, err
			}
			time.Sleep(time.Duration(transient) * 100 * time.Millisecond)
		}
	}
	return 0, fmt.Errorf("reserve %s ids: too much contention", kind)
}
