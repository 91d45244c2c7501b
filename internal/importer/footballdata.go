package importer

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// The football-data.co.uk layout: one CSV file per league and season
// (mmz4281/2425/E0.csv), a row per match, with the columns Div, Date,
// Time, HomeTeam, AwayTeam, FTHG, FTAG, FTR, HTHG, HTAG, HTR, Referee, then
// match statistics (HY, AY, HR and AR are the cards) and odds. Older files
// have no Time column and two-digit years; the site's fixtures.csv has
// every division's next matches in one file, without results. Dates are
// dd/mm/yy or dd/mm/yyyy (yyyy-mm-dd in datasets/football-datasets' copies,
// which also drop Div); times are UK time for every league.

// footballDataFormat prefixes the Source of every fixture this format
// writes.
const footballDataFormat = "football-data"

// footballDataZone is the zone of the files' kick-off times.
const footballDataZone = london

// footballDataColumns are the columns a file must have; a column's other
// spellings (the site's newer leagues' layout) are in footballDataAliases.
var footballDataColumns = []string{"Date", "HomeTeam", "AwayTeam", "FTHG", "FTAG"}

var footballDataAliases = map[string]string{"Home": "HomeTeam", "Away": "AwayTeam", "HG": "FTHG", "AG": "FTAG"}

// footballDataOdds are the odds columns read, in order of preference: the
// market average (named Avg since 2019-20, BbAv before), else Bet365's.
var footballDataOdds = [][3]string{{"AvgH", "AvgD", "AvgA"}, {"BbAvH", "BbAvD", "BbAvA"}, {"B365H", "B365D", "B365A"}}

// disciplinarySource is the Source of the tie-break data written from a
// file's cards.
const disciplinarySource = "football-data.co.uk cards (yellow 1, red 3)"

// fdColumns are the positions of a file's columns, -1 for those it lacks.
type fdColumns struct {
	div, date, time, home, away, fthg, ftag, hthg, htag, referee int
	cards                                                        [4]int // HY, AY, HR, AR
	odds                                                         [3]int
	oddsNames                                                    string
}

func fdColumnsOf(header []string) (fdColumns, error) {
	at := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if to, ok := footballDataAliases[h]; ok {
			h = to
		}
		if _, dup := at[h]; !dup && h != "" {
			at[h] = i
		}
	}
	for _, name := range footballDataColumns {
		if _, ok := at[name]; !ok {
			return fdColumns{}, model.Invalidf("header", strings.Join(header[:min(len(header), 12)], ","),
				"line 1: no %s column: not a football-data.co.uk file (want the columns %s)", name, strings.Join(footballDataColumns, ", "))
		}
	}
	col := func(name string) int {
		if i, ok := at[name]; ok {
			return i
		}
		return -1
	}
	c := fdColumns{div: col("Div"), date: col("Date"), time: col("Time"), home: col("HomeTeam"), away: col("AwayTeam"),
		fthg: col("FTHG"), ftag: col("FTAG"), hthg: col("HTHG"), htag: col("HTAG"), referee: col("Referee"),
		cards: [4]int{col("HY"), col("AY"), col("HR"), col("AR")}, odds: [3]int{-1, -1, -1}}
	for _, names := range footballDataOdds {
		if i, j, k := col(names[0]), col(names[1]), col(names[2]); i >= 0 && j >= 0 && k >= 0 {
			c.odds, c.oddsNames = [3]int{i, j, k}, strings.Join(names[:], "/")
			break
		}
	}
	return c, nil
}

// csvMatch is a row read, before its season is known.
type csvMatch struct {
	pm    parsedMatch
	cards *[4]int // HY, AY, HR, AR; nil when the row has none
}

