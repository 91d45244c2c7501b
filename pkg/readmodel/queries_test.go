package readmodel_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

var emptyFilter readmodel.FixtureFilter

func timeFrame(from, to time.Time) readmodel.FixtureFilter {
	return readmodel.FixtureFilter{From: from, To: to}
}

// seasons feeds two leagues over two seasons and a cup.
func seasons(t *testing.T) *feed {
	f := newFeed(t, date(2017, 9, 1))
	f.put(teams()...)
	bl := league(30, 2017, gd)
	bl.League = "BL1"
	cup := league(40, 2017)
	cup.Type, cup.League = model.TypeCup, "FAC"
	f.put(league(10, 2016, gd), league(20, 2017, gd), bl, cup,
		meeting(1, 10, alpha, bravo, "1-0", date(2016, 8, 13)),
		meeting(2, 10, charlie, alpha, "0-0", date(2016, 8, 20)),
		meeting(3, 20, bravo, alpha, "2-2", date(2017, 8, 12)),
		timed(4, 20, 2, alpha, delta, date(2017, 9, 2)),
		timed(5, 20, 1, charlie, delta, date(2017, 9, 2).Add(-2*time.Hour)),
		timed(6, 30, 1, echo, bravo, date(2017, 9, 2)),
		timed(7, 40, 1, alpha, echo, date(2017, 9, 5)),
	)
	return f
}

func TestFixtureQueries(t *testing.T) {
	f := seasons(t)
	f.m.MarkReady()
	s := f.snap()

	if fx, ok := s.Fixture(3); !ok || fx.HomeTeamName != "Bravo FC" || fx.AwayTeamName != "Alpha FC" || fx.Status != model.Finished ||
		fx.Result.FullTime.Home != 2 || !fx.Kickoff.Equal(date(2017, 8, 12)) {
		t.Errorf("fixture 3: %+v %v", fx, ok)
	}
	if _, ok := s.Fixture(99); ok {
		t.Error("unknown fixture found")
	}
	tests := []struct {
		name string
		got  func() ([]readmodel.Fixture, bool)
		want []int
	}{
		{"competition, date order", func() ([]readmodel.Fixture, bool) { return s.CompetitionFixtures(20, emptyFilter) }, []int{3, 5, 4}},
		{"competition and matchday", func() ([]readmodel.Fixture, bool) {
			return s.CompetitionFixtures(20, readmodel.FixtureFilter{Matchday: 1})
		}, []int{3, 5}},
		{"competition, matchday beyond its fixtures", func() ([]readmodel.Fixture, bool) {
			return s.CompetitionFixtures(20, readmodel.FixtureFilter{Matchday: 9})
		}, nil},
		{"competition and time frame", func() ([]readmodel.Fixture, bool) {
			return s.CompetitionFixtures(20, timeFrame(date(2017, 9, 1), date(2017, 9, 30)))
		}, []int{5, 4}},
		{"team across seasons and competitions", func() ([]readmodel.Fixture, bool) { return s.TeamFixtures(alpha, emptyFilter) }, []int{1, 2, 3, 4, 7}},
		{"team in a season", func() ([]readmodel.Fixture, bool) {
			return s.TeamFixtures(alpha, readmodel.FixtureFilter{Season: 2016})
		}, []int{1, 2}},
		{"team at home", func() ([]readmodel.Fixture, bool) {
			return s.TeamFixtures(alpha, readmodel.FixtureFilter{Venue: model.Home})
		}, []int{1, 4, 7}},
		{"team away in a season", func() ([]readmodel.Fixture, bool) {
			return s.TeamFixtures(alpha, readmodel.FixtureFilter{Venue: model.Away, Season: 2017})
		}, []int{3}},
		{"team in a time frame", func() ([]readmodel.Fixture, bool) {
			return s.TeamFixtures(alpha, timeFrame(date(2016, 8, 20), date(2017, 9, 2)))
		}, []int{2, 3, 4}},
		{"calendar, one day", func() ([]readmodel.Fixture, bool) {
			return s.Fixtures(timeFrame(date(2017, 9, 2), date(2017, 9, 2))), true
		}, []int{5, 4, 6}},
		{"calendar, a range, some leagues", func() ([]readmodel.Fixture, bool) {
			return s.Fixtures(readmodel.FixtureFilter{From: date(2017, 9, 1), To: date(2017, 9, 7), Leagues: []model.LeagueCode{"BL1", "FAC"}}), true
		}, []int{6, 7}},
		{"calendar, an unused league", func() ([]readmodel.Fixture, bool) {
			return s.Fixtures(readmodel.FixtureFilter{From: date(2017, 9, 1), To: date(2017, 9, 7), Leagues: []model.LeagueCode{"SA"}}), true
		}, nil},
		{"calendar, midnight bounds are whole days", func() ([]readmodel.Fixture, bool) {
			d := time.Date(2017, 9, 5, 0, 0, 0, 0, time.UTC)
			return s.Fixtures(timeFrame(d, d)), true
		}, []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.got()
			if !ok {
				t.Fatal("not found")
			}
			if fmt.Sprint(ids(got)) != fmt.Sprint(tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("got %v, want %v", ids(got), tt.want)
			}
		})
	}
	if _, ok := s.CompetitionFixtures(99, emptyFilter); ok {
		t.Error("unknown competition found")
	}
	if _, ok := s.TeamFixtures(99, emptyFilter); ok {
		t.Error("unknown team found")
	}
}

