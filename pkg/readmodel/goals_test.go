package readmodel_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// scored is a finished fixture of comp with its goals, the score they make.
func scored(id, comp, md, home, away int, goals ...model.Goal) *model.Fixture {
	var h, a int
	for _, g := range goals {
		if g.Side == model.Home {
			h++
		} else {
			a++
		}
	}
	f := played(id, comp, md, home, away, fmt.Sprintf("%d-%d", h, a))
	f.Goals = goals
	return f
}

func goal(minute int, side model.Side, typ model.GoalType, scorer int, name string) model.Goal {
	return model.Goal{Minute: minute, Side: side, Type: typ, ScorerID: scorer, Scorer: name}
}

// scorerLines renders scorers as "name team goals/penalties/matches".
func scorerLines(list []readmodel.Scorer) []string {
	out := []string{}
	for _, s := range list {
		out = append(out, fmt.Sprintf("%d %s %s %d/%d/%d", s.PersonID, s.Name, letters[s.TeamID], s.Goals, s.Penalties, s.Matches))
	}
	return out
}

func fixtureIDs(fs []readmodel.Fixture) []int {
	out := []int{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// goalsWorld is a league whose fixtures have goals: persons 100 (a person
// event, also in a squad), 101 (a squad player only), 102 (a scorer no
// event names), a scorer without id, penalties and an own goal.
func goalsWorld(t *testing.T) *feed {
	f := newFeed(t, kickoff(4))
	f.put(teams()...)
	f.put(league(10, 2017))
	shirt := 9
	f.put(&model.Squad{TeamID: alpha, Players: []model.Player{
		{ID: 100, Name: "Kane (squad)", Position: "Offence", Nationality: "England", JerseyNumber: &shirt},
		{ID: 101, Name: "Son", Position: "Offence", Nationality: "Korea Republic"},
	}})
	f.put(&model.Person{ID: 100, Name: "Harry Kane", TeamID: alpha, Aliases: []string{"Kane"}})
	f.put(
		scored(1, 10, 1, alpha, bravo,
			goal(10, model.Home, model.GoalRegular, 100, "Kane"),
			goal(45, model.Home, model.GoalPenalty, 100, "Kane"),
			goal(80, model.Away, model.GoalRegular, 0, "Nobody Known")),
		scored(2, 10, 2, charlie, alpha,
			goal(5, model.Away, model.GoalOwn, 102, "Own Goaler"),
			goal(60, model.Away, model.GoalRegular, 101, "Son"),
			goal(70, model.Home, model.GoalRegular, 102, "Own Goaler")),
		scored(3, 10, 3, alpha, delta, goal(30, model.Home, model.GoalPenalty, 100, "Kane")),
	)
	return f
}

func TestScorers(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(f *feed)
		limit int
		want  []string
	}{
		{"regular and penalty goals count, own goals for nobody; ties by name", nil, 0, []string{
			"100 Harry Kane A 3/2/2", "0 Nobody Known B 1/0/1", "102 Own Goaler C 1/0/1", "101 Son A 1/0/1"}},
		{"limit", nil, 2, []string{"100 Harry Kane A 3/2/2", "0 Nobody Known B 1/0/1"}},
		{"a person event renames the scorer", func(f *feed) { f.put(&model.Person{ID: 101, Name: "Heung-min Son", TeamID: alpha}) }, 0, []string{
			"100 Harry Kane A 3/2/2", "101 Heung-min Son A 1/0/1", "0 Nobody Known B 1/0/1", "102 Own Goaler C 1/0/1"}},
		{"an edit that drops a fixture's goals takes them out", func(f *feed) { f.put(played(3, 10, 3, alpha, delta, "1-0")) }, 0, []string{
			"100 Harry Kane A 2/1/1", "0 Nobody Known B 1/0/1", "102 Own Goaler C 1/0/1", "101 Son A 1/0/1"}},
		// Byte order put an accented name after every ASCII one, and the
		// cut dropped him.
		{"ties by the collation of a person's name", func(f *feed) { f.put(&model.Person{ID: 101, Name: "Álvaro Morata", TeamID: alpha}) }, 2, []string{
			"100 Harry Kane A 3/2/2", "101 Álvaro Morata A 1/0/1"}},
		{"ties by the collation of a name the goals wrote", func(f *feed) {
			f.put(scored(3, 10, 3, alpha, delta, goal(30, model.Home, model.GoalPenalty, 100, "Kane"), goal(40, model.Away, model.GoalRegular, 0, "Ødegaard")))
		}, 0, []string{"100 Harry Kane A 3/2/2", "0 Nobody Known B 1/0/1", "0 Ødegaard D 1/0/1", "102 Own Goaler C 1/0/1", "101 Son A 1/0/1"}},
		{"accents and case count only where the letters tie", func(f *feed) {
			f.put(&model.Person{ID: 101, Name: "Ángel Nobody", TeamID: alpha})
			f.put(&model.Person{ID: 102, Name: "angel nobody", TeamID: charlie})
		}, 0, []string{"100 Harry Kane A 3/2/2", "102 angel nobody C 1/0/1", "101 Ángel Nobody A 1/0/1", "0 Nobody Known B 1/0/1"}},
		{"a fixture moved to another competition takes its goals along", func(f *feed) {
			f.put(league(11, 2018))
			moved := scored(3, 11, 3, alpha, delta, goal(30, model.Home, model.GoalPenalty, 100, "Kane"))
			f.put(moved)
		}, 0, []string{"100 Harry Kane A 2/1/1", "0 Nobody Known B 1/0/1", "102 Own Goaler C 1/0/1", "101 Son A 1/0/1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := goalsWorld(t)
			f.m.MarkReady()
			if c.edit != nil {
				c.edit(f)
			}
			got, ok := f.snap().Scorers(10, c.limit)
			if !ok || !reflect.DeepEqual(scorerLines(got), c.want) {
				t.Errorf("scorers %v (%v), want %v", scorerLines(got), ok, c.want)
			}
			// A fresh replay of the same stream agrees with the edits.
			fresh := f.replay()
			again, _ := fresh.Scorers(10, c.limit)
			if !reflect.DeepEqual(scorerLines(again), scorerLines(got)) {
				t.Errorf("replayed: %v, live: %v", scorerLines(again), scorerLines(got))
			}
		})
	}
	if _, ok := goalsWorld(t).snap().Scorers(99, 0); ok {
		t.Error("scorers of a competition that does not exist")
	}
}

// replay is a fresh model of the stream as a replay sees it.
func (f *feed) replay() readmodel.Snapshot {
	g := newFeed(f.tb, f.clock.Now())
	for seq := uint64(1); seq <= f.seq; seq++ {
		for _, ev := range f.last {
			if ev.Seq == seq {
				g.m.Apply(ev)
			}
		}
	}
	g.m.MarkReady()
	return g.snap()
}

func TestPersons(t *testing.T) {
	f := goalsWorld(t)
	f.m.MarkReady()
	s := f.snap()
	for _, c := range []struct {
		name     string
		id       int
		found    bool
		want     string // id name team nationality position shirt
		fixtures []int
	}{
		{"a person event wins over the squad, which gives the shirt", 100, true, "100 Harry Kane A England Offence 9", []int{3, 1}},
		{"a squad player without an event", 101, true, "101 Son A Korea Republic Offence -", []int{2}},
		{"a scorer only his goals name; an own goal is a match he played", 102, true, "102 Own Goaler -   -", []int{2}},
		{"nobody", 103, false, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := s.Person(c.id)
			if ok != c.found {
				t.Fatalf("found %v, want %v", ok, c.found)
			}
			if !ok {
				return
			}
			shirt := "-"
			if p.ShirtNumber != nil {
				shirt = fmt.Sprint(*p.ShirtNumber)
			}
			team := letters[p.TeamID]
			if team == "" {
				team = "-"
			}
			got := strings.Join([]string{fmt.Sprint(p.ID), p.Name, team, p.Nationality, p.Position, shirt}, " ")
			if got != c.want {
				t.Errorf("person %q, want %q", got, c.want)
			}
			if ids := fixtureIDs(s.PersonFixtures(c.id)); !reflect.DeepEqual(ids, c.fixtures) {
				t.Errorf("fixtures %v, want %v (newest first)", ids, c.fixtures)
			}
		})
	}
	// A stale person event changes nothing; a player the squad lets go
	// is known by his goals alone.
	v := s.PersonsVersion()
	f.m.Apply(event(t, 1, &model.Person{ID: 100, Name: "Stale"}))
	if p, _ := f.snap().Person(100); p.Name != "Harry Kane" || f.snap().PersonsVersion() != v {
		t.Errorf("stale person event applied: %q", p.Name)
	}
	f.put(&model.Squad{TeamID: alpha, Players: []model.Player{{ID: 100, Name: "Kane (squad)", Position: "Offence", Nationality: "England"}}})
	if p, ok := f.snap().Person(101); !ok || p.TeamID != 0 || p.Nationality != "" || f.snap().PersonsVersion() == v {
		t.Errorf("player 101 left the squad: %+v %v, version %d", p, ok, f.snap().PersonsVersion())
	}
}

