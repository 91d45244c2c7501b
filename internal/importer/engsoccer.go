package importer

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/pkg/model"
)

// The engsoccerdata layout (github.com/jalapic/engsoccerdata, data-raw/):
// one CSV file of league matches per country, with the columns Date,
// Season, home, visitor, hgoal and vgoal, and depending on the file
// division, tier, HT (half time) and round. The files carry no round
// numbers and no kick-off times. deductions.csv lists points deductions.

// engSource prefixes the Source of every fixture this importer writes.
const engSource = "engsoccerdata:"

// engDeductionReason is the reason of every adjustment this importer
// writes, by which a re-import finds them again.
const engDeductionReason = "points deduction (engsoccerdata)"

// engKickoffHour is the local kick-off time given to every match: the
// files have dates only, and three o'clock is the traditional kick-off.
const engKickoffHour = 15

// engDivision is how a file names a league: its division and tier columns
// ("" where a file has no such column).
type engDivision struct{ division, tier string }

// engLeague is a league of the files: its code (with the description to
// register for codes outside the appendix) and, where the name of a level
// changed over the years, its name from each first season on.
type engLeague struct {
	league model.League
	tier   int
	names  []engName
}

type engName struct {
	from int
	name string
}

// engCountry is one country's files.
type engCountry struct {
	zone string
	// threePoints is the first season with three points for a win:
	// model.DefaultRules knows England's 1981 only for the appendix codes,
	// and takes 1995 for every other country.
	threePoints int
	// goalAverageUntil is the last season in which teams level on points
	// were split by goal average (0 if none is in the files).
	goalAverageUntil int
	leagues          map[engDivision]engLeague
	// renames tell apart clubs of different countries whose names
	// normalise alike.
	renames map[string]string
	// calendarYear: seasons are played within a calendar year (MLS).
	calendarYear bool
}

// builtin is a league of the spec's appendix.
func builtin(code model.LeagueCode, tier int, names ...engName) engLeague {
	l, _ := model.BuiltinLeague(code)
	return engLeague{league: l, tier: tier, names: names}
}

// newLeague is a league the importer registers.
func newLeague(code model.LeagueCode, name, country, zone string, tier int) engLeague {
	return engLeague{league: model.League{Code: code, Name: name, Country: country, Zone: zone}, tier: tier}
}

const london = "Europe/London"

