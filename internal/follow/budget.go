package follow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/footdata/footballd/pkg/events"
)

// budget is the calls a live source allows one token (or, without a
// token, one address) in a fixed window: every feed and every follower
// using it spends from the one record, budget.<hash> of events.FeedsBucket, with
// compare-and-set, so that together they stay inside the source's limit.
type budget struct {
	// Start is when the current window began: the first call after the
	// last window ended, as the source counts.
	Start  time.Time     `json:"start"`
	Window time.Duration `json:"window"`
	Limit  int           `json:"limit"`
	Used   int           `json:"used"`
	// BlockedUntil is when the source said calls may come again (a 429).
	BlockedUntil time.Time `json:"blockedUntil,omitzero"`
	// Users are the feeds that spent from it lately, with when: the
	// pace of each is the budget's shared among them.
	Users map[string]time.Time `json:"users,omitempty"`
}

// budgetSpec names a budget and its limit.
type budgetSpec struct {
	key    string
	limit  int
	window time.Duration
}

// budgetKey is the key of the budget of a source and its token (or
// address): a hash, so that the token is never stored.
func budgetKey(source, secret string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + secret))
	return "budget." + hex.EncodeToString(sum[:16])
}

// userWindow is how long a feed counts as a user of a budget after its
// last call.
const userWindow = 2 * time.Minute

// minPace is the shortest time between two polls of a live feed, however
// large its budget.
const minPace = time.Second

// spent is the outcome of a spend: whether the call may be made, else
// until when to wait; and the pace of the feed's calls that keeps the
// budget's users inside it.
type spent struct {
	ok    bool
	until time.Time
	pace  time.Duration
}

// spend takes one call from the budget for feed, unless it is spent or
// blocked.
func (s *State) spend(ctx context.Context, b budgetSpec, feed string, now time.Time) (spent, error) {
	var out spent
	_, err := events.UpdateJSON(ctx, s.kv, b.key, func(bd *budget) error {
		out = bd.take(b, feed, now)
		return nil
	})
	if err != nil {
		return spent{}, fmt.Errorf("budget: %w", err)
	}
	return out, nil
}

// windowSlack is added to the end of a window before the next begins:
// the source starts its window when the first call arrives, a little
// after this follower counted it, so a window of ours that ended on time
// could begin before the source's.
const windowSlack = time.Second

func (bd *budget) end() time.Time { return bd.Start.Add(bd.Window + windowSlack) }

func (bd *budget) take(b budgetSpec, feed string, now time.Time) spent {
	bd.Limit, bd.Window = b.limit, b.window
	if !now.Before(bd.end()) {
		bd.Start, bd.Used = now, 0
	}
	if bd.Users == nil {
		bd.Users = map[string]time.Time{}
	}
	for u, at := range bd.Users {
		if now.Sub(at) > max(userWindow, bd.Window/10) {
			delete(bd.Users, u)
		}
	}
	bd.Users[feed] = now
	switch {
	case now.Before(bd.BlockedUntil):
		return spent{until: bd.BlockedUntil, pace: bd.BlockedUntil.Sub(now)}
	case bd.Used >= bd.Limit:
		return spent{until: bd.end(), pace: bd.end().Sub(now)}
	}
	bd.Used++
	return spent{ok: true, pace: bd.pace(now)}
}

// pace is the time between two calls of one user that spends what is
// left of the window evenly among the users: the last call of the
// window comes at its end, not before.
func (bd *budget) pace(now time.Time) time.Duration {
	left := bd.Limit - bd.Used
	rest := bd.end().Sub(now)
	if left <= 0 {
		return max(rest, minPace)
	}
	return max(rest/time.Duration(left)*time.Duration(max(len(bd.Users), 1)), minPace)
}

// correct takes the source's own count: calls left in the window and
// seconds until it ends (football-data.org's X-Requests-Available-Minute
// and X-RequestCounter-Reset), and, after a 429, when calls may come
// again.
func (s *State) correct(ctx context.Context, b budgetSpec, left int, reset time.Duration, blockedUntil time.Time, now time.Time) error {
	_, err := events.UpdateJSON(ctx, s.kv, b.key, func(bd *budget) error {
		bd.Limit, bd.Window = b.limit, b.window
		if left >= 0 {
			bd.Used = max(bd.Limit-left, 0)
			bd.Start = now.Add(reset).Add(-bd.Window)
		}
		if blockedUntil.After(bd.BlockedUntil) {
			bd.BlockedUntil = blockedUntil
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("budget: %w", err)
	}
	return nil
}

// Budget returns the budget of key, for `feed show`; ok is false when no
// call was made from it yet.
func (s *State) Budget(ctx context.Context, key string) (used, limit int, ends time.Time, ok bool, err error) {
	bd, rev, err := events.GetJSON[budget](ctx, s.kv, key)
	if err != nil || rev == 0 {
		return 0, 0, time.Time{}, false, err
	}
	return bd.Used, bd.Limit, bd.end(), true, nil
}
