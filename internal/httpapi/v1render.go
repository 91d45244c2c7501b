package httpapi

import (
	"encoding/json"
	"strconv"

	"github.com/footdata/footballd/pkg/model"
	"github.com/footdata/footballd/pkg/readmodel"
)

// representation is what X-Response-Control asks for.
type representation string

const (
	full       representation = "full"
	minified   representation = "minified"
	compressed representation = "compressed"
)

// linkKind says under which path competitions are linked: the current
// name, the deprecated v1 name, or the alpha API.
type linkKind int

const (
	competitionsPath linkKind = iota
	soccerseasonsPath
	alphaPath
)

// links builds the absolute links of one response.
type links struct {
	base string // e.g. http://host/v1
	comp string // "competitions" or "soccerseasons"
}

// newLinks are the links of kind under base, the request's base URL
// (appended to: a caller's buffer saves the joined string an allocation).
func newLinks(base []byte, kind linkKind) links {
	prefix, comp := "/v1", "competitions"
	switch kind {
	case soccerseasonsPath:
		comp = "soccerseasons"
	case alphaPath:
		prefix, comp = "/alpha", "soccerseasons"
	}
	return links{string(append(base, prefix...)), comp}
}

type href struct {
	Href string `json:"href"`
}

func (l links) competition(id int) href {
	return href{l.base + "/" + l.comp + "/" + strconv.Itoa(id)}
}
func (l links) soccerseason(id int) href {
	return href{l.base + "/soccerseasons/" + strconv.Itoa(id)}
}
func (l links) team(id int) href    { return href{l.base + "/teams/" + strconv.Itoa(id)} }
func (l links) fixture(id int) href { return href{l.base + "/fixtures/" + strconv.Itoa(id)} }

// ---- competitions ----

type competitionLinks struct {
	Self        href `json:"self"`
	Teams       href `json:"teams"`
	Fixtures    href `json:"fixtures"`
	LeagueTable href `json:"leagueTable"`
}

type competitionJSON struct {
	Links             *competitionLinks `json:"_links,omitempty"`
	ID                int               `json:"id"`
	Caption           string            `json:"caption"`
	League            model.LeagueCode  `json:"league"`
	Year              string            `json:"year"`
	CurrentMatchday   int               `json:"currentMatchday"`
	NumberOfMatchdays int               `json:"numberOfMatchdays"`
	NumberOfTeams     int               `json:"numberOfTeams"`
	NumberOfGames     int               `json:"numberOfGames"`
	LastUpdated       string            `json:"lastUpdated"`
}

func renderCompetition(c readmodel.Competition, rep representation, l links) competitionJSON {
	out := competitionJSON{ID: c.ID, Caption: c.Caption, League: c.League, Year: strconv.Itoa(c.Year),
		CurrentMatchday: c.CurrentMatchday, NumberOfMatchdays: c.LastMatchday, NumberOfTeams: c.NumberOfTeams(),
		NumberOfGames: c.NumberOfGames, LastUpdated: ts(c.LastUpdated)}
	if rep == full {
		self := l.competition(c.ID)
		out.Links = &competitionLinks{Self: self, Teams: href{self.Href + "/teams"},
			Fixtures: href{self.Href + "/fixtures"}, LeagueTable: href{self.Href + "/leagueTable"}}
	}
	return out
}

// ---- fixtures ----

type fixtureLinks struct {
	Self         href  `json:"self"`
	Competition  href  `json:"competition"`
	Soccerseason href  `json:"soccerseason"`
	HomeTeam     *href `json:"homeTeam"`
	AwayTeam     *href `json:"awayTeam"`
}

type goals struct {
	GoalsHomeTeam *int `json:"goalsHomeTeam"`
	GoalsAwayTeam *int `json:"goalsAwayTeam"`
}

func goalsOf(s *model.Score) goals {
	if s == nil {
		return goals{}
	}
	h, a := s.Home, s.Away
	return goals{&h, &a}
}

func optGoals(s *model.Score) *goals {
	if s == nil {
		return nil
	}
	g := goalsOf(s)
	return &g
}

type resultJSON struct {
	goals
	HalfTime        *goals `json:"halfTime,omitempty"`
	ExtraTime       *goals `json:"extraTime,omitempty"`
	PenaltyShootout *goals `json:"penaltyShootout,omitempty"`
}

type fixtureJSON struct {
	Links         *fixtureLinks `json:"_links,omitempty"`
	ID            int           `json:"id"`
	CompetitionID int           `json:"competitionId"`
	Date          string        `json:"date"`
	Status        model.Status  `json:"status"`
	Matchday      int           `json:"matchday"`
	HomeTeamName  string        `json:"homeTeamName"`
	HomeTeamID    *int          `json:"homeTeamId"`
	AwayTeamName  string        `json:"awayTeamName"`
	AwayTeamID    *int          `json:"awayTeamId"`
	Result        resultJSON    `json:"result"`
	Odds          *model.Odds   `json:"odds"`
}

