package readmodel

import (
	"sort"
	"time"
)

// Thresholds of the specification's current-matchday rule.
const (
	nextMatchSoon  = 36 * 60 * 60 // seconds
	lastMatchStale = 60 * 60 * 60
)

// currentMatchday applies the specification's rule to a competition's
// fixtures in date order at now (Unix seconds). The last match played is
// the latest that has kicked off, the next one the earliest that has not;
// postponed and cancelled games are not on the calendar and count as
// neither.
//
//   - before the first match: 1; after the last: the last matchday;
//   - last and next of one matchday: that matchday;
//   - next match in under 36 hours, or last match over 60 hours ago: the
//     next match's matchday;
//   - otherwise the last match's matchday.
func currentMatchday(fixtures []*fixture, now int64, last int) int {
	i := sort.Search(len(fixtures), func(i int) bool { return fixtures[i].kickoff > now })
	var played, next *fixture
	for j := i - 1; j >= 0 && played == nil; j-- {
		if fixtures[j].countsForCalendar() {
			played = fixtures[j]
		}
	}
	for j := i; j < len(fixtures) && next == nil; j++ {
		if fixtures[j].countsForCalendar() {
			next = fixtures[j]
		}
	}
	switch {
	case played == nil:
		return 1
	case next == nil:
		return last
	case played.matchday == next.matchday,
		next.kickoff-now < nextMatchSoon,
		now-played.kickoff > lastMatchStale:
		return int(next.matchday)
	}
	return int(played.matchday)
}

// currentSeason is the latest year whose season switch has passed at now.
func currentSeason(now time.Time, month time.Month, day int) int {
	now = now.UTC()
	y := now.Year()
	if now.Before(time.Date(y, month, day, 0, 0, 0, 0, time.UTC)) {
		y--
	}
	return y
}
