package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/importer"
	"github.com/footdata/footballd/internal/natstest"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// playerLines counts the player lines of Football.TXT squad files, read
// here independently of the importer.
func playerLines(t *testing.T, files []string) int {
	t.Helper()
	line := regexp.MustCompile(`(?m)^\s*\d*,\s+\S`)
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += len(line.FindAll(raw, -1))
	}
	return n
}

// squadOf finds the stored squad of the team of a name.
func squadOf(t *testing.T, s *events.Store, team string) model.Squad {
	t.Helper()
	w := load(t, s)
	for _, sq := range natstest.All[model.Squad](t, s, events.KindSquad) {
		if w.teams[sq.TeamID].Name == team {
			return sq
		}
	}
	t.Fatalf("no squad of %s", team)
	return model.Squad{}
}

func playerNamed(sq model.Squad, name string) (model.Player, bool) {
	for _, p := range sq.Players {
		if p.Name == name {
			return p, true
		}
	}
	return model.Player{}, false
}

// TestSquadsOfARealSeason imports the Premier League 2023-24 and then its
// clubs' Football.TXT squads: every player lands, with the fields the
// format has and null for those it lacks (a birth year alone is not a
// date of birth); importing again changes nothing, and a date an editor
// entered is kept.
func TestSquadsOfARealSeason(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	importAll(t, s, ofFile(t, "openfootball-football-json/2023-24/en.1.json"))
	files, err := importer.Formats["squads"].Files([]string{natstest.SharedData(t, "openfootball-england/2023-24/squads")})
	if err != nil {
		t.Fatal(err)
	}
	want := playerLines(t, files)
	sum := natstest.Import(t, s, "squads", importer.Options{}, files...)
	if len(files) != 20 || sum.Squads.Created != 20 || len(sum.Rejected) > 0 || len(sum.Warnings) > 0 {
		t.Fatalf("%d files: squads %+v, rejected %v, warnings %v", len(files), sum.Squads, sum.Rejected, sum.Warnings)
	}
	players := 0
	for _, sq := range natstest.All[model.Squad](t, s, events.KindSquad) {
		players += len(sq.Players)
	}
	if players != want || want < 1000 {
		t.Errorf("%d players stored, %d in the files", players, want)
	}
	arsenal := squadOf(t, s, "Arsenal FC")
	raya, ok := playerNamed(arsenal, "David Raya")
	if !ok || raya.JerseyNumber == nil || *raya.JerseyNumber != 22 || raya.Position != "Keeper" || raya.Nationality != "Spain" ||
		raya.DateOfBirth != nil || raya.ContractUntil != nil || raya.MarketValue != nil {
		t.Errorf("David Raya: %+v", raya)
	}
	saka, ok := playerNamed(arsenal, "Bukayo Saka")
	if !ok || *saka.JerseyNumber != 7 || saka.Position != "Midfield" || saka.Nationality != "England" {
		t.Errorf("Bukayo Saka: %+v", saka)
	}
	// An editor enters Saka's date of birth; the next import keeps it.
	ed := natstest.Editor(t, s)
	born := model.Date("2001-09-05")
	for i := range arsenal.Players {
		if arsenal.Players[i].Name == "Bukayo Saka" {
			arsenal.Players[i].DateOfBirth = &born
		}
	}
	if _, err := ed.PutSquad(context.Background(), arsenal); err != nil {
		t.Fatal(err)
	}
	before, _ := s.LastSeq(context.Background())
	again := natstest.Import(t, s, "squads", importer.Options{}, files...)
	if after, _ := s.LastSeq(context.Background()); after != before || again.Squads.Unchanged != 20 {
		t.Errorf("re-import: %d messages, squads %+v", after-before, again.Squads)
	}
	if saka, _ := playerNamed(squadOf(t, s, "Arsenal FC"), "Bukayo Saka"); saka.DateOfBirth == nil || *saka.DateOfBirth != born || saka.ID == 0 {
		t.Errorf("Saka after the re-import: %+v", saka)
	}
}

// TestSquadsMatchTeamsByName: a squad of a team the stream knows by no
// spelling is refused with its file, line and name, and imported once the
// spelling is mapped; players without a code have the league's country.
func TestSquadsMatchTeamsByName(t *testing.T) {
	s := natstest.MustOpen(t, natstest.MustStart(t))
	importAll(t, s, ofFile(t, "openfootball-football-json/2023-24/es.1.json"))
	file := natstest.SharedData(t, "openfootball-espana/2023-24/squads/athletic_bilbao.txt")
	sum := natstest.Import(t, s, "squads", importer.Options{}, file)
	if len(sum.Rejected) != 1 || sum.Squads.Rejected != 1 ||
		!strings.Contains(sum.Rejected[0].String(), "athletic_bilbao.txt:1 squad of Athletic Club Bilbao: team \"Athletic Club Bilbao\": no team of this name") {
		t.Fatalf("rejected %v", sum.Rejected)
	}
	aliases := filepath.Join(t.TempDir(), "aliases.csv")
	if err := os.WriteFile(aliases, []byte("spelling,team\nAthletic Club Bilbao,Athletic Club\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	am, err := importer.ReadAliases(aliases, datafile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum = natstest.Import(t, s, "squads", importer.Options{Aliases: am}, file)
	if len(sum.Rejected) > 0 || sum.Squads.Created != 1 {
		t.Fatalf("with the alias: squads %+v, rejected %v", sum.Squads, sum.Rejected)
	}
	sq := squadOf(t, s, "Athletic Club")
	spanish := 0
	for _, p := range sq.Players {
		if p.Nationality == "Spain" {
			spanish++
		}
	}
	if len(sq.Players) != playerLines(t, []string{file}) || spanish == 0 {
		t.Errorf("%d players, %d of Spain", len(sq.Players), spanish)
	}
}