// readFootballData reads one football-data.co.uk CSV file. The league is
// each row's Div, or, in files without it, the file's name (E0.csv, or
// datasets/football-datasets' premier-league/season-1516.csv); the season
// is the name's (mmz4281/1516/E0.csv, season-1516.csv, 2015-16/E0.csv),
// else the season of the division's first match (one starting in July or
// later starts its year's season). --league and --season override both.
func readFootballData(name string, body []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	cr := csv.NewReader(bytes.NewReader(body))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, invalidFile("not a football-data.co.uk file: it is empty")
	}
	if err != nil {
		return nil, invalidFile("not a football-data.co.uk file: line 1: %v", err)
	}
	cols, err := fdColumnsOf(header)
	if err != nil {
		return nil, err
	}
	fileLeague := opts.League
	if fileLeague == "" && cols.div < 0 {
		if fileLeague = footballDataLeagueOf(name); fileLeague == "" {
			return nil, model.Invalidf("league", filepath.Base(name),
				"the file has no Div column and no league code is known for its name: give one with --league")
		}
	}
	src := &source{path: name, format: footballDataFormat}
	byLeague := map[model.LeagueCode][]csvMatch{}
	var order []model.LeagueCode
	london, err := time.LoadLocation(footballDataZone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", footballDataZone, err)
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, invalidFile("not a football-data.co.uk file: %v", err)
		}
		line, _ := cr.FieldPos(0)
		if blankRow(row) {
			continue // the site's files end with rows of bare commas
		}
		code := fileLeague
		if code == "" {
			div := field(row, cols.div)
			if code = footballDataDivs[div]; code == "" {
				src.rejected = append(src.rejected, Rejection{File: name, Line: line, What: field(row, cols.home) + " v " + field(row, cols.away),
					Err: model.Invalidf("Div", div, "not a football-data.co.uk division (E0, E1, E2, E3, EC, SC0-SC3, D1, D2, I1, I2, SP1, SP2, F1, F2, N1, B1, P1, T1, G1)")})
				continue
			}
		}
		m, err := fdRow(row, cols, london)
		m.pm.line = line
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: line, What: m.pm.home + " v " + m.pm.away, Err: err})
			continue
		}
		if _, ok := byLeague[code]; !ok {
			order = append(order, code)
		}
		byLeague[code] = append(byLeague[code], m)
	}
	year := opts.Season
	if year == 0 {
		year = footballDataSeasonOf(name)
	}
	for _, code := range order {
		league, err := leagueOf(code, "league", leagues)
		if err != nil {
			return nil, err
		}
		pf := seasonOf(name, league, year, byLeague[code], src)
		pf.fieldNames = map[string]string{"ht": "HTHG/HTAG", "odds": cols.oddsNames, "referee": "Referee"}
		src.seasons = append(src.seasons, pf)
	}
	return src, nil
}

// seasonOf makes a season of a league of the matches rows read: in date
// order, numbered by games played (the files have no rounds), each keyed
// by its teams (a pairing's second meeting at the same ground, as after
// Scotland's split, with #2), so that a match whose date moves is the same
// fixture. year 0 takes the season of the first match. The cards count
// when every finished match has them.
func seasonOf(name string, league model.League, year int, rows []csvMatch, src *source) *parsedFile {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].pm.kickoff.Before(rows[j].pm.kickoff) })
	if year == 0 {
		first := rows[0].pm.kickoff
		year = first.Year()
		if first.Month() < time.July {
			year--
		}
	}
	pf := &parsedFile{path: name, league: league, year: year, caption: fmt.Sprintf("%s %d/%02d", league.Name, year, (year+1)%100),
		kind: model.TypeLeague, derivedMatchdays: true}
	disciplinary, missing := map[string]int{}, 0
	norm := normalizer{}
	seen := map[string]int{}
	prefix := src.format + ":" + string(league.Code) + ":" + strconv.Itoa(year) + ":"
	for _, m := range rows {
		pm := m.pm
		key := norm.of(pm.home) + "|" + norm.of(pm.away)
		seen[key]++
		if n := seen[key]; n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		pm.source = prefix + key
		pf.matches = append(pf.matches, pm)
		switch {
		case pm.status != model.Finished:
		case m.cards == nil:
			missing++
		default:
			disciplinary[pm.home] += m.cards[0] + 3*m.cards[2]
			disciplinary[pm.away] += m.cards[1] + 3*m.cards[3]
		}
	}
	pf.matchdays = numberEngSoccer(pf.matches)
	switch {
	case missing == 0 && len(disciplinary) > 0:
		pf.disciplinary = disciplinary
	case missing > 0 && len(disciplinary) > 0:
		src.warnings = append(src.warnings, Warning{File: name, Kind: warnNoCards,
			What: fmt.Sprintf("%s %d: %d finished matches without HY, AY, HR and AR", league.Code, year, missing)})
	}
	return pf
}

