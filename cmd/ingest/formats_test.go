package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// TestImportFormats runs the import commands of the CSV and squad formats
// as the README gives them: a season's results, its clubs' squads, and a
// file with a bad line, refused with exit 2 and one line naming the file,
// line, field and value while the other lines are imported.
func TestImportFormats(t *testing.T) {
	c := newCLI(t)
	out := c.ok("import", "football-data", natstest.SharedData(t, "datasets-football-datasets/datasets/premier-league/season-1516.csv"))
	if !regexp.MustCompile(`(?m)^  fixtures\s+380\s+0\s+0\s+0$`).MatchString(out) {
		t.Errorf("football-data:\n%s", out)
	}
	out = c.ok("import", "footballcsv", natstest.SharedData(t, "footballcsv-cache.footballdata/2015-16/eng.2.csv"))
	if !regexp.MustCompile(`(?m)^  fixtures\s+552\s+0\s+0\s+0$`).MatchString(out) {
		t.Errorf("footballcsv:\n%s", out)
	}
	c.ok("import", "openfootball", natstest.SharedData(t, "openfootball-football-json/2023-24/en.1.json"))
	out = c.ok("import", "squads", natstest.SharedData(t, "openfootball-england/2023-24/squads"))
	if !regexp.MustCompile(`(?m)^  squads\s+20\s+0\s+0\s+0$`).MatchString(out) {
		t.Errorf("squads:\n%s", out)
	}
	bad := filepath.Join(t.TempDir(), "E0.csv")
	if err := os.WriteFile(bad, []byte("Div,Date,HomeTeam,AwayTeam,FTHG,FTAG\nE0,09/08/19,Liverpool,Norwich,4,1\nE0,32/08/19,Chelsea,Swansea,2,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := c.run("import", "football-data", bad)
	if want := bad + `:3 Chelsea v Swansea: Date "32/08/19": must be dd/mm/yy, dd/mm/yyyy or yyyy-mm-dd`; code != exitInvalid ||
		strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) || !regexp.MustCompile(`(?m)^  fixtures\s+1\s+0\s+0\s+1$`).MatchString(out) {
		t.Errorf("bad date: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}
