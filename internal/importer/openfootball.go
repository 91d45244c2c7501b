package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/model"
)

// ofFile is the openfootball JSON layout (football.json, worldcup.json):
// a list of matches, or (euro.json) a list of rounds holding matches.
type ofFile struct {
	Name    string    `json:"name"`
	Matches []ofMatch `json:"matches"`
	Rounds  []ofRound `json:"rounds"`
}

type ofRound struct {
	Name    string    `json:"name"`
	Matches []ofMatch `json:"matches"`
}

// ofTeam is a team name, given as a string or as {"name": …, "code": …}.
type ofTeam string

func (t *ofTeam) UnmarshalJSON(b []byte) error {
	// Nearly every name is a plain string: taken as it is, without a
	// second decoder (the value is valid JSON, the decoder checked it).
	if len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		*t = ofTeam(b[1 : len(b)-1])
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = ofTeam(s)
		return nil
	}
	var o struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("team: want a name or an object with a name: %w", err)
	}
	*t = ofTeam(o.Name)
	return nil
}

type ofMatch struct {
	Round  string  `json:"round"`
	Date   string  `json:"date"`
	Time   string  `json:"time"`
	Team1  ofTeam  `json:"team1"`
	Team2  ofTeam  `json:"team2"`
	Group  string  `json:"group"`
	Stage  string  `json:"stage"`
	Status string  `json:"status"`
	Score  ofScore `json:"score"`
	// Goals1 and Goals2 are the goals that count for team1 and team2
	// (an own goal in Goals2 was scored by a player of team1); Ground
	// the venue. Tournament files have them, league files do not.
	Goals1 []ofGoal `json:"goals1"`
	Goals2 []ofGoal `json:"goals2"`
	Ground string   `json:"ground"`
}

// ofGoal is one goal of a match.
type ofGoal struct {
	Name    string   `json:"name"`
	Minute  ofMinute `json:"minute"`
	Offset  int      `json:"offset"`
	Penalty bool     `json:"penalty"`
	OwnGoal bool     `json:"owngoal"`
}

// ofMinute is a goal's minute as the file writes it: a number (90, with
// the stoppage minutes in the goal's offset) or a string ("90+4", the
// World Cup 2026 file's way), read by goalsOf.
type ofMinute string

func (m *ofMinute) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = ofMinute(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("minute: want a number or a string such as \"90+4\": %w", err)
	}
	*m = ofMinute(n)
	return nil
}

type ofScore struct {
	FT []int `json:"ft"`
	HT []int `json:"ht"`
	ET []int `json:"et"`
	P  []int `json:"p"`
}

// parsedMatch is a match with everything but team ids resolved: the shape
// every parser reads its matches into.
type parsedMatch struct {
	line     int // position in the file, for error messages
	source   string
	round    string
	matchday int
	group    string
	stage    model.Stage
	leg      int
	kickoff  time.Time
	timed    bool
	home     string
	away     string
	status   model.Status
	result   model.Result
	// minute and injury are a live match's clock, where the source has
	// it (football-data.org).
	minute  int
	injury  int
	awarded model.Side
	odds    *model.Odds
	referee string
	venue   string
	// goals are the match's goals in the order of play, their scorers'
	// person ids resolved by the writer (resolveScorers).
	goals []model.Goal
	// dropped are details the parser could not read (a half-time score
	// that is not one): left out, the rest imported, with a warning.
	dropped []droppedDetail
	err     error
	// sameAs is the source of the fixture another source made that a
	// feed's match was found to be (matchOthers): the one it writes.
	sameAs string
	// ownID is the source's own id of the match, kept as the fixture's
	// where free (football-data.org's, whose ids are ours); 0: none.
	ownID int
	// homeKey and awayKey are the source's own ids of the teams, where it
	// has them (OpenLigaDB's, openligadb:team:40): recorded as spellings
	// of the teams they name, they find those teams under any later name.
	homeKey, awayKey string
}

// droppedDetail is a detail of a match left out, and why.
type droppedDetail struct {
	field string
	err   error
}

