package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/footdata/footballd/internal/datafile"
	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

func commands() []command {
	return []command{
		leaguePut(), competitionPut(), teamPut(), teamAlias(), teamMerge(), squadPut(), personPut(), fixturePut(), result(), status(),
		deduct(), tiebreak(), show(), history(),
		clientAdd(), clientList(), clientRevoke(), clientRotate(),
		webhookAdd(), webhookList(), webhookShow(), webhookRemove(),
		feedAdd(), feedList(), feedShow(), feedPoll(), feedPause(true), feedPause(false), feedRemove(), followCommand(),
		importCommand("openfootball", "[--league CODE] [--season YYYY] FILE...", "import openfootball JSON files (league files, World Cup, Euro)",
			"ingest import openfootball ../shared/data/openfootball-football-json/2015-16/*.json", openFootballFlags),
		importCommand("engsoccerdata", "[--from YYYY] [--to YYYY] DIR|FILE...", "import engsoccerdata CSV files (the data-raw folder, with its deductions; test and benchmark input only)",
			"ingest import engsoccerdata --from 1990 --to 1999 ../shared/data/engsoccerdata/data-raw", engSoccerFlags),
		importCommand("football-data", "[--league CODE] [--season YYYY] DIR|FILE...", "import football-data.co.uk CSV files (results, odds, referees and cards of European leagues)",
			"ingest import football-data ../shared/data/datasets-football-datasets/datasets/premier-league/season-1516.csv", csvFlags),
		importCommand("footballcsv", "[--league CODE] [--season YYYY] DIR|FILE...", "import footballcsv files (Date,Team 1,FT,HT,Team 2; league and season from <season>/<code>.csv)",
			"ingest import footballcsv ../shared/data/footballcsv-cache.footballdata/2015-16/eng.1.csv", csvFlags),
		importCommand("squads", "[--country NAME] DIR|FILE...", "import Football.TXT squad files into the squads of teams the stream knows",
			"ingest import squads ../shared/data/openfootball-england/2023-24/squads", squadFlags),
		generateWorld(), streamInit(), streamInfo(), backupCommand(), restoreCommand(), passwd(), completion(),
	}
}

var leagueFields = fields[model.League]{
	{"name", "league name", func(l *model.League, v string) error { l.Name = v; return nil }},
	{"country", "country or region", func(l *model.League, v string) error { l.Country = v; return nil }},
	{"zone", "IANA time zone of local kick-off times, e.g. Europe/London", func(l *model.League, v string) error { l.Zone = v; return nil }},
}

func leaguePut() command {
	g := given{}
	return command{name: "league put", args: "CODE --name NAME --country COUNTRY --zone TZ",
		summary: "add or change a league code beyond the spec's appendix",
		example: "ingest league put ABL --name Bundesliga --country Austria --zone Europe/Vienna",
		flags:   func(fs *flag.FlagSet) { leagueFields.register(fs, g) },
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one league CODE, got %d arguments", len(pos))
			}
			code, err := model.ParseLeagueCode(pos[0])
			if err != nil {
				return err
			}
			l := model.League{Code: code}
			if err := leagueFields.apply(g, &l); err != nil {
				return err
			}
			if err := l.Validate(); err != nil {
				return err
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.PutLeague(ctx, l) })
		}}
}

// rules returns c's table rules, from its league's defaults for its season
// when it has none yet: a rule flag changes one rule of them.
func rules(c *model.Competition) *model.TableRules {
	if c.Rules.PointsWin == 0 {
		c.Rules = model.DefaultRules(c.League, c.Year)
	}
	return &c.Rules
}

