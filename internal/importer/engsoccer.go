package importer

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// The engsoccerdata layout (github.com/jalapic/engsoccerdata, data-raw/):
// one CSV file of league matches per country, with the columns Date,
// Season, home, visitor, hgoal and vgoal, and depending on the file
// division, tier, HT (half time) and round. The files carry no round
// numbers and no kick-off times. deductions.csv lists points deductions.

// EngSoccerOptions select what an engsoccerdata import reads.
type EngSoccerOptions struct {
	// From and To bound the seasons imported, as start years, both
	// included; 0 leaves a bound open.
	From, To int
}

func (o EngSoccerOptions) includes(season int) bool {
	return (o.From == 0 || season >= o.From) && (o.To == 0 || season <= o.To)
}

// engSource prefixes the Source of every fixture this importer writes.
const engSource = "engsoccerdata:"

// engDeductionReason is the reason of every adjustment this importer
// writes, by which a re-import finds them again.
const engDeductionReason = "points deduction (engsoccerdata)"

// engKickoff is the local kick-off time given to every match: the files
// have dates only, and three o'clock is the traditional kick-off.
const engKickoff = "15:00"

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
}

// builtin is a league of the spec's appendix.
func builtin(code model.LeagueCode, tier int, names ...engName) engLeague {
	return engLeague{league: model.League{Code: code}, tier: tier, names: names}
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
	"mls":     {zone: "America/New_York", threePoints: 1995, leagues: map[engDivision]engLeague{{"", ""}: newLeague("MLS", "Major League Soccer", "USA", "America/New_York", 1)}},
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

// engComp is one competition's matches read from a file.
type engComp struct {
	league  engLeague
	season  int
	matches []parsedMatch
}

// csvColumns reads a CSV header and checks that it has the columns named.
func csvColumns(r *csv.Reader, path string, required ...string) (map[string]int, error) {
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: read header: %w", path, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.TrimSpace(h)] = i
	}
	for _, name := range required {
		if _, ok := cols[name]; !ok {
			return nil, model.Invalidf("file", path, "has no %s column: not an engsoccerdata file with the columns %s", name, strings.Join(required, ", "))
		}
	}
	return cols, nil
}

// column returns a row's value of an optional column, "" for NA or none.
func column(row []string, cols map[string]int, name string) string {
	i, ok := cols[name]
	if !ok || i >= len(row) || row[i] == "NA" {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// parseEngSoccer reads a match file into competitions, in order of first
// appearance, and the rows it could not read.
func parseEngSoccer(path, country string, ec engCountry, opts EngSoccerOptions) ([]*engComp, []Rejection, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	zone, err := time.LoadLocation(ec.zone)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: time zone %q: %w", country, ec.zone, err)
	}
	r := csv.NewReader(f)
	r.ReuseRecord = true
	cols, err := csvColumns(r, path, "Date", "Season", "home", "visitor", "hgoal", "vgoal")
	if err != nil {
		return nil, nil, err
	}
	var comps []*engComp
	byKey := map[string]*engComp{}
	seen := map[string]int{}
	var rejected []Rejection
	for line := 1; ; line++ {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, model.Invalidf("file", path, "row %d: %v", line, err)
		}
		season, err := strconv.Atoi(column(row, cols, "Season"))
		if err != nil {
			rejected = append(rejected, Rejection{File: path, Match: line, Reason: fmt.Sprintf("season %q: not a year", column(row, cols, "Season"))})
			continue
		}
		if !opts.includes(season) {
			continue
		}
		div := engDivision{column(row, cols, "division"), column(row, cols, "tier")}
		l, ok := ec.leagues[div]
		if !ok {
			rejected = append(rejected, Rejection{File: path, Match: line,
				Reason: fmt.Sprintf("no league code for %s division %q tier %q", country, div.division, div.tier)})
			continue
		}
		pm, err := engMatch(row, cols, zone, ec.renames)
		pm.line = line
		if err != nil {
			rejected = append(rejected, Rejection{File: path, Match: line, Reason: fmt.Sprintf("%s v %s: %v", pm.home, pm.away, err)})
			continue
		}
		// Files spell a club differently ("St. Albans", "St Albans"): the
		// key takes the normalised names, so overlapping files meet.
		key := compKey(l.league.Code, season)
		src := fmt.Sprintf("%s%s:%s|%s|%s", engSource, key, column(row, cols, "Date"),
			model.NormalizeTeamName(pm.home), model.NormalizeTeamName(pm.away))
		seen[src]++
		if seen[src] > 1 {
			src += "#" + strconv.Itoa(seen[src])
		}
		pm.source = src
		c := byKey[key]
		if c == nil {
			c = &engComp{league: l, season: season}
			byKey[key] = c
			comps = append(comps, c)
		}
		c.matches = append(c.matches, pm)
	}
	return comps, rejected, nil
}