// parsedFile is one season of a competition read from a file: the shape
// every parser reads its seasons into.
type parsedFile struct {
	path      string
	league    model.League
	year      int
	caption   string
	kind      model.CompetitionType
	matchdays int
	// rules are the season's table rules when the file's format knows
	// them better than the league's defaults; nil otherwise.
	rules *model.TableRules
	// derivedMatchdays: the file has no rounds and the parser counted
	// them from the teams' games, so a fixture imported before keeps the
	// larger of its matchday and the file's count.
	derivedMatchdays bool
	// calendarYear: the season is played within its start year (a
	// tournament, a league of the southern or eastern calendar), not
	// across the turn of the year.
	calendarYear bool
	// groups maps each group-stage team name to its group (tournaments).
	groups  map[string]string
	matches []parsedMatch
	// fieldLine, if not nil, gives the line of a field of the match at
	// an index of matches (a JSON match spans many lines); without it a
	// match's line is its field's.
	fieldLine func(i int, field string) int
	// fieldNames name the details (ht, et, p, odds, referee) as the
	// file's format does, where it does otherwise.
	fieldNames map[string]string
	// disciplinary are the teams' disciplinary points counted from the
	// file's cards (nil: the file has none, or not for every match).
	disciplinary map[string]int
}

// invalidFile is the error of a file that cannot be imported at all. It
// does not name the file: the rejection does.
func invalidFile(format string, args ...any) error {
	return &model.Error{Code: model.Invalid, Message: fmt.Sprintf(format, args...)}
}

// parseOpenFootball reads one openfootball JSON file.
func parseOpenFootball(path string, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	// A path that names no league or season is refused for that, before
	// the file is read, whether it exists or not.
	if _, _, _, err := locate(path, opts); err != nil {
		return nil, err
	}
	raw, err := opts.Input.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readOpenFootball(path, raw, opts, leagues)
}

// readOpenFootball reads the body of an openfootball JSON file; path is
// where it came from (a file's path or a URL's), which names its league
// and season as a file's does.
func readOpenFootball(path string, raw []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	league, year, calendar, err := locate(path, opts)
	if err != nil {
		return nil, err
	}
	known, err := leagues(league.Code)
	switch {
	case err == nil:
		league = known
	case model.ErrorCode(err) != model.Invalid || league.Name == "":
		return nil, err
	}
	zone, err := time.LoadLocation(league.Zone)
	if err != nil {
		return nil, fmt.Errorf("league %s: time zone %q: %w", league.Code, league.Zone, err)
	}
	pf, err := parseFile(path, raw, league, year, zone)
	if err != nil {
		return nil, err
	}
	pf.calendarYear = calendar
	return &source{path: path, format: "openfootball", seasons: []*parsedFile{pf}}, nil
}

var (
	seasonDirRE  = regexp.MustCompile(`^(\d{4})(-\d{2})?$`)
	numberedRE   = regexp.MustCompile(`^(?:Matchday|Round|Spieltag)\s+(\d+)$|^(\d+)\.\s*Round$`)
	groupRoundRE = regexp.MustCompile(`^Group\s+([A-Z])$`)
	countryRE    = regexp.MustCompile(`\s*\([A-Z]{3}\)$`)
	utcOffsetRE  = regexp.MustCompile(`^(\d{1,2}:\d{2})\s*UTC([+-]\d{1,2})?(?::?(\d{2}))?$`)
	playoffWords = []string{"playoff", "play-off", "playout", "final", "relegation", "aufstieg",
		"championship", "europe", "qualifying", "round of", "quarter", "semi", "ecl", "platz", "third place"}
	// knockoutWords name the rounds of a league that splits after its
	// regular season that are knock-outs, not its phases' matchdays
	// ("ECL Playoff, Final", "Europa League Finals, Semifinals"; "Playoffs"
	// is how the Champions League names its knock-out play-offs).
	knockoutWords = []string{"final", "semi", "quarter", "round of", "qualifying", "third place", "ecl", "europa league", "playoffs"}
)