func TestCompetitionQueries(t *testing.T) {
	f := seasons(t)
	f.m.MarkReady()
	s := f.snap()
	var got []int
	for _, c := range s.Competitions(2017) {
		got = append(got, c.ID)
	}
	if fmt.Sprint(got) != "[20 30 40]" {
		t.Errorf("season 2017: got %v", got)
	}
	if len(s.Competitions(1999)) != 0 || s.SeasonVersion(1999) != 0 {
		t.Error("an empty season has competitions")
	}
	c, ok := s.Competition(20)
	if !ok || c.NumberOfGames != 3 || c.NumberOfTeams() != 4 || c.LastMatchday != 6 || c.LastUpdated.IsZero() {
		t.Errorf("competition 20: %+v", c)
	}
	if k, ok := s.CompetitionKey(20); !ok || k != (readmodel.CompetitionKey{ID: 20, Type: c.Type, Tier: c.Tier, Year: c.Year, Version: c.Version}) {
		t.Errorf("key of competition 20: %+v, competition %+v", k, c)
	}
	if _, ok := s.CompetitionKey(999); ok {
		t.Error("key of a competition that does not exist")
	}
	// The copy is the caller's.
	c.Teams[0].TeamID = 999
	if again, _ := s.Competition(20); again.Teams[0].TeamID == 999 {
		t.Error("a caller changed the model through a returned competition")
	}
	list, _ := s.CompetitionTeams(20)
	if len(list) != 4 || list[0].Name != "Alpha FC" {
		t.Errorf("teams: %+v", list)
	}
}

