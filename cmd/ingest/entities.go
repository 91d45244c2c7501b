package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func leaguePut(ctx context.Context, e *env, args []string) error {
	fs := e.flags("league put")
	name := fs.String("name", "", "league name")
	country := fs.String("country", "", "country or region")
	zone := fs.String("zone", "", "IANA time zone of local kick-off times")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one league CODE, got %d arguments", len(pos))
	}
	code, err := model.ParseLeagueCode(pos[0])
	if err != nil {
		return err
	}
	if _, err := time.LoadLocation(*zone); err != nil || *zone == "" {
		return model.Invalidf("zone", *zone, "must be an IANA time zone such as Europe/London")
	}
	ch, err := e.ed.PutLeague(ctx, model.League{Code: code, Name: *name, Country: *country, Zone: *zone})
	if err == nil {
		e.print(ch)
	}
	return err
}

// intList parses "1,2,3" for field.
func intList(field, s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 {
			return nil, model.Invalidf(field, part, "must be a positive integer id")
		}
		out = append(out, n)
	}
	return out, nil
}

func competitionPut(ctx context.Context, e *env, args []string) error {
	fs := e.flags("competition put")
	id := fs.Int("id", 0, "competition id (omit to create with a new id)")
	file := fs.String("file", "", "JSON file with the whole competition")
	caption := fs.String("caption", "", "name including the season")
	league := fs.String("league", "", "league code")
	year := fs.Int("year", 0, "season start year")
	typ := fs.String("type", "LEAGUE", "LEAGUE, TOURNAMENT or CUP")
	matchdays := fs.Int("matchdays", 0, "number of matchdays")
	teams := fs.String("teams", "", "participating team ids, comma separated; ID:GROUP for tournaments")
	tier := fs.String("tier", "anonymous", "access tier needed: anonymous, registered or donating")
	pointsWin := fs.Int("points-win", 0, "points for a win (default from the league)")
	pointsDraw := fs.Int("points-draw", 0, "points for a draw (default from the league)")
	tieBreakers := fs.String("tiebreakers", "", "ordered tie-breakers, comma separated (default from the league)")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	var c model.Competition
	var prev *events.Revision
	if *id != 0 {
		old, rev, err := e.ed.Competition(ctx, *id)
		if err != nil && model.ErrorCode(err) != model.NotFound {
			return err
		}
		c, prev = old, rev
		c.ID = *id
	}
	if *file != "" {
		if err := readJSON(*file, &c); err != nil {
			return err
		}
		if *id != 0 {
			c.ID = *id
		}
	}
	if prev == nil && *file == "" {
		set["type"], set["tier"] = true, true // defaults apply to a new competition
	}
	if set["caption"] {
		c.Caption = *caption
	}
	if set["league"] {
		code, err := model.ParseLeagueCode(*league)
		if err != nil {
			return err
		}
		c.League = code
	}
	if set["year"] {
		c.Year = *year
	}
	if set["type"] {
		c.Type = model.CompetitionType(strings.ToUpper(*typ))
	}
	if set["matchdays"] {
		c.NumberOfMatchdays = *matchdays
	}
	if set["tier"] {
		if c.Tier, err = model.ParseTier("tier", *tier); err != nil {
			return err
		}
	}
	if set["teams"] {
		c.Teams = nil
		for _, part := range strings.Split(*teams, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			idPart, group, _ := strings.Cut(part, ":")
			n, err := strconv.Atoi(idPart)
			if err != nil || n <= 0 {
				return model.Invalidf("teams", part, "must be a positive team id, or ID:GROUP")
			}
			c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: n, Group: group})
		}
	}
	if c.Rules.PointsWin == 0 {
		c.Rules = model.DefaultRules(c.League, c.Year)
	}
	if set["points-win"] {
		c.Rules.PointsWin = *pointsWin
	}
	if set["points-draw"] {
		c.Rules.PointsDraw = *pointsDraw
	}
	if set["tiebreakers"] {
		c.Rules.TieBreakers = nil
		for _, part := range strings.Split(*tieBreakers, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			tb, err := model.ParseTieBreaker(part)
			if err != nil {
				return err
			}
			c.Rules.TieBreakers = append(c.Rules.TieBreakers, tb)
		}
	}
	ch, err := e.ed.PutCompetition(ctx, &c, prev)
	if err == nil {
		e.print(ch)
	}
	return err
}

func optional(set map[string]bool, name, value string, into **string) {
	if !set[name] {
		return
	}
	if value == "" {
		*into = nil
		return
	}
	*into = &value
}