// engMatch reads one row: a finished match kicking off at three o'clock
// local time on its date.
func engMatch(row []string, cols map[string]int, zone *time.Location, renames map[string]string) (parsedMatch, error) {
	pm := parsedMatch{home: column(row, cols, "home"), away: column(row, cols, "visitor"), stage: model.Regular, status: model.Finished}
	for _, name := range []*string{&pm.home, &pm.away} {
		if to, ok := renames[*name]; ok {
			*name = to
		}
	}
	if pm.home == "" || pm.away == "" {
		return pm, model.Invalidf("team", "", "a team name is missing")
	}
	date := column(row, cols, "Date")
	if date == "" {
		return pm, model.Invalidf("date", "NA", "the match has no date")
	}
	var err error
	if pm.kickoff, pm.timed, err = kickoff(date, engKickoff, zone); err != nil {
		return pm, err
	}
	home, errH := strconv.Atoi(column(row, cols, "hgoal"))
	away, errA := strconv.Atoi(column(row, cols, "vgoal"))
	if errH != nil || errA != nil {
		return pm, model.Invalidf("score", row[cols["hgoal"]]+"-"+row[cols["vgoal"]], "goals must be numbers")
	}
	pm.result.FullTime = &model.Score{Home: home, Away: away}
	if ht := column(row, cols, "HT"); ht != "" {
		s, err := model.ParseScore("ht", ht)
		if err != nil {
			return pm, err
		}
		pm.result.HalfTime = &s
	}
	// Spain's second phase of 1986-87 and MLS play-offs sit in the league
	// files beside the regular season.
	if round := column(row, cols, "round"); round != "" && round != "league" && round != "regular" {
		pm.stage, pm.round = model.Playoff, round
	}
	return pm, nil
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

// EngSoccer imports one engsoccerdata match file (england.csv,
// germany.csv…): every season of every division becomes a competition of
// its league, every row a finished fixture. A file that cannot be imported
// at all is counted as rejected and its reason returned.
func (im *Importer) EngSoccer(ctx context.Context, path string, opts EngSoccerOptions) error {
	return im.file(path, im.engSoccer(ctx, path, opts))
}

func (im *Importer) engSoccer(ctx context.Context, path string, opts EngSoccerOptions) error {
	country, ec, ok := engCountryOf(path)
	if !ok {
		return model.Invalidf("file", path, "not an engsoccerdata league file of a known country")
	}
	comps, rejected, err := parseEngSoccer(path, country, ec, opts)
	if err != nil {
		return err
	}
	im.Summary.Fixture.Rejected += len(rejected)
	im.Summary.Rejected = append(im.Summary.Rejected, rejected...)
	if err := im.load(ctx); err != nil {
		return err
	}
	all := &parsedFile{path: path}
	leagues := map[model.LeagueCode]model.League{}
	for _, c := range comps {
		code := c.league.league.Code
		if _, done := leagues[code]; !done {
			if leagues[code], err = im.ensureLeague(ctx, c.league.league); err != nil {
				return fmt.Errorf("league %s: %w", code, err)
			}
		}
		all.matches = append(all.matches, c.matches...)
	}
	teamIDs, err := im.resolveTeams(ctx, all)
	if err != nil {
		return err
	}
	seasons := make([]engSeason, 0, len(comps))
	existed := map[int]bool{}
	for _, c := range comps {
		pf := &parsedFile{path: path, league: leagues[c.league.league.Code], year: c.season,
			caption: c.league.caption(leagues[c.league.league.Code].Name, c.season), kind: model.TypeLeague, matches: c.matches}
		pf.matchdays = numberEngSoccer(pf.matches)
		comp, found, err := im.putEngCompetition(ctx, pf, ec.rules(pf.league.Code, c.season), teamIDs)
		if err != nil {
			return err
		}
		existed[comp.ID] = found
		seasons = append(seasons, engSeason{pf, comp})
	}
	known, err := im.engFixtures(ctx, existed)
	if err != nil {
		return err
	}
	for i := range seasons {
		if foreign := known.foreign[seasons[i].comp.ID]; len(foreign) > 0 {
			seasons[i].pf.matches = im.skipForeign(seasons[i].pf.matches, foreign, teamIDs)
		}
	}
	return im.putEngFixtures(ctx, path, seasons, known.bySource, teamIDs)
}

// engSeason is a competition and the matches of it read from a file.
type engSeason struct {
	pf   *parsedFile
	comp model.Competition
}

// putEngCompetition creates a season's competition, or brings the teams
// and matchdays of an existing one up to date. The caption, access tier
// and rules of an existing competition are kept: they are the editors'
// decisions, or those of the source that created it.
func (im *Importer) putEngCompetition(ctx context.Context, pf *parsedFile, rules model.TableRules, teamIDs map[string]int) (model.Competition, bool, error) {
	c := model.Competition{Caption: pf.caption, League: pf.league.Code, Year: pf.year, Type: pf.kind,
		NumberOfMatchdays: pf.matchdays, Tier: model.TierAnonymous, Rules: rules}
	teams := map[int]string{}
	for _, pm := range pf.matches {
		if pm.stage == model.Regular {
			teams[teamIDs[pm.home]], teams[teamIDs[pm.away]] = "", ""
		}
	}
	var prev *events.Revision
	id, existed := im.comps[compKey(c.League, c.Year)]
	if existed {
		old, rev, err := im.ed.Competition(ctx, id)
		if err != nil {
			return c, true, err
		}
		c = old
		c.NumberOfMatchdays = max(old.NumberOfMatchdays, pf.matchdays)
		c.Teams = nil
		for _, t := range old.Teams {
			teams[t.TeamID] = t.Group
		}
		prev = rev
	}
	for id, group := range teams {
		c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: id, Group: group})
	}
	sort.Slice(c.Teams, func(i, j int) bool { return c.Teams[i].TeamID < c.Teams[j].TeamID })
	ch, err := im.ed.PutCompetition(ctx, &c, prev)
	if err != nil {
		return c, existed, fmt.Errorf("competition %s %d: %w", c.League, c.Year, err)
	}
	im.Summary.Competitions.add(ch.Action)
	im.comps[compKey(c.League, c.Year)] = c.ID
	return c, existed, nil
}