var competitionFields = fields[model.Competition]{
	{"caption", "name including the season, e.g. \"Premier League 2025/26\"", func(c *model.Competition, v string) error { c.Caption = v; return nil }},
	{"league", "league code", func(c *model.Competition, v string) (err error) { c.League, err = model.ParseLeagueCode(v); return err }},
	{"year", "season start year", func(c *model.Competition, v string) (err error) { c.Year, err = parseInt("year", v); return err }},
	{"type", "LEAGUE, TOURNAMENT or CUP (a new competition: LEAGUE)", func(c *model.Competition, v string) error {
		c.Type = model.CompetitionType(strings.ToUpper(v))
		return nil
	}},
	{"matchdays", "number of matchdays", func(c *model.Competition, v string) (err error) {
		c.NumberOfMatchdays, err = parseInt("matchdays", v)
		return err
	}},
	{"teams", "participating team ids, comma separated; ID:GROUP in tournaments", func(c *model.Competition, v string) error {
		c.Teams = nil
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			idPart, group, _ := strings.Cut(part, ":")
			n, err := parseID("teams", idPart)
			if err != nil {
				return err
			}
			c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: n, Group: group})
		}
		return nil
	}},
	{"tier", "access tier needed: anonymous, registered or donating (a new competition: anonymous)", func(c *model.Competition, v string) (err error) {
		c.Tier, err = model.ParseTier("tier", v)
		return err
	}},
	{"points-win", "points for a win (default: the league's for the season)", func(c *model.Competition, v string) (err error) {
		rules(c).PointsWin, err = parseInt("points-win", v)
		return err
	}},
	{"points-draw", "points for a draw (default: the league's for the season)", func(c *model.Competition, v string) (err error) {
		rules(c).PointsDraw, err = parseInt("points-draw", v)
		return err
	}},
	{"tiebreakers", "ordered tie-breakers, comma separated (default: the league's)", func(c *model.Competition, v string) error {
		r := rules(c)
		r.TieBreakers = nil
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			tb, err := model.ParseTieBreaker(part)
			if err != nil {
				return err
			}
			r.TieBreakers = append(r.TieBreakers, tb)
		}
		return nil
	}},
}

func competitionPut() command {
	var file, rulesFile string
	var in datafile.Options
	return putCommand(command{name: "competition put", args: "[--id N] --league CODE --year YYYY --caption TEXT [flags]",
		summary: "create a competition (one per league and season), or change the fields given of one",
		example: "ingest competition put --league PL --year 2026 --caption \"Premier League 2026/27\" --matchdays 38 --teams 1,2,3,4\n  ingest competition put --id 6 --tier registered"},
		competitionFields,
		func(fs *flag.FlagSet) {
			fs.StringVar(&file, "file", "", "JSON file with the whole competition (- for stdin), applied before the other flags")
			fs.StringVar(&rulesFile, "rules", "", "JSON file with the table rules (- for stdin): points, tie-breakers, head-to-head mode, phases, best thirds (docs/tables.md)")
			fileFlags(fs, &in)
		},
		func(e *env, _ int, _ given) (func(*model.Competition) error, error) {
			var c *model.Competition
			var rules *model.TableRules
			if file != "" {
				c = new(model.Competition)
				if err := e.readJSON(in, "file", file, c); err != nil {
					return nil, err
				}
			}
			if rulesFile != "" {
				rules = new(model.TableRules)
				if err := e.readJSON(in, "rules", rulesFile, rules); err != nil {
					return nil, err
				}
			}
			return func(x *model.Competition) error {
				if c != nil {
					*x = *c
				}
				if rules != nil {
					x.Rules = *rules
				}
				return nil
			}, nil
		},
		func(ctx context.Context, ed *editor.Editor, id int, change func(*model.Competition) error) (editor.Change, error) {
			ch, _, err := ed.PutCompetition(ctx, id, change)
			return ch, err
		})
}

var teamFields = fields[model.Team]{
	{"name", "full name", func(t *model.Team, v string) error { t.Name = v; return nil }},
	{"short-name", "short name (empty clears)", func(t *model.Team, v string) error { t.ShortName = ptr(v); return nil }},
	{"code", "2 to 5 letter code (empty clears)", func(t *model.Team, v string) error { t.Code = ptr(v); return nil }},
	{"crest", "crest image URL, http(s) (empty clears)", func(t *model.Team, v string) error { t.CrestURL = ptr(v); return nil }},
	{"market-value", "squad market value, e.g. \"1,030,000,000 €\" (empty clears)", func(t *model.Team, v string) error {
		t.SquadMarketValue = ptr(v)
		return nil
	}},
}

