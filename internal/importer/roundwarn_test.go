package importer_test

import (
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestUnknownRoundWarns: a round name the stage table does not know is
// imported, with a warning naming the file and the round; known names are
// imported without one.
func TestUnknownRoundWarns(t *testing.T) {
	match := func(round, team1, team2 string) string {
		return `{"round":"` + round + `","date":"2025-05-20","time":"20:00","team1":"` + team1 + `","team2":"` + team2 + `","score":{"ft":[1,0]}}`
	}
	body := []byte(`{"name":"Cup","matches":[` + match("Round of 16", "Alpha FC", "Beta FC") + `,` +
		match("Finals, Consolation", "Gamma FC", "Delta FC") + `,` + match("Final", "Alpha FC", "Gamma FC") + `]}`)
	s := natstest.MustOpen(t, natstest.MustStart(t))
	im := newImporter(t, s)
	importDoc(t, im, "openfootball", "2024-25/de.cup.json", body, importer.Options{})
	var got []string
	for _, w := range im.Summary.Warnings {
		if strings.Contains(w.Kind, "stage table") {
			got = append(got, w.String())
		}
	}
	want := `2024-25/de.cup.json: DFB 2024: round "Finals, Consolation" (line 2), served as PLAYOFFS`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q, want one: %q", got, want)
	}
	if n := len(natstest.All[model.Fixture](t, s, events.KindFixture)); n != 3 || len(im.Summary.Rejected) > 0 {
		t.Errorf("%d fixtures imported, rejected %v; want all 3", n, im.Summary.Rejected)
	}
}
