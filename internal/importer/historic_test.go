package importer_test

import (
	"context"
	"sort"
	"strconv"
	"testing"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// v1Clubs are the clubs of the seasons TestHistoricIDsOfRealSeasons
// imports, under every spelling their sources use (openfootball first,
// then engsoccerdata's and footballcsv's where they differ), each with the
// id the historic v1 service gave it (../shared/spec/v1-ids.md and the v1
// samples). 0 would be a club with no known v1 id.
var v1Clubs = map[string]int{
	// Premier League 2016-17 and 2017-18.
	"AFC Bournemouth": 1044, "Arsenal FC": 57, "Brighton & Hove Albion": 397, "Burnley FC": 328,
	"Chelsea FC": 61, "Crystal Palace": 354, "Everton FC": 62, "Huddersfield Town": 394, "Hull City": 322,
	"Leicester City": 338, "Liverpool FC": 64, "Manchester City": 65, "Manchester United": 66,
	"Middlesbrough FC": 343, "Newcastle United": 67, "Southampton FC": 340, "Stoke City": 70,
	"Sunderland AFC": 71, "Swansea City": 72, "Tottenham Hotspur": 73, "Watford FC": 346,
	"West Bromwich Albion": 74, "West Ham United": 563,
	"Brighton": 397, "Huddersfield": 394, "Hull": 322, "Leicester": 338, "Man City": 65,
	"Man United": 66, "Newcastle": 67, "Stoke": 70, "Swansea": 72, "Tottenham": 73,
	"West Brom": 74, "West Ham": 563,
	// Primera División 2017-18.
	"Athletic Club": 77, "Atlético Madrid": 78, "CD Alavés": 263, "CD Leganés": 745,
	"Deportivo La Coruña": 560, "Espanyol Barcelona": 80, "FC Barcelona": 81, "Getafe CF": 82,
	"Girona FC": 298, "Levante UD": 88, "Málaga CF": 84, "RC Celta": 558, "Real Betis": 90,
	"Real Madrid": 86, "Real Sociedad": 92, "SD Eibar": 278, "Sevilla FC": 559, "UD Las Palmas": 275,
	"Valencia CF": 95, "Villarreal CF": 94,
	"Athletic Bilbao": 77, "Atletico Madrid": 78, "CD Alaves": 263, "CD Leganes": 745,
	"Deportivo La Coruna": 560, "Malaga CF": 84, "Celta Vigo": 558,
	"Alaves": 263, "Ath Bilbao": 77, "Ath Madrid": 78, "Betis": 90, "Celta": 558,
	"Eibar": 278, "Espanol": 80, "Getafe": 82, "La Coruna": 560, "Las Palmas": 275, "Leganes": 745,
	"Levante": 88, "Malaga": 84, "Sevilla": 559, "Sociedad": 92, "Valencia": 95, "Villarreal": 94,
	// World Cup 2018.
	"Argentina": 762, "Australia": 779, "Belgium": 805, "Brazil": 764, "Colombia": 818,
	"Costa Rica": 793, "Croatia": 799, "Denmark": 782, "Egypt": 825, "England": 770, "France": 773,
	"Germany": 759, "Iceland": 1066, "Iran": 840, "Japan": 766, "Mexico": 769, "Morocco": 815,
	"Nigeria": 776, "Panama": 1836, "Peru": 832, "Poland": 794, "Portugal": 765, "Russia": 808,
	"Saudi Arabia": 801, "Senegal": 804, "Serbia": 780, "South Korea": 772, "Spain": 760,
	"Sweden": 792, "Switzerland": 788, "Tunisia": 802, "Uruguay": 758,
}

// TestHistoricIDsOfRealSeasons imports the seasons real v1 clients asked
// for most (Premier League 2016-17 and 2017-18, Primera División 2017-18,
// World Cup 2018) through the importer, then the leagues' seasons again
// from engsoccerdata and footballcsv, whose spellings differ ("Atletico
// Madrid", "Ath Madrid", "Man United"), and compares the id of every club,
// under every spelling, with the id the historic service gave it: right,
// wrong, or absent (no v1 id known: then it must hold none of the ids the
// historic service is known to have used). Spellings of one club give one
// team: the other sources add none.
func TestHistoricIDsOfRealSeasons(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	importAll(t, s,
		ofFile(t, "openfootball-football-json/2016-17/en.1.json"),
		ofFile(t, "openfootball-football-json/2017-18/en.1.json"),
		ofFile(t, "openfootball-football-json/2017-18/es.1.json"),
		ofFile(t, "openfootball-worldcup-json/2018/worldcup.json"))
	natstest.Import(t, s, "engsoccerdata", importer.Options{From: 2017, To: 2017},
		natstest.SharedData(t, "engsoccerdata/data-raw/spain.csv"))
	natstest.Import(t, s, "footballcsv", importer.Options{},
		natstest.SharedData(t, "footballcsv-cache.footballdata/2016-17/eng.1.csv"),
		natstest.SharedData(t, "footballcsv-cache.footballdata/2017-18/eng.1.csv"),
		natstest.SharedData(t, "footballcsv-cache.footballdata/2017-18/es.1.csv"))
	w := load(t, s)

	for key, want := range map[string]int{"PL/2016": 426, "PL/2017": 445, "PD/2017": 455, "WC/2018": 467} {
		if got := w.comps[key].ID; got != want {
			t.Errorf("competition %s has id %d, want %d", key, got, want)
		}
	}
	for _, key := range []string{"PL/2016", "PL/2017", "PD/2017"} {
		if n := len(w.comps[key].Teams); n != 20 {
			t.Errorf("%s has %d teams after three sources, want 20", key, n)
		}
	}
	used := map[int]bool{} // the ids the historic service is known to have used
	for id := range natstest.V1TeamIDs(t) {
		used[id] = true
	}
	for _, id := range v1Clubs {
		used[id] = true
	}

	// Every spelling's team, as the importers find it: through the
	// teamname claims. A club (its v1 id, or a spelling without one) is
	// right when all its spellings give its v1 id.
	ctx := context.Background()
	spellings := make([]string, 0, len(v1Clubs))
	for name := range v1Clubs {
		spellings = append(spellings, name)
	}
	sort.Strings(spellings)
	clubWrong := map[string]bool{}
	for _, name := range spellings {
		want := v1Clubs[name]
		club := name
		if want != 0 {
			club = strconv.Itoa(want)
		}
		got := 0
		if rev, err := s.Get(ctx, events.TeamNameSubject(name)); err == nil {
			tn, err := events.Decode[model.TeamName](rev.Data)
			if err != nil {
				t.Fatal(err)
			}
			got = tn.TeamID
		}
		switch {
		case got == 0:
			t.Errorf("%s: no team has the name", name)
		case want == 0 && used[got]:
			t.Errorf("%s has no v1 id but holds the historic id %d", name, got)
		case want != 0 && got != want:
			t.Errorf("%s has id %d, want its v1 id %d", name, got, want)
		default:
			if _, seen := clubWrong[club]; !seen {
				clubWrong[club] = false
			}
			continue
		}
		clubWrong[club] = true
	}
	var right, wrong, absent int
	for club, bad := range clubWrong {
		_, unnamed := v1Clubs[club] // a spelling: the club has no v1 id
		switch {
		case bad:
			wrong++
		case unnamed:
			absent++
		default:
			right++
		}
	}
	t.Logf("historic ids of %d clubs (%d spellings): %d right, %d wrong, %d absent", len(clubWrong), len(spellings), right, wrong, absent)

	clubs := map[int]bool{}
	for _, id := range v1Clubs {
		clubs[id] = true
	}
	for id, tm := range w.teams {
		if !clubs[id] {
			t.Errorf("team %d %q: its id is no v1 id of the clubs of the seasons", id, tm.Name)
		}
	}
	if len(w.teams) != len(clubs) {
		t.Errorf("%d teams, want %d clubs", len(w.teams), len(clubs))
	}
}

// TestFeedPlacesHistoricSpellings: a feed that holds back names no team
// has (Options.HoldUnknownTeams) places a club's other spellings through
// the historic table ("Man United" is 66, which the stream has as
// "Manchester United FC"), and holds back only what no table knows.
func TestFeedPlacesHistoricSpellings(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	natstest.Import(t, s, "openfootball", importer.Options{}, natstest.SharedData(t, "openfootball-football-json", "2025-26", "en.1.json"))
	sum := natstest.Import(t, s, "football-data", importer.Options{HoldUnknownTeams: true},
		natstest.SharedData(t, "datasets-football-datasets", "datasets", "premier-league", "season-2526.csv"))
	if len(sum.HeldBack) != 0 || sum.Teams.Created != 0 {
		t.Errorf("held back %v and created %d teams; want every club placed and none created", sum.HeldBack, sum.Teams.Created)
	}
	if n := len(natstest.All[model.Team](t, s, events.KindTeam)); n != 20 {
		t.Errorf("%d teams after both sources, want 20", n)
	}
}