func teamPut() command {
	return putCommand(command{name: "team put", args: "[--id N] --name NAME [flags]",
		summary: "create a team, or change the fields given of one",
		example: "ingest team put --name \"Arsenal FC\" --short-name Arsenal --code ARS --crest https://example.org/arsenal.svg"},
		teamFields, nil, nil,
		func(ctx context.Context, ed *editor.Editor, id int, change func(*model.Team) error) (editor.Change, error) {
			ch, _, err := ed.PutTeam(ctx, id, change)
			return ch, err
		})
}

func teamAlias() command {
	var team string
	return command{name: "team alias", args: "--team ID NAME",
		summary: "map another spelling of a name to a team (importers find teams by name)",
		example: "ingest team alias --team 12 \"Arsenal London\"",
		flags:   func(fs *flag.FlagSet) { fs.StringVar(&team, "team", "", "team id") },
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 || team == "" {
				return usagef("want --team ID and one NAME")
			}
			id, err := parseID("team", team)
			if err != nil {
				return err
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.PutTeamName(ctx, pos[0], id) })
		}}
}

func teamMerge() command {
	var from, into, reason string
	return command{name: "team merge", args: "--from ID --into ID --reason TEXT",
		summary: "fold a duplicate team into another: its competitions, fixtures, adjustments, squad and spellings become the other's, and it is served no more",
		example: "ingest team merge --from 471 --into 88 --reason \"Bolton is Bolton Wanderers\"",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&from, "from", "", "id of the duplicate")
			fs.StringVar(&into, "into", "", "id of the team it is")
			fs.StringVar(&reason, "reason", "", "why, recorded with every change")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			f, err := parseID("from", from)
			if err != nil {
				return err
			}
			i, err := parseID("into", into)
			if err != nil {
				return err
			}
			ed, err := e.editor(ctx)
			if err != nil {
				return err
			}
			changes, err := ed.MergeTeam(ctx, f, i, reason)
			for _, ch := range changes {
				head, _, _ := strings.Cut(ch.String(), "\n")
				fmt.Fprintln(e.stdout, head)
			}
			if err == nil {
				fmt.Fprintf(e.stdout, "team %d merged into team %d: %d change(s)\n", f, i, len(changes))
			}
			return err
		}}
}

// readJSON reads path (- for stdin) as in says into into, refusing fields
// it does not know: a misspelt one would otherwise be dropped without a
// word.
func (e *env) readJSON(in datafile.Options, field, path string, into any) error {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = in.ReadAll(e.stdin)
	} else {
		raw, err = in.ReadFile(path)
	}
	if err != nil {
		return model.Invalidf(field, path, "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return model.Invalidf(field, path, "is not valid JSON for this command: %v", err)
	}
	return nil
}

func squadPut() command {
	var team string
	var in datafile.Options
	return command{name: "squad put", args: "--team ID FILE.csv|FILE.json",
		summary: "replace a team's squad (CSV header: name,position,jerseyNumber,dateOfBirth,nationality,contractUntil,marketValue; or a JSON array of players)",
		example: "ingest squad put --team 12 squad.csv",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&team, "team", "", "team id")
			fileFlags(fs, &in)
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if len(pos) != 1 || team == "" {
				return usagef("want --team ID and one FILE (.csv or .json)")
			}
			id, err := parseID("team", team)
			if err != nil {
				return err
			}
			sq := model.Squad{TeamID: id}
			switch strings.ToLower(filepath.Ext(pos[0])) {
			case ".json":
				if err := e.readJSON(in, "file", pos[0], &sq.Players); err != nil {
					return err
				}
			case ".csv":
				f, err := in.Open(pos[0])
				if err != nil {
					return model.Invalidf("file", pos[0], "%v", err)
				}
				defer f.Close()
				if sq.Players, err = readSquadCSV(pos[0], f); err != nil {
					return err
				}
			default:
				return model.Invalidf("file", pos[0], "must end in .csv or .json")
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.PutSquad(ctx, sq) })
		}}
}