// compressed fixtures drop names and odds and shorten every key.
type compressedGoals struct {
	GHT *int `json:"ght"`
	GAT *int `json:"gat"`
}

type compressedFixture struct {
	ID       int          `json:"id"`
	CID      int          `json:"cId"`
	Date     string       `json:"date"`
	Status   model.Status `json:"stat"`
	Matchday int          `json:"mday"`
	HomeID   *int         `json:"htId"`
	AwayID   *int         `json:"atId"`
	Result   struct {
		compressedGoals
		HT *compressedGoals `json:"HT,omitempty"`
	} `json:"res"`
}

func teamID(id int) *int {
	if id == 0 {
		return nil
	}
	return &id
}

// v1Status is a fixture's status as v1 shows it: v1 had six. A match
// being played, in a break, extra time or a shoot-out included, is IN_PLAY;
// an award is FINISHED (v1 showed awarded results so); a suspended match,
// neither over nor being played, is POSTPONED until it resumes or is
// replayed.
func v1Status(s model.Status) model.Status {
	switch {
	case s.Live():
		return model.InPlay
	case s == model.AwardedStatus:
		return model.Finished
	case s == model.Suspended:
		return model.Postponed
	}
	return s
}

func renderFixture(f readmodel.Fixture, rep representation, l links) any {
	if rep == compressed {
		out := compressedFixture{ID: f.ID, CID: f.CompetitionID, Date: ts(f.Kickoff), Status: v1Status(f.Status),
			Matchday: f.Matchday, HomeID: teamID(f.HomeTeamID), AwayID: teamID(f.AwayTeamID)}
		g := goalsOf(f.Result.FullTime)
		out.Result.compressedGoals = compressedGoals{g.GoalsHomeTeam, g.GoalsAwayTeam}
		if f.Result.HalfTime != nil {
			ht := goalsOf(f.Result.HalfTime)
			out.Result.HT = &compressedGoals{ht.GoalsHomeTeam, ht.GoalsAwayTeam}
		}
		return out
	}
	out := fixtureJSON{ID: f.ID, CompetitionID: f.CompetitionID, Date: ts(f.Kickoff), Status: v1Status(f.Status),
		Matchday: f.Matchday, HomeTeamName: f.HomeTeamName, HomeTeamID: teamID(f.HomeTeamID),
		AwayTeamName: f.AwayTeamName, AwayTeamID: teamID(f.AwayTeamID), Odds: f.Odds,
		Result: resultJSON{goals: goalsOf(f.Result.FullTime), HalfTime: optGoals(f.Result.HalfTime),
			ExtraTime: optGoals(f.Result.ExtraTime), PenaltyShootout: optGoals(f.Result.Penalties)}}
	if rep == full {
		out.Links = &fixtureLinks{Self: l.fixture(f.ID), Competition: l.competition(f.CompetitionID),
			Soccerseason: l.soccerseason(f.CompetitionID)}
		if f.HomeTeamID != 0 {
			h := l.team(f.HomeTeamID)
			out.Links.HomeTeam = &h
		}
		if f.AwayTeamID != 0 {
			a := l.team(f.AwayTeamID)
			out.Links.AwayTeam = &a
		}
	}
	return out
}

func renderFixtures(fs []readmodel.Fixture, rep representation, l links) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		out[i] = renderFixture(f, rep, l)
	}
	return out
}

type headToHeadJSON struct {
	Count               int     `json:"count"`
	TimeFrameStart      *string `json:"timeFrameStart"`
	TimeFrameEnd        *string `json:"timeFrameEnd"`
	HomeTeamWins        int     `json:"homeTeamWins"`
	AwayTeamWins        int     `json:"awayTeamWins"`
	Draws               int     `json:"draws"`
	LastHomeWinHomeTeam any     `json:"lastHomeWinHomeTeam"`
	LastWinHomeTeam     any     `json:"lastWinHomeTeam"`
	LastAwayWinAwayTeam any     `json:"lastAwayWinAwayTeam"`
	LastWinAwayTeam     any     `json:"lastWinAwayTeam"`
	Fixtures            []any   `json:"fixtures"`
}