// locate reads the league code and season from a path such as
// 2015-16/en.1.json or 2018/worldcup.json, with opts taking precedence.
func locate(path string, opts Options) (league model.League, year int, calendar bool, err error) {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	league, known := openfootballLeagues[base]
	if opts.League != "" {
		league, known = model.League{Code: opts.League}, true
	}
	if !known {
		return league, 0, false, model.Invalidf("league", base, "no league code known for this file name: give one with --league")
	}
	m := seasonDirRE.FindStringSubmatch(filepath.Base(filepath.Dir(path)))
	calendar = m != nil && m[2] == ""
	year = opts.Season
	if year == 0 {
		if m == nil {
			return league, 0, false, model.Invalidf("season", filepath.Base(filepath.Dir(path)), "the folder is not a season (2015-16 or 2019): give one with --season")
		}
		year, _ = strconv.Atoi(m[1])
	}
	return league, year, calendar, nil
}

// parseFile reads the body raw of the file at path; zone is the league's
// local time zone.
func parseFile(path string, raw []byte, league model.League, year int, zone *time.Location) (*parsedFile, error) {
	f, ok := decodeOfFile(raw)
	if !ok {
		f = ofFile{}
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, invalidFile("not openfootball JSON: %v", jsonError(raw, err))
		}
	}
	for _, r := range f.Rounds {
		for _, m := range r.Matches {
			m.Round = r.Name
			f.Matches = append(f.Matches, m)
		}
	}
	if len(f.Matches) == 0 {
		return nil, invalidFile("not openfootball JSON: the file has no matches")
	}
	pf := &parsedFile{path: path, league: league, year: year, caption: f.Name, kind: model.TypeLeague, groups: map[string]string{}}
	if pf.caption == "" {
		pf.caption = fmt.Sprintf("%s %d", league.Code, year)
	}
	for _, m := range f.Matches {
		if g := groupOf(m); g != "" {
			pf.kind = model.TypeTournament
			pf.groups[cleanName(string(m.Team1))] = g
			pf.groups[cleanName(string(m.Team2))] = g
		}
	}
	if strings.HasSuffix(filepath.Base(path), ".cup.json") || league.Code == "DFB" || league.Code == "FAC" || league.Code == "CDR" {
		pf.kind = model.TypeCup
	}
	seen := map[string]int{}
	prefix := "openfootball:" + string(league.Code) + ":" + strconv.Itoa(year) + ":"
	for i, m := range f.Matches {
		pm := parsedMatch{line: i + 1, round: m.Round, group: groupOf(m), home: cleanName(string(m.Team1)), away: cleanName(string(m.Team2))}
		key := m.Round + "|" + pm.home + "|" + pm.away
		seen[key]++
		if seen[key] > 1 {
			key += "#" + strconv.Itoa(seen[key])
		}
		pm.source = prefix + key
		pm.readMatch(m, league.Code, year, zone)
		pf.matches = append(pf.matches, pm)
	}
	numberRounds(pf, f.Matches)
	markLegs(pf.matches)
	pf.fieldLine = func(i int, field string) int { return jsonFieldLine(raw, i, field) }
	return pf, nil
}

// jsonFieldLine is the line of a field of the i-th match of an
// openfootball file (a match spans many lines). Every match has one
// "team1" key, in file order: the field is the first of its name after the
// match's, before the next match's. 0 when the file is laid out otherwise.
func jsonFieldLine(raw []byte, i int, field string) int {
	const team1 = `"team1"`
	at := -1
	for n, off := 0, 0; n <= i; n++ {
		j := bytes.Index(raw[off:], []byte(team1))
		if j < 0 {
			return 0
		}
		at, off = off+j, off+j+len(team1)
	}
	end := len(raw)
	if j := bytes.Index(raw[at+len(team1):], []byte(team1)); j >= 0 {
		end = at + len(team1) + j
	}
	if j := bytes.Index(raw[at:end], []byte(`"`+field+`"`)); j >= 0 {
		at += j
	}
	return 1 + bytes.Count(raw[:at], []byte("\n"))
}

