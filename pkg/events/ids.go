package events

import (
	"context"
	"fmt"
	"slices"

	"github.com/footdata/footballd/pkg/model"
)

// counter is the state of an id sequence: the next id to hand out, and
// the ids below it never handed out, skipped when a source's own id was
// taken above them (TakeOwnIDs), as [from, to) ranges in order.
type counter struct {
	Next    int      `json:"next"`
	Skipped [][2]int `json:"skipped,omitempty"`
}

// clone is a copy of c that a step may change.
func (c counter) clone() counter {
	c.Skipped = slices.Clone(c.Skipped)
	return c
}

// take takes id for an entity if it was never handed out: at or above
// Next (the ids between skipped), or a skipped one.
func (c *counter) take(id int) bool {
	if id >= c.Next {
		if id > c.Next {
			c.Skipped = append(c.Skipped, [2]int{c.Next, id})
		}
		c.Next = id + 1
		return true
	}
	i, ok := slices.BinarySearchFunc(c.Skipped, id, func(r [2]int, id int) int {
		switch {
		case r[1] <= id:
			return -1
		case r[0] > id:
			return 1
		}
		return 0
	})
	if !ok {
		return false
	}
	r := c.Skipped[i]
	var parts [][2]int
	if r[0] < id {
		parts = append(parts, [2]int{r[0], id})
	}
	if id+1 < r[1] {
		parts = append(parts, [2]int{id + 1, r[1]})
	}
	c.Skipped = slices.Replace(c.Skipped, i, i+1, parts...)
	return true
}

// counterSubject is apart from SubjectOf: counters are not model entities.
func counterSubject(kind Kind) string { return Subject(KindSequence, string(kind)) }

// NextIDs reserves n consecutive ids for new entities of kind and returns
// the first. The reservation is a compare-and-set on the kind's counter, so
// concurrent writers never get the same id. Ids end at model.MaxID.
func (s *Store) NextIDs(ctx context.Context, kind Kind, n int) (int, error) {
	return s.bumpCounter(ctx, kind, func(c *counter) (int, bool, error) {
		next := c.Next
		if n > 0 && next+n-1 > model.MaxID {
			return 0, false, model.Invalidf(string(kind)+" id", fmt.Sprint(next+n-1), "the ids of %s run out at %d", kind, model.MaxID)
		}
		c.Next += n
		return next, n > 0, nil
	})
}

// TakeOwnIDs takes for new entities of kind those of ids that were never
// handed out, and reports which it took: a source's own ids
// (football-data.org's match ids) are kept as ours where they are free.
// An id above the counter moves it past, the ids between remembered as
// skipped, so that a source's lower ids read later are still free; an id
// handed out before may be another entity's and is not taken.
func (s *Store) TakeOwnIDs(ctx context.Context, kind Kind, ids []int) (map[int]bool, error) {
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	var taken map[int]bool
	_, err := s.bumpCounter(ctx, kind, func(c *counter) (int, bool, error) {
		taken = map[int]bool{}
		for _, id := range sorted {
			if id >= 1 && id <= model.MaxID && c.take(id) {
				taken[id] = true
			}
		}
		return 0, len(taken) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("take %d own %s ids: %w", len(sorted), kind, err)
	}
	return taken, nil
}

// Reserve makes sure the counter of kind never hands out id, after an
// editor created an entity with an id of their choosing (or to pass over
// a range kept for historic ids): it hands out ids above it, and a skipped
// id is no longer free. The ids it passes over are not skipped ones: they
// may be kept for something else.
func (s *Store) Reserve(ctx context.Context, kind Kind, id int) error {
	if err := model.CheckID(string(kind)+" id", id); err != nil {
		return err
	}
	_, err := s.bumpCounter(ctx, kind, func(c *counter) (int, bool, error) {
		if id >= c.Next {
			c.Next = id + 1
			return 0, true, nil
		}
		return 0, c.take(id), nil
	})
	return err
}

// contention bounds the rounds of a counter update that keeps losing to
// other writers.
const contention = 100

// bumpCounter changes kind's counter with step, which changes its copy of
// it and returns what the caller gets and whether it changed anything.
func (s *Store) bumpCounter(ctx context.Context, kind Kind, step func(c *counter) (first int, changed bool, err error)) (int, error) {
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
		next := c.clone()
		first, changed, err := step(&next)
		if remembered && (err != nil || !changed) {
			// Nothing to write, or an error, from what may be an old
			// state: decide from the counter as it is.
			continue
		}
		if err != nil || !changed {
			return first, err
		}
		body, err := Encode(next)
		if err != nil {
			return 0, err
		}
		seq, err := s.Publish(ctx, Msg{Subject: subject, Body: body, Expected: prevSeq, Meta: Meta{Source: "id counter"}})
		switch {
		case err == nil:
			s.rememberCounter(kind, next, seq)
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
