package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TestFeedRule: a feed's document decides each field of a fixture others
// write too (kick-off, status, score) by one rule, the later change wins:
// a field the source says as it did when the feed last wrote it keeps
// the stored value and is a disagreement; a field the source changed, or
// says for the first time, is written. Each row is a match of one season
// document, which the feed writes, an editor edits, and the feed writes
// twice again: unchanged, then with the row's change of the source.
func TestFeedRule(t *testing.T) {
	inPlay := func(f *model.Fixture) {
		f.Status, f.Result = model.InPlay, model.Result{FullTime: &model.Score{Home: 1, Away: 0}}
	}
	// openfootball's times are the league's own: London's.
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	at1800 := func(f *model.Fixture) {
		f.Kickoff = time.Date(f.Kickoff.Year(), f.Kickoff.Month(), f.Kickoff.Day(), 18, 0, 0, 0, london)
	}
	score := func(ft string) func(m map[string]any) {
		return func(m map[string]any) { m["score"] = map[string]any{"ft": json.RawMessage("[" + ft + "]")} }
	}
	tests := []struct {
		name string
		// editorFirst: an editor's import wrote the match first, at
		// 12:00, before the feed ever did.
		editorFirst bool
		edit        func(f *model.Fixture) // an editor's edit after the feed's first write
		source      func(m map[string]any) // the source's change after that
		status      model.Status
		score       string // full time, "" for none
		kickoff     string // London's time
		disagree    []string
	}{
		{name: "an edit the source still says otherwise holds", edit: inPlay,
			status: model.InPlay, score: "1-0", kickoff: "15:00", disagree: []string{"status", "score"}},
		{name: "the source's change wins", edit: inPlay, source: score("2, 2"),
			status: model.Finished, score: "2-2", kickoff: "15:00"},
		{name: "each field apart", edit: at1800, source: score("1, 1"),
			status: model.Finished, score: "1-1", kickoff: "18:00", disagree: []string{"kickoff"}},
		{name: "a source that comes to agree ends it", edit: at1800, source: func(m map[string]any) { m["time"] = "18:00" },
			status: model.Timed, kickoff: "18:00"},
		{name: "a fixture the feed never wrote takes the source's values", editorFirst: true,
			status: model.Timed, kickoff: "15:00"},
	}
	ctx := context.Background()
	s := natstest.MustOpen(t, natstest.MustStart(t))
	dir := t.TempDir()
	matches := make([]map[string]any, len(tests))
	for i := range tests {
		matches[i] = map[string]any{"round": "Matchday 1", "date": fmt.Sprintf("2025-08-%02d", 10+i), "time": "15:00",
			"team1": fmt.Sprintf("Home %d FC", i), "team2": fmt.Sprintf("Away %d FC", i), "score": map[string]any{}}
	}
	write := func(ms []map[string]any) string {
		b, err := json.Marshal(map[string]any{"name": "Premier League 2025/26", "matches": ms})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "2025-26", "en.1.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var last importer.Summary
	poll := func() {
		t.Helper()
		b, err := os.ReadFile(write(matches))
		if err != nil {
			t.Fatal(err)
		}
		last = feedImport(t, s, "pl", "openfootball", "2025-26/en.1.json", b, last)
	}

	var first []map[string]any
	for i, tt := range tests {
		if tt.editorFirst {
			m := map[string]any{}
			for k, v := range matches[i] {
				m[k] = v
			}
			m["time"] = "12:00"
			first = append(first, m)
		}
	}
	natstest.Import(t, s, "openfootball", importer.Options{}, write(first))
	poll()
	bySource := func() map[string]model.Fixture {
		out := map[string]model.Fixture{}
		for _, f := range natstest.All[model.Fixture](t, s, events.KindFixture) {
			out[f.Source] = f
		}
		return out
	}
	key := func(i int) string {
		return fmt.Sprintf("openfootball:PL:2025:Matchday 1|%s|%s", matches[i]["team1"], matches[i]["team2"])
	}
	stored := bySource()
	ed := natstest.Editor(t, s)
	for i, tt := range tests {
		if tt.edit == nil {
			continue
		}
		f := stored[key(i)]
		if _, _, err := ed.PutFixture(ctx, f.ID, true, func(f *model.Fixture) error { tt.edit(f); return nil }); err != nil {
			t.Fatalf("%s: edit: %v", tt.name, err)
		}
	}
	poll()
	for i, tt := range tests {
		if tt.source != nil {
			tt.source(matches[i])
		}
	}
	poll()

	stored = bySource()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := stored[key(i)]
			score := ""
			if f.Result.FullTime != nil {
				score = f.Result.FullTime.String()
			}
			if at := f.Kickoff.In(london).Format("15:04"); f.Status != tt.status || score != tt.score || at != tt.kickoff {
				t.Errorf("fixture %s %q at %s, want %s %q at %s", f.Status, score, at, tt.status, tt.score, tt.kickoff)
			}
			var fields []string
			for _, d := range last.Disagreements {
				if d.Fixture == f.ID {
					fields = append(fields, d.Field)
					if d.Competition != f.CompetitionID || d.Match == "" || d.Source == d.Stored {
						t.Errorf("disagreement %+v", d)
					}
				}
			}
			if !slices.Equal(fields, tt.disagree) {
				t.Errorf("disagreements on %v, want %v", fields, tt.disagree)
			}
		})
	}
}