func teamPut(ctx context.Context, e *env, args []string) error {
	fs := e.flags("team put")
	id := fs.Int("id", 0, "team id (omit to create with a new id)")
	name := fs.String("name", "", "full name")
	short := fs.String("short-name", "", "short name (empty clears)")
	code := fs.String("code", "", "2-5 letter code (empty clears)")
	crest := fs.String("crest", "", "crest image URL (empty clears)")
	value := fs.String("market-value", "", "squad market value, e.g. \"1,030,000,000 €\" (empty clears)")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	var t model.Team
	var prev *events.Revision
	if *id != 0 {
		old, rev, err := e.ed.Team(ctx, *id)
		if err != nil && model.ErrorCode(err) != model.NotFound {
			return err
		}
		t, prev = old, rev
		t.ID = *id
	}
	if set["name"] {
		t.Name = *name
	}
	optional(set, "short-name", *short, &t.ShortName)
	optional(set, "code", *code, &t.Code)
	optional(set, "crest", *crest, &t.CrestURL)
	optional(set, "market-value", *value, &t.SquadMarketValue)
	if prev == nil && !e.ed.DryRun && set["name"] {
		// A new team's name must not already belong to another team.
		if tn, _, err := events.Load[model.TeamName](ctx, e.ed.Store, events.TeamNameSubject(*name)); err == nil {
			return &model.Error{Code: model.Conflict, Field: "name", Value: *name,
				Message: fmt.Sprintf("already names team %d: change that team with --id %d", tn.TeamID, tn.TeamID)}
		}
	}
	ch, err := e.ed.PutTeam(ctx, &t, prev)
	if err == nil {
		e.print(ch)
	}
	return err
}

func teamAlias(ctx context.Context, e *env, args []string) error {
	fs := e.flags("team alias")
	team := fs.Int("team", 0, "team id")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *team <= 0 {
		return usagef("want --team ID and one NAME")
	}
	ch, err := e.ed.PutTeamName(ctx, pos[0], *team)
	if err == nil {
		e.print(ch)
	}
	return err
}

func readJSON(path string, into any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return model.Invalidf("file", path, "cannot be read: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return model.Invalidf("file", path, "is not valid JSON for this command: %v", err)
	}
	return nil
}

func squadPut(ctx context.Context, e *env, args []string) error {
	fs := e.flags("squad put")
	team := fs.Int("team", 0, "team id")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *team <= 0 {
		return usagef("want --team ID and one FILE (.csv or .json)")
	}
	sq := model.Squad{TeamID: *team}
	switch strings.ToLower(filepath.Ext(pos[0])) {
	case ".json":
		if err := readJSON(pos[0], &sq.Players); err != nil {
			return err
		}
	case ".csv":
		f, err := os.Open(pos[0])
		if err != nil {
			return model.Invalidf("file", pos[0], "cannot be read: %v", err)
		}
		defer f.Close()
		if sq.Players, err = readSquadCSV(f); err != nil {
			return err
		}
	default:
		return model.Invalidf("file", pos[0], "must end in .csv or .json")
	}
	ch, err := e.ed.PutSquad(ctx, sq)
	if err == nil {
		e.print(ch)
	}
	return err
}

// squadColumns are the CSV header names a squad file may use; name is
// required, the others optional and in any order.
var squadColumns = []string{"id", "name", "position", "jerseyNumber", "dateOfBirth", "nationality", "contractUntil", "marketValue"}

func readSquadCSV(r io.Reader) ([]model.Player, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, model.Invalidf("file", "", "is not CSV: %v", err)
	}
	if len(rows) == 0 {
		return nil, model.Invalidf("file", "", "is empty: want a header line")
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		known := false
		for _, c := range squadColumns {
			if strings.EqualFold(strings.TrimSpace(h), c) {
				col[c], known = i, true
			}
		}
		if !known {
			return nil, model.Invalidf("header", h, "unknown column; want %s", strings.Join(squadColumns, ", "))
		}
	}
	if _, ok := col["name"]; !ok {
		return nil, model.Invalidf("header", strings.Join(rows[0], ","), "needs a name column")
	}
	var players []model.Player
	for line, row := range rows[1:] {
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		p := model.Player{Name: get("name"), Position: get("position"), Nationality: get("nationality")}
		if v := get("id"); v != "" {
			if p.ID, err = strconv.Atoi(v); err != nil {
				return nil, model.Invalidf(fmt.Sprintf("line %d id", line+2), v, "must be an integer")
			}
		}
		if v := get("jerseyNumber"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, model.Invalidf(fmt.Sprintf("line %d jerseyNumber", line+2), v, "must be an integer")
			}
			p.JerseyNumber = &n
		}
		for _, d := range []struct {
			col  string
			into **model.Date
		}{{"dateOfBirth", &p.DateOfBirth}, {"contractUntil", &p.ContractUntil}} {
			if v := get(d.col); v != "" {
				date, err := model.ParseDate(fmt.Sprintf("line %d %s", line+2, d.col), v)
				if err != nil {
					return nil, err
				}
				*d.into = &date
			}
		}
		if v := get("marketValue"); v != "" {
			p.MarketValue = &v
		}
		players = append(players, p)
	}
	return players, nil
}