func renderHeadToHead(h readmodel.HeadToHead, rep representation, l links) headToHeadJSON {
	one := func(f *readmodel.Fixture) any {
		if f == nil {
			return nil
		}
		return renderFixture(*f, rep, l)
	}
	return headToHeadJSON{Count: h.Count, TimeFrameStart: date(h.TimeFrameStart), TimeFrameEnd: date(h.TimeFrameEnd),
		HomeTeamWins: h.HomeTeamWins, AwayTeamWins: h.AwayTeamWins, Draws: h.Draws,
		LastHomeWinHomeTeam: one(h.LastHomeWinHomeTeam), LastWinHomeTeam: one(h.LastWinHomeTeam),
		LastAwayWinAwayTeam: one(h.LastAwayWinAwayTeam), LastWinAwayTeam: one(h.LastWinAwayTeam),
		Fixtures: renderFixtures(h.Fixtures, rep, l)}
}

// ---- teams and players ----

type teamLinks struct {
	Self     href `json:"self"`
	Fixtures href `json:"fixtures"`
	Players  href `json:"players"`
}

type teamJSON struct {
	Links            *teamLinks `json:"_links,omitempty"`
	ID               int        `json:"id"`
	Name             string     `json:"name"`
	Code             any        `json:"code,omitempty"` // null when unknown in full form, absent in minified
	ShortName        *string    `json:"shortName"`
	SquadMarketValue *string    `json:"squadMarketValue"`
	CrestURL         *string    `json:"crestUrl"`
}

func renderTeam(t readmodel.Team, rep representation, l links) teamJSON {
	out := teamJSON{ID: t.ID, Name: t.Name, ShortName: t.ShortName, SquadMarketValue: t.SquadMarketValue, CrestURL: t.CrestURL}
	if rep == full {
		self := l.team(t.ID)
		out.Links = &teamLinks{Self: self, Fixtures: href{self.Href + "/fixtures"}, Players: href{self.Href + "/players"}}
		out.Code = t.Code
	}
	return out
}

type playerJSON struct {
	ID            int         `json:"id"`
	Name          string      `json:"name"`
	Position      string      `json:"position"`
	JerseyNumber  *int        `json:"jerseyNumber"`
	DateOfBirth   *model.Date `json:"dateOfBirth"`
	Nationality   string      `json:"nationality"`
	ContractUntil *model.Date `json:"contractUntil"`
	MarketValue   *string     `json:"marketValue"`
}

func renderPlayer(p model.Player) playerJSON {
	return playerJSON{ID: p.ID, Name: p.Name, Position: p.Position, JerseyNumber: p.JerseyNumber,
		DateOfBirth: p.DateOfBirth, Nationality: p.Nationality, ContractUntil: p.ContractUntil, MarketValue: p.MarketValue}
}

// ---- league tables ----

type splitJSON struct {
	Goals        int `json:"goals"`
	GoalsAgainst int `json:"goalsAgainst"`
	Wins         int `json:"wins"`
	Draws        int `json:"draws"`
	Losses       int `json:"losses"`
}

// crest is a crest's URL, nil (null) when there is none: the spec's notes
// make an unknown crestUrl null, and a table's crestURI follows the same
// rule, in every representation.
func crest(url string) *string {
	if url == "" {
		return nil
	}
	return &url
}

type rowFull struct {
	Links struct {
		Team href `json:"team"`
	} `json:"_links"`
	Position       int       `json:"position"`
	Rank           int       `json:"rank"`
	Team           string    `json:"team"`
	TeamID         int       `json:"teamId"`
	TeamName       string    `json:"teamName"`
	CrestURI       *string   `json:"crestURI"`
	PlayedGames    int       `json:"playedGames"`
	Points         int       `json:"points"`
	Goals          int       `json:"goals"`
	GoalsAgainst   int       `json:"goalsAgainst"`
	GoalDifference int       `json:"goalDifference"`
	Wins           int       `json:"wins"`
	Draws          int       `json:"draws"`
	Losses         int       `json:"losses"`
	Home           splitJSON `json:"home"`
	Away           splitJSON `json:"away"`
}

type rowGroup struct {
	Group          string  `json:"group"`
	Rank           int     `json:"rank"`
	Team           string  `json:"team"`
	TeamID         int     `json:"teamId"`
	PlayedGames    int     `json:"playedGames"`
	CrestURI       *string `json:"crestURI"`
	Points         int     `json:"points"`
	Goals          int     `json:"goals"`
	GoalsAgainst   int     `json:"goalsAgainst"`
	GoalDifference int     `json:"goalDifference"`
}

// shortName is the spec's "team" field of a table's row: the team's short
// name, else its name.
func shortName(short, name string) string {
	if short != "" {
		return short
	}
	return name
}

