package importer

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// TestGoalsOf reads a match's goals as the files write them: each team's
// list apart, minutes as numbers with an offset or as "90+4", penalties
// and own goals, into one list in the order of play.
func TestGoalsOf(t *testing.T) {
	tests := []struct {
		name   string
		g1, g2 []ofGoal
		want   []string // Goal.String and side
		err    string   // the field of the error, if any
	}{
		{name: "order of play across both lists and stoppage time",
			g1:   []ofGoal{{Name: "Cheryshev", Minute: "90", Offset: 1}, {Name: "Dzyuba", Minute: "71"}},
			g2:   []ofGoal{{Name: "Salah", Minute: "90", Penalty: true}},
			want: []string{"71' Dzyuba HOME_TEAM", "90' Salah (pen.) AWAY_TEAM", "90+1' Cheryshev HOME_TEAM"}},
		{name: "an own goal counts for the list it is in",
			g2:   []ofGoal{{Name: "Rüdiger", Minute: "87", OwnGoal: true}},
			want: []string{"87' Rüdiger (o.g.) AWAY_TEAM"}},
		{name: "minutes written as strings", g1: []ofGoal{{Name: "Muheim", Minute: "90+4", OwnGoal: true}, {Name: "Embolo", Minute: "17"}},
			want: []string{"17' Embolo HOME_TEAM", "90+4' Muheim (o.g.) HOME_TEAM"}},
		{name: "past the 120th minute is extra time's stoppage", g2: []ofGoal{{Name: "Djabou", Minute: "121"}},
			want: []string{"120+1' Djabou AWAY_TEAM"}},
		{name: "not a minute", g1: []ofGoal{{Name: "X", Minute: "late"}}, err: "goal minute"},
		{name: "stoppage twice", g1: []ofGoal{{Name: "X", Minute: "90+2", Offset: 2}}, err: "goal minute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goals, err := goalsOf(ofMatch{Goals1: tt.g1, Goals2: tt.g2})
			if tt.err != "" {
				var e *model.Error
				if err == nil || !errors.As(err, &e) || e.Field != tt.err {
					t.Fatalf("err %v, want one of %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range goals {
				got = append(got, g.String()+" "+string(g.Side))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGoalsAndGroundAreDetails: goals that do not make the score and a
// ground too long to be one are left out of their match with a warning
// naming it; the match keeps everything else.
func TestGoalsAndGroundAreDetails(t *testing.T) {
	raw := []byte(`{"name":"World Cup 2018","matches":[
{"round":"Matchday 1","date":"2018-06-14","team1":"Russia","team2":"Saudi Arabia","score":{"ft":[1,0]},"group":"Group A",
 "goals1":[{"name":"Gazinsky","minute":12}],"ground":"` + strings.Repeat("x", model.MaxName+1) + `"},
{"round":"Matchday 1","date":"2018-06-15","team1":"Egypt","team2":"Uruguay","score":{"ft":[0,1]},"group":"Group A",
 "goals1":[{"name":"Giménez","minute":89}],"ground":"Central Stadium, Yekaterinburg"}]}`)
	pf, err := parseFile("2018/worldcup.json", raw, model.League{Code: "WC"}, 2018, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	ws := checkDetails(pf)
	russia, egypt := pf.matches[0], pf.matches[1]
	if russia.venue != "" || len(russia.goals) != 1 || russia.result.FullTime == nil {
		t.Errorf("Russia v Saudi Arabia: venue %q, goals %v, result %v", russia.venue, russia.goals, russia.result)
	}
	if egypt.venue != "Central Stadium, Yekaterinburg" || egypt.goals != nil || *egypt.result.FullTime != (model.Score{Home: 0, Away: 1}) {
		t.Errorf("Egypt v Uruguay: venue %q, goals %v, result %v", egypt.venue, egypt.goals, egypt.result)
	}
	var what []string
	for _, w := range ws {
		what = append(what, w.What)
	}
	if len(ws) != 2 || !strings.Contains(what[0], "ground: Russia v Saudi Arabia") || !strings.Contains(what[1], "goals: Egypt v Uruguay") {
		t.Errorf("warnings: %q", what)
	}
}