var personFields = fields[model.Person]{
	{"name", "full name (a new name keeps the former one as an alias)", func(p *model.Person, v string) error { p.Name = v; return nil }},
	{"team", "id of the team the person plays for (scorers are found among their team's persons)", func(p *model.Person, v string) (err error) {
		p.TeamID, err = parseID("team", v)
		return err
	}},
	{"nationality", "nationality", func(p *model.Person, v string) error { p.Nationality = v; return nil }},
	{"position", "position", func(p *model.Person, v string) error { p.Position = v; return nil }},
	{"date-of-birth", "date of birth YYYY-MM-DD (empty clears)", func(p *model.Person, v string) error {
		if v == "" {
			p.DateOfBirth = nil
			return nil
		}
		d, err := model.ParseDate("date-of-birth", v)
		p.DateOfBirth = &d
		return err
	}},
}

func personPut() command {
	var add, drop []string
	return putCommand(command{name: "person put", args: "[--id N] --name NAME [--team ID] [--alias NAME]... [--unalias NAME]... [flags]",
		summary: "create a person (a scorer or player), or change one: its name, team and the other spellings sources use for it",
		example: "ingest person put --id 12 --name \"Thorgan Hazard\" --alias \"T. Hazard\""},
		personFields, func(fs *flag.FlagSet) {
			fs.Func("alias", "another spelling of the person's name, repeated for each (scorers' names are matched on it)", func(v string) error {
				add = append(add, v)
				return nil
			})
			fs.Func("unalias", "a spelling to remove, repeated for each", func(v string) error {
				drop = append(drop, v)
				return nil
			})
		}, nil,
		func(ctx context.Context, ed *editor.Editor, id int, change func(*model.Person) error) (editor.Change, error) {
			ch, _, err := ed.PutPerson(ctx, id, func(p *model.Person) error {
				if err := change(p); err != nil {
					return err
				}
				p.Aliases = slices.DeleteFunc(p.Aliases, func(a string) bool {
					return slices.ContainsFunc(drop, func(d string) bool { return model.NormalizePersonName(d) == model.NormalizePersonName(a) })
				})
				for _, a := range add {
					// Checked before it is compared: a look-alike of a
					// spelling the person has is refused, not dropped.
					if err := model.CheckRequired("alias", a, model.MaxName); err != nil {
						return err
					}
					key := model.NormalizePersonName(a)
					if key != model.NormalizePersonName(p.Name) && !slices.ContainsFunc(p.Aliases, func(b string) bool { return model.NormalizePersonName(b) == key }) {
						p.Aliases = append(p.Aliases, strings.TrimSpace(a))
					}
				}
				return nil
			})
			return ch, err
		})
}

// playerFields are the CSV columns of a squad file; name is required, the
// others optional and in any order.
var playerFields = fields[model.Player]{
	{"id", "", func(p *model.Player, v string) (err error) { p.ID, err = parseInt("id", v); return err }},
	{"name", "", func(p *model.Player, v string) error { p.Name = v; return nil }},
	{"position", "", func(p *model.Player, v string) error { p.Position = v; return nil }},
	{"jerseyNumber", "", func(p *model.Player, v string) error {
		n, err := parseInt("jerseyNumber", v)
		p.JerseyNumber = &n
		return err
	}},
	{"dateOfBirth", "", func(p *model.Player, v string) error {
		d, err := model.ParseDate("dateOfBirth", v)
		p.DateOfBirth = &d
		return err
	}},
	{"nationality", "", func(p *model.Player, v string) error { p.Nationality = v; return nil }},
	{"contractUntil", "", func(p *model.Player, v string) error {
		d, err := model.ParseDate("contractUntil", v)
		p.ContractUntil = &d
		return err
	}},
	{"marketValue", "", func(p *model.Player, v string) error { p.MarketValue = &v; return nil }},
}