// feedImport writes body, a document of format named name, as feed's
// next poll does, given what its last one left (last), and returns the
// summary.
func feedImport(t *testing.T, s *events.Store, feed, format, name string, body []byte, last importer.Summary) importer.Summary {
	t.Helper()
	ctx := context.Background()
	im := importer.New(&editor.Editor{Store: s, Meta: events.Meta{Editor: "follower", Source: importer.FeedSource(feed)}}, nil)
	opts := importer.Options{Feed: feed, Disagreements: last.Disagreements, Said: last.Said}
	doc, err := im.Parse(ctx, importer.Formats[format], name, body, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := im.ImportDoc(ctx, doc, opts); err != nil {
		t.Fatal(err)
	}
	if len(im.Summary.Rejected) > 0 {
		t.Fatalf("%s: rejected: %v", feed, im.Summary.Rejected)
	}
	return im.Summary
}

// TestTwoSourcesOneFixture: a match two feeds of different formats carry
// (openfootball's JSON, football-data.co.uk's CSV) is one fixture, found
// by competition, teams and kick-off day; each field's later change wins,
// and a feed whose source says otherwise than the stored value shows it
// as a disagreement. The second source's first word on a fixture the
// first made is the later change.
func TestTwoSourcesOneFixture(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	openfootball := func(score string) []byte {
		return []byte(`{"name": "Premier League 2025/26", "matches": [
			{"round": "Matchday 1", "date": "2025-08-16", "time": "15:00", "team1": "Home FC", "team2": "Away FC", "score": {` + score + `}},
			{"round": "Matchday 1", "date": "2025-08-17", "time": "15:00", "team1": "Other FC", "team2": "Third FC", "score": {}}]}`)
	}
	csv := func(clock, goals string) []byte {
		return []byte("Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG\nE0,16/08/2025," + clock + ",Home FC,Away FC," + goals + "\n" +
			"E0,17/08/2025,15:00,Other FC,Third FC,,\n")
	}
	last := map[string]importer.Summary{}
	steps := []struct {
		name, feed, format, doc string
		body                    []byte
		score, kickoff          string // the stored fixture's full time ("" none) and kick-off (UTC)
		disagree                []string
	}{
		{"the first source makes the fixtures", "a", "openfootball", "2025-26/en.1.json", openfootball(""), "", "14:00", nil},
		{"the second finds them; its first word is the later change", "b", "football-data", "mmz4281/2526/E0.csv", csv("17:30", ","),
			"", "16:30", nil},
		{"the first, unchanged, disagrees on the kick-off", "a", "openfootball", "2025-26/en.1.json", openfootball(""),
			"", "16:30", []string{"kickoff"}},
		{"the first's result is a change: it wins", "a", "openfootball", "2025-26/en.1.json", openfootball(`"ft": [1, 1]`),
			"1-1", "16:30", []string{"kickoff"}},
		{"the second, unchanged, disagrees on the result", "b", "football-data", "mmz4281/2526/E0.csv", csv("17:30", ","),
			"1-1", "16:30", []string{"status", "score"}},
		{"the second's own result wins in its turn", "b", "football-data", "mmz4281/2526/E0.csv", csv("17:30", "2,1"),
			"2-1", "16:30", nil},
	}
	for _, st := range steps {
		sum := feedImport(t, s, st.feed, st.format, st.doc, st.body, last[st.feed])
		last[st.feed] = sum
		fixtures := natstest.All[model.Fixture](t, s, events.KindFixture)
		if len(fixtures) != 2 {
			t.Fatalf("%s: %d fixtures, want the 2 matches once each", st.name, len(fixtures))
		}
		var f model.Fixture
		for _, x := range fixtures {
			if x.Kickoff.Day() == 16 {
				f = x
			}
		}
		score := ""
		if f.Result.FullTime != nil {
			score = f.Result.FullTime.String()
		}
		if score != st.score || f.Kickoff.UTC().Format("15:04") != st.kickoff {
			t.Errorf("%s: fixture %q at %s, want %q at %s", st.name, score, f.Kickoff.UTC().Format("15:04"), st.score, st.kickoff)
		}
		var fields []string
		for _, d := range sum.Disagreements {
			fields = append(fields, d.Field)
		}
		if !slices.Equal(fields, st.disagree) {
			t.Errorf("%s: feed %s disagrees on %v, want %v", st.name, st.feed, fields, st.disagree)
		}
	}
}