// TestPersonEventOverSquad: a person event wins for each field it sets
// and leaves the squad's where it sets none; its time is the person's.
func TestPersonEventOverSquad(t *testing.T) {
	f := goalsWorld(t)
	born := model.Date("1992-07-08")
	f.put(&model.Person{ID: 101, Name: "Heung-min Son", Position: "Midfield", DateOfBirth: &born})
	f.m.MarkReady()
	p, ok := f.snap().Person(101)
	if !ok {
		t.Fatal("person 101 not found")
	}
	got := fmt.Sprintf("%d %s %s %s %s %v %v", p.ID, p.Name, letters[p.TeamID], p.Nationality, p.Position, *p.DateOfBirth, p.LastUpdated)
	want := fmt.Sprintf("101 Heung-min Son A Korea Republic Midfield 1992-07-08 %v", t0.Add(time.Duration(f.seq)*time.Second))
	if got != want {
		t.Errorf("person %q, want %q", got, want)
	}
}

func TestFixtureGoalsAndVenue(t *testing.T) {
	f := goalsWorld(t)
	venue := played(4, 10, 4, bravo, charlie, "0-0")
	venue.Venue = "Wembley, London"
	f.put(venue)
	f.m.MarkReady()
	s := f.snap()
	one, _ := s.Fixture(1)
	four, _ := s.Fixture(4)
	list, _ := s.CompetitionFixtures(10, readmodel.FixtureFilter{})
	if len(one.Goals) != 3 || one.Goals[1].Type != model.GoalPenalty || four.Venue != "Wembley, London" || four.Goals != nil {
		t.Errorf("fixture 1 goals %v, fixture 4 venue %q goals %v", one.Goals, four.Venue, four.Goals)
	}
	if len(list) != 4 || list[0].Goals != nil || list[3].Venue != "" {
		t.Errorf("a list carries goals or venues: %v %q", list[0].Goals, list[3].Venue)
	}
	if g := s.Goals(2); len(g) != 3 || g[0].Type != model.GoalOwn || s.Goals(4) != nil {
		t.Errorf("Goals(2) %v, Goals(4) %v", g, s.Goals(4))
	}
}

