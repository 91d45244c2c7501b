package events

import (
	"context"
	"fmt"

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
// concurrent writers never get the same id. Ids end at model.MaxID.
func (s *Store) NextIDs(ctx context.Context, kind Kind, n int) (int, error) {
	return s.bumpCounter(ctx, kind, func(next int) (int, int, error) {
		if n > 0 && next+n-1 > model.MaxID {
			return 0, 0, model.Invalidf(string(kind)+" id", fmt.Sprint(next+n-1), "the ids of %s run out at %d", kind, model.MaxID)
		}
		return next, next + n, nil
	})
}

// Reserve makes sure the counter of kind hands out ids above id, after an
// editor created an entity with an id of their choosing.
func (s *Store) Reserve(ctx context.Context, kind Kind, id int) error {
	if err := model.CheckID(string(kind)+" id", id); err != nil {
		return err
	}
	_, err := s.bumpCounter(ctx, kind, func(next int) (int, int, error) { return next, max(next, id+1), nil })
	return err
}

// contention bounds the rounds of a counter update that keeps losing to
// other writers.
const contention = 100

func (s *Store) bumpCounter(ctx context.Context, kind Kind, step func(next int) (first, newNext int, err error)) (int, error) {
	subject := counterSubject(kind)
	for range contention {
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
		first, next, err := step(c.Next)
		if err != nil || next == c.Next {
			return first, err
		}
		body, err := Encode(counter{Next: next})
		if err != nil {
			return 0, err
		}
		_, err = s.Publish(ctx, Msg{Subject: subject, Body: body, Expected: prevSeq, Meta: Meta{Source: "id counter"}})
		switch {
		case err == nil:
			return first, nil
		case model.ErrorCode(err) != model.Conflict:
			return 0, err
		}
		// Someone else moved the counter: read it again. Ids are never
		// handed out twice.
	}
	return 0, fmt.Errorf("reserve %s ids: too much contention", kind)
}
