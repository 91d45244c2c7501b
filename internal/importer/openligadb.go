package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// OpenLigaDB (api.openligadb.de, ../shared/spec/openligadb/FORMAT.md):
// an array of matches of one league's season or matchday, camelCase
// (the old API's PascalCase is read too: keys match case-insensitively).
// It has no status field: the state of a match is read from whether it
// is finished, its results, its goals and its kick-off.

// openLigaDBFormat prefixes the Source of every fixture this format
// writes: openligadb:MATCHID, OpenLigaDB's own match id.
const openLigaDBFormat = "openligadb"

// OpenLigaDBLeagues maps OpenLigaDB's league shortcuts to our league
// codes; a feed of another shortcut names its league with --league.
var OpenLigaDBLeagues = map[string]model.LeagueCode{"bl1": "BL1", "bl2": "BL2", "bl3": "BL3", "dfb": "DFB"}

// LiveWindow is how long after its kick-off an unfinished OpenLigaDB
// match with nothing entered yet counts as in play: a match nobody
// typed a result for after that is left as it was, not live for ever.
const LiveWindow = 3 * time.Hour

// oldbMatch is one match as OpenLigaDB sends it.
type oldbMatch struct {
	MatchID          int    `json:"matchID"`
	MatchDateTimeUTC string `json:"matchDateTimeUTC"`
	LeagueSeason     any    `json:"leagueSeason"`
	LeagueShortcut   string `json:"leagueShortcut"`
	Group            *struct {
		GroupName    string `json:"groupName"`
		GroupOrderID int    `json:"groupOrderID"`
	} `json:"group"`
	Team1           oldbTeam `json:"team1"`
	Team2           oldbTeam `json:"team2"`
	MatchIsFinished bool     `json:"matchIsFinished"`
	MatchResults    []struct {
		PointsTeam1  *int `json:"pointsTeam1"`
		PointsTeam2  *int `json:"pointsTeam2"`
		ResultTypeID int  `json:"resultTypeID"`
	} `json:"matchResults"`
	Goals []oldbGoal `json:"goals"`
}

type oldbTeam struct {
	TeamID   int    `json:"teamId"`
	TeamName string `json:"teamName"`
}

// key is the spelling the team's OpenLigaDB id is recorded under
// (openligadb:team:40), "" when the match gives none.
func (t oldbTeam) key() string {
	if t.TeamID <= 0 {
		return ""
	}
	return openLigaDBFormat + ":team:" + strconv.Itoa(t.TeamID)
}

type oldbGoal struct {
	GoalID         int    `json:"goalID"`
	ScoreTeam1     int    `json:"scoreTeam1"`
	ScoreTeam2     int    `json:"scoreTeam2"`
	MatchMinute    *int   `json:"matchMinute"`
	GoalGetterName string `json:"goalGetterName"`
	IsPenalty      bool   `json:"isPenalty"`
	IsOwnGoal      bool   `json:"isOwnGoal"`
}

// readOpenLigaDB reads a getmatchdata answer: a season's or a matchday's
// matches, or one match. The league is --league, else the matches'
// shortcut (bl1 is BL1); the season --season, else the matches'.
func readOpenLigaDB(name string, body []byte, opts Options, leagues func(model.LeagueCode) (model.League, error)) (*source, error) {
	ms, err := decodeOpenLigaDB(body)
	if err != nil {
		return nil, err
	}
	src := &source{path: name, format: openLigaDBFormat}
	if len(ms) == 0 {
		return src, nil
	}
	code, year, err := openLigaDBSeason(ms[0], opts)
	if err != nil {
		return nil, err
	}
	league, err := leagueOf(code, "league", leagues)
	if err != nil {
		return nil, err
	}
	pf := &parsedFile{path: name, league: league, year: year, caption: fmt.Sprintf("%s %d/%02d", league.Name, year, (year+1)%100), kind: model.TypeLeague}
	if code == "DFB" {
		pf.kind = model.TypeCup
	}
	for i, m := range ms {
		pm := openLigaDBMatch(m, opts.Now)
		pm.line = i + 1
		pf.matchdays = max(pf.matchdays, pm.matchday)
		if pm.err != nil {
			src.rejected = append(src.rejected, Rejection{File: name, Line: pm.line, What: pm.home + " v " + pm.away, Err: pm.err})
			continue
		}
		pf.matches = append(pf.matches, pm)
	}
	src.seasons = append(src.seasons, pf)
	return src, nil
}

// decodeOpenLigaDB decodes an array of matches, or one match.
func decodeOpenLigaDB(body []byte) ([]oldbMatch, error) {
	trimmed := strings.TrimSpace(string(body))
	var ms []oldbMatch
	var err error
	switch {
	case strings.HasPrefix(trimmed, "{"):
		var m oldbMatch
		err = json.Unmarshal(body, &m)
		ms = []oldbMatch{m}
	case strings.HasPrefix(trimmed, "["):
		err = json.Unmarshal(body, &ms)
	default:
		return nil, invalidFile("not an OpenLigaDB answer: want a JSON array of matches")
	}
	if err != nil {
		return nil, invalidFile("not an OpenLigaDB answer: %v", err)
	}
	for i, m := range ms {
		if m.MatchID <= 0 {
			return nil, invalidFile("not an OpenLigaDB answer: match %d has no matchID", i+1)
		}
	}
	return ms, nil
}

