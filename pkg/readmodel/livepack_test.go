package readmodel

import (
	"reflect"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// TestPackKeepsEveryStatusAndLiveField packs and unpacks a fixture in
// every status, with a live match's minute and stoppage time: the compact
// form must give back what it was given (but the fields it keeps
// elsewhere or not at all).
func TestPackKeepsEveryStatusAndLiveField(t *testing.T) {
	strs := newInterner()
	for _, st := range model.Statuses {
		f := model.Fixture{ID: 7, CompetitionID: 3, Matchday: 12, Stage: model.Playoff, Group: "A", Round: "Final",
			Kickoff: time.Date(2026, 5, 30, 16, 0, 0, 0, time.UTC), HomeTeamID: 1, AwayTeamID: 2, Status: st,
			Result: model.Result{FullTime: &model.Score{Home: 1, Away: 1}, HalfTime: &model.Score{Home: 0, Away: 1}},
			Minute: 120, InjuryTime: 30, Awarded: model.Draw, Odds: &model.Odds{HomeWin: 2, Draw: 3, AwayWin: 4}}
		var sc scores
		got := pack(&f, 1, 1, &strs).unpack(strs.list, &sc)
		if !reflect.DeepEqual(got, f) {
			t.Errorf("%s: unpacked\n%+v\nwant\n%+v", st, got, f)
		}
	}
}
