package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/footdata/footballd/internal/editor"
	"github.com/footdata/footballd/pkg/model"
)

// score returns a setter of one of a result's scores: "" clears it.
func score(field string, into func(*model.Fixture) **model.Score) func(*model.Fixture, string) error {
	return func(f *model.Fixture, v string) error {
		if v == "" {
			*into(f) = nil
			return nil
		}
		sc, err := model.ParseScore(field, v)
		*into(f) = &sc
		return err
	}
}

var fixtureFields = fields[model.Fixture]{
	{"competition", "competition id", func(f *model.Fixture, v string) (err error) {
		f.CompetitionID, err = parseID("competition", v)
		return err
	}},
	{"matchday", "matchday (round) number", func(f *model.Fixture, v string) (err error) { f.Matchday, err = parseInt("matchday", v); return err }},
	{"home", "home team id (0: not known yet)", func(f *model.Fixture, v string) (err error) { f.HomeTeamID, err = parseInt("home", v); return err }},
	{"away", "away team id (0: not known yet)", func(f *model.Fixture, v string) (err error) { f.AwayTeamID, err = parseInt("away", v); return err }},
	{"home-placeholder", "label of an unknown home team, e.g. \"Winner Group A\"", func(f *model.Fixture, v string) error { f.HomePlaceholder = v; return nil }},
	{"away-placeholder", "label of an unknown away team", func(f *model.Fixture, v string) error { f.AwayPlaceholder = v; return nil }},
	{"kickoff", "kick-off time, RFC 3339", func(f *model.Fixture, v string) (err error) { f.Kickoff, err = parseTime("kickoff", v); return err }},
	{"group", "group of a tournament's group stage", func(f *model.Fixture, v string) error { f.Group = v; return nil }},
	{"stage", "REGULAR or PLAYOFF: play-offs and knock-out rounds count in no table (a new fixture: REGULAR)", func(f *model.Fixture, v string) error {
		f.Stage = model.Stage(strings.ToUpper(v))
		return nil
	}},
	{"leg", "1 or 2 in a two-legged tie, 0 for a single match", func(f *model.Fixture, v string) (err error) { f.Leg, err = parseInt("leg", v); return err }},
	{"round", "round label, e.g. Semi-finals", func(f *model.Fixture, v string) error { f.Round = v; return nil }},
	{"status", "status (a new fixture: TIMED)", func(f *model.Fixture, v string) (err error) { f.Status, err = model.ParseStatus(v); return err }},
	{"odds", "decimal odds home,draw,away (empty clears)", func(f *model.Fixture, v string) (err error) { f.Odds, err = parseOdds(v); return err }},
}

func fixturePut() command {
	return putCommand(command{name: "fixture put", args: "[--id N] --competition ID --matchday N --home ID --away ID --kickoff TIME [flags]",
		summary: "create a fixture, or change the fields given of one (a status move that skips states goes through them)",
		example: "ingest fixture put --competition 6 --matchday 31 --home 12 --away 7 --kickoff 2026-04-04T14:00:00Z\n  ingest fixture put --id 4242 --odds 1.85,3.60,4.20"},
		fixtureFields, nil, nil,
		func(ctx context.Context, ed *editor.Editor, id int, change func(*model.Fixture) error) (editor.Change, error) {
			ch, _, err := ed.PutFixture(ctx, id, false, change)
			return ch, err
		})
}

func parseOdds(s string) (*model.Odds, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nil, model.Invalidf("odds", s, "must be three decimal odds home,draw,away")
	}
	var v [3]float64
	for i, p := range parts {
		// ParseFloat takes "NaN" and "Inf": numbers no odds can be.
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, model.Invalidf("odds", s, "must be three decimal odds home,draw,away, each a number such as 1.85")
		}
		v[i] = x
	}
	return &model.Odds{HomeWin: v[0], Draw: v[1], AwayWin: v[2]}, nil
}

