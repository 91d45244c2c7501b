package events

import (
	"context"
	"fmt"
	"slices"

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

// TakeOwnIDs takes for new entities of kind those of ids that the counter
// has not handed out yet, in ascending order, moving it past the last one
// taken, and reports which it took: a source's own ids (football-data.org's
// match ids) are kept as ours where they are free. Ids below the counter
// may be another entity's and are not taken.
func (s *Store) TakeOwnIDs(ctx context.Context, kind Kind, ids []int) (map[int]bool, error) {
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	var taken map[int]bool
	_, err := s.bumpCounter(ctx, kind, func(next int) (int, int, error) {
		taken = map[int]bool{}
		for _, id := range sorted {
			if id >= next && id <= model.MaxID {
				taken[id] = true
				next = id + 1
			}
		}
		return 0, next, nil
	})
	if err != nil {
		return nil, fmt.Errorf("take %d own %s ids: %w", len(sorted), kind, err)
	}
	return taken, nil
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
	for attempt := range contention {
		// The first attempt starts from the counter as this store last
		// wrote it, if it did: the compare-and-set fails if anyone moved
		// it since, and the next attempt reads it.
		c, prevSeq, remembered := s.lastCounter(kind)
		if !remembered || attempt > 0 {
			c, prevSeq = counter{Next: 1}, 0
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
			remembered = false
		}
		first, next, err := step(c.Next)
		if remembered && (err != nil || next == c.Next) {
			// Nothing to write, or an error, from what may be an old
			// state: decide from the counter as it is.
			continue
		}
		if err != nil || next == c.Next {
			return first, err
		}
		body, err := Encode(counter{Next: next})
		if err != nil {
			return 0, err
		}
		seq, err := s.Publish(ctx, Msg{Subject: subject, Body: body, Expected: prevSeq, Meta: Meta{Source: "id counter"}})
		switch {
		case err == nil:
			s.rememberCounter(kind, counter{Next: next}, seq)
			return first, nil
		case model.ErrorCode(err) != model.Conflict:
			return 0, err
		}
		// Someone else moved the counter: read it again. Ids are never
		// handed out twice.
	}
	return 0, fmt.Errorf("reserve %s ids: too much contention", kind)
}

// counterRev is an id counter as this store last wrote it.
type counterRev struct {
	c   counter
	seq uint64
}

// lastCounter returns kind's counter as this store last wrote it, if it
// did.
func (s *Store) lastCounter(kind Kind) (counter, uint64, bool) {
	s.countersMu.Lock()
	defer s.countersMu.Unlock()
	r, ok := s.counters[kind]
	return r.c, r.seq, ok
}

func (s *Store) rememberCounter(kind Kind, c counter, seq uint64) {
	s.countersMu.Lock()
	defer s.countersMu.Unlock()
	if s.counters == nil {
		s.counters = map[Kind]counterRev{}
	}
	s.counters[kind] = counterRev{c, seq}
}
