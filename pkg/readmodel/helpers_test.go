package readmodel_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// t0 is a Friday evening in August: matchday 1 of a season starting in
// 2017 kicks off then.
var t0 = time.Date(2017, 8, 11, 18, 45, 0, 0, time.UTC)

// clock is a settable clock for the model.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// feed applies entities to a model as events with increasing sequences.
type feed struct {
	tb    testing.TB
	m     *readmodel.Model
	clock *clock
	seq   uint64
	// last is the stream as a replay sees it: the last event per subject.
	last map[string]events.Event
}

func newFeed(tb testing.TB, now time.Time) *feed {
	tb.Helper()
	c := &clock{now: now}
	m, err := readmodel.New(readmodel.Config{Now: c.Now})
	if err != nil {
		tb.Fatal(err)
	}
	return &feed{tb: tb, m: m, clock: c, last: map[string]events.Event{}}
}

// event encodes an entity as the stream would deliver it.
func event(tb testing.TB, seq uint64, v any) events.Event {
	tb.Helper()
	m := natstest.Msg(tb, v)
	kind, key, _ := events.KeyOf(m.Subject)
	return events.Event{Kind: kind, Key: key, Subject: m.Subject, Seq: seq,
		Time: t0.Add(time.Duration(seq) * time.Second), Data: m.Body}
}

// put applies each entity as the next event of the stream.
func (f *feed) put(vs ...any) {
	f.tb.Helper()
	for _, v := range vs {
		f.seq++
		ev := event(f.tb, f.seq, v)
		f.last[ev.Subject] = ev
		f.m.Apply(ev)
	}
}

func (f *feed) snap() readmodel.Snapshot { return f.m.Snapshot() }

// The four teams most tests use: the names order remaining ties.
const (
	alpha   = 1
	bravo   = 2
	charlie = 3
	delta   = 4
	echo    = 5
)

var letters = map[int]string{alpha: "A", bravo: "B", charlie: "C", delta: "D", echo: "E", 6: "F", 7: "G", 8: "H", 9: "I"}

func teams() []any {
	var vs []any
	for _, id := range []int{alpha, bravo, charlie, delta, echo} {
		short := letters[id]
		crest := fmt.Sprintf("https://crests.example/%d.svg", id)
		vs = append(vs, &model.Team{ID: id, Name: map[int]string{alpha: "Alpha FC", bravo: "Bravo FC",
			charlie: "Charlie FC", delta: "Delta FC", echo: "Echo FC"}[id], ShortName: &short, CrestURL: &crest})
	}
	return vs
}

// league returns competition id with the four teams and the given rules.
func league(id, year int, rules ...model.TieBreaker) *model.Competition {
	return &model.Competition{
		ID: id, Caption: fmt.Sprintf("Test League %d", year), League: "PL", Year: year,
		Type: model.TypeLeague, NumberOfMatchdays: 6, Tier: model.TierAnonymous,
		Teams: []model.CompetitionTeam{{TeamID: alpha}, {TeamID: bravo}, {TeamID: charlie}, {TeamID: delta}},
		Rules: model.TableRules{PointsWin: 3, PointsDraw: 1, TieBreakers: rules},
	}
}

// kickoff is the default kick-off of a matchday: weekly from t0.
func kickoff(md int) time.Time { return t0.Add(time.Duration(md-1) * 7 * 24 * time.Hour) }

// played is a finished regular fixture with a full-time score "h-a".
func played(id, comp, md, home, away int, score string) *model.Fixture {
	f := timed(id, comp, md, home, away, kickoff(md))
	sc, err := model.ParseScore("score", score)
	if err != nil {
		panic(err)
	}
	f.Status = model.Finished
	f.Result.FullTime = &sc
	return f
}

// timed is a regular fixture not played yet.
func timed(id, comp, md, home, away int, at time.Time) *model.Fixture {
	return &model.Fixture{ID: id, CompetitionID: comp, Matchday: md, Stage: model.Regular,
		Kickoff: at, HomeTeamID: home, AwayTeamID: away, Status: model.Timed}
}