var resultFields = fields[model.Fixture]{
	{"score", "full-time score H-A (while IN_PLAY, the running score)", score("score", func(f *model.Fixture) **model.Score { return &f.Result.FullTime })},
	{"half-time", "half-time score H-A", score("half-time", func(f *model.Fixture) **model.Score { return &f.Result.HalfTime })},
	{"extra-time", "score after extra time H-A (knock-out fixtures, after a level full time)", score("extra-time", func(f *model.Fixture) **model.Score { return &f.Result.ExtraTime })},
	{"penalties", "penalty shoot-out H-A (after a level match)", score("penalties", func(f *model.Fixture) **model.Score { return &f.Result.Penalties })},
	{"awarded", "awarded winner: home, away or draw; none clears (the table follows the award, not the goals)", func(f *model.Fixture, v string) (err error) {
		if v == "none" || v == "" {
			f.Awarded = ""
			return nil
		}
		f.Awarded, err = model.ParseSide("awarded", v)
		return err
	}},
	{"status", "FINISHED (the default), or IN_PLAY for a live score", func(f *model.Fixture, v string) error {
		st, err := model.ParseStatus(v)
		if err == nil && st != model.Finished && st != model.InPlay {
			err = model.Invalidf("status", v, "a result is FINISHED or IN_PLAY; use `ingest status` for other moves")
		}
		f.Status = st
		return err
	}},
}

func result() command {
	g := given{}
	var goalFlags []string
	return command{name: "result", args: "FIXTURE --score H-A [--half-time H-A] [--extra-time H-A] [--penalties H-A] [--status S] [--awarded SIDE] [--goal GOAL]...",
		summary: "record a final or live result, and its goals; a fixture not yet IN_PLAY goes through it",
		example: "ingest result 4242 --score 2-1 --half-time 1-0\n  ingest result 4242 --score 1-0 --status IN_PLAY\n  ingest result 4242 --score 1-1 --extra-time 2-2 --penalties 4-3\n" +
			"  ingest result 4242 --score 2-1 --goal \"home 45+2 Harry Kane pen\" --goal \"away 87 Rüdiger og\" --goal \"home 90 Kane\"",
		flags: func(fs *flag.FlagSet) {
			resultFields.register(fs, g)
			fs.Func("goal", "a goal, repeated for each: SIDE MINUTE[+STOPPAGE] SCORER [pen|og]; SIDE is the side it counts for "+
				"(home or away: an own goal counts for the scorer's opponent); the goals given replace the fixture's, and must make its score; "+
				"none removes them", func(v string) error {
				goalFlags = append(goalFlags, v)
				return nil
			})
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			id, err := idArg("fixture", pos, 1)
			if err != nil {
				return err
			}
			if _, ok := g["status"]; !ok {
				g["status"] = string(model.Finished)
			}
			goals, err := parseGoals(goalFlags)
			if err != nil {
				return err
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) {
				ch, _, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error {
					_, score := g["score"]
					_, awarded := g["awarded"]
					if !score && !awarded && f.Result.FullTime == nil {
						return usagef("want --score H-A (or --awarded SIDE)")
					}
					if err := resultFields.apply(g, f); err != nil || goalFlags == nil {
						return err
					}
					f.Goals = slices.Clone(goals)
					// The goals are checked against the result before
					// their scorers are looked up, so that goals refused
					// leave no person behind.
					if err := f.Validate(); err != nil {
						return err
					}
					warnings, err := ed.ResolveScorers(ctx, f)
					for _, w := range warnings {
						fmt.Fprintf(e.stderr, "warning: %s\n", w)
					}
					return err
				})
				return ch, err
			})
		}}
}

// parseGoals reads the --goal flags, in the order of play: nil for none
// given, an empty list for "none".
func parseGoals(flags []string) ([]model.Goal, error) {
	if len(flags) == 1 && strings.TrimSpace(flags[0]) == "none" {
		return []model.Goal{}, nil
	}
	var goals []model.Goal
	for _, v := range flags {
		g, err := parseGoal(v)
		if err != nil {
			return nil, err
		}
		goals = append(goals, g)
	}
	slices.SortStableFunc(goals, func(a, b model.Goal) int { return cmp.Or(a.Minute-b.Minute, a.Injury-b.Injury) })
	return goals, nil
}