// engCountries maps the country a file name starts with to its leagues.
// Codes outside the spec's appendix are registered as editor-added leagues
// the first time the importer meets them.
var engCountries = map[string]engCountry{
	"england": {zone: london, threePoints: 1981, goalAverageUntil: 1975, leagues: map[engDivision]engLeague{
		// The top flight was the First Division until the Premier League
		// replaced it in 1992: both are the top tier, PL.
		{"1", "1"}: builtin("PL", 1, engName{0, "First Division"}, engName{1992, "Premier League"}),
		{"2", "2"}: builtin("ELC", 2, engName{0, "Second Division"}, engName{1992, "First Division"}, engName{2004, "Championship"}),
		{"3", "3"}: builtin("EL1", 3, engName{0, "Third Division"}, engName{1992, "Second Division"}, engName{2004, "League One"}),
		// From 1921 to 1958 the third tier was split in two.
		{"3N", "3"}:         newLeague("E3N", "Third Division North", "England", london, 3),
		{"3S", "3"}:         newLeague("E3S", "Third Division South", "England", london, 3),
		{"4", "4"}:          withNames(newLeague("EL2", "League Two", "England", london, 4), engName{0, "Fourth Division"}, engName{1992, "Third Division"}, engName{2004, "League Two"}),
		{"conference", "5"}: newLeague("ENL", "National League", "England", london, 5),
		{"N", "6"}:          newLeague("ENLN", "National League North", "England", london, 6),
		{"S", "6"}:          newLeague("ENLS", "National League South", "England", london, 6),
		{"N", "7"}:          newLeague("NPL", "Northern Premier League", "England", london, 7),
		{"S", "7"}:          newLeague("SLP", "Southern League Premier Division", "England", london, 7),
		{"C", "7"}:          newLeague("SLPC", "Southern League Premier Central", "England", london, 7),
		{"I", "7"}:          newLeague("ILP", "Isthmian League Premier Division", "England", london, 7),
		{"I.N", "8"}:        newLeague("ILN", "Isthmian League North", "England", london, 8),
		{"I.S", "8"}:        newLeague("ILS", "Isthmian League South", "England", london, 8),
		{"I.SC", "8"}:       newLeague("ILSC", "Isthmian League South Central", "England", london, 8),
		{"I.SE", "8"}:       newLeague("ILSE", "Isthmian League South East", "England", london, 8),
		{"N.E", "8"}:        newLeague("NPE", "Northern Premier League East", "England", london, 8),
		{"N.N", "8"}:        newLeague("NPN", "Northern Premier League North", "England", london, 8),
		{"N.S", "8"}:        newLeague("NPS", "Northern Premier League South", "England", london, 8),
		{"N.W", "8"}:        newLeague("NPW", "Northern Premier League West", "England", london, 8),
		{"S.C", "8"}:        newLeague("SLC", "Southern League Central", "England", london, 8),
		{"S.E", "8"}:        newLeague("SLE", "Southern League East", "England", london, 8),
		{"S.S", "8"}:        newLeague("SLS", "Southern League South", "England", london, 8),
		{"S.SW", "8"}:       newLeague("SLSW", "Southern League South and West", "England", london, 8),
		{"S.W", "8"}:        newLeague("SLW", "Southern League West", "England", london, 8),
	}},
	"scotland": {zone: london, threePoints: 1994, leagues: map[engDivision]engLeague{
		{"SC0", "1"}: newLeague("SPL", "Premiership", "Scotland", london, 1),
		{"SCO", "1"}: newLeague("SPL", "Premiership", "Scotland", london, 1),
		{"SC1", "2"}: newLeague("SCH", "Championship", "Scotland", london, 2),
		{"SC2", "3"}: newLeague("SL1", "League One", "Scotland", london, 3),
		{"SC3", "4"}: newLeague("SL2", "League Two", "Scotland", london, 4),
	}},
	"germany": {zone: "Europe/Berlin", threePoints: 1995, leagues: map[engDivision]engLeague{
		{"1", "1"}:      builtin("BL1", 1),
		{"2", "2"}:      builtin("BL2", 2),
		{"2North", "2"}: newLeague("B2N", "2. Bundesliga Nord", "Germany", "Europe/Berlin", 2),
		{"2South", "2"}: newLeague("B2S", "2. Bundesliga Süd", "Germany", "Europe/Berlin", 2),
	}},
	"france": {zone: "Europe/Paris", threePoints: 1994, leagues: map[engDivision]engLeague{
		{"1", "1"}:  builtin("FL1", 1),
		{"F1", "1"}: builtin("FL1", 1),
	}},
	"italy":    {zone: "Europe/Rome", threePoints: 1994, leagues: map[engDivision]engLeague{{"1", "1"}: builtin("SA", 1)}},
	"spain":    {zone: "Europe/Madrid", threePoints: 1995, leagues: map[engDivision]engLeague{{"", "1"}: builtin("PD", 1)}},
	"holland":  {zone: "Europe/Amsterdam", threePoints: 1995, leagues: map[engDivision]engLeague{{"", "1"}: builtin("DED", 1)}},
	"portugal": {zone: "Europe/Lisbon", threePoints: 1995, leagues: map[engDivision]engLeague{{"P1", "1"}: builtin("PPL", 1)}},
	"greece": {zone: "Europe/Athens", threePoints: 1992, leagues: map[engDivision]engLeague{{"G1", "1"}: builtin("GSL", 1)},
		// Iraklis of Thessaloniki; Heracles is also the Dutch club of Almelo.
		renames: map[string]string{"Heracles": "Iraklis"}},
	"turkey":  {zone: "Europe/Istanbul", threePoints: 1987, leagues: map[engDivision]engLeague{{"T1", "1"}: newLeague("TSL", "Süper Lig", "Turkey", "Europe/Istanbul", 1)}},
	"belgium": {zone: "Europe/Brussels", threePoints: 1995, leagues: map[engDivision]engLeague{{"B1", "1"}: newLeague("BJL", "First Division A", "Belgium", "Europe/Brussels", 1)}},
	"safrica": {zone: "Africa/Johannesburg", threePoints: 1995, leagues: map[engDivision]engLeague{{"1", "1"}: newLeague("PSL", "Premier Soccer League", "South Africa", "Africa/Johannesburg", 1)}},
	"mls":     {zone: "America/New_York", threePoints: 1995, calendarYear: true, leagues: map[engDivision]engLeague{{"", ""}: newLeague("MLS", "Major League Soccer", "USA", "America/New_York", 1)}},
}