// goalsSeason is a 20-team league's season of 38 matchdays in which every
// fixture has three goals: squads of 20, a person event for every other
// player, and scorers 9000 and up known by their goals alone.
func goalsSeason(tb testing.TB) *feed {
	f := newFeed(tb, kickoff(40))
	comp := &model.Competition{ID: 10, Caption: "Goals League", League: "PL", Year: 2017, Type: model.TypeLeague,
		NumberOfMatchdays: 38, Tier: model.TierAnonymous, Rules: model.TableRules{PointsWin: 3, PointsDraw: 1}}
	for team := 1; team <= 20; team++ {
		f.put(&model.Team{ID: team, Name: fmt.Sprintf("Club %d", team)})
		comp.Teams = append(comp.Teams, model.CompetitionTeam{TeamID: team})
		sq := &model.Squad{TeamID: team}
		for k := range 20 {
			sq.Players = append(sq.Players, model.Player{ID: team*100 + k, Name: fmt.Sprintf("Player %d", team*100+k), Position: "Offence"})
		}
		f.put(sq)
		for k := 0; k < 20; k += 2 {
			f.put(&model.Person{ID: team*100 + k, Name: fmt.Sprintf("Person %d", team*100+k), TeamID: team})
		}
	}
	f.put(comp)
	id := 0
	for md := 1; md <= 38; md++ {
		for i := range 10 {
			id++
			home, away := (i+md)%20+1, (19-i+md)%20+1
			f.put(scored(id, 10, md, home, away,
				goal(10, model.Home, model.GoalRegular, home*100+md%20, "H"),
				goal(50, model.Away, model.GoalPenalty, away*100+i, "A"),
				goal(80, model.Home, model.GoalRegular, 9000+id%50, fmt.Sprintf("Goals Only %d", id%50))))
		}
	}
	f.m.MarkReady()
	return f
}

// BenchmarkScorers times an edit of one fixture's goals, which rebuilds
// its competition (table and scorers' tally), and the scorers read after.
func BenchmarkScorers(b *testing.B) {
	f := goalsSeason(b)
	edits := []events.Event{
		event(b, 0, scored(1, 10, 1, 2, 1, goal(10, model.Home, model.GoalRegular, 201, "H"))),
		event(b, 0, scored(1, 10, 1, 2, 1, goal(10, model.Away, model.GoalOwn, 201, "H"), goal(20, model.Away, model.GoalRegular, 9999, "New"))),
	}
	seq := f.seq
	for i := 0; b.Loop(); i++ {
		seq++
		ev := edits[i%2]
		ev.Seq = seq
		f.m.Apply(ev)
		list, _ := f.snap().Scorers(10, 0)
		if !slices.ContainsFunc(list, func(s readmodel.Scorer) bool { return s.PersonID == 9999 }) != (i%2 == 0) {
			b.Fatalf("edit %d: scorer 9999 %v", i, list)
		}
	}
}

// BenchmarkScorersRead times the read alone, as a response cache miss
// pays it: names resolved, collated where the person's name is not the
// goals', sorted.
func BenchmarkScorersRead(b *testing.B) {
	s := goalsSeason(b).snap()
	b.ReportAllocs()
	for b.Loop() {
		if list, _ := s.Scorers(10, 0); len(list) == 0 {
			b.Fatal("no scorers")
		}
	}
}

// BenchmarkPerson reads a person of each source: an event and a squad, a
// squad alone, goals alone.
func BenchmarkPerson(b *testing.B) {
	s := goalsSeason(b).snap()
	for _, c := range []struct {
		name string
		id   int
	}{{"event+squad", 1510}, {"squad", 1511}, {"goals", 9025}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := s.Person(c.id); !ok {
					b.Fatalf("no person %d", c.id)
				}
			}
		})
	}
}