func renderFullRow(r readmodel.TableRow, l links) rowFull {
	out := rowFull{Position: r.Position, Rank: r.Rank, Team: shortName(r.ShortName, r.TeamName), TeamID: r.TeamID, TeamName: r.TeamName,
		CrestURI: crest(r.CrestURL), PlayedGames: r.PlayedGames, Points: r.Points, Goals: r.Goals, GoalsAgainst: r.GoalsAgainst,
		GoalDifference: r.GoalDifference, Wins: r.Wins, Draws: r.Draws, Losses: r.Losses,
		Home: splitJSON(r.Home), Away: splitJSON(r.Away)}
	out.Links.Team = l.team(r.TeamID)
	return out
}

type tableLinks struct {
	Self        href `json:"self"`
	Competition href `json:"competition"`
}

// leagueTable is a league's one standing. It writes its own JSON
// (tablejson.go) straight from the read model's rows, read in place: it is
// the response most often rendered afresh, as every result changes it.
type leagueTable struct {
	id   int
	view readmodel.TableView
	// full is the representation; the minified one has no links. The
	// links are appended piece by piece to base, links.base JSON-encoded
	// without its quotes, and comp, links.comp, which needs no escaping.
	full bool
	base string
	comp string
}

// newLeagueTable is the table of competition id that view holds, its
// caption and matchday (0 is null: beyond the competition's last) view's.
func newLeagueTable(id int, view readmodel.TableView, rep representation, l links) *leagueTable {
	t := &leagueTable{id: id, view: view, full: rep == full}
	if t.full {
		// A base that needs no escaping, as nearly all do, is taken as
		// it is.
		t.base, t.comp = l.base, l.comp
		if !jsonPlainString(l.base) {
			base := appendString(nil, l.base)
			t.base = string(base[1 : len(base)-1])
		}
	}
	return t
}

// tableLinksOf is the links of a table in the form of rep.
func tableLinksOf(id, matchday int, rep representation, l links) *tableLinks {
	if rep != full {
		return nil
	}
	self := l.competition(id).Href + "/leagueTable/"
	if matchday > 0 {
		self += "?matchday=" + strconv.Itoa(matchday)
	}
	return &tableLinks{Self: href{self}, Competition: l.competition(id)}
}

type groupTableJSON struct {
	Links         *tableLinks   `json:"_links,omitempty"`
	LeagueCaption string        `json:"leagueCaption"`
	Matchday      *int          `json:"matchday"`
	Standings     standingsJSON `json:"standings"`
}

// standingsJSON is an object of standings in the order given: a
// tournament's groups by name, then its thirds; a league's play-off phases
// in the order of its rules.
type standingsJSON []namedStanding

type namedStanding struct {
	name string
	rows []any
}

func (s standingsJSON) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, st := range s {
		if i > 0 {
			b = append(b, ',')
		}
		for _, v := range []any{st.name, st.rows} {
			part, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b = append(append(b, part...), ':')
		}
		b = b[:len(b)-1]
	}
	return append(b, '}'), nil
}

// rowPhase is a full row of a league's play-off phase: a league row with
// its phase and the points it carried into it.
type rowPhase struct {
	Group string `json:"group"`
	rowFull
	CarriedPoints int `json:"carriedPoints"`
}

func renderGroupRow(r readmodel.TableRow) rowGroup {
	return rowGroup{Group: r.Group, Rank: r.Rank, Team: shortName(r.ShortName, r.TeamName), TeamID: r.TeamID, PlayedGames: r.PlayedGames,
		CrestURI: crest(r.CrestURL), Points: r.Points, Goals: r.Goals, GoalsAgainst: r.GoalsAgainst, GoalDifference: r.GoalDifference}
}

// renderTable renders a league's one standing as "standing", and a
// tournament's groups or a league's play-off phases as "standings".
func renderTable(c readmodel.CompetitionKey, t readmodel.TableView, rep representation, l links) any {
	if c.Type != model.TypeTournament && (t.Standings() == 0 || t.Group(0) == "") {
		return newLeagueTable(c.ID, t, rep, l)
	}
	// A copy: a pointer into t would move t to the heap for every table,
	// a league's included.
	var md *int
	if m := t.Matchday; m > 0 {
		md = &m
	}
	out := groupTableJSON{Links: tableLinksOf(c.ID, t.Matchday, rep, l), LeagueCaption: t.Caption, Matchday: md, Standings: standingsJSON{}}
	for i := range t.Standings() {
		rows := make([]any, t.Len(i))
		var r readmodel.TableRow
		for k := range rows {
			t.Row(i, k, &r)
			switch {
			case c.Type == model.TypeTournament || rep != full:
				rows[k] = renderGroupRow(r)
			default:
				rows[k] = rowPhase{Group: r.Group, rowFull: renderFullRow(r, l), CarriedPoints: r.CarriedPoints}
			}
		}
		out.Standings = append(out.Standings, namedStanding{t.Group(i), rows})
	}
	return out
}