// engKnown is what the stream holds of a file's competitions.
type engKnown struct {
	// bySource holds the fixtures of earlier imports by their Source.
	bySource map[string]stored
	// foreign counts, by competition, the regular fixtures of each
	// pairing that another source (an openfootball file) imported.
	foreign map[int]map[[2]int]int
}

// engFixtures loads the fixtures of the competitions that existed before
// the import, with one scan for the whole file: a scan leaves a consumer on
// the server for a while, so one per competition would exhaust the
// stream's consumers on a file of a thousand seasons.
func (im *Importer) engFixtures(ctx context.Context, existed map[int]bool) (engKnown, error) {
	known := engKnown{bySource: map[string]stored{}, foreign: map[int]map[[2]int]int{}}
	var ids []int
	for id, found := range existed {
		if found {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return known, nil
	}
	filter := events.All(events.KindFixture)
	if len(ids) == 1 {
		filter = events.Subject(events.KindFixture, strconv.Itoa(ids[0]), "*")
	}
	err := im.ed.Store.Scan(ctx, filter, func(ev events.Event) error {
		if len(ev.Key) != 2 {
			return nil
		}
		if comp, err := strconv.Atoi(ev.Key[0]); err != nil || !existed[comp] {
			return nil
		}
		f, err := events.Decode[model.Fixture](ev.Data)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(f.Source, engSource):
			known.bySource[f.Source] = stored{f, events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: append([]byte(nil), ev.Data...)}}
		case f.Stage == model.Regular:
			if known.foreign[f.CompetitionID] == nil {
				known.foreign[f.CompetitionID] = map[[2]int]int{}
			}
			known.foreign[f.CompetitionID][[2]int{f.HomeTeamID, f.AwayTeamID}]++
		}
		return nil
	})
	if err != nil {
		return known, fmt.Errorf("load fixtures of %d competitions: %w", len(ids), err)
	}
	return known, nil
}

