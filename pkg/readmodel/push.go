package readmodel

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/push"
)

// The push events (push.Event) of live messages are derived here, on the
// writer, so that every replica derives the same events from the same
// stream: an event depends only on the message and the state before and
// after it, never on the wall clock or on how messages were batched.
//
// A fixture message's Fixture.Update compares the fixture's record before
// and after it, when applied. A Competition.Update needs the rebuilt
// competition (its tables), which only publication builds, so a
// publication holds at most one live message per competition: a message
// for a competition the batch already touched publishes the batch first
// (Model.applyLocked). The competition's change in a publication is then
// that one message's, whatever the batching.

// Names of the v1 fields that events report, as the v1 representations
// name them; minute, injuryTime and goals, which v1 has not, as v4 names
// them.
const (
	fieldStatus            = "status"
	fieldMinute            = "minute"
	fieldInjuryTime        = "injuryTime"
	fieldGoals             = "goals"
	fieldDate              = "date"
	fieldMatchday          = "matchday"
	fieldHomeTeamID        = "homeTeamId"
	fieldAwayTeamID        = "awayTeamId"
	fieldGoalsHome         = "goalsHomeTeam"
	fieldGoalsAway         = "goalsAwayTeam"
	fieldCurrentMatchday   = "currentMatchday"
	fieldNumberOfMatchdays = "numberOfMatchdays"
	fieldNumberOfTeams     = "numberOfTeams"
	fieldNumberOfGames     = "numberOfGames"
	fieldTeams             = "teams"
	fieldLeagueTable       = "leagueTable"
)

// v1Timestamp is the v1 representations' date format.
const v1Timestamp = "2006-01-02T15:04:05Z"

// liveMsg is the live message of a batch that touched a competition.
type liveMsg struct {
	seq  uint64
	time time.Time
}

// deriving reports whether live messages give push events now.
func (w *writer) deriving() bool { return w.derive && w.ready }

// compsOf names the competitions a decoded entity touches (twice the same
// if one; 0 if none), for the rule of one live message per competition and
// publication. It must be asked before the entity is applied.
func (w *writer) compsOf(v any) (int32, int32) {
	switch v := v.(type) {
	case *model.Fixture:
		cid := int32(v.CompetitionID)
		if old, ok := w.fixtures.get(int32(v.ID)); ok && old.comp != cid {
			return cid, old.comp
		}
		return cid, cid
	case *model.Competition:
		return int32(v.ID), int32(v.ID)
	case *model.Adjustment:
		return int32(v.CompetitionID), int32(v.CompetitionID)
	case *model.TieBreakOrder:
		return int32(v.CompetitionID), int32(v.CompetitionID)
	case *model.TieBreakData:
		return int32(v.CompetitionID), int32(v.CompetitionID)
	}
	return 0, 0
}

// conflicts reports whether a live message touching competitions a and b
// touches one that a message of the current batch touched already.
func (w *writer) conflicts(a, b int32) bool {
	_, inA := w.b.live[a]
	_, inB := w.b.live[b]
	return inA || inB
}

// noteLive records the competitions a and b that a live message touched.
func (w *writer) noteLive(seq uint64, t time.Time, a, b int32) {
	w.b.live[a] = liveMsg{seq, t}
	w.b.live[b] = liveMsg{seq, t}
}

// fixtureEvent is the Fixture.Update of a fixture whose record changed from
// old to cur and whose goals changed from goalsWere to goalsAre, or false
// if no field an event reports changed.
func (w *writer) fixtureEvent(seq uint64, t time.Time, old, cur *fixture, goalsWere, goalsAre []model.Goal) (push.Event, bool) {
	u := map[string][2]any{}
	// The goals as the stream holds them: a scorer a live feed learns
	// after the goal changes no score, and is a change all the same.
	if !slices.Equal(goalsWere, goalsAre) {
		u[fieldGoals] = [2]any{goalsOrNil(goalsWere), goalsOrNil(goalsAre)}
	}
	if old.status != cur.status {
		u[fieldStatus] = [2]any{old.modelStatus(), cur.modelStatus()}
	}
	// A live match's clock: each minute a source sends is a change a
	// ticker shows.
	if old.minute != cur.minute {
		u[fieldMinute] = [2]any{minuteOrNil(old.minute), minuteOrNil(cur.minute)}
	}
	if old.injuryTime != cur.injuryTime {
		u[fieldInjuryTime] = [2]any{minuteOrNil(old.injuryTime), minuteOrNil(cur.injuryTime)}
	}
	if old.kickoff != cur.kickoff {
		u[fieldDate] = [2]any{old.time().Format(v1Timestamp), cur.time().Format(v1Timestamp)}
	}
	if old.matchday != cur.matchday {
		u[fieldMatchday] = [2]any{int(old.matchday), int(cur.matchday)}
	}
	if old.home != cur.home {
		u[fieldHomeTeamID] = [2]any{teamOrNil(old.home), teamOrNil(cur.home)}
	}
	if old.away != cur.away {
		u[fieldAwayTeamID] = [2]any{teamOrNil(old.away), teamOrNil(cur.away)}
	}
	scoreUpdates(u, "", old.fullTime, cur.fullTime)
	scoreUpdates(u, "halfTime.", old.halfTime, cur.halfTime)
	scoreUpdates(u, "extraTime.", old.extraTime, cur.extraTime)
	scoreUpdates(u, "penaltyShootout.", old.penalties, cur.penalties)
	if len(u) == 0 {
		return push.Event{}, false
	}
	ev := push.Event{Seq: seq, Kind: push.FixtureUpdate, ID: cur.id, Competition: cur.comp, Time: t.UTC(),
		Tier: model.TierAnonymous, Updates: u}
	if st := w.compState[cur.comp]; st != nil && st.comp != nil {
		ev.League, ev.Tier, ev.Year, ev.Type = st.comp.League, st.comp.Tier, st.comp.Year, st.comp.Type
	}
	for _, team := range [...]int32{cur.home, cur.away} {
		if team != 0 {
			ev.Teams = append(ev.Teams, team)
		}
	}
	return ev, true
}