// jsonError says where a file stops being JSON, as a line number.
func jsonError(raw []byte, err error) error {
	lineAt := func(off int64) int { return 1 + bytes.Count(raw[:min(int(off), len(raw))], []byte("\n")) }
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%v (line %d)", se, lineAt(se.Offset))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := strings.TrimPrefix(strings.TrimPrefix(te.Field, "matches."), "rounds.matches.")
		where := fmt.Sprintf("line %d", lineAt(te.Offset))
		if n, what := matchAt(raw, te.Offset); n > 0 {
			where += fmt.Sprintf(", match %d (%s)", n, what)
		}
		want := "a " + te.Type.String()
		switch te.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
			reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			want = "a number"
		case reflect.String:
			want = "a string"
		case reflect.Slice, reflect.Array:
			want = "a list"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		return fmt.Errorf("%s: %s: want %s, got a JSON %s", where, field, want, te.Value)
	}
	return err
}

// matchAt finds the match of an openfootball file whose JSON holds the
// byte at off: its number in the file (from 1, across rounds) and its
// teams, or 0.
func matchAt(raw []byte, off int64) (int, string) {
	d := json.NewDecoder(bytes.NewReader(raw))
	n := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return 0, ""
		}
		if tok != "matches" {
			continue
		}
		if t, err := d.Token(); err != nil || t != json.Delim('[') {
			return 0, ""
		}
		for d.More() {
			start := d.InputOffset()
			var m struct{ Team1, Team2 any }
			if err := d.Decode(&m); err != nil {
				return 0, ""
			}
			n++
			if off > start && off <= d.InputOffset() {
				return n, fmt.Sprintf("%v v %v", m.Team1, m.Team2)
			}
		}
	}
}

// markLegs finds the two-legged ties of knock-out rounds: a pair of teams
// meeting twice in one round, home and away swapped. The second meeting is
// leg 2, whose extra time and shoot-out follow a level aggregate.
func markLegs(ms []parsedMatch) {
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ms[order[a]].kickoff.Before(ms[order[b]].kickoff) })
	first := map[[3]string]int{}
	for _, i := range order {
		pm := &ms[i]
		if pm.stage != model.Playoff {
			continue
		}
		if j, ok := first[[3]string{pm.round, pm.away, pm.home}]; ok && ms[j].leg == 0 {
			ms[j].leg, pm.leg = 1, 2
			continue
		}
		first[[3]string{pm.round, pm.home, pm.away}] = i
	}
}

func groupOf(m ofMatch) string {
	if g := strings.TrimSpace(strings.TrimPrefix(m.Group, "Group ")); g != "" {
		return g
	}
	if r := groupRoundRE.FindStringSubmatch(m.Round); r != nil {
		return r[1]
	}
	return ""
}

// cleanName drops the country suffix of European cup files ("Arsenal (ENG)").
// Most names have none: the regular expression runs only on those that end
// as it does.
func cleanName(s string) string {
	if !strings.HasSuffix(s, ")") {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(countryRE.ReplaceAllString(s, ""))
}

// kickoff converts a local date and time (optionally "18:00 UTC+3") to UTC.
// A missing time means the date alone is fixed: the fixture is on that
// calendar day, midnight UTC, never on the day before.
func kickoff(date, clock string, zone *time.Location) (time.Time, bool, error) {
	d, err := time.ParseInLocation(time.DateOnly, date, zone)
	if err != nil {
		return time.Time{}, false, model.Invalidf("date", date, "must be YYYY-MM-DD")
	}
	if clock == "" {
		return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC), false, nil
	}
	loc := zone
	if m := utcOffsetRE.FindStringSubmatch(clock); m != nil {
		clock = m[1]
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		off := h * 3600
		if h < 0 {
			off -= mins * 60
		} else {
			off += mins * 60
		}
		loc = time.FixedZone("UTC"+m[2], off)
	}
	t, err := time.ParseInLocation(time.DateOnly+" 15:04", date+" "+clock, loc)
	if err != nil {
		return time.Time{}, false, model.Invalidf("time", clock, "must be HH:MM, optionally followed by UTC±H")
	}
	return t.UTC(), true, nil
}

func score(field string, v []int) (*model.Score, error) {
	switch len(v) {
	case 0:
		return nil, nil
	case 2:
		if v[0] < 0 || v[1] < 0 || v[0] > 99 || v[1] > 99 {
			return nil, model.Invalidf(field, fmt.Sprint(v), "goals must be from 0 to 99")
		}
		return &model.Score{Home: v[0], Away: v[1]}, nil
	}
	return nil, model.Invalidf(field, fmt.Sprint(v), "must be two goal counts")
}