// skipForeign drops the matches that another source (an openfootball
// file) already put into the competition, so that a season imported from
// both is not counted twice: as many of a pairing's matches as the other
// source holds are kept as they are.
func (im *Importer) skipForeign(ms []parsedMatch, foreign map[[2]int]int, teamIDs map[string]int) []parsedMatch {
	kept := ms[:0]
	for _, pm := range ms {
		pair := [2]int{teamIDs[pm.home], teamIDs[pm.away]}
		if pm.stage == model.Regular && foreign[pair] > 0 {
			foreign[pair]--
			im.Summary.Fixture.Unchanged++
			continue
		}
		kept = append(kept, pm)
	}
	return kept
}

// putEngFixtures publishes a file's fixtures with one bulk: new ones with
// ids reserved in one block, imported ones again (which publishes nothing
// unless the file changed). Unlike putFixtures it takes the fixtures
// already loaded for the whole file, and flushes once per file.
func (im *Importer) putEngFixtures(ctx context.Context, path string, seasons []engSeason, existing map[string]stored, teamIDs map[string]int) error {
	total, fresh := 0, 0
	for _, s := range seasons {
		for _, pm := range s.pf.matches {
			total++
			if _, ok := existing[pm.source]; !ok {
				fresh++
			}
		}
	}
	nextID, err := im.ed.NextIDs(ctx, events.KindFixture, fresh)
	if err != nil {
		return err
	}
	bar := newBar(im.progress, path, total)
	defer bar.finish()
	bulk := im.ed.Store.Bulk()
	for _, s := range seasons {
		reject := func(pm parsedMatch, err error) {
			im.Summary.Fixture.Rejected++
			im.Summary.Rejected = append(im.Summary.Rejected, Rejection{File: path, Match: pm.line,
				Reason: fmt.Sprintf("%s v %s (%s %d): %v", pm.home, pm.away, s.comp.League, s.comp.Year, err)})
			bar.step()
		}
		for _, pm := range s.pf.matches {
			f := model.Fixture{ID: nextID, CompetitionID: s.comp.ID, Matchday: pm.matchday, Stage: pm.stage, Round: pm.round,
				Kickoff: pm.kickoff, HomeTeamID: teamIDs[pm.home], AwayTeamID: teamIDs[pm.away], Status: pm.status,
				Result: pm.result, Source: pm.source}
			st, ok := existing[pm.source]
			var from *stored
			if ok {
				// Odds are no part of the file and the matchday is only
				// derived from it: an overlapping file (england5.csv and
				// england_nonleague.csv) must not number it again.
				f.ID, f.Odds, f.Matchday = st.f.ID, st.f.Odds, st.f.Matchday
				from = &st
			} else {
				nextID++
			}
			if err := im.putFixture(ctx, bulk, &s.comp, f, from, func(err error) { reject(pm, err) }, bar); err != nil {
				return err
			}
		}
	}
	return bulk.Flush(ctx)
}

// EngSoccerDeductions records the points deductions of an engsoccerdata
// deductions.csv as adjustments of the competitions already imported: the
// competition of the country, tier and season in which the team played.
// Run it after the match files. What happened to the adjustments is
// counted in the summary; deductions it cannot place are rejected.
func (im *Importer) EngSoccerDeductions(ctx context.Context, path string, opts EngSoccerOptions) error {
	im.Summary.Files++
	counts := &im.Summary.Adjustments
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	cols, err := csvColumns(r, path, "Season", "team", "tier", "deduction", "country")
	if err != nil {
		im.Summary.Rejected = append(im.Summary.Rejected, Rejection{File: path, Reason: err.Error()})
		return err
	}
	if err := im.load(ctx); err != nil {
		return err
	}
	existing, err := im.engDeductions(ctx)
	if err != nil {
		return err
	}
	comps := map[int]model.Competition{}
	for line := 1; ; line++ {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return model.Invalidf("file", path, "row %d: %v", line, err)
		}
		season, err := strconv.Atoi(column(row, cols, "Season"))
		if err == nil && !opts.includes(season) {
			continue
		}
		a, err := im.placeDeduction(ctx, row, cols, season, comps)
		if err == nil {
			var action Counts
			action, err = im.putDeduction(ctx, a, existing)
			counts.Created += action.Created
			counts.Updated += action.Updated
			counts.Unchanged += action.Unchanged
		}
		switch code := model.ErrorCode(err); code {
		case "":
		case model.Invalid, model.NotFound:
			counts.Rejected++
			im.Summary.Rejected = append(im.Summary.Rejected, Rejection{File: path, Match: line, Reason: err.Error()})
		default:
			return err
		}
	}
}

