package model

import (
	"slices"
	"strings"
)

// Status is a fixture's state.
type Status string

// Fixture states (v1 spelling: CANCELED with one L).
const (
	Scheduled Status = "SCHEDULED" // exists; date or teams not fixed
	Timed     Status = "TIMED"     // date fixed
	InPlay    Status = "IN_PLAY"   // live, running score
	Finished  Status = "FINISHED"
	Postponed Status = "POSTPONED"
	Canceled  Status = "CANCELED"
)

// Statuses lists every status.
var Statuses = []Status{Scheduled, Timed, InPlay, Finished, Postponed, Canceled}

var transitions = map[Status][]Status{
	Scheduled: {Timed, InPlay, Postponed, Canceled},
	Timed:     {Scheduled, InPlay, Postponed, Canceled},
	InPlay:    {Finished},
	// A postponed match with a new date is TIMED again before anything
	// else, so that a path through it (POSTPONED to IN_PLAY) goes so.
	Postponed: {Timed, Scheduled, Canceled},
	// A correction of a finished result stays finished.
	Finished: {Finished},
	Canceled: {},
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
	return "", Invalidf("status", s, "must be one of SCHEDULED, TIMED, IN_PLAY, FINISHED, POSTPONED, CANCELED")
}

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

// Path returns the moves that take a fixture from s to next, ending with
// next: one move when it is allowed directly, or the shortest chain of
// allowed moves (TIMED to FINISHED goes through IN_PLAY), each of which the
// writer records as a revision. A refused move is an error naming the
// allowed ones.
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
			if _, seen := from[n]; seen {
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

// HasResult reports whether a fixture in this state counts towards tables.
func (s Status) HasResult() bool { return s == Finished }
