package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Results of a poll: the label of fd_feed_fetches_total and a status's
// Result.
const (
	ResultChanged     = "changed"      // fetched, and changes published
	ResultUnchanged   = "unchanged"    // fetched, nothing to publish
	ResultNotModified = "not_modified" // 304, or a file not touched since
	ResultHeldBack    = "held_back"    // published what it could; names held back
	ResultSuspect     = "suspect"      // refused: lost too many matches
	ResultError       = "error"        // fetch or document failed
	ResultDeferred    = "deferred"     // no call: the source's budget is spent
)

// results lists every result, so that each is a series from the start.
var results = []string{ResultChanged, ResultUnchanged, ResultNotModified, ResultHeldBack, ResultSuspect, ResultError, ResultDeferred}

// Status is what the followers know of one feed registration.
type Status struct {
	// Created is the feed's creation time: a feed removed and added again
	// under its name starts from a fresh status.
	Created time.Time `json:"created"`
	// Holder is the follower that last polled it.
	Holder      string    `json:"holder,omitempty"`
	LastFetch   time.Time `json:"lastFetch,omitzero"`
	LastSuccess time.Time `json:"lastSuccess,omitzero"`
	NextPoll    time.Time `json:"nextPoll,omitzero"`
	Result      string    `json:"result,omitempty"`
	// ETag and LastModified are the validators of the last document
	// accepted, sent with the next fetch.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	// Hash is the SHA-256 of the last document accepted: a source that
	// ignores conditional requests sends it again, and it is not parsed.
	Hash string `json:"hash,omitempty"`
	// Matches counts those of the last document accepted: the shrink
	// guard's yardstick.
	Matches int `json:"matches,omitempty"`
	// Changes counts the entities created or updated, in total.
	Changes uint64 `json:"changes"`
	// Failures counts the polls that failed in a row (back-off).
	Failures  int       `json:"failures,omitempty"`
	LastError string    `json:"lastError,omitempty"`
	ErrorAt   time.Time `json:"errorAt,omitzero"`
	// HeldBack counts, by team name no team has, the fixtures of the last
	// document held back.
	HeldBack map[string]int `json:"heldBack,omitempty"`
	// Rejected counts the last document's fixtures that broke a rule.
	Rejected int `json:"rejected,omitempty"`
	// Disagreements are the fixtures' fields whose stored value (an
	// editor's, another source's) holds against what the source says,
	// until the source changes them (importer.Disagreement).
	Disagreements []importer.Disagreement `json:"disagreements,omitempty"`
	// Said is what the source said last of the fixtures other sources
	// made (a match two sources carry), by fixture and field: the feed
	// has no revision of its own of them to remember it by.
	Said map[int]map[string]string `json:"said,omitempty"`
	// Live is what the follower of a live API knows of its matches
	// (nil for a feed of a file).
	Live *Live `json:"live,omitempty"`
	// PollServed is the revision of the last request for a poll at once
	// (RequestPoll) that a poll answered.
	PollServed uint64 `json:"pollServed,omitempty"`
}

// Live is where a live API feed's matches stand, as its last good poll
// found them: what its next poll is chosen by.
type Live struct {
	// InPlay counts the matches in play; NextKickoff is the next kick-off
	// of a match not yet in play; Matchday is the round polled while its
	// matches are on (OpenLigaDB).
	InPlay      int       `json:"inPlay"`
	NextKickoff time.Time `json:"nextKickoff,omitzero"`
	Matchday    int       `json:"matchday,omitempty"`
	// LastChange is OpenLigaDB's last change of that matchday: while it
	// stays the same, the matchday is not fetched.
	LastChange string `json:"lastChange,omitempty"`
	// WholeAt is when the whole season (or the day's matches) was last
	// fetched: every interval of the feed, whatever is on.
	WholeAt time.Time `json:"wholeAt,omitzero"`
	// Cursor is the next of a feed's competitions whose season is read
	// (football-data.org), 0 between two rounds of them; ScheduleAt is
	// when the matches on or near (the fields above) were last read.
	Cursor     int       `json:"cursor,omitempty"`
	ScheduleAt time.Time `json:"scheduleAt,omitzero"`
	// Calls counts the calls made to the source, in total; Budget is the
	// key of the budget they are spent from.
	Calls  uint64 `json:"calls"`
	Budget string `json:"budget,omitempty"`
	// Pace is the time between two polls while matches are on, as the
	// budget last allowed it.
	Pace time.Duration `json:"pace,omitempty"`
}

// clean reports whether the last document accepted was written whole:
// nothing held back or rejected, so the same bytes need no new import.
func (s *Status) clean() bool { return len(s.HeldBack) == 0 && s.Rejected == 0 }

// lease is the value of a feed's lease key.
type lease struct {
	Holder  string    `json:"holder"`
	Renewed time.Time `json:"renewed"`
}

// State is the bucket of leases and statuses.
type State struct {
	kv jetstream.KeyValue
}