// placeDeduction finds the competition and team of a deduction row.
func (im *Importer) placeDeduction(ctx context.Context, row []string, cols map[string]int, season int,
	comps map[int]model.Competition) (model.Adjustment, error) {
	country, name := strings.ToLower(column(row, cols, "country")), column(row, cols, "team")
	ec, ok := engCountries[country]
	if !ok {
		return model.Adjustment{}, model.Invalidf("country", country, "no leagues known for this country")
	}
	if to, ok := ec.renames[name]; ok {
		name = to
	}
	tier, errT := strconv.Atoi(column(row, cols, "tier"))
	points, errP := strconv.Atoi(column(row, cols, "deduction"))
	if season == 0 || errT != nil || errP != nil {
		return model.Adjustment{}, model.Invalidf("deduction", strings.Join(row, ","), "season, tier and deduction must be numbers")
	}
	team, ok := im.names[model.NormalizeTeamName(name)]
	if !ok {
		return model.Adjustment{}, model.NotFoundf("team %q: not imported", name)
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
	for _, code := range codes {
		id, ok := im.comps[compKey(code, season)]
		if !ok {
			continue
		}
		c, ok := comps[id]
		if !ok {
			var err error
			if c, _, err = im.ed.Competition(ctx, id); err != nil {
				return model.Adjustment{}, err
			}
			comps[id] = c
		}
		if c.HasTeam(team) {
			return model.Adjustment{CompetitionID: id, TeamID: team, Points: -points, Reason: engDeductionReason}, nil
		}
	}
	return model.Adjustment{}, model.NotFoundf("%s: no imported %s tier %d competition of %d has %s", name, country, tier, season, name)
}

// putDeduction writes a, or updates the adjustment an earlier import made
// for the same team.
func (im *Importer) putDeduction(ctx context.Context, a model.Adjustment, existing map[int][]model.Adjustment) (Counts, error) {
	var c Counts
	for _, old := range existing[a.CompetitionID] {
		if old.TeamID == a.TeamID && old.Reason == engDeductionReason {
			a.ID = old.ID
			if old == a {
				c.Unchanged++
				return c, nil
			}
		}
	}
	ch, err := im.ed.PutAdjustment(ctx, &a)
	if err != nil {
		return c, fmt.Errorf("deduction of team %d in competition %d: %w", a.TeamID, a.CompetitionID, err)
	}
	c.add(ch.Action)
	if ch.Action == editor.Created {
		existing[a.CompetitionID] = append(existing[a.CompetitionID], a)
	}
	return c, nil
}

// engDeductions loads the adjustments earlier imports made, by
// competition, with one scan (see engFixtures).
func (im *Importer) engDeductions(ctx context.Context) (map[int][]model.Adjustment, error) {
	out := map[int][]model.Adjustment{}
	err := im.ed.Store.Scan(ctx, events.All(events.KindAdjustment), func(ev events.Event) error {
		a, err := events.Decode[model.Adjustment](ev.Data)
		if err == nil && a.Reason == engDeductionReason {
			out[a.CompetitionID] = append(out[a.CompetitionID], a)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load adjustments: %w", err)
	}
	return out, nil
}

// EngSoccerFiles lists the match files of an engsoccerdata data-raw folder
// that EngSoccer reads, and its deductions file ("" if there is none).
func EngSoccerFiles(dir string) (matches []string, deductions string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, "", fmt.Errorf("list %s: %w", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if filepath.Base(p) == "deductions.csv" {
			deductions = p
			continue
		}
		if _, _, ok := engCountryOf(p); !ok {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, "", fmt.Errorf("open %s: %w", p, err)
		}
		_, err = csvColumns(csv.NewReader(f), p, "Date", "Season", "home", "visitor", "hgoal", "vgoal")
		f.Close()
		switch {
		case err == nil:
			matches = append(matches, p)
		case model.ErrorCode(err) != model.Invalid:
			return nil, "", err
		}
	}
	return matches, deductions, nil
}