func withNames(l engLeague, names ...engName) engLeague {
	l.names = names
	return l
}

// caption names a season of a league as it was called that season;
// name is the league's name today.
func (l engLeague) caption(name string, season int) string {
	for _, n := range l.names {
		if season >= n.from {
			name = n.name
		}
	}
	return fmt.Sprintf("%s %d/%02d", name, season, (season+1)%100)
}

// rules are the table rules of a season of the country's league.
func (c engCountry) rules(code model.LeagueCode, season int) model.TableRules {
	r := model.DefaultRules(code, season)
	r.PointsWin = 2
	if season >= c.threePoints {
		r.PointsWin = 3
	}
	if season <= c.goalAverageUntil {
		r.TieBreakers = slices.Clone(r.TieBreakers)
		for i, t := range r.TieBreakers {
			if t == model.GoalDifference {
				r.TieBreakers[i] = model.GoalQuotient
			}
		}
	}
	return r
}

// engCountryOf reads the country from a file name: england.csv,
// england5.csv, england_nonleague.csv and belgium_current_2023_raw.csv all
// start with one.
func engCountryOf(path string) (string, engCountry, bool) {
	base := strings.TrimSuffix(filepath.Base(path), ".csv")
	base, _, _ = strings.Cut(base, "_")
	base = strings.TrimRight(base, "0123456789")
	c, ok := engCountries[base]
	return base, c, ok
}

// csvColumns reads a CSV header and checks that it has the columns named.
func csvColumns(r *csv.Reader, required ...string) (map[string]int, error) {
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, invalidFile("not an engsoccerdata file: it is empty")
		}
		return nil, notCSV(1, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.TrimSpace(h)] = i
	}
	for _, name := range required {
		if _, ok := cols[name]; !ok {
			return nil, invalidFile("not an engsoccerdata file: no %s column (want the columns %s)", name, strings.Join(required, ", "))
		}
	}
	return cols, nil
}

// notCSV is the error of a file that stops being read at line: the
// reader's own when it refused the file (its size, its encoding), else
// the file is not CSV there.
func notCSV(line int, err error) error {
	if model.ErrorCode(err) == model.Invalid {
		return err
	}
	return invalidFile("not an engsoccerdata file: line %d: %v", line, err)
}

// engColumns are the columns every engsoccerdata match file has.
var engColumns = []string{"Date", "Season", "home", "visitor", "hgoal", "vgoal"}