// Open opens the bucket as it is (events.ErrNotProvisioned when it does
// not exist: events.ProvisionFeeds makes it).
func Open(ctx context.Context, nc *nats.Conn) (*State, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, events.FeedsBucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return nil, fmt.Errorf("feeds bucket %s: %w", events.FeedsBucket, events.ErrNotProvisioned)
	case err != nil:
		return nil, fmt.Errorf("feeds bucket %s: %w", events.FeedsBucket, events.Explain(nc, err))
	}
	if err := events.WaitAnswering(ctx, kv); err != nil {
		return nil, err
	}
	return &State{kv: kv}, nil
}

func statusKey(feed string) string { return "status." + feed }
func leaseKey(feed string) string  { return "lease." + feed }
func pollKey(feed string) string   { return "poll." + feed }

// RequestPoll asks for a poll of feed at once (`ingest feed poll`, `feed
// resume`): the follower holding its lease, or the next to take it, sees
// the request within a round and polls as it would on schedule, spending
// from the source's budget like any poll. It returns the request's
// revision, which the status's PollServed reaches once a poll has answered
// it. A request, not a fetch by the caller: the lease stays the one
// thing that decides who polls a feed.
func (s *State) RequestPoll(ctx context.Context, feed string) (uint64, error) {
	rev, err := s.kv.Put(ctx, pollKey(feed), []byte(time.Now().UTC().Format(time.RFC3339Nano)))
	if err != nil {
		return 0, fmt.Errorf("feed poll request %s: %w", feed, err)
	}
	return rev, nil
}

// pollRequested returns the revision of feed's last poll request (0: none).
func (s *State) pollRequested(ctx context.Context, feed string) (uint64, error) {
	e, err := s.kv.Get(ctx, pollKey(feed))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("feed poll request %s: %w", feed, err)
	}
	return e.Revision(), nil
}

// Status returns the status of the registration of feed created at
// created; ok is false when no follower has polled it yet.
func (s *State) Status(ctx context.Context, feed string, created time.Time) (st Status, ok bool, err error) {
	st, _, err = s.status(ctx, feed)
	if err != nil || !st.Created.Equal(created) {
		return Status{}, false, err
	}
	return st, true, nil
}

// status returns the stored status of feed and its revision (0: none).
func (s *State) status(ctx context.Context, feed string) (Status, uint64, error) {
	st, rev, err := events.GetJSON[Status](ctx, s.kv, statusKey(feed))
	if err != nil {
		return Status{}, 0, fmt.Errorf("feed status %s: %w", feed, err)
	}
	return st, rev, nil
}

// update changes the status of a registration with compare-and-set, so
// that two followers writing at once (a holder paused past its lease)
// lose nothing; a status of an earlier registration of the name is
// replaced by a fresh one.
func (s *State) update(ctx context.Context, feed string, created time.Time, change func(*Status)) (Status, error) {
	st, err := events.UpdateJSON(ctx, s.kv, statusKey(feed), func(st *Status) error {
		if !st.Created.Equal(created) {
			*st = Status{Created: created}
		}
		change(st)
		return nil
	})
	if err != nil {
		return Status{}, fmt.Errorf("feed status %s: %w", feed, err)
	}
	return st, nil
}

// Holder returns the follower holding feed's lease ("" when none).
func (s *State) Holder(ctx context.Context, feed string) (string, error) {
	l, _, err := s.lease(ctx, feed)
	return l.Holder, err
}

// lease reads feed's lease and its revision (0: none).
func (s *State) lease(ctx context.Context, feed string) (lease, uint64, error) {
	l, rev, err := events.GetJSON[lease](ctx, s.kv, leaseKey(feed))
	if err != nil {
		return lease{}, 0, fmt.Errorf("feed lease %s: %w", feed, err)
	}
	return l, rev, nil
}

// claim writes holder into feed's lease over revision rev (0: there is
// none) and returns the new revision; ok is false when another follower
// wrote it first.
func (s *State) claim(ctx context.Context, feed, holder string, rev uint64, now time.Time) (uint64, bool, error) {
	next, err := events.PutJSON(ctx, s.kv, leaseKey(feed), lease{Holder: holder, Renewed: now}, rev)
	switch {
	case err == nil:
		return next, true, nil
	case events.KVConflict(err):
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("feed lease %s: %w", feed, err)
}

// release gives feed's lease up if holder still holds it (at revision rev,
// or at whatever revision a renewal whose answer was lost gave it), so
// that another follower takes it at once instead of after its time to live.
func (s *State) release(ctx context.Context, feed, holder string, rev uint64) error {
	err := s.kv.Delete(ctx, leaseKey(feed), jetstream.LastRevision(rev))
	if events.KVConflict(err) {
		// A renewal whose answer was lost (its context ended as the
		// server wrote it) left the lease ours at a revision we do not
		// know: give it up at the one it has, if it is still ours. The
		// read comes from the bucket's leader (events.FeedsBucket), so the
		// revision it gives is the one the delete is checked against.
		l, cur, lerr := s.lease(ctx, feed)
		if lerr != nil || l.Holder != holder || cur == 0 {
			return lerr
		}
		err = s.kv.Delete(ctx, leaseKey(feed), jetstream.LastRevision(cur))
	}
	if err != nil {
		return fmt.Errorf("feed lease %s: release: %w", feed, err)
	}
	return nil
}