// rowLines renders a table as "group:team position rank points" lines
// ("team position rank points" in a league), short names as team letters.
func rowLines(t readmodel.Table) []string {
	var lines []string
	for _, st := range t.Standings {
		for _, r := range st.Rows {
			prefix := ""
			if st.Group != "" {
				prefix = st.Group + ":"
			}
			lines = append(lines, fmt.Sprintf("%s%s %d %d %d", prefix, letters[r.TeamID], r.Position, r.Rank, r.Points))
		}
	}
	return lines
}

// checkTable verifies what must hold in any table, whatever the data:
// returns a description of the first violation, or "".
func checkTable(t readmodel.Table, rules model.TableRules) string {
	// After a split into sections, a team may have more points than one
	// placed above it in another section.
	sections := len(rules.Phases) > 0 && rules.Phases[0].Kind == model.PhaseSection && t.Matchday > rules.RegularMatchdays
	for _, st := range t.Standings {
		goals, against := 0, 0
		for i, r := range st.Rows {
			switch {
			case r.Position != i+1 && st.Group != model.RegularSeason:
				return fmt.Sprintf("group %q row %d: position %d", st.Group, i, r.Position)
			case r.Rank != 0 && (r.Rank > r.Position || (i > 0 && r.Rank < st.Rows[i-1].Rank)):
				return fmt.Sprintf("group %q row %d: rank %d after %v", st.Group, i, r.Rank, st.Rows[:i])
			case r.PlayedGames != r.Wins+r.Draws+r.Losses:
				return fmt.Sprintf("team %d: played %d != %d+%d+%d", r.TeamID, r.PlayedGames, r.Wins, r.Draws, r.Losses)
			case r.Points != r.Wins*rules.PointsWin+r.Draws*rules.PointsDraw+r.PointsAdjustment+r.CarriedPoints:
				return fmt.Sprintf("team %d: points %d from %dW %dD %+d %+d", r.TeamID, r.Points, r.Wins, r.Draws, r.PointsAdjustment, r.CarriedPoints)
			case r.Goals != r.Home.Goals+r.Away.Goals || r.GoalsAgainst != r.Home.GoalsAgainst+r.Away.GoalsAgainst:
				return fmt.Sprintf("team %d: goals %d:%d do not add up from home and away", r.TeamID, r.Goals, r.GoalsAgainst)
			case r.Wins != r.Home.Wins+r.Away.Wins || r.Draws != r.Home.Draws+r.Away.Draws || r.Losses != r.Home.Losses+r.Away.Losses:
				return fmt.Sprintf("team %d: results do not add up from home and away", r.TeamID)
			case r.GoalDifference != r.Goals-r.GoalsAgainst:
				return fmt.Sprintf("team %d: goal difference %d", r.TeamID, r.GoalDifference)
			case i > 0 && r.Points > st.Rows[i-1].Points && !sections:
				return fmt.Sprintf("team %d: %d points below %d", r.TeamID, r.Points, st.Rows[i-1].Points)
			}
			goals += r.Goals
			against += r.GoalsAgainst
		}
		// The thirds, and the teams left out of the play-offs, are parts of
		// tables: their goals need not balance.
		if goals != against && st.Group != model.Thirds && st.Group != model.RegularSeason {
			return fmt.Sprintf("group %q: %d goals scored, %d conceded", st.Group, goals, against)
		}
	}
	return ""
}

// expectTable applies the test teams, comp and entities to a new model and
// checks comp's table at matchday: its rows as rowLines gives them, and
// what must hold in any table.
func expectTable(t *testing.T, comp *model.Competition, entities []any, matchday int, want []string) {
	t.Helper()
	f := newFeed(t, t0)
	f.put(teams()...)
	f.put(comp)
	f.put(entities...)
	f.m.MarkReady()
	table, ok := f.snap().Table(comp.ID, matchday)
	if !ok {
		t.Fatal("competition not found")
	}
	if table.Matchday != matchday {
		t.Errorf("matchday: got %d, want %d", table.Matchday, matchday)
	}
	if got := rowLines(table); !equalLines(got, want) {
		t.Errorf("table:\n got %q\nwant %q", got, want)
	}
	if msg := checkTable(table, comp.Rules); msg != "" {
		t.Error(msg)
	}
}

func equalLines(got, want []string) bool {
	return strings.Join(got, "\n") == strings.Join(want, "\n")
}