// column returns a row's value of an optional column, "" for NA or none.
func column(row []string, cols map[string]int, name string) string {
	i, ok := cols[name]
	if !ok || i >= len(row) || row[i] == "NA" {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// engIndex are the positions of a match file's columns, -1 for those it
// does not have: looked up once, not by name on every row.
type engIndex struct {
	date, season, home, visitor, hgoal, vgoal, division, tier, ht, round int
}

func engIndexOf(cols map[string]int) engIndex {
	at := func(name string) int {
		if i, ok := cols[name]; ok {
			return i
		}
		return -1
	}
	return engIndex{date: at("Date"), season: at("Season"), home: at("home"), visitor: at("visitor"), hgoal: at("hgoal"),
		vgoal: at("vgoal"), division: at("division"), tier: at("tier"), ht: at("HT"), round: at("round")}
}

// field is column by position: a row's value, "" for NA or none.
func field(row []string, i int) string {
	if i < 0 || i >= len(row) || row[i] == "NA" {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// engSeason names a season of a league within a file.
type engSeason struct {
	code   model.LeagueCode
	season int
}

// parseEngSoccerFile reads one engsoccerdata file: a match file
// (england.csv, germany.csv…), whose every season of every division is a
// season of its league and every row a finished fixture, or deductions.csv.
func parseEngSoccerFile(path string, opts Options, _ func(model.LeagueCode) (model.League, error)) (*source, error) {
	if filepath.Base(path) == engDeductionsFile {
		return parseEngDeductions(path, opts)
	}
	f, err := opts.Input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readEngSoccerMatches(path, f, opts)
}

// readEngSoccerFile is parseEngSoccerFile for the body of a file, fetched
// from name.
func readEngSoccerFile(name string, body []byte, opts Options, _ func(model.LeagueCode) (model.League, error)) (*source, error) {
	r := bytes.NewReader(body)
	if filepath.Base(name) == engDeductionsFile {
		return readEngDeductions(name, r, opts)
	}
	return readEngSoccerMatches(name, r, opts)
}

// readEngSoccerMatches reads a match file, named path, from in.
func readEngSoccerMatches(path string, in io.Reader, opts Options) (*source, error) {
	country, ec, ok := engCountryOf(path)
	if !ok {
		return nil, invalidFile("not an engsoccerdata match file of a known country (%s)", strings.Join(slices.Sorted(maps.Keys(engCountries)), ", "))
	}
	zone, err := time.LoadLocation(ec.zone)
	if err != nil {
		return nil, fmt.Errorf("%s: time zone %q: %w", country, ec.zone, err)
	}
	r := csv.NewReader(in)
	r.ReuseRecord = true
	cols, err := csvColumns(r, engColumns...)
	if err != nil {
		return nil, err
	}
	src := &source{path: path, format: "engsoccerdata"}
	ix := engIndexOf(cols)
	type season struct {
		pf  *parsedFile
		key string // "PL/2015"
	}
	bySeason := map[engSeason]season{}
	seen := map[string]int{}
	// Clubs' names repeat on every row: each spelling is normalised once.
	normal := map[string]string{}
	normalize := func(name string) string {
		n, ok := normal[name]
		if !ok {
			n = model.NormalizeTeamName(name)
			normal[name] = n
		}
		return n
	}
	for line := 2; ; line++ {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, notCSV(line, err)
		}
		year, err := strconv.Atoi(field(row, ix.season))
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: path, Line: line,
				Err: model.Invalidf("season", field(row, ix.season), "must be a year")})
			continue
		}
		if !opts.includes(year) {
			continue
		}
		div := engDivision{field(row, ix.division), field(row, ix.tier)}
		l, ok := ec.leagues[div]
		if !ok {
			src.rejected = append(src.rejected, Rejection{File: path, Line: line,
				Err: model.Invalidf("division", div.division+"/"+div.tier, "no league code known for this %s division and tier", country)})
			continue
		}
		pm, err := engMatch(row, ix, zone, ec.renames)
		pm.line = line
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: path, Line: line, What: pm.home + " v " + pm.away, Err: err})
			continue
		}
		sn, ok := bySeason[engSeason{l.league.Code, year}]
		if !ok {
			rules := ec.rules(l.league.Code, year)
			sn.key = fmt.Sprintf("%s/%d", l.league.Code, year)
			sn.pf = &parsedFile{path: path, league: l.league, year: year, caption: l.caption(l.league.Name, year),
				kind: model.TypeLeague, rules: &rules, derivedMatchdays: true, calendarYear: ec.calendarYear}
			bySeason[engSeason{l.league.Code, year}] = sn
			src.seasons = append(src.seasons, sn.pf)
		}
		// Files spell a club differently ("St. Albans", "St Albans"): the
		// key takes the normalised names, so overlapping files meet.
		source := engSource + sn.key + ":" + field(row, ix.date) + "|" + normalize(pm.home) + "|" + normalize(pm.away)
		seen[source]++
		if n := seen[source]; n > 1 {
			source += "#" + strconv.Itoa(n)
		}
		pm.source = source
		sn.pf.matches = append(sn.pf.matches, pm)
	}
	for _, pf := range src.seasons {
		pf.matchdays = numberEngSoccer(pf.matches)
	}
	return src, nil
}

