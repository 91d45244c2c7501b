package importer

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/footdata/footballd/pkg/model"
)

// The Football.TXT squad layout (openfootball's <season>/squads/*.txt): a
// heading "=  Arsenal FC - English Premier League 2023/24", then a line per
// player, "22,  David Raya (ESP),  GK,  b. 1995,  Brentford": shirt number
// (may be blank), name with the country code of a player from abroad,
// position (GK, DF, MF, FW), birth year (b. ???? when unknown) and the club
// he came from. The format has no full date of birth, contract or market
// value: those stay null (an editor's, for a player already in the squad,
// are kept). A birth year alone is not a date of birth.

// squadsFormat is the name of the format.
const squadsFormat = "squads"

// parsedSquad is a team's squad read from a file.
type parsedSquad struct {
	line    int // the heading's
	team    string
	players []model.Player
}

// squadPositions map the format's positions to the words the v1 API uses:
// its own for keepers, football-data.org's coarse ones for the others.
var squadPositions = map[string]string{"GK": "Keeper", "DF": "Defence", "MF": "Midfield", "FW": "Offence"}

// leagueCountries name the country of a league from a word of the league
// a squad's heading names ("English Premier League", "Primera División de
// España"): the nationality of its players listed without a code.
var leagueCountries = map[string]string{
	"English": "England", "Scottish": "Scotland", "Welsh": "Wales", "Spanish": "Spain", "España": "Spain",
	"Italian": "Italy", "German": "Germany", "Deutsche": "Germany", "French": "France", "Dutch": "Netherlands",
	"Portuguese": "Portugal", "Austrian": "Austria", "Belgian": "Belgium", "Swiss": "Switzerland", "Turkish": "Turkey",
	"Greek": "Greece",
}

var (
	squadHeadingRE = regexp.MustCompile(`^=+\s*(.+?)\s+-\s+(.+?)\s*$`)
	playerNameRE   = regexp.MustCompile(`^(.+?)\s*\(([A-Z]{3})\)$`)
	birthYearRE    = regexp.MustCompile(`^b\.\s*(\d{4}|\?{4})$`)
)

// Kinds of warnings of squad files.
const (
	warnNationality = "players without a country code in a squad whose league's country is unknown: nationality left empty (give --country)"
	warnNationCode  = "country codes not known: kept as written"
	warnShirt       = "shirt numbers that cannot be worn (outside 1 to 99, or worn twice): the player is imported without one"
)

// readSquads reads a Football.TXT squad file: each heading begins a
// squad, of the team its heading names (matched by name, as importers
// match teams); a line that is not a player is refused with its line and
// field, the rest of the squad read.
func readSquads(name string, body []byte, opts Options, _ func(model.LeagueCode) (model.League, error)) (*source, error) {
	src := &source{path: name, format: squadsFormat}
	sc := bufio.NewScanner(bytes.NewReader(body))
	var sq *parsedSquad
	var country string
	var shirts map[int]string
	noCountry := 0
	flush := func() {
		if sq != nil && noCountry > 0 && country == "" {
			src.warnings = append(src.warnings, Warning{File: name, Kind: warnNationality,
				What: fmt.Sprintf("line %d %s: %d players", sq.line, sq.team, noCountry)})
		}
		noCountry = 0
	}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "="):
			flush()
			m := squadHeadingRE.FindStringSubmatch(text)
			if m == nil {
				return nil, model.Invalidf("heading", text, "line %d: want \"= Team - League Season\"", line)
			}
			src.squads = append(src.squads, parsedSquad{line: line, team: m[1]})
			sq = &src.squads[len(src.squads)-1]
			country, shirts = cmp.Or(opts.Country, countryOfLeague(m[2])), map[int]string{}
			continue
		case sq == nil:
			return nil, model.Invalidf("heading", text, "line %d: a player before any heading: not a Football.TXT squad file (want \"= Team - League Season\" first)", line)
		}
		p, code, err := squadPlayer(text)
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: line, What: "player of " + sq.team, Err: err})
			continue
		}
		if !src.nationality(&p, code, country, line) {
			noCountry++
		}
		src.shirt(&p, shirts, line)
		if err := p.ValidateDraft(); err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: line, What: "player of " + sq.team, Err: err})
			continue
		}
		sq.players = append(sq.players, p)
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, invalidFile("cannot be read: %v", err)
	}
	if len(src.squads) == 0 {
		return nil, invalidFile("not a Football.TXT squad file: no heading \"= Team - League Season\"")
	}
	return src, nil
}