// goalTypes are the words that end a --goal of a goal that is not a
// regular one.
var goalTypes = map[string]model.GoalType{"pen": model.GoalPenalty, "penalty": model.GoalPenalty, "og": model.GoalOwn, "own": model.GoalOwn}

// parseGoal reads one --goal: SIDE MINUTE[+STOPPAGE] SCORER [pen|og].
func parseGoal(v string) (model.Goal, error) {
	bad := func(why string) (model.Goal, error) {
		return model.Goal{}, model.Invalidf("goal", v, "%s: want SIDE MINUTE[+STOPPAGE] SCORER [pen|og], e.g. \"home 45+2 Harry Kane pen\"", why)
	}
	w := strings.Fields(v)
	if len(w) < 3 {
		return bad("too few words")
	}
	g := model.Goal{Type: model.GoalRegular}
	switch strings.ToLower(w[0]) {
	case "home":
		g.Side = model.Home
	case "away":
		g.Side = model.Away
	default:
		return bad("the side must be home or away")
	}
	minute, plus, hasPlus := strings.Cut(strings.TrimSuffix(w[1], "'"), "+")
	var err error
	if g.Minute, err = strconv.Atoi(minute); err != nil || g.Minute < 1 || g.Minute > 120 {
		return bad("the minute must be from 1 to 120")
	}
	if hasPlus {
		if g.Injury, err = strconv.Atoi(plus); err != nil || g.Injury < 1 || g.Injury > 30 {
			return bad("the stoppage minutes must be from 1 to 30")
		}
	}
	name := w[2:]
	if t, ok := goalTypes[strings.ToLower(strings.Trim(name[len(name)-1], "()."))]; ok && len(name) > 1 {
		g.Type, name = t, name[:len(name)-1]
	}
	g.Scorer = strings.Join(name, " ")
	if err := model.CheckRequired("goal scorer", g.Scorer, model.MaxName); err != nil {
		return model.Goal{}, err
	}
	return g, nil
}

// statusWords are the verbs editors type for each status.
var statusWords = map[string]model.Status{
	"schedule": model.Scheduled, "time": model.Timed, "kickoff": model.InPlay, "kick-off": model.InPlay,
	"start": model.InPlay, "finish": model.Finished, "postpone": model.Postponed, "cancel": model.Canceled,
}

func status() command {
	var kickoff string
	return command{name: "status", args: "FIXTURE STATUS [--kickoff TIME]",
		summary: "move a fixture to a status: schedule, time, kick-off, finish, postpone, cancel (a move that skips states goes through them)",
		example: "ingest status 4242 postpone\n  ingest status 4242 time --kickoff 2026-04-15T19:45:00Z",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&kickoff, "kickoff", "", "new kick-off time, RFC 3339 (when rescheduling)")
		},
		run: func(ctx context.Context, e *env, pos []string) error {
			id, err := idArg("fixture", pos, 2)
			if err != nil {
				return err
			}
			if len(pos) != 2 {
				return usagef("want FIXTURE STATUS, e.g. `ingest status 42 postpone`")
			}
			next, ok := statusWords[strings.ToLower(pos[1])]
			if !ok {
				if next, err = model.ParseStatus(pos[1]); err != nil {
					return model.Invalidf("status", pos[1], "must be schedule, time, kick-off, finish, postpone, cancel or a status name")
				}
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) {
				ch, _, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error {
					f.Status = next
					if next == model.InPlay && f.Result.FullTime == nil {
						f.Result.FullTime = &model.Score{}
					}
					if kickoff != "" {
						var err error
						f.Kickoff, err = parseTime("kickoff", kickoff)
						return err
					}
					return nil
				})
				return ch, err
			})
		}}
}
