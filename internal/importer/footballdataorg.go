package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// football-data.org v4 (../shared/spec/football-data-v4.md): a match
// list, {"matches": […]}, of /v4/matches or /v4/competitions/{code}/
// matches, of one or several competitions. Its competition codes are our
// league codes; a competition's season is its start date's year.

// footballDataOrgFormat prefixes the Source of every fixture this format
// writes: football-data-org:ID, the source's own match id.
const footballDataOrgFormat = "football-data-org"

type fdoMatches struct {
	Matches []fdoMatch `json:"matches"`
}

type fdoMatch struct {
	ID          int `json:"id"`
	Competition struct {
		Code string `json:"code"`
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"competition"`
	Season struct {
		StartDate string `json:"startDate"`
		EndDate   string `json:"endDate"`
	} `json:"season"`
	UTCDate    string  `json:"utcDate"`
	Status     string  `json:"status"`
	Matchday   int     `json:"matchday"`
	Stage      string  `json:"stage"`
	Group      *string `json:"group"`
	Minute     any     `json:"minute"`
	InjuryTime *int    `json:"injuryTime"`
	HomeTeam   fdoTeam `json:"homeTeam"`
	AwayTeam   fdoTeam `json:"awayTeam"`
	Score      struct {
		Winner    *string  `json:"winner"`
		Duration  string   `json:"duration"`
		FullTime  fdoScore `json:"fullTime"`
		HalfTime  fdoScore `json:"halfTime"`
		ExtraTime fdoScore `json:"extraTime"`
		Penalties fdoScore `json:"penalties"`
	} `json:"score"`
}

type fdoTeam struct {
	ID   *int    `json:"id"`
	Name *string `json:"name"`
}

type fdoScore struct {
	Home *int `json:"home"`
	Away *int `json:"away"`
}

func (s fdoScore) score() *model.Score {
	if s.Home == nil || s.Away == nil {
		return nil
	}
	return &model.Score{Home: *s.Home, Away: *s.Away}
}

// regularStages are v4's stages whose matches count in a table.
var regularStages = map[string]bool{"REGULAR_SEASON": true, "GROUP_STAGE": true, "LEAGUE_STAGE": true}

// knockoutMatchdays number v4's rounds that have no matchday (its
// qualifying and knock-out rounds): a number of their own for each, after
// any league's matchdays and the same in every answer, since an answer of
// one day lists some rounds of a season only.
var knockoutMatchdays = map[string]int{"PRELIMINARY_ROUND": 80, "PRELIMINARY_SEMI_FINALS": 80, "PRELIMINARY_FINAL": 81,
	"QUALIFICATION_ROUND_1": 82, "QUALIFICATION_ROUND_2": 83, "QUALIFICATION_ROUND_3": 84, "QUALIFICATION": 84, "PLAYOFF_ROUND": 85,
	"ROUND_1": 86, "ROUND_2": 87, "ROUND_3": 88, "ROUND_4": 89, "LAST_64": 90, "LAST_32": 91, "LAST_16": 92,
	"QUARTER_FINALS": 93, "SEMI_FINALS": 94, "THIRD_PLACE": 95, "FINAL": 96, "PLAYOFFS": 97}

// readFootballDataOrg reads a v4 match list: one season of each
// competition it lists.
func readFootballDataOrg(name string, body []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	var doc fdoMatches
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, invalidFile("not a football-data.org match list: %v", err)
	}
	src := &source{path: name, format: footballDataOrgFormat}
	seasons := map[string]*parsedFile{}
	for i, m := range doc.Matches {
		pf, err := fdoSeason(seasons, src, name, m, opts, leagues)
		if err != nil {
			return nil, err
		}
		pm := fdoParse(m)
		pm.line = i + 1
		if m.Stage == string(model.StageLeague) {
			// A league stage (the Champions League's since 2024) is one
			// table of teams in no group: a league's.
			pf.kind = model.TypeLeague
		}
		pf.matchdays = max(pf.matchdays, pm.matchday)
		if pm.err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: pm.line, What: pm.home + " v " + pm.away, Err: pm.err})
			continue
		}
		if pm.group != "" {
			pf.groups[pm.home], pf.groups[pm.away] = pm.group, pm.group
		}
		pf.matches = append(pf.matches, pm)
	}
	return src, nil
}

// fdoSeason is the season of match m, added to src when it is the first
// of it.
func fdoSeason(seasons map[string]*parsedFile, src *source, name string, m fdoMatch, opts Options,
	leagues func(model.LeagueCode) (model.League, error)) (*parsedFile, error) {
	code := opts.League
	if code == "" {
		c, err := model.ParseLeagueCode(m.Competition.Code)
		if err != nil {
			return nil, model.Invalidf("competition", m.Competition.Code, "match %d: no competition code", m.ID)
		}
		code = c
	}
	start, err := time.Parse(time.DateOnly, m.Season.StartDate)
	if err != nil {
		return nil, model.Invalidf("season", m.Season.StartDate, "match %d: the season has no start date", m.ID)
	}
	year := cmp.Or(opts.Season, start.Year())
	key := string(code) + "/" + strconv.Itoa(year)
	if pf := seasons[key]; pf != nil {
		return pf, nil
	}
	league, err := leagueOf(code, "competition", leagues)
	if err != nil {
		return nil, err
	}
	end, _ := time.Parse(time.DateOnly, m.Season.EndDate)
	pf := &parsedFile{path: name, league: league, year: year, caption: fmt.Sprintf("%s %d/%02d", league.Name, year, (year+1)%100),
		kind: model.TypeLeague, calendarYear: !end.IsZero() && end.Year() == start.Year(), groups: map[string]string{}}
	// v4 calls the Champions League a CUP: any competition but a league
	// is read as a tournament (group stage, then knock-outs), whatever
	// stages one answer happens to list, so that every answer describes
	// it alike; a season with a league stage is a league
	// (readFootballDataOrg).
	if m.Competition.Type != "LEAGUE" {
		pf.kind = model.TypeTournament
	}
	if pf.calendarYear {
		pf.caption = fmt.Sprintf("%s %d", league.Name, year)
	}
	seasons[key] = pf
	src.seasons = append(src.seasons, pf)
	return pf, nil
}

// fdoParse reads one match: its status as v4 gives it, the running score
// of a match in play in fullTime (with its minute, which may come as a
// string, and injury time), half time once known.
func fdoParse(m fdoMatch) parsedMatch {
	pm := parsedMatch{source: footballDataOrgFormat + ":" + strconv.Itoa(m.ID), ownID: m.ID, matchday: m.Matchday, stage: model.Regular, timed: true}
	if m.HomeTeam.Name != nil {
		pm.home = strings.TrimSpace(*m.HomeTeam.Name)
	}
	if m.AwayTeam.Name != nil {
		pm.away = strings.TrimSpace(*m.AwayTeam.Name)
	}
	switch {
	case m.Stage == string(model.StageLeague):
		// The round keeps the stage, which a league's table has not.
		pm.round = m.Stage
	case !regularStages[m.Stage]:
		pm.stage, pm.round = model.Playoff, m.Stage
		if pm.matchday == 0 {
			pm.matchday = cmp.Or(knockoutMatchdays[m.Stage], 98)
		}
	}
	if m.Group != nil {
		pm.group = strings.TrimPrefix(*m.Group, "GROUP_")
	}
	kickoff, err := time.Parse(time.RFC3339, m.UTCDate)
	if err != nil {
		pm.err = model.Invalidf("utcDate", m.UTCDate, "must be a UTC time like 2022-08-05T18:35:00Z")
		return pm
	}
	pm.kickoff = kickoff.UTC()
	if pm.status, err = model.ParseStatus(m.Status); err != nil {
		pm.err = err
		return pm
	}
	if pm.home == "" || pm.away == "" {
		// A knock-out match whose teams are not known yet.
		pm.home, pm.away = cmp.Or(pm.home, "TBD"), cmp.Or(pm.away, "TBD")
	}
	if pm.status.Played() || pm.status == model.AwardedStatus {
		pm.result = model.Result{FullTime: m.Score.FullTime.score(), HalfTime: m.Score.HalfTime.score()}
		if m.Score.Duration == "EXTRA_TIME" || m.Score.Duration == "PENALTY_SHOOTOUT" {
			pm.result.ExtraTime, pm.result.Penalties = m.Score.ExtraTime.score(), m.Score.Penalties.score()
		}
	}
	if pm.status.Live() {
		pm.minute = fdoMinute(m.Minute)
		if m.InjuryTime != nil && pm.minute > 0 {
			pm.injury = *m.InjuryTime
		}
	}
	return pm
}

// fdoMinute reads v4's minute: a number, a numeric string ("90"), or
// absent; anything else, or out of 1 to 120, is unknown (0).
func fdoMinute(v any) int {
	var n int
	switch m := v.(type) {
	case float64:
		n = int(m)
	case string:
		n, _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(m, "'")))
	}
	if n < 1 || n > 120 {
		return 0
	}
	return n
}
