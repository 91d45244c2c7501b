package model

import (
	"slices"
	"strings"
)

// Status is a fixture's state.
type Status string

// Fixture states: v4's, stored with v1's spelling of CANCELED (one L),
// which the stream holds; v4 shows CANCELLED.
const (
	Scheduled Status = "SCHEDULED" // exists; date or teams not fixed
	Timed     Status = "TIMED"     // date fixed
	InPlay    Status = "IN_PLAY"   // live, running score
	// Paused is a break in play: half time, or the breaks before and
	// during extra time.
	Paused Status = "PAUSED"
	// ExtraTime is a knock-out match in extra time: Result.ExtraTime is
	// the running score, FullTime stays the score after regular time.
	ExtraTime Status = "EXTRA_TIME"
	// PenaltyShootout is a match in its shoot-out: Result.Penalties is
	// the running count, level until the last kick.
	PenaltyShootout Status = "PENALTY_SHOOTOUT"
	Finished        Status = "FINISHED"
	// Suspended is a match stopped (weather, crowd trouble) that may
	// resume, be replayed, be awarded or stand: its running score is kept.
	Suspended Status = "SUSPENDED"
	Postponed Status = "POSTPONED"
	Canceled  Status = "CANCELED"
	// AwardedStatus is a result decided by the league rather than the
	// match (a forfeit, or a result overturned); the Fixture's Awarded
	// side, when set, is the side that gets the win.
	AwardedStatus Status = "AWARDED"
)

// Statuses lists every status, in the order of a match's life.
var Statuses = []Status{Scheduled, Timed, InPlay, Paused, ExtraTime, PenaltyShootout, Finished, Suspended, Postponed, Canceled, AwardedStatus}

// transitions is the flow of a match. Beyond v4's documented flow
// (SCHEDULED, TIMED, IN_PLAY ⇄ PAUSED, FINISHED):
//   - a match goes live only through IN_PLAY, so that a path from before
//     kick-off to any later state records the kick-off;
//   - PAUSED follows extra time too (the break before a shoot-out, and
//     between the halves of extra time), and a match may go from regular
//     time straight to a shoot-out (competitions without extra time);
//   - SUSPENDED may come before kick-off (a match stopped from starting
//     on the day) and from play; it ends resumed (IN_PLAY), postponed to a
//     replay, cancelled, awarded, or with the score standing (FINISHED);
//   - a finished result may be overturned (AWARDED), and an award undone
//     on appeal (FINISHED); a correction of either keeps its status;
//   - a match never played (before kick-off, postponed, suspended) may be
//     awarded; CANCELED is final.
var transitions = map[Status][]Status{
	Scheduled:       {Timed, InPlay, Postponed, Suspended, Canceled, AwardedStatus},
	Timed:           {Scheduled, InPlay, Postponed, Suspended, Canceled, AwardedStatus},
	InPlay:          {Paused, ExtraTime, PenaltyShootout, Finished, Suspended},
	Paused:          {InPlay, ExtraTime, PenaltyShootout, Finished, Suspended},
	ExtraTime:       {Paused, PenaltyShootout, Finished, Suspended},
	PenaltyShootout: {Finished},
	// A postponed match with a new date is TIMED again before anything
	// else, so that a path through it (POSTPONED to IN_PLAY) goes so.
	Postponed:     {Timed, Scheduled, Canceled, AwardedStatus},
	Suspended:     {InPlay, Postponed, Canceled, AwardedStatus, Finished},
	Finished:      {Finished, AwardedStatus},
	AwardedStatus: {AwardedStatus, Finished},
	Canceled:      {},
}

// ParseStatus parses a status name (case-insensitive; CANCELLED accepted).
func ParseStatus(s string) (Status, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "CANCELLED" {
		u = string(Canceled)
	}
	if slices.Contains(Statuses, Status(u)) {
		return Status(u), nil
	}
	return "", Invalidf("status", s, "must be one of %s", statusNames)
}

// statusNames lists the statuses for an error message.
var statusNames = func() string {
	names := make([]string, len(Statuses))
	for i, s := range Statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}()

// Allowed returns the statuses a fixture in s may move to.
func (s Status) Allowed() []Status { return transitions[s] }

// CheckTransition refuses a move from s to next that the rules do not allow,
// naming the allowed ones. Staying in the same state is always allowed
// (an edit of other fields).
func (s Status) CheckTransition(next Status) error {
	if s == next || slices.Contains(transitions[s], next) {
		return nil
	}
	allowed := make([]string, 0, len(transitions[s]))
	for _, a := range transitions[s] {
		allowed = append(allowed, string(a))
	}
	hint := "none: " + string(s) + " is final"
	if len(allowed) > 0 {
		hint = strings.Join(allowed, ", ")
	}
	return &Error{Code: Invalid, Field: "status", Value: string(next),
		Message: "cannot move from " + string(s) + "; allowed: " + hint}
}

// passable are the states a path may go through on the way: what must
// have happened in the ordinary course of a match (being given a date,
// kicking off). A suspension, a break, a result or an award never goes
// without saying: POSTPONED to FINISHED is a replay that kicked off, not
// an award undone, and IN_PLAY to POSTPONED is refused, not a suspension.
var passable = map[Status]bool{Scheduled: true, Timed: true, InPlay: true}

// Path returns the moves that take a fixture from s to next, ending with
// next: one move when it is allowed directly, or the shortest chain of
// allowed moves through passable states (TIMED to FINISHED goes through
// IN_PLAY), each of which the writer records as a revision. A refused move
// is an error naming the allowed ones.
func (s Status) Path(next Status) ([]Status, error) {
	if s == next {
		return []Status{next}, nil
	}
	from := map[Status]Status{s: s}
	queue := []Status{s}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range transitions[cur] {
			if _, seen := from[n]; seen || (n != next && !passable[n]) {
				continue
			}
			from[n] = cur
			if n == next {
				var path []Status
				for x := next; x != s; x = from[x] {
					path = append([]Status{x}, path...)
				}
				return path, nil
			}
			queue = append(queue, n)
		}
	}
	return nil, s.CheckTransition(next)
}

// Live reports whether a match in this state is being played: its score
// runs, and its minute means something.
func (s Status) Live() bool {
	switch s {
	case InPlay, Paused, ExtraTime, PenaltyShootout:
		return true
	}
	return false
}

// Played reports whether a fixture in this state has been on the pitch
// or decided: it needs both teams, and may have a score and goals.
func (s Status) Played() bool {
	return s.Live() || s == Finished || s == Suspended || s == AwardedStatus
}

// HasResult reports whether a fixture in this state counts towards tables:
// finished and awarded matches only, never a live or suspended one.
func (s Status) HasResult() bool { return s == Finished || s == AwardedStatus }