func TestTeamQueries(t *testing.T) {
	f := seasons(t)
	f.m.MarkReady()
	s := f.snap()
	tests := []struct {
		team     int
		wantComp int
		league   model.LeagueCode
	}{
		{alpha, 20, "PL"}, // 2017: two leagues and a cup; the league of lower id
		{echo, 30, "BL1"}, // listed nowhere; plays in a league and a cup
		{delta, 20, "PL"}, // listed in both seasons
	}
	for _, tt := range tests {
		tm, ok := s.Team(tt.team)
		if !ok || tm.CurrentCompetition != tt.wantComp || tm.CurrentLeague != tt.league {
			t.Errorf("team %d: current %d %s, want %d %s", tt.team, tm.CurrentCompetition, tm.CurrentLeague, tt.wantComp, tt.league)
		}
	}
	tm, _ := s.Team(alpha)
	*tm.ShortName = "changed"
	if again, _ := s.Team(alpha); *again.ShortName != "A" {
		t.Error("a caller changed the model through a returned team")
	}
	var found []int
	for _, tm := range s.SearchTeams("FC", model.TierDonating) {
		found = append(found, tm.ID)
	}
	if fmt.Sprint(found) != "[1 2 3 4 5]" {
		t.Errorf("search FC: %v", found)
	}
	for q, want := range map[string]string{"lph": "[1]", "ALPHA fc": "[1]", "e": "[3 4 5]", "c": "[1 2 3 4 5]", "zulu": "[]", "": "[1 2 3 4 5]"} {
		var got []int
		for _, tm := range s.SearchTeams(q, model.TierDonating) {
			got = append(got, tm.ID)
		}
		if fmt.Sprint(got) != want && !(len(got) == 0 && want == "[]") {
			t.Errorf("search %q: got %v, want %s", q, got, want)
		}
	}
	// Pages of every team, each once although the index holds its name
	// and its short name.
	for _, tt := range []struct {
		offset, limit int
		want          string
	}{{0, 50, "[1 2 3 4 5]"}, {0, 2, "[1 2]"}, {2, 2, "[3 4]"}, {4, 2, "[5]"}, {5, 2, "[]"}, {500, 1, "[]"}} {
		got := []int{}
		for _, tm := range s.Teams(tt.offset, tt.limit) {
			got = append(got, tm.ID)
		}
		if fmt.Sprint(got) != tt.want {
			t.Errorf("teams offset %d limit %d: got %v, want %s", tt.offset, tt.limit, got, tt.want)
		}
	}
	if _, ok := s.Team(99); ok {
		t.Error("unknown team found")
	}
}

func TestSquadsClientsLeagues(t *testing.T) {
	f := newFeed(t, t0)
	f.put(teams()...)
	shirt := 10
	squad := &model.Squad{TeamID: alpha, Players: []model.Player{{ID: 1, Name: "Ann", Position: "Keeper", JerseyNumber: &shirt, Nationality: "England"}}}
	active := &model.Client{Name: "app", Tier: model.TierDonating, PerMinute: 100, TokenHash: model.HashToken("abc")}
	revoked := &model.Client{Name: "old", Tier: model.TierRegistered, PerMinute: 50, TokenHash: model.HashToken("xyz"), Revoked: true}
	f.put(squad, active, revoked, &model.League{Code: "MLS", Name: "Major League Soccer", Country: "USA", Zone: "America/New_York"})
	f.m.MarkReady()
	s := f.snap()

	sq, ok := s.Squad(alpha)
	if !ok || len(sq.Players) != 1 || *sq.Players[0].JerseyNumber != 10 || sq.Version == 0 {
		t.Errorf("squad: %+v", sq)
	}
	*sq.Players[0].JerseyNumber = 99
	if again, _ := s.Squad(alpha); *again.Players[0].JerseyNumber != 10 {
		t.Error("a caller changed the model through a returned squad")
	}
	if _, ok := s.Squad(bravo); ok {
		t.Error("a team without squad has one")
	}
	if c, ok := s.Client(model.HashToken("abc")); !ok || !reflect.DeepEqual(c, *active) {
		t.Errorf("client: %+v %v", c, ok)
	}
	if _, ok := s.Client(model.HashToken("xyz")); ok {
		t.Error("a revoked client is found")
	}
	if l, ok := s.League("MLS"); !ok || l.Name != "Major League Soccer" {
		t.Errorf("added league: %+v", l)
	}
	if l, ok := s.League("BL1"); !ok || l.Country != "Germany" {
		t.Errorf("built-in league: %+v", l)
	}
	if n := len(s.Leagues()); n != len(model.BuiltinLeagues)+1 {
		t.Errorf("%d leagues", n)
	}

	// Revoking a client moves the clients' version and removes it.
	v := s.ClientsVersion()
	gone := *active
	gone.Revoked = true
	f.put(&gone)
	if s2 := f.snap(); s2.ClientsVersion() == v {
		t.Error("clients version did not move")
	} else if _, ok := s2.Client(model.HashToken("abc")); ok {
		t.Error("revoked client still found")
	}
	before, _ := f.snap().Squad(alpha)
	squad.Players[0].Name = "Anne"
	f.put(squad)
	if after, _ := f.snap().Squad(alpha); after.Version == before.Version || after.Players[0].Name != "Anne" {
		t.Errorf("squad after edit: %+v (version was %d)", after, before.Version)
	}
}