// engMatch reads one row: a finished match kicking off at three o'clock
// local time on its date.
func engMatch(row []string, ix engIndex, zone *time.Location, renames map[string]string) (parsedMatch, error) {
	pm := parsedMatch{home: field(row, ix.home), away: field(row, ix.visitor), stage: model.Regular, status: model.Finished}
	for _, name := range []*string{&pm.home, &pm.away} {
		if to, ok := renames[*name]; ok {
			*name = to
		}
	}
	if pm.home == "" || pm.away == "" {
		return pm, model.Invalidf("team", "", "a team name is missing")
	}
	date := field(row, ix.date)
	if date == "" {
		return pm, model.Invalidf("date", "NA", "the match has no date")
	}
	var err error
	if pm.kickoff, err = engKickoffAt(date, zone); err != nil {
		return pm, err
	}
	pm.timed = true
	home, errH := strconv.Atoi(field(row, ix.hgoal))
	away, errA := strconv.Atoi(field(row, ix.vgoal))
	if errH != nil || errA != nil {
		return pm, model.Invalidf("score", row[ix.hgoal]+"-"+row[ix.vgoal], "goals must be numbers")
	}
	pm.result.FullTime = &model.Score{Home: home, Away: away}
	if ht := field(row, ix.ht); ht != "" {
		s, err := model.ParseScore("ht", ht)
		if err != nil {
			return pm, err
		}
		pm.result.HalfTime = &s
	}
	// Spain's second phase of 1986-87 and MLS play-offs sit in the league
	// files beside the regular season.
	if round := field(row, ix.round); round != "" && round != "league" && round != "regular" {
		pm.stage, pm.round = model.Playoff, round
	}
	return pm, nil
}

// engKickoffAt is kickoff(date, "15:00", zone) for a row: the same
// instant, without parsing the constant clock again on every row.
func engKickoffAt(date string, zone *time.Location) (time.Time, error) {
	d, err := time.ParseInLocation(time.DateOnly, date, zone)
	if err != nil {
		return time.Time{}, model.Invalidf("date", date, "must be YYYY-MM-DD")
	}
	return time.Date(d.Year(), d.Month(), d.Day(), engKickoffHour, 0, 0, 0, zone).UTC(), nil
}

// numberEngSoccer puts a competition's matches in date order and numbers
// them. The files have no rounds, so a regular match's matchday is the
// larger of its two teams' game counts (a team's n-th game of the season
// is its matchday n), capped to 99; play-off rounds come after the last
// regular matchday. It returns the number of regular matchdays.
func numberEngSoccer(ms []parsedMatch) int {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].kickoff.Before(ms[j].kickoff) })
	played := map[string]int{}
	last := 0
	for i := range ms {
		pm := &ms[i]
		if pm.stage != model.Regular {
			continue
		}
		played[pm.home]++
		played[pm.away]++
		pm.matchday = min(max(played[pm.home], played[pm.away]), 99)
		last = max(last, pm.matchday)
	}
	rounds := map[string]int{}
	next := last
	for i := range ms {
		pm := &ms[i]
		if pm.stage == model.Regular {
			continue
		}
		md, ok := rounds[pm.round]
		if !ok {
			next = min(next+1, 99)
			md, rounds[pm.round] = next, next
		}
		pm.matchday = md
	}
	return last
}

// engDeductionsFile is the file of points deductions in data-raw.
const engDeductionsFile = "deductions.csv"

