package httpapi

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// The v4 representations, one type each, fields in upstream's recorded
// order (spec football-data-v4.md, section 6). A field v4 has and we have
// no source for is null, never left out: clients were written against
// upstream's keys.

// ---- areas ----

type v4AreaTiny struct {
	ID   int     `json:"id"`
	Name string  `json:"name"`
	Code string  `json:"code"`
	Flag *string `json:"flag"`
}

type v4AreaItem struct {
	ID           int     `json:"id"`
	Name         string  `json:"name"`
	CountryCode  string  `json:"countryCode"`
	Flag         *string `json:"flag"`
	ParentAreaID *int    `json:"parentAreaId"`
	ParentArea   *string `json:"parentArea"`
}

type v4AreaFull struct {
	ID           int          `json:"id"`
	Name         string       `json:"name"`
	Code         string       `json:"code"`
	Flag         *string      `json:"flag"`
	ParentAreaID *int         `json:"parentAreaId"`
	ParentArea   *string      `json:"parentArea"`
	ChildAreas   []v4AreaItem `json:"childAreas"`
}

func (a v4Area) tiny() v4AreaTiny { return v4AreaTiny{ID: a.id, Name: a.name, Code: a.code} }

// parentOf returns the parent's id and name, nil for the world.
func (a v4Area) parentOf() (*int, *string) {
	p, ok := v4AreaByID[a.parent]
	if !ok {
		return nil, nil
	}
	id, name := p.id, p.name
	return &id, &name
}

func (a v4Area) item() v4AreaItem {
	id, name := a.parentOf()
	return v4AreaItem{ID: a.id, Name: a.name, CountryCode: a.code, ParentAreaID: id, ParentArea: name}
}

func (a v4Area) full(children []v4Area) v4AreaFull {
	id, name := a.parentOf()
	out := v4AreaFull{ID: a.id, Name: a.name, Code: a.code, ParentAreaID: id, ParentArea: name, ChildAreas: []v4AreaItem{}}
	for _, c := range children {
		out.ChildAreas = append(out.ChildAreas, c.item())
	}
	return out
}

// ---- competitions and seasons ----

type v4CompTiny struct {
	ID     int              `json:"id"`
	Name   string           `json:"name"`
	Code   model.LeagueCode `json:"code"`
	Type   string           `json:"type"`
	Emblem *string          `json:"emblem"`
}

// v4Season is one of our competitions seen as a season of its league.
// winner is null: a champion is a judgement (ties, awarded titles) the
// stream does not record.
type v4Season struct {
	ID              int       `json:"id"`
	StartDate       *string   `json:"startDate"`
	EndDate         *string   `json:"endDate"`
	CurrentMatchday *int      `json:"currentMatchday"`
	Winner          *struct{} `json:"winner"`
}

type v4CompFull struct {
	Area          v4AreaTiny       `json:"area"`
	ID            int              `json:"id"`
	Name          string           `json:"name"`
	Code          model.LeagueCode `json:"code"`
	Type          string           `json:"type"`
	Emblem        *string          `json:"emblem"`
	CurrentSeason v4Season         `json:"currentSeason"`
	Seasons       []v4Season       `json:"seasons"`
	LastUpdated   string           `json:"lastUpdated"`
}

type v4CompItem struct {
	ID                       int              `json:"id"`
	Area                     v4AreaTiny       `json:"area"`
	Name                     string           `json:"name"`
	Code                     model.LeagueCode `json:"code"`
	Type                     string           `json:"type"`
	Emblem                   *string          `json:"emblem"`
	Plan                     string           `json:"plan"`
	CurrentSeason            v4Season         `json:"currentSeason"`
	NumberOfAvailableSeasons int              `json:"numberOfAvailableSeasons"`
	LastUpdated              string           `json:"lastUpdated"`
}

func v4CompTinyOf(l model.League, c *readmodel.Competition) v4CompTiny {
	return v4CompTiny{ID: v4CompetitionID(l.Code), Name: l.Name, Code: l.Code, Type: v4Type(l.Code, c.Type)}
}

func v4SeasonOf(c *readmodel.Competition) v4Season {
	s := v4Season{ID: c.ID, StartDate: date(c.FirstKickoff), EndDate: date(c.LastKickoff)}
	if c.NumberOfGames > 0 {
		md := c.CurrentMatchday
		s.CurrentMatchday = &md
	}
	return s
}

// ---- teams ----