// warnNoCards is the kind of warning of a season whose cards are not
// complete.
const warnNoCards = "finished matches without cards: no disciplinary points are counted for the season"

// fdRow reads one row: a finished match when it has full-time goals, else
// one to be played.
func fdRow(row []string, cols fdColumns, london *time.Location) (csvMatch, error) {
	var m csvMatch
	pm := &m.pm
	pm.home, pm.away, pm.stage = field(row, cols.home), field(row, cols.away), model.Regular
	switch {
	case pm.home == "":
		return m, model.Invalidf("HomeTeam", "", "a team name is missing")
	case pm.away == "":
		return m, model.Invalidf("AwayTeam", "", "a team name is missing")
	}
	date, err := fdDate(field(row, cols.date))
	if err != nil {
		return m, err
	}
	pm.kickoff = time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
	if clock := field(row, cols.time); clock != "" {
		t, err := time.ParseInLocation("02/01/2006 15:04", date.Format("02/01/2006")+" "+clock, london)
		if err != nil {
			pm.dropped = append(pm.dropped, droppedDetail{field: "Time", err: model.Invalidf("Time", clock, "must be HH:MM")})
		} else {
			pm.kickoff, pm.timed = t.UTC(), true
		}
	}
	pm.status = model.Scheduled
	if pm.timed {
		pm.status = model.Timed
	}
	ft, err := goals("FTHG", "FTAG", field(row, cols.fthg), field(row, cols.ftag))
	if err != nil {
		return m, err
	}
	if ft != nil {
		pm.status, pm.result.FullTime = model.Finished, ft
	}
	if ht, err := goals("HTHG", "HTAG", field(row, cols.hthg), field(row, cols.htag)); err != nil {
		pm.dropped = append(pm.dropped, droppedDetail{field: "HTHG/HTAG", err: err})
	} else {
		pm.result.HalfTime = ht
	}
	pm.referee = field(row, cols.referee)
	if cols.oddsNames != "" {
		var err error
		if pm.odds, err = fdOdds(row, cols); err != nil {
			pm.dropped = append(pm.dropped, droppedDetail{field: cols.oddsNames, err: err})
		}
	}
	var cards [4]int
	complete := true
	for i, c := range cols.cards {
		n, err := strconv.Atoi(field(row, c))
		cards[i], complete = n, complete && err == nil && n >= 0 && n <= 99
	}
	if complete {
		m.cards = &cards
	}
	return m, nil
}