func readSquadCSV(path string, r io.Reader) ([]model.Player, error) {
	rows, err := csv.NewReader(r).ReadAll()
	switch {
	case model.ErrorCode(err) == model.Invalid: // the reader's: the file's size or encoding
		return nil, model.Invalidf("file", path, "%v", err)
	case err != nil:
		return nil, model.Invalidf("file", path, "is not CSV: %v", err)
	}
	if len(rows) == 0 {
		return nil, model.Invalidf("file", path, "is empty: want a header line")
	}
	col := map[string]int{}
	var names []string
	for _, f := range playerFields {
		names = append(names, f.name)
	}
	for i, h := range rows[0] {
		known := false
		for _, f := range playerFields {
			if strings.EqualFold(strings.TrimSpace(h), f.name) {
				col[f.name], known = i, true
			}
		}
		if !known {
			return nil, model.Invalidf("header", h, "unknown column; want %s", strings.Join(names, ", "))
		}
	}
	if _, ok := col["name"]; !ok {
		return nil, model.Invalidf("header", strings.Join(rows[0], ","), "needs a name column")
	}
	var players []model.Player
	for line, row := range rows[1:] {
		g := given{}
		for name, i := range col {
			if i < len(row) && strings.TrimSpace(row[i]) != "" {
				g[name] = strings.TrimSpace(row[i])
			}
		}
		var p model.Player
		if err := playerFields.apply(g, &p); err != nil {
			return nil, fmt.Errorf("line %d: %w", line+2, err)
		}
		players = append(players, p)
	}
	return players, nil
}

var adjustmentFields = fields[model.Adjustment]{
	{"competition", "competition id", func(a *model.Adjustment, v string) (err error) {
		a.CompetitionID, err = parseID("competition", v)
		return err
	}},
	{"team", "team id", func(a *model.Adjustment, v string) (err error) { a.TeamID, err = parseID("team", v); return err }},
	{"points", "points to deduct (negative adds; 0 withdraws)", func(a *model.Adjustment, v string) error {
		n, err := parseInt("points", v)
		a.Points = -n
		return err
	}},
	{"reason", "why, e.g. \"entered administration\"", func(a *model.Adjustment, v string) error { a.Reason = v; return nil }},
}

func deduct() command {
	return putCommand(command{name: "deduct", args: "[--id N] --competition ID --team ID --points N --reason TEXT",
		summary: "deduct points from a team in a competition (negative N adds); --id N changes an earlier one, keeping what is not given, and --points 0 withdraws it",
		example: "ingest deduct --competition 6 --team 12 --points 10 --reason \"entered administration\"\n  ingest deduct --id 3 --points 0"},
		adjustmentFields, nil,
		func(_ *env, id int, g given) (func(*model.Adjustment) error, error) {
			if _, ok := g["points"]; !ok && id == 0 {
				return nil, usagef("want --points N")
			}
			return func(*model.Adjustment) error { return nil }, nil
		},
		func(ctx context.Context, ed *editor.Editor, id int, change func(*model.Adjustment) error) (editor.Change, error) {
			ch, _, err := ed.PutAdjustment(ctx, id, change)
			return ch, err
		})
}

// tiebreakArgs are the flags of tiebreak: an order of last resort (order,
// reason) and the data some rules read (disciplinary, coefficients,
// source).
type tiebreakArgs struct {
	comp, order, reason, disciplinary, coefficients, source string
}