// openLigaDBSeason is the league and season of a document: the options',
// else its first match's.
func openLigaDBSeason(m oldbMatch, opts Options) (model.LeagueCode, int, error) {
	code, year := opts.League, opts.Season
	if code == "" {
		if code = OpenLigaDBLeagues[strings.ToLower(m.LeagueShortcut)]; code == "" {
			return "", 0, model.Invalidf("league", m.LeagueShortcut, "no league code known for this OpenLigaDB shortcut: give one with --league")
		}
	}
	if year == 0 {
		switch s := m.LeagueSeason.(type) {
		case float64:
			year = int(s)
		case string:
			year, _ = strconv.Atoi(s)
		}
		if year == 0 {
			return "", 0, model.Invalidf("season", fmt.Sprint(m.LeagueSeason), "the matches name no season: give one with --season")
		}
	}
	return code, year, nil
}

// openLigaDBMatch reads one match: finished once marked so with its
// final result (type 2); in play from its kick-off (or its first result
// or goal) until then, with the score of its last goal, since the
// results of a match in play are placeholders; else timed.
func openLigaDBMatch(m oldbMatch, now time.Time) parsedMatch {
	pm := parsedMatch{source: openLigaDBFormat + ":" + strconv.Itoa(m.MatchID), home: strings.TrimSpace(m.Team1.TeamName),
		away: strings.TrimSpace(m.Team2.TeamName), homeKey: m.Team1.key(), awayKey: m.Team2.key(),
		stage: model.Regular, status: model.Timed, timed: true}
	if m.Group != nil {
		pm.matchday, pm.round = m.Group.GroupOrderID, m.Group.GroupName
	}
	kickoff, err := time.Parse(time.RFC3339, m.MatchDateTimeUTC)
	switch {
	case err != nil:
		pm.err = model.Invalidf("matchDateTimeUTC", m.MatchDateTimeUTC, "must be a UTC time like 2023-08-18T18:30:00Z")
		return pm
	case pm.home == "" || pm.away == "":
		pm.err = model.Invalidf("teamName", "", "a team name is missing")
		return pm
	}
	pm.kickoff = kickoff.UTC()
	oldbState(&pm, m, now)
	return pm
}

// oldbState reads the state of a match whose kick-off is known.
func oldbState(pm *parsedMatch, m oldbMatch, now time.Time) {
	final, half := oldbResult(m, 2), oldbResult(m, 1)
	goals := slices.Clone(m.Goals)
	slices.SortFunc(goals, func(a, b oldbGoal) int { return a.GoalID - b.GoalID })
	running := model.Score{}
	if len(goals) > 0 {
		last := goals[len(goals)-1]
		running = model.Score{Home: last.ScoreTeam1, Away: last.ScoreTeam2}
	}
	entered := len(m.MatchResults) > 0 || len(goals) > 0
	started := !now.IsZero() && !now.Before(pm.kickoff) && now.Before(pm.kickoff.Add(LiveWindow))
	switch {
	case m.MatchIsFinished && final != nil:
		pm.status, pm.result.FullTime = model.Finished, final
		if half != nil && half.Home <= final.Home && half.Away <= final.Away {
			pm.result.HalfTime = half
		}
		pm.goals = oldbGoals(goals, *final)
	case m.MatchIsFinished || entered || started:
		pm.status, pm.result.FullTime = model.InPlay, &running
		// A half-time result of 0:0 while the match runs is the
		// placeholder every live match carries; one with goals is
		// the real one.
		if half != nil && (half.Home > 0 || half.Away > 0) && half.Home <= running.Home && half.Away <= running.Away {
			pm.result.HalfTime = half
		}
		pm.goals = oldbGoals(goals, running)
	}
}

// oldbResult is the match's result of the global type (1 half time, 2
// after regular time), nil when it has none.
func oldbResult(m oldbMatch, typ int) *model.Score {
	for _, r := range m.MatchResults {
		if r.ResultTypeID == typ && r.PointsTeam1 != nil && r.PointsTeam2 != nil {
			return &model.Score{Home: *r.PointsTeam1, Away: *r.PointsTeam2}
		}
	}
	return nil
}

// oldbGoals are the goals in the order they were entered, when they make
// score (stray entries exist: a final 1:6 with a goal 1:7 listed);
// otherwise none, and the score alone stands. A goal entered live has no
// minute and no scorer: it is kept as its side's, of no one.
func oldbGoals(goals []oldbGoal, score model.Score) []model.Goal {
	if len(goals) == 0 {
		return nil
	}
	out := make([]model.Goal, 0, len(goals))
	prev := model.Score{}
	for _, g := range goals {
		goal := model.Goal{Type: model.GoalRegular, Scorer: strings.TrimSpace(g.GoalGetterName)}
		if g.MatchMinute != nil && *g.MatchMinute > 0 {
			goal.Minute = min(*g.MatchMinute, 120)
		}
		switch {
		case g.ScoreTeam1 == prev.Home+1 && g.ScoreTeam2 == prev.Away:
			goal.Side = model.Home
		case g.ScoreTeam2 == prev.Away+1 && g.ScoreTeam1 == prev.Home:
			goal.Side = model.Away
		default:
			return nil
		}
		switch {
		case g.IsOwnGoal:
			goal.Type = model.GoalOwn
		case g.IsPenalty:
			goal.Type = model.GoalPenalty
		}
		prev = model.Score{Home: g.ScoreTeam1, Away: g.ScoreTeam2}
		out = append(out, goal)
	}
	if prev != score {
		return nil
	}
	return out
}