// goalsOf reads a match's goals, in the order of play (a file lists
// each team's apart, and not always in order: Russia's 90+1 before its
// 71st minute in 2018).
func goalsOf(m ofMatch) ([]model.Goal, error) {
	var out []model.Goal
	for _, side := range []struct {
		goals []ofGoal
		side  model.Side
	}{{m.Goals1, model.Home}, {m.Goals2, model.Away}} {
		for _, g := range side.goals {
			minute, injury, err := goalMinute(g)
			if err != nil {
				return nil, err
			}
			typ := model.GoalRegular
			switch {
			case g.OwnGoal:
				typ = model.GoalOwn
			case g.Penalty:
				typ = model.GoalPenalty
			}
			out = append(out, model.Goal{Minute: minute, Injury: injury, Side: side.side, Type: typ, Scorer: strings.TrimSpace(g.Name)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Minute < out[j].Minute || out[i].Minute == out[j].Minute && out[i].Injury < out[j].Injury
	})
	return out, nil
}

// goalMinute reads a goal's minute: a number with the stoppage minutes
// in offset, or "90+4". A minute past the 120th is the stoppage time of
// extra time (World Cup 2014's Germany v Algeria writes 121 for 120+1).
func goalMinute(g ofGoal) (minute, injury int, err error) {
	minute, injury, err = goalMinuteAsWritten(g)
	if err == nil && minute > 120 && injury == 0 {
		minute, injury = 120, minute-120
	}
	return minute, injury, err
}

func goalMinuteAsWritten(g ofGoal) (minute, injury int, err error) {
	bad := func() (int, int, error) {
		return 0, 0, model.Invalidf("goal minute", string(g.Minute), "must be a minute such as 67 or 90+4 (%s)", g.Name)
	}
	m, plus, hasPlus := strings.Cut(string(g.Minute), "+")
	if minute, err = strconv.Atoi(strings.TrimSpace(m)); err != nil {
		return bad()
	}
	injury = g.Offset
	if hasPlus {
		if g.Offset != 0 {
			return bad()
		}
		if injury, err = strconv.Atoi(strings.TrimSpace(plus)); err != nil {
			return bad()
		}
	}
	return minute, injury, nil
}

// outcome maps a match's score and status to ours. Abandoned matches with no
// result are treated as postponed: they are replayed or awarded later. A
// half-time, extra-time or shoot-out score that is not one is dropped: the
// match is imported without it.
func outcome(m ofMatch) (model.Status, model.Result, model.Side, []droppedDetail, error) {
	var r model.Result
	var dropped []droppedDetail
	ft, err := score("ft", m.Score.FT)
	if err != nil {
		return "", r, "", nil, err
	}
	r.FullTime = ft
	for _, s := range []struct {
		field string
		v     []int
		into  **model.Score
	}{{"ht", m.Score.HT, &r.HalfTime}, {"et", m.Score.ET, &r.ExtraTime}, {"p", m.Score.P, &r.Penalties}} {
		if *s.into, err = score(s.field, s.v); err != nil {
			dropped = append(dropped, droppedDetail{field: s.field, err: err})
		}
	}
	if r.FullTime == nil && r.ExtraTime != nil {
		// Some tournament lines give only the score after extra time.
		r.FullTime = r.ExtraTime
	}
	switch m.Status {
	case "":
		if r.FullTime != nil {
			return model.Finished, r, "", dropped, nil
		}
		return model.Timed, r, "", dropped, nil
	case "cancelled", "canceled":
		return model.Canceled, model.Result{}, "", nil, nil
	case "postponed":
		return model.Postponed, model.Result{}, "", nil, nil
	case "abandoned":
		if r.FullTime == nil {
			return model.Postponed, r, "", dropped, nil
		}
		return model.Finished, r, "", dropped, nil
	case "awarded":
		if r.FullTime == nil {
			return "", r, "", nil, model.Invalidf("ft", "", "an awarded match needs the awarded score")
		}
		w := r.FullTime.Winner()
		if w == model.Draw {
			w = ""
		}
		return model.Finished, r, w, dropped, nil
	}
	return "", r, "", nil, model.Invalidf("status", m.Status, "must be cancelled, postponed, awarded or abandoned")
}

// readMatch reads what m says of its match: kick-off, status and result,
// an awarded winner (from awardedWinners where the file does not say),
// ground and goals. A detail it cannot read is dropped, not the match.
func (pm *parsedMatch) readMatch(m ofMatch, league model.LeagueCode, year int, zone *time.Location) {
	pm.kickoff, pm.timed, pm.err = kickoff(m.Date, m.Time, zone)
	if pm.err == nil {
		pm.status, pm.result, pm.awarded, pm.dropped, pm.err = outcome(m)
	}
	if pm.err == nil && pm.status == model.Finished && pm.awarded == "" && m.Status == "awarded" {
		pm.awarded = awardedWinners[fmt.Sprintf("%s/%d/%s/%s", league, year, model.NormalizeTeamName(pm.home), model.NormalizeTeamName(pm.away))]
		if pm.awarded == "" {
			pm.err = model.Invalidf("score", fmt.Sprint(m.Score.FT), "awarded with a drawn score: the winner is unknown; set it with `ingest result --awarded`")
		}
	}
	pm.venue = m.Ground
	if pm.err == nil && pm.status == model.Finished {
		var err error
		if pm.goals, err = goalsOf(m); err != nil {
			pm.dropped = append(pm.dropped, droppedDetail{field: "goals", err: err})
		}
	}
	if pm.status == model.Timed && !pm.timed {
		pm.status = model.Scheduled
	}
}

// numberRounds gives each match its matchday and stage. Regular rounds keep
// their number ("Matchday 7", "7. Round"); regular phases that number again
// from 1 (Apertura then Clausura) follow on after the previous phase. Group
// games of tournaments are numbered per group by the order in which each
// team plays. In a league whose rules split it after the regular season
// (model.DefaultRules' phases), the phases' rounds ("Championship,
// Matchday 34", "Relegation, Matchday 1") are regular: they keep a number
// that carries on from the regular season's (Scotland: 34 to 38) or are
// numbered on from it (Belgium: 31 on); the split itself is the table's
// business. Play-off and knock-out rounds follow the last regular matchday.
func numberRounds(pf *parsedFile, raw []ofMatch) {
	afterSplit := numberRegularRounds(pf, raw)
	if pf.kind == model.TypeTournament {
		numberGroupGames(pf)
	}
	regularMax := 0
	for i := range pf.matches {
		if pf.matches[i].stage == model.Regular {
			regularMax = max(regularMax, pf.matches[i].matchday)
		}
	}
	season := regularMax
	for i, n := range afterSplit {
		if n > 0 {
			md := n
			if n <= season {
				md = season + n
			}
			pf.matches[i].matchday = md
			regularMax = max(regularMax, md)
		}
	}
	numberPlayoffRounds(pf, raw, regularMax)
	pf.matchdays = regularMax
	for i := range pf.matches {
		if pm := &pf.matches[i]; pm.err == nil && (pm.matchday < 1 || pm.matchday > 99) {
			pm.err = model.Invalidf("round", raw[i].Round, "gives matchday %d, outside 1 to 99", pm.matchday)
		}
	}
}

// isPlayoff reports whether raw match m of a file of kind is a play-off
// or knock-out game rather than a regular round's.
func isPlayoff(kind model.CompetitionType, m ofMatch) bool {
	switch kind {
	case model.TypeCup:
		return true
	case model.TypeTournament:
		return groupOf(m) == ""
	}
	if m.Stage != "" && m.Stage != "Regular" {
		return true
	}
	phase, rest, hasPhase := strings.Cut(m.Round, ",")
	if !hasPhase {
		// "Final", "Semifinals": knock-out rounds inside a league file.
		return roundNumber(m.Round) == 0
	}
	for _, w := range playoffWords {
		if strings.Contains(strings.ToLower(phase), w) {
			return true
		}
	}
	return roundNumber(rest) == 0
}

// numberRegularRounds (pass 1) gives every match its stage, and the
// regular rounds of leagues their matchday: each phase's rounds follow the
// phases before it. It returns, for the rounds of a league's split (its
// phase after the regular season), their number within the phase.
func numberRegularRounds(pf *parsedFile, raw []ofMatch) []int {
	type phaseInfo struct{ offset, max int }
	phases := map[string]*phaseInfo{}
	var phaseOrder []string
	split := pf.kind == model.TypeLeague && len(model.DefaultRules(pf.league.Code, pf.year).Phases) > 0
	afterSplit := make([]int, len(pf.matches))
	for i := range pf.matches {
		pm := &pf.matches[i]
		if n := phaseRound(raw[i]); split && n > 0 {
			pm.stage, afterSplit[i] = model.Regular, n
			continue
		}
		if isPlayoff(pf.kind, raw[i]) {
			pm.stage = model.Playoff
			continue
		}
		pm.stage = model.Regular
		if pf.kind == model.TypeTournament {
			continue
		}
		phase, rest, hasPhase := strings.Cut(raw[i].Round, ",")
		if !hasPhase {
			phase, rest = "", phase
		}
		n := roundNumber(rest)
		p, ok := phases[phase]
		if !ok {
			p = &phaseInfo{}
			for _, q := range phaseOrder {
				p.offset = max(p.offset, phases[q].offset+phases[q].max)
			}
			phases[phase] = p
			phaseOrder = append(phaseOrder, phase)
		}
		p.max = max(p.max, n)
		pm.matchday = p.offset + n
	}
	return afterSplit
}

// numberGroupGames numbers a tournament's group games: each team's first,
// second... game, in kick-off order.
func numberGroupGames(pf *parsedFile) {
	idx := make([]int, 0, len(pf.matches))
	for i := range pf.matches {
		if pf.matches[i].stage == model.Regular {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return pf.matches[idx[a]].kickoff.Before(pf.matches[idx[b]].kickoff) })
	played := map[string]int{}
	for _, i := range idx {
		pm := &pf.matches[i]
		pm.matchday = max(played[pm.home], played[pm.away]) + 1
		played[pm.home], played[pm.away] = pm.matchday, pm.matchday
	}
}

// numberPlayoffRounds (pass 2) numbers the play-off rounds after the
// regular season's last matchday, regularMax. Numbered rounds without a
// phase (Austria's "Matchday 29" in the championship group) keep their
// number; others are numbered in order of appearance.
func numberPlayoffRounds(pf *parsedFile, raw []ofMatch, regularMax int) {
	next := regularMax
	named := map[string]int{}
	for i := range pf.matches {
		pm := &pf.matches[i]
		if pm.stage != model.Playoff {
			continue
		}
		if n := roundNumber(raw[i].Round); n > 0 && !strings.Contains(raw[i].Round, ",") && pf.kind == model.TypeLeague && n > regularMax {
			pm.matchday = n
			next = max(next, n)
			continue
		}
		if md, ok := named[raw[i].Round]; ok {
			pm.matchday = md
			continue
		}
		next++
		named[raw[i].Round] = next
		pm.matchday = next
	}
}

// phaseRound reads the round of a phase after a league's split: "Phase,
// Matchday N" (or the stage "Playoffs - Phase" with the round "Matchday
// N"). It returns N, or 0 for any other round.
func phaseRound(m ofMatch) int {
	phase, rest, ok := strings.Cut(m.Round, ",")
	if stage, staged := strings.CutPrefix(m.Stage, "Playoffs - "); staged && !ok {
		phase, rest, ok = stage, m.Round, true
	}
	if !ok {
		return 0
	}
	for _, w := range knockoutWords {
		if strings.Contains(strings.ToLower(phase), w) {
			return 0
		}
	}
	return roundNumber(rest)
}

func roundNumber(round string) int {
	round = strings.TrimSpace(round)
	if _, rest, ok := strings.Cut(round, ","); ok {
		round = strings.TrimSpace(rest)
	}
	// Nearly every round is a word and a number: read without the
	// regular expression, which cost a fifth of parsing a file.
	for _, word := range []string{"Matchday ", "Round ", "Spieltag "} {
		if digits, ok := strings.CutPrefix(round, word); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			n, _ := strconv.Atoi(digits)
			return n
		}
	}
	m := numberedRE.FindStringSubmatch(round)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1] + m[2])
	return n
}
