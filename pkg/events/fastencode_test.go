package events

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// TestFastFixtureEncodeText: the shortcut writes text as encoding/json
// does, non-ASCII included, and declines what encoding/json escapes.
func TestFastFixtureEncodeText(t *testing.T) {
	for _, tc := range []struct {
		source string
		fast   bool
	}{
		{"openfootball:BL1:2015:1. Spieltag|1. FC Köln|VfL Wolfsburg", true},
		{"openfootball:PD:2015:Jornada 1|Atlético Madrid|UD Las Palmas", true},
		{"engsoccer:TUR:2001:Beşiktaş|Fenerbahçe", true},
		{"東京|大阪 ⚽ \U0001F600", true},
		{"valid replacement character \uFFFD", true},
		{"line\u2028separator", false},
		{"paragraph\u2029separator", false},
		{"invalid \xff byte", false},
		{"cut rune \xc3", false},
		{"Brighton & Hove Albion", false},
		{`quote " inside`, false},
		{"tab\tinside", false},
	} {
		f := &model.Fixture{ID: 1, CompetitionID: 2, Matchday: 3, Stage: model.Regular, Round: "Matchday 3",
			Kickoff: time.Date(2015, 8, 8, 14, 0, 0, 0, time.UTC), HomeTeamID: 4, AwayTeamID: 5, Status: model.Timed, Source: tc.source}
		got, ok := encodeFixture(nil, f)
		if ok != tc.fast {
			t.Errorf("%q: shortcut taken %v, want %v", tc.source, ok, tc.fast)
			continue
		}
		want, err := json.Marshal(envelope[any]{V: SchemaVersion, Data: f})
		if err != nil {
			t.Fatal(err)
		}
		if ok && string(got) != string(want) {
			t.Errorf("%q:\nfast %s\njson %s", tc.source, got, want)
		}
	}
}