// goalsOrNil is a list of goals as an event shows it: null when none.
func goalsOrNil(goals []model.Goal) any {
	if len(goals) == 0 {
		return nil
	}
	return goals
}

// minuteOrNil is a minute as an event shows it: null when none.
func minuteOrNil(m uint8) any {
	if m == 0 {
		return nil
	}
	return int(m)
}

func teamOrNil(id int32) any {
	if id == 0 {
		return nil
	}
	return int(id)
}

// scoreUpdates notes the goals of one part of a result that changed; a
// score not known is null, as in the v1 fixture.
func scoreUpdates(u map[string][2]any, prefix string, old, cur score8) {
	goal := func(s score8, i int) any {
		if !s.known() {
			return nil
		}
		return int(s[i])
	}
	if old[0] != cur[0] || old.known() != cur.known() {
		u[prefix+fieldGoalsHome] = [2]any{goal(old, 0), goal(cur, 0)}
	}
	if old[1] != cur[1] || old.known() != cur.known() {
		u[prefix+fieldGoalsAway] = [2]any{goal(old, 1), goal(cur, 1)}
	}
}

// competitionEvent is the Competition.Update of a competition rebuilt from
// before to after by the live message msg, or false if nothing an event
// reports changed. The current matchday is compared at the message's time,
// not the clock's, so that every replica finds the same.
func competitionEvent(id int32, msg liveMsg, before, after *compSnap) (push.Event, bool) {
	if before == nil || after == nil || before.comp == nil || after.comp == nil {
		// A new competition (or one removed) is no update of one.
		return push.Event{}, false
	}
	u := map[string][2]any{}
	now := msg.time.Unix()
	if o, n := currentMatchday(before.fixtures, now, before.last), currentMatchday(after.fixtures, now, after.last); o != n {
		u[fieldCurrentMatchday] = [2]any{o, n}
	}
	if before.last != after.last {
		u[fieldNumberOfMatchdays] = [2]any{before.last, after.last}
	}
	if o, n := len(before.fixtures), len(after.fixtures); o != n {
		u[fieldNumberOfGames] = [2]any{o, n}
	}
	if o, n := teamIDs(before.comp), teamIDs(after.comp); !sameSet(o, n) {
		slices.Sort(o)
		slices.Sort(n)
		u[fieldNumberOfTeams] = [2]any{len(o), len(n)}
		u[fieldTeams] = [2]any{o, n}
	}
	if o, n, changed := tableChanges(before.tables, after.tables); changed {
		u[fieldLeagueTable] = [2]any{o, n}
	}
	if len(u) == 0 {
		return push.Event{}, false
	}
	return push.Event{Seq: msg.seq, Kind: push.CompetitionUpdate, ID: id, Competition: id, League: after.comp.League,
		Year: after.comp.Year, Type: after.comp.Type, Tier: after.comp.Tier, Time: msg.time.UTC(), Updates: u}, true
}

func sameSet(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// tableChanges compares the latest tables (the last matchday's: every
// result so far) and reports the old and the new position of each team
// whose row changed (games, results, goals, points, position), keyed by
// team id, and whether any did. A team whose row changed but which kept
// its place is listed too, with the same position on both sides: the
// historic Event-API sent an update whenever it built the table, and a
// client that refreshes its cached table on these events must hear of a
// correction that moves no team. A team shows with its first row: its
// group's, or the league's before a split.
func tableChanges(before, after []*mdTable) (old, cur map[string]int32, changed bool) {
	var b, a *mdTable
	if len(before) > 0 {
		b = before[len(before)-1]
	}
	if len(after) > 0 {
		a = after[len(after)-1]
	}
	if b == a {
		return nil, nil, false
	}
	rb, ra := firstRows(b), firstRows(a)
	old, cur = map[string]int32{}, map[string]int32{}
	for team, r := range ra {
		if p, ok := rb[team]; !ok || p != r {
			key := strconv.Itoa(int(team))
			cur[key] = r.position
			if ok {
				old[key] = p.position
			}
		}
	}
	for team, p := range rb {
		if _, ok := ra[team]; !ok {
			old[strconv.Itoa(int(team))] = p.position
		}
	}
	return old, cur, len(old) > 0 || len(cur) > 0
}

func firstRows(t *mdTable) map[int32]row {
	if t == nil {
		return nil
	}
	m := map[int32]row{}
	for _, g := range t.groups {
		for _, r := range g.rows {
			if _, ok := m[r.team]; !ok {
				m[r.team] = r
			}
		}
	}
	return m
}

// sortEvents puts a publication's events in stream order; the events of
// one message come fixtures first, then by id, the same on every replica.
func sortEvents(evs []push.Event) {
	slices.SortFunc(evs, func(a, b push.Event) int {
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		if a.Kind != b.Kind {
			if a.Kind == push.FixtureUpdate {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