// squadPlayer reads a player's line; code is his country code, "" when
// the line gives none.
func squadPlayer(text string) (p model.Player, code string, err error) {
	parts := strings.Split(text, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 4 {
		return p, "", model.Invalidf("line", text, "want number, name, position and birth year, separated by commas")
	}
	if parts[0] != "" {
		n, err := strconv.Atoi(parts[0])
		if err != nil {
			return p, "", model.Invalidf("number", parts[0], "must be a shirt number or blank")
		}
		p.JerseyNumber = &n
	}
	p.Name = parts[1]
	if m := playerNameRE.FindStringSubmatch(p.Name); m != nil {
		p.Name, code = m[1], m[2]
	}
	if p.Name == "" {
		return p, "", model.Invalidf("name", parts[1], "a player needs a name")
	}
	p.Position = parts[2]
	if pos, ok := squadPositions[parts[2]]; ok {
		p.Position = pos
	}
	if !birthYearRE.MatchString(parts[3]) {
		return p, "", model.Invalidf("birth year", parts[3], "must be b. YYYY, or b. ???? when unknown")
	}
	return p, code, nil
}

// countryOfLeague is the country of a league a heading names, "" when
// no word of it says.
func countryOfLeague(league string) string {
	for _, w := range strings.Fields(league) {
		if c, ok := leagueCountries[w]; ok {
			return c
		}
	}
	return ""
}

// putSquads writes the squads of a file, each for the team its heading
// names: a squad of a team the stream does not know is refused (squad
// files make no teams: import the team's league first, or map the
// spelling with --aliases or `ingest team alias`).
func (im *Importer) putSquads(ctx context.Context, path string, squads []parsedSquad) error {
	for _, sq := range squads {
		reject := func(err error) {
			im.Summary.Squads.Rejected++
			im.Summary.reject(Rejection{File: path, Line: sq.line, What: "squad of " + sq.team, Err: err})
		}
		id, ok := im.names[model.NormalizeTeamName(sq.team)]
		if !ok {
			reject(model.Invalidf("team", sq.team, "no team of this name: import its league first, or map the spelling with --aliases or `ingest team alias`"))
			continue
		}
		ch, err := im.ed.ImportSquad(ctx, model.Squad{TeamID: id, Players: sq.players})
		switch model.ErrorCode(err) {
		case "":
			im.Summary.Squads.add(ch.Action)
		case model.Invalid, model.NotFound:
			reject(err)
		default:
			return fmt.Errorf("squad of %s: %w", sq.team, err)
		}
	}
	return nil
}

// nationality sets p's nationality from the code the line gave, or the
// league's country without one; false when it has neither. An unknown
// code is kept as it is, with a warning.
func (src *source) nationality(p *model.Player, code, country string, line int) bool {
	switch {
	case code == "":
		p.Nationality = country
		return country != ""
	case nations[code] != "":
		p.Nationality = nations[code]
	default:
		p.Nationality = code
		src.warnings = append(src.warnings, Warning{File: src.path, Kind: warnNationCode, What: fmt.Sprintf("line %d %s: %s", line, p.Name, code)})
	}
	return true
}

// shirt keeps p's shirt number unless it is out of range or another
// player of the squad wears it, then drops it with a warning.
func (src *source) shirt(p *model.Player, shirts map[int]string, line int) {
	n := p.JerseyNumber
	if n == nil {
		return
	}
	other, worn := shirts[*n]
	if !worn && *n >= 1 && *n <= 99 {
		shirts[*n] = p.Name
		return
	}
	what := fmt.Sprintf("line %d %s: %d", line, p.Name, *n)
	if worn {
		what += " (worn by " + other + ")"
	}
	src.warnings = append(src.warnings, Warning{File: src.path, Kind: warnShirt, What: what})
	p.JerseyNumber = nil
}