func tiebreak() command {
	var a tiebreakArgs
	return command{name: "tiebreak", args: "--competition ID [--order ID,ID,... --reason TEXT] [--disciplinary TEAM:POINTS,...] [--coefficients ID,ID,...] [--source TEXT]",
		summary: "what separates level teams besides results: an order of last resort (fair play, lots), disciplinary points, the coefficient order",
		example: "ingest tiebreak --competition 6 --order 12,7 --reason \"drawing of lots\"\n  ingest tiebreak --competition 6 --disciplinary 12:5,7:3 --coefficients 7,12 --source \"UEFA match reports\"",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&a.comp, "competition", "", "competition id")
			fs.StringVar(&a.order, "order", "", "team ids, best first, comma separated: ranks teams still level after every rule")
			fs.StringVar(&a.reason, "reason", "", "why the order, e.g. \"fair play\" or \"drawing of lots\"")
			fs.StringVar(&a.disciplinary, "disciplinary", "", "disciplinary points (DISCIPLINARY_POINTS), TEAM:POINTS comma separated; TEAM:- removes a team's; others stay")
			fs.StringVar(&a.coefficients, "coefficients", "", "team ids, highest coefficient first (COEFFICIENT), comma separated")
			fs.StringVar(&a.source, "source", "", "where the disciplinary points and coefficients come from")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			if err := noArgs(pos); err != nil {
				return err
			}
			c, err := parseID("competition", a.comp)
			if err != nil {
				return err
			}
			writeOrder, writeData := a.order != "" || a.reason != "", a.disciplinary != "" || a.coefficients != "" || a.source != ""
			if !writeOrder && !writeData {
				return usagef("want --order and --reason, or --disciplinary, --coefficients or --source")
			}
			if writeOrder {
				if err := a.putOrder(ctx, e, c); err != nil {
					return err
				}
			}
			if !writeData {
				return nil
			}
			return a.putData(ctx, e, c)
		}}
}

// putOrder writes competition c's order of last resort.
func (a *tiebreakArgs) putOrder(ctx context.Context, e *env, c int) error {
	ids, err := intList("order", a.order)
	if err != nil {
		return err
	}
	o := model.TieBreakOrder{CompetitionID: c, TeamIDs: ids, Reason: a.reason}
	if err := o.Validate(); err != nil {
		return err
	}
	return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) { return ed.PutTieBreak(ctx, o) })
}

// putData changes competition c's tie-break data by what the flags give,
// keeping what they do not.
func (a *tiebreakArgs) putData(ctx context.Context, e *env, c int) error {
	points, err := disciplinaryPoints(a.disciplinary)
	if err != nil {
		return err
	}
	coeffs, err := intList("coefficients", a.coefficients)
	if err != nil {
		return err
	}
	return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) {
		ch, _, err := ed.PutTieBreakData(ctx, c, func(d *model.TieBreakData) error {
			a.change(d, points, coeffs)
			return nil
		})
		return ch, err
	})
}

// change applies the flags to tie-break data: each team's disciplinary
// points set or (below 0) removed, the coefficients and source replaced
// if given.
func (a *tiebreakArgs) change(d *model.TieBreakData, points map[int]int, coeffs []int) {
	for team, p := range points {
		if p < 0 {
			delete(d.Disciplinary, team)
			continue
		}
		if d.Disciplinary == nil {
			d.Disciplinary = map[int]int{}
		}
		d.Disciplinary[team] = p
	}
	if a.coefficients != "" {
		d.Coefficients = coeffs
	}
	if a.source != "" {
		d.Source = a.source
	}
}

// disciplinaryPoints parses "TEAM:POINTS,…"; a team whose points are "-"
// maps to -1: remove its points.
func disciplinaryPoints(s string) (map[int]int, error) {
	out := map[int]int{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		t, p, ok := strings.Cut(part, ":")
		team, err := parseID("disciplinary", t)
		if !ok || err != nil {
			return nil, model.Invalidf("disciplinary", part, "must be TEAM:POINTS with a team id")
		}
		if p == "-" {
			out[team] = -1
			continue
		}
		points, err := strconv.Atoi(p)
		if err != nil || points < 0 || points > 999 {
			return nil, model.Invalidf("disciplinary", part, "points must be a whole number from 0 to 999, or - to remove a team's")
		}
		out[team] = points
	}
	return out, nil
}

// idArg reads the id positional argument of a command, for field.
func idArg(field string, pos []string, want int) (int, error) {
	if len(pos) == 0 {
		return 0, usagef("want a %s id", strings.ToUpper(field))
	}
	if len(pos) > want {
		return 0, usagef("unexpected argument %q", pos[want])
	}
	return parseID(field, pos[0])
}