// fdDate reads a date as the site writes it (dd/mm/yy before 2018,
// dd/mm/yyyy since) or as ISO 8601 (datasets/football-datasets).
func fdDate(s string) (time.Time, error) {
	for _, layout := range []string{"02/01/06", "02/01/2006", time.DateOnly} {
		if len(s) != len(layout) {
			continue
		}
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, model.Invalidf("Date", s, "must be dd/mm/yy, dd/mm/yyyy or yyyy-mm-dd")
}

// goals reads a score from two goal columns: nil when both are empty.
func goals(homeField, awayField, home, away string) (*model.Score, error) {
	if home == "" && away == "" {
		return nil, nil
	}
	h, err := strconv.Atoi(home)
	if err != nil || h < 0 || h > 99 {
		return nil, model.Invalidf(homeField, home, "must be a number of goals from 0 to 99")
	}
	a, err := strconv.Atoi(away)
	if err != nil || a < 0 || a > 99 {
		return nil, model.Invalidf(awayField, away, "must be a number of goals from 0 to 99")
	}
	return &model.Score{Home: h, Away: a}, nil
}

// fdOdds reads a row's odds of the file's odds columns: nil when the row
// has none.
func fdOdds(row []string, cols fdColumns) (*model.Odds, error) {
	var v [3]float64
	empty := 0
	for i, c := range cols.odds {
		s := field(row, c)
		if s == "" {
			empty++
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, model.Invalidf(cols.oddsNames, s, "decimal odds must be numbers")
		}
		v[i] = x
	}
	switch empty {
	case 3:
		return nil, nil
	case 0:
		return &model.Odds{HomeWin: v[0], Draw: v[1], AwayWin: v[2]}, nil
	}
	return nil, model.Invalidf(cols.oddsNames, strings.Join([]string{field(row, cols.odds[0]), field(row, cols.odds[1]), field(row, cols.odds[2])}, "/"),
		"a home win, a draw and an away win are needed")
}

// blankRow reports whether every field of a row is empty.
func blankRow(row []string) bool {
	for _, f := range row {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

var (
	// fdSeasonDirRE is the site's season folder: 1516 for 2015-16.
	fdSeasonDirRE  = regexp.MustCompile(`^(\d{2})(\d{2})$`)
	fdSeasonFileRE = regexp.MustCompile(`^season-(\d{2})(\d{2})\.csv$`)
)

// footballDataSeasonOf reads the season from a file's name: its folder
// (1516 or 2015-16) or, in datasets/football-datasets, the file
// (season-1516.csv); 0 if it says none.
func footballDataSeasonOf(name string) int {
	short := func(m []string) int {
		yy, _ := strconv.Atoi(m[1])
		zz, _ := strconv.Atoi(m[2])
		if (yy+1)%100 != zz {
			return 0
		}
		if yy >= 90 { // the site's files begin in 1993
			return 1900 + yy
		}
		return 2000 + yy
	}
	if m := fdSeasonFileRE.FindStringSubmatch(filepath.Base(name)); m != nil {
		return short(m)
	}
	dir := filepath.Base(filepath.Dir(name))
	if m := fdSeasonDirRE.FindStringSubmatch(dir); m != nil {
		return short(m)
	}
	if m := seasonDirRE.FindStringSubmatch(dir); m != nil && m[2] != "" {
		year, _ := strconv.Atoi(m[1])
		return year
	}
	return 0
}

// footballDataLeagueOf reads the league from a file's name: E0.csv, or a
// datasets/football-datasets league folder; "" if it says none.
func footballDataLeagueOf(name string) model.LeagueCode {
	if code, ok := footballDataDivs[strings.TrimSuffix(filepath.Base(name), ".csv")]; ok {
		return code
	}
	return footballDataFolders[filepath.Base(filepath.Dir(name))]
}

// putDisciplinary records the disciplinary points a season's cards give
// its teams, when the competition's rules break ties with them
// (DISCIPLINARY_POINTS) and the file has the cards of every finished
// match: the tie-break data of the competition then holds them for the
// file's teams. Figures an editor entered from another source are left as
// they are, with a warning.
func (im *Importer) putDisciplinary(ctx context.Context, path string, pf *parsedFile, c *model.Competition, teamIDs map[string]int) error {
	if pf.disciplinary == nil || !slices.Contains(c.Rules.TieBreakers, model.DisciplinaryPoints) {
		return nil
	}
	points := map[int]int{}
	for name, p := range pf.disciplinary {
		if id := teamIDs[name]; id != 0 && c.HasTeam(id) {
			points[id] = min(p, 999)
		}
	}
	kept := false
	ch, _, err := im.ed.PutTieBreakData(ctx, c.ID, func(d *model.TieBreakData) error {
		kept = len(d.Disciplinary) > 0 && !strings.Contains(d.Source, disciplinarySource)
		if kept {
			return nil
		}
		d.Disciplinary = points
		if d.Source == "" {
			d.Source = disciplinarySource
		} else if !strings.Contains(d.Source, disciplinarySource) {
			d.Source += "; disciplinary points: " + disciplinarySource
		}
		return nil
	})
	switch model.ErrorCode(err) {
	case "":
	case model.Invalid, model.NotFound:
		im.Summary.TieBreaks.Rejected++
		im.Summary.reject(Rejection{File: path, What: fmt.Sprintf("disciplinary points of %s %d", c.League, c.Year), Err: err})
		return nil
	default:
		return fmt.Errorf("disciplinary points of competition %d: %w", c.ID, err)
	}
	if kept {
		im.Summary.Warnings = append(im.Summary.Warnings, Warning{File: path, Kind: warnDisciplinaryKept,
			What: fmt.Sprintf("%s %d: competition %d", c.League, c.Year, c.ID)})
	}
	im.Summary.TieBreaks.add(ch.Action)
	return nil
}

// warnDisciplinaryKept is the kind of warning of disciplinary points an
// editor entered, kept over the file's cards.
const warnDisciplinaryKept = "disciplinary points entered from another source: kept, the file's cards not counted"