// parseEngDeductions reads deductions.csv: each row a deduction of a team
// in the competition of its country, tier and season, placed by the
// writer among the competitions imported (run it after the match files).
func parseEngDeductions(path string, opts Options) (*source, error) {
	f, err := opts.Input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readEngDeductions(path, f, opts)
}

// readEngDeductions reads deductions.csv, named path, from in.
func readEngDeductions(path string, in io.Reader, opts Options) (*source, error) {
	r := csv.NewReader(in)
	cols, err := csvColumns(r, "Season", "team", "tier", "deduction", "country")
	if err != nil {
		return nil, err
	}
	src := &source{path: path, format: "engsoccerdata"}
	for line := 2; ; line++ {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return src, nil
		}
		if err != nil {
			return nil, notCSV(line, err)
		}
		season, errS := strconv.Atoi(column(row, cols, "Season"))
		if errS == nil && !opts.includes(season) {
			continue
		}
		d, err := engDeduction(row, cols, season)
		if errS != nil {
			err = model.Invalidf("season", column(row, cols, "Season"), "must be a year")
		}
		if err != nil {
			src.rejected = append(src.rejected, Rejection{File: path, Line: line, What: "deduction of " + column(row, cols, "team"), Err: err})
			continue
		}
		d.line = line
		src.deductions = append(src.deductions, d)
	}
}

// engDeduction reads one row of deductions.csv.
func engDeduction(row []string, cols map[string]int, season int) (deduction, error) {
	country, name := strings.ToLower(column(row, cols, "country")), column(row, cols, "team")
	ec, ok := engCountries[country]
	if !ok {
		return deduction{}, model.Invalidf("country", country, "no leagues known for this country")
	}
	if to, ok := ec.renames[name]; ok {
		name = to
	}
	tier, errT := strconv.Atoi(column(row, cols, "tier"))
	points, errP := strconv.Atoi(column(row, cols, "deduction"))
	if errT != nil || errP != nil {
		return deduction{}, model.Invalidf("deduction", strings.Join(row, ","), "tier and deduction must be numbers")
	}
	// A tier may have several divisions in a season (the Third Division
	// North and South): the deduction is the team's division's.
	var codes []model.LeagueCode
	for _, l := range ec.leagues {
		if l.tier == tier && !slices.Contains(codes, l.league.Code) {
			codes = append(codes, l.league.Code)
		}
	}
	slices.Sort(codes)
	return deduction{team: name, leagues: codes, year: season, points: points, reason: engDeductionReason}, nil
}

// engSoccerFiles lists the files to import for the paths given: a
// data-raw folder stands for its match files, then its deductions.csv
// (which needs the competitions of the match files).
func engSoccerFiles(paths []string) ([]string, error) {
	var files, deductions []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			files = append(files, p)
			continue
		}
		ms, d, err := engSoccerDir(p)
		if err != nil {
			return nil, err
		}
		files = append(files, ms...)
		if d != "" {
			deductions = append(deductions, d)
		}
	}
	return append(files, deductions...), nil
}

// engSoccerDir lists the match files of an engsoccerdata data-raw folder
// and its deductions file ("" if there is none).
func engSoccerDir(dir string) (matches []string, deductions string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, "", fmt.Errorf("list %s: %w", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if filepath.Base(p) == engDeductionsFile {
			deductions = p
			continue
		}
		if _, _, ok := engCountryOf(p); !ok {
			continue
		}
		ok, err := engMatchFile(p)
		if err != nil {
			return nil, "", err
		}
		if ok {
			matches = append(matches, p)
		}
	}
	return matches, deductions, nil
}

// engMatchFile tells a match file of a folder by its header, the first
// line alone: the file is read whole, as the import says (its encoding,
// its size limit), when it is imported, and refused then if it must be.
func engMatchFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	_, err = csvColumns(csv.NewReader(bytes.NewReader(datafile.TrimBOM(line))), engColumns...)
	return err == nil, nil
}