type v4TeamTiny struct {
	ID        *int    `json:"id"`
	Name      *string `json:"name"`
	ShortName *string `json:"shortName"`
	TLA       *string `json:"tla"`
	Crest     *string `json:"crest"`
}

type v4Coach struct {
	ID          *int       `json:"id"`
	FirstName   *string    `json:"firstName"`
	LastName    *string    `json:"lastName"`
	Name        *string    `json:"name"`
	DateOfBirth *string    `json:"dateOfBirth"`
	Nationality *string    `json:"nationality"`
	Contract    v4Contract `json:"contract"`
}

type v4Contract struct {
	Start *string `json:"start"`
	Until *string `json:"until"`
}

type v4SquadMember struct {
	ID          int         `json:"id"`
	Name        string      `json:"name"`
	Position    *string     `json:"position"`
	DateOfBirth *model.Date `json:"dateOfBirth"`
	Nationality *string     `json:"nationality"`
}

// v4TeamFull is the single team and the competition's team: what we do not
// keep of a club (address, website, founding year, colours, ground, coach,
// staff) is null or empty.
type v4TeamFull struct {
	Area v4AreaTiny `json:"area"`
	v4Club
	RunningCompetitions []v4CompTiny    `json:"runningCompetitions"`
	Coach               v4Coach         `json:"coach"`
	Squad               []v4SquadMember `json:"squad"`
	Staff               []struct{}      `json:"staff"`
	LastUpdated         *string         `json:"lastUpdated"`
}

func v4TeamTinyOf(t readmodel.Team) v4TeamTiny {
	id, name := t.ID, t.Name
	return v4TeamTiny{ID: &id, Name: &name, ShortName: t.ShortName, TLA: t.Code, Crest: t.CrestURL}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func v4SquadOf(players []model.Player) []v4SquadMember {
	out := make([]v4SquadMember, len(players))
	for i, p := range players {
		out[i] = v4SquadMember{ID: p.ID, Name: p.Name, Position: nonEmpty(p.Position), DateOfBirth: p.DateOfBirth, Nationality: nonEmpty(p.Nationality)}
	}
	return out
}

// ---- matches ----

type v4Goals struct {
	Home *int `json:"home"`
	Away *int `json:"away"`
}

type v4Score struct {
	Winner      *string  `json:"winner"`
	Duration    string   `json:"duration"`
	FullTime    v4Goals  `json:"fullTime"`
	HalfTime    v4Goals  `json:"halfTime"`
	RegularTime *v4Goals `json:"regularTime,omitempty"`
	ExtraTime   *v4Goals `json:"extraTime,omitempty"`
	Penalties   *v4Goals `json:"penalties,omitempty"`
}

type v4Odds struct {
	HomeWin *float64 `json:"homeWin"`
	Draw    *float64 `json:"draw"`
	AwayWin *float64 `json:"awayWin"`
}

type v4Referee struct {
	ID          *int    `json:"id"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Nationality *string `json:"nationality"`
}

type v4Match struct {
	Area        v4AreaTiny `json:"area"`
	Competition v4CompTiny `json:"competition"`
	Season      v4Season   `json:"season"`
	ID          int        `json:"id"`
	UTCDate     string     `json:"utcDate"`
	Status      string     `json:"status"`
	// Venue is in the single match only (null without one), absent in
	// lists.
	Venue       json.RawMessage  `json:"venue,omitempty"`
	Matchday    *int             `json:"matchday"`
	Stage       model.RoundStage `json:"stage"`
	Group       *string          `json:"group"`
	LastUpdated string           `json:"lastUpdated"`
	HomeTeam    v4TeamTiny       `json:"homeTeam"`
	AwayTeam    v4TeamTiny       `json:"awayTeam"`
	Score       v4Score          `json:"score"`
	// Minute and InjuryTime are a live match's, where the source had
	// them: upstream's types (the spec's int; a feed may have read a
	// string), absent otherwise.
	Minute     *int `json:"minute,omitempty"`
	InjuryTime *int `json:"injuryTime,omitempty"`
	// Goals are in the single match, and in lists asked for with
	// X-Unfold-Goals: true; [] when we have none.
	Goals    *[]v4Goal   `json:"goals,omitempty"`
	Odds     v4Odds      `json:"odds"`
	Referees []v4Referee `json:"referees"`
}

// v4Status is a fixture's v4 status: v4 spells CANCELLED, and a finished
// match whose result the league awarded is AWARDED (a stream written
// before AWARDED was a status holds such FINISHED ones).
func v4Status(f *readmodel.Fixture) string {
	switch {
	case f.Status == model.Canceled:
		return "CANCELLED"
	case f.Status == model.Finished && f.Awarded != "":
		return "AWARDED"
	}
	return string(f.Status)
}

func goalsPtr(s *model.Score) v4Goals {
	if s == nil {
		return v4Goals{}
	}
	h, a := s.Home, s.Away
	return v4Goals{&h, &a}
}

func addScores(a, b model.Score) *model.Score {
	return &model.Score{Home: a.Home + b.Home, Away: a.Away + b.Away}
}

// v4ScoreOf is v4's arithmetic on our result (spec 8.1–8.4): our full time
// is the score after 90 minutes and our extra time the score after 120;
// v4's fullTime is the final score with the shoot-out's goals added,
// regularTime the score after 90 minutes (upstream documents it so; its
// recordings have null there), extraTime the goals of extra time alone.
// The winner is the match's, not the tie's: the awarded side, else the
// shoot-out's, else fullTime's; null until the match is over (upstream
// may name the side leading a live match: a follower must not read it as
// final, so we do not give it). While live the same arithmetic makes
// fullTime the running score, extra time's and the shoot-out's included.
func v4ScoreOf(f *readmodel.Fixture) v4Score {
	r := f.Result
	s := v4Score{Duration: "REGULAR", FullTime: goalsPtr(r.FullTime), HalfTime: goalsPtr(r.HalfTime)}
	final := r.FullTime
	if r.ExtraTime != nil {
		s.Duration = "EXTRA_TIME"
		final = r.ExtraTime
		if r.FullTime != nil {
			s.ExtraTime = new(v4Goals)
			*s.ExtraTime = goalsPtr(&model.Score{Home: r.ExtraTime.Home - r.FullTime.Home, Away: r.ExtraTime.Away - r.FullTime.Away})
		}
	}
	if r.Penalties != nil {
		s.Duration = "PENALTY_SHOOTOUT"
		p := goalsPtr(r.Penalties)
		s.Penalties = &p
		if final != nil {
			final = addScores(*final, *r.Penalties)
		}
	}
	if s.Duration != "REGULAR" {
		rt := goalsPtr(r.FullTime)
		s.RegularTime = &rt
		s.FullTime = goalsPtr(final)
	}
	if !f.Status.HasResult() {
		return s
	}
	var w model.Side
	switch {
	case f.Awarded != "":
		w = f.Awarded
	case r.Penalties != nil:
		w = r.Penalties.Winner()
	case final != nil:
		w = final.Winner()
	default:
		return s
	}
	winner := string(w)
	s.Winner = &winner
	return s
}

// v4Stage is the stage of a fixture, by its round's name (model.StageOf,
// the one table of round names).
func v4Stage(f *readmodel.Fixture, t model.CompetitionType) model.RoundStage {
	s, _ := model.StageOf(f.Round, f.Stage == model.Playoff, t)
	return s
}

// v4Matchday is a fixture's v4 matchday: its own in a league, a league or
// group stage and a league's championship or relegation round; null in
// knock-out and play-off rounds, as upstream's recordings have it
// (competitions-2001-matches.json). v1 shows every fixture's matchday.
func v4Matchday(f *readmodel.Fixture, stage model.RoundStage) *int {
	if f.Matchday == 0 || !stage.HasMatchdays() {
		return nil
	}
	md := f.Matchday
	return &md
}

// v4Group is a tournament group's v4 name: GROUP_A for our "A".
func v4Group(g string) *string {
	if g == "" {
		return nil
	}
	s := "GROUP_" + strings.ToUpper(strings.TrimPrefix(g, "Group "))
	return &s
}

// v4Context holds what the matches of one response share, looked up once:
// teams, and each competition with its league and area.
type v4Context struct {
	snap  readmodel.Snapshot
	teams map[int]v4TeamTiny
	comps map[int]*v4CompInfo
}

type v4CompInfo struct {
	comp   readmodel.Competition
	league model.League
	area   v4Area
	tiny   v4CompTiny
	season v4Season
}

func newV4Context(snap readmodel.Snapshot) *v4Context {
	return &v4Context{snap: snap, teams: map[int]v4TeamTiny{}, comps: map[int]*v4CompInfo{}}
}

func (x *v4Context) comp(id int) *v4CompInfo {
	if ci, ok := x.comps[id]; ok {
		return ci
	}
	c, _ := x.snap.Competition(id)
	l := v4LeagueOf(x.snap, c.League)
	ci := &v4CompInfo{comp: c, league: l, area: v4AreaOf(l.Country), tiny: v4CompTinyOf(l, &c), season: v4SeasonOf(&c)}
	x.comps[id] = ci
	return ci
}

// v4LeagueOf is a league by code, or one named by its code if the stream
// has none (a competition whose league was never declared).
func v4LeagueOf(snap readmodel.Snapshot, code model.LeagueCode) model.League {
	if l, ok := snap.League(code); ok {
		return l
	}
	return model.League{Code: code, Name: string(code)}
}

func (x *v4Context) team(id int, placeholder string) v4TeamTiny {
	if id == 0 {
		return v4TeamTiny{Name: nonEmpty(placeholder)}
	}
	if t, ok := x.teams[id]; ok {
		return t
	}
	t, ok := x.snap.Team(id)
	tiny := v4TeamTinyOf(t)
	if !ok {
		tiny = v4TeamTiny{ID: &id, Name: nonEmpty(placeholder)}
	}
	x.teams[id] = tiny
	return tiny
}

// match renders a fixture; single adds the venue and the goals, which
// readmodel's single fixture carries. lastUpdated is the competition's
// latest change: the stream keeps no time per fixture.
func (x *v4Context) match(f *readmodel.Fixture, single bool) v4Match {
	ci := x.comp(f.CompetitionID)
	m := v4Match{Area: ci.area.tiny(), Competition: ci.tiny, Season: ci.season, ID: f.ID, UTCDate: ts(f.Kickoff),
		Status: v4Status(f), Stage: v4Stage(f, ci.comp.Type), Group: v4Group(f.Group), LastUpdated: ts(ci.comp.LastUpdated),
		HomeTeam: x.team(f.HomeTeamID, f.HomePlaceholder), AwayTeam: x.team(f.AwayTeamID, f.AwayPlaceholder),
		Score: v4ScoreOf(f), Referees: []v4Referee{}}
	if f.Status.Live() && f.Minute > 0 {
		minute := f.Minute
		m.Minute = &minute
		if f.InjuryTime > 0 {
			injury := f.InjuryTime
			m.InjuryTime = &injury
		}
	}
	if single {
		m.Venue = json.RawMessage("null")
		if f.Venue != "" {
			m.Venue, _ = json.Marshal(f.Venue)
		}
		m.Goals = x.goalsOf(f, f.Goals)
	}
	m.Matchday = v4Matchday(f, m.Stage)
	if f.Odds != nil {
		h, d, a := f.Odds.HomeWin, f.Odds.Draw, f.Odds.AwayWin
		m.Odds = v4Odds{&h, &d, &a}
	}
	if f.Referee != "" {
		m.Referees = append(m.Referees, v4Referee{Name: f.Referee, Type: "REFEREE"})
	}
	return m
}

// v4ResultSet is the meta node of match lists: count, the codes of the
// competitions listed (where the route has it), the first and last day,
// the finished matches, and a team's record (team matches). An empty list
// has the count alone, as upstream's.
type v4ResultSet struct {
	Count        int     `json:"count"`
	Competitions *string `json:"competitions,omitempty"`
	First        *string `json:"first,omitempty"`
	Last         *string `json:"last,omitempty"`
	Played       *int    `json:"played,omitempty"`
	Wins         *int    `json:"wins,omitempty"`
	Draws        *int    `json:"draws,omitempty"`
	Losses       *int    `json:"losses,omitempty"`
}

// resultSetOf summarises fs; withCodes adds the competitions, team (not
// 0) the team's wins, draws and losses.
func (x *v4Context) resultSetOf(fs []readmodel.Fixture, withCodes bool, team int) v4ResultSet {
	rs := v4ResultSet{Count: len(fs)}
	if len(fs) == 0 {
		return rs
	}
	rs.First, rs.Last = date(fs[0].Kickoff), date(fs[len(fs)-1].Kickoff)
	played, wins, draws, losses := 0, 0, 0, 0
	var codes []string
	for i := range fs {
		f := &fs[i]
		if code := string(x.comp(f.CompetitionID).league.Code); !slices.Contains(codes, code) {
			codes = append(codes, code)
		}
		side, ok := f.Outcome()
		if !ok {
			continue
		}
		played++
		switch {
		case side == model.Draw:
			draws++
		case (side == model.Home) == (f.HomeTeamID == team):
			wins++
		default:
			losses++
		}
	}
	rs.Played = &played
	if withCodes {
		s := strings.Join(codes, ",")
		rs.Competitions = &s
	}
	if team != 0 {
		rs.Wins, rs.Draws, rs.Losses = &wins, &draws, &losses
	}
	return rs
}

// page applies v4's offset and limit to a list.
func page[T any](list []T, f *filters) []T {
	if f.offset > 0 {
		list = list[min(f.offset, len(list)):]
	}
	if f.limit > 0 && len(list) > f.limit {
		list = list[:f.limit]
	}
	return list
}

// keep applies v4's date range, status, ids, stage and group filters,
// and keeps of the fixtures of a matchday those v4 numbers (a knock-out
// round's have no matchday in v4).
func (x *v4Context) keep(fs []readmodel.Fixture, f *filters) []readmodel.Fixture {
	if !f.hasDates && len(f.statuses) == 0 && f.ids == nil && f.stage == "" && f.group == "" && f.matchday == 0 {
		return fs
	}
	out := fs[:0:0]
	for i := range fs {
		fx := &fs[i]
		k := fx.Kickoff
		if f.hasDates && (k.Before(f.from) || !k.Before(f.to)) {
			continue
		}
		if len(f.statuses) > 0 && !statusIn(v4Status(fx), f.statuses) {
			continue
		}
		if f.ids != nil && !slices.Contains(f.ids, int32(fx.ID)) {
			continue
		}
		if x.keepStage(fx, f) {
			out = append(out, *fx)
		}
	}
	return out
}

// keepStage applies the stage and group filters, and the matchday's to
// the matchdays v4 numbers.
func (x *v4Context) keepStage(fx *readmodel.Fixture, f *filters) bool {
	if g := v4Group(fx.Group); f.group != "" && (g == nil || *g != f.group) {
		return false
	}
	if f.stage == "" && f.matchday == 0 {
		return true
	}
	stage := v4Stage(fx, x.comp(fx.CompetitionID).comp.Type)
	return (f.stage == "" || string(stage) == f.stage) && (f.matchday == 0 || v4Matchday(fx, stage) != nil)
}

// statusIn reports whether v4 status st is one of list. LIVE is every
// status of a match being played: upstream documents IN_PLAY and PAUSED,
// and shows a match in extra time or its shoot-out as IN_PLAY with the
// score's duration saying which, so its LIVE holds those too.
func statusIn(st string, list []string) bool {
	for _, s := range list {
		if s == st || (s == "LIVE" && model.Status(st).Live()) {
			return true
		}
	}
	return false
}

// v4Filters is the echo of the filters: only those given or filled in,
// with upstream's types (season and matchday as strings, status as an
// array, limit and offset as numbers).
type v4Filters struct {
	Season       *string  `json:"season,omitempty"`
	Matchday     *string  `json:"matchday,omitempty"`
	Status       []string `json:"status,omitempty"`
	Stage        string   `json:"stage,omitempty"`
	Group        string   `json:"group,omitempty"`
	Venue        string   `json:"venue,omitempty"`
	IDs          string   `json:"ids,omitempty"`
	Date         string   `json:"date,omitempty"`
	DateFrom     *string  `json:"dateFrom,omitempty"`
	DateTo       *string  `json:"dateTo,omitempty"`
	Competitions *string  `json:"competitions,omitempty"`
	Areas        *string  `json:"areas,omitempty"`
	Permission   *string  `json:"permission,omitempty"`
	Limit        *int     `json:"limit,omitempty"`
	Offset       *int     `json:"offset,omitempty"`
}

// echo fills what every list shares: matchday, status, stage, group, ids,
// the day or the dates, limit and offset as given.
func (e *v4Filters) echo(f *filters) {
	if f.matchday > 0 {
		s := itoa(f.matchday)
		e.Matchday = &s
	}
	e.Status, e.Stage, e.Group = f.statuses, f.stage, f.group
	if f.venue != "" {
		e.Venue = strings.ToUpper(f.venue)
	}
	for i, id := range f.ids {
		if i > 0 {
			e.IDs += ","
		}
		e.IDs += itoa(int(id))
	}
	switch {
	case f.date != "":
		e.Date = f.date
	case f.hasDates:
		e.DateFrom, e.DateTo = date(f.from), date(f.to)
	}
	if f.limit > 0 {
		n := f.limit
		e.Limit = &n
	}
	if f.offset >= 0 {
		n := f.offset
		e.Offset = &n
	}
}
