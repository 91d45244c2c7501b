package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
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
	{"status", "status (a new fixture: TIMED; a live score and its minute: `ingest result`)", func(f *model.Fixture, v string) (err error) { f.Status, err = model.ParseStatus(v); return err }},
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

// minuteField sets a live match's minute and stoppage time: 67, 45+2;
// "" clears them. Only `ingest result` has it, with the running score.
var minuteField = field[model.Fixture]{"minute", "minute of a live match, MINUTE[+STOPPAGE] (67, 45+2); empty clears",
	func(f *model.Fixture, v string) error {
		if v == "" {
			f.Minute, f.InjuryTime = 0, 0
			return nil
		}
		minute, plus, hasPlus := strings.Cut(strings.TrimSuffix(strings.TrimSpace(v), "'"), "+")
		var err error
		if f.Minute, err = strconv.Atoi(minute); err != nil || f.Minute < 1 || f.Minute > 120 {
			return model.Invalidf("minute", v, "must be MINUTE[+STOPPAGE], the minute from 1 to 120 (45+2)")
		}
		f.InjuryTime = 0
		if hasPlus {
			if f.InjuryTime, err = strconv.Atoi(plus); err != nil || f.InjuryTime < 1 || f.InjuryTime > 30 {
				return model.Invalidf("minute", v, "the stoppage minutes after + must be from 1 to 30 (45+2)")
			}
		}
		return nil
	}}

// checkMinuteGiven refuses a --minute given for a fixture that ends up
// not live: the write path would drop it, and an editor should know.
func checkMinuteGiven(g given, f *model.Fixture) error {
	if v, ok := g["minute"]; ok && v != "" && !f.Status.Live() {
		return model.Invalidf("minute", v, "only a live fixture (IN_PLAY, PAUSED, EXTRA_TIME, PENALTY_SHOOTOUT) has a minute; this one would be %s", f.Status)
	}
	return nil
}

var resultFields = fields[model.Fixture]{
	{"score", "full-time score H-A (while IN_PLAY or PAUSED, the running score)", score("score", func(f *model.Fixture) **model.Score { return &f.Result.FullTime })},
	{"half-time", "half-time score H-A", score("half-time", func(f *model.Fixture) **model.Score { return &f.Result.HalfTime })},
	{"extra-time", "score after extra time H-A (knock-out fixtures, after a level full time; during EXTRA_TIME, the running score)", score("extra-time", func(f *model.Fixture) **model.Score { return &f.Result.ExtraTime })},
	{"penalties", "penalty shoot-out H-A (after a level match; level during PENALTY_SHOOTOUT)", score("penalties", func(f *model.Fixture) **model.Score { return &f.Result.Penalties })},
	{"awarded", "awarded winner: home, away or draw; none clears (the table follows the award, not the goals)", func(f *model.Fixture, v string) (err error) {
		if v == "none" || v == "" {
			f.Awarded = ""
			return nil
		}
		f.Awarded, err = model.ParseSide("awarded", v)
		return err
	}},
	minuteField,
	{"status", "FINISHED (the default; with --minute, the live status the fixture has, or IN_PLAY), AWARDED, SUSPENDED, " +
		"or a live one for a running score: IN_PLAY, PAUSED, EXTRA_TIME, PENALTY_SHOOTOUT", func(f *model.Fixture, v string) error {
		st, err := model.ParseStatus(v)
		if err == nil && !st.Played() {
			err = model.Invalidf("status", v, "a result is live, FINISHED, AWARDED or SUSPENDED; use `ingest status` for other moves")
		}
		f.Status = st
		return err
	}},
}

// resultStatus is the status `ingest result` gives a fixture in cur when
// --status is not given: a minute says the match is still on (as it is,
// or kicking off now), else the result is the final one.
func resultStatus(g given, cur model.Status) string {
	if v, ok := g["minute"]; ok && v != "" {
		if cur.Live() {
			return string(cur)
		}
		return string(model.InPlay)
	}
	return string(model.Finished)
}

func result() command {
	g := given{}
	var goalFlags []string
	return command{name: "result", args: "FIXTURE --score H-A [--half-time H-A] [--extra-time H-A] [--penalties H-A] [--status S] [--minute M[+S]] [--awarded SIDE] [--goal GOAL]...",
		summary: "record a final or live result, and its goals; a fixture not yet IN_PLAY goes through it",
		example: "ingest result 4242 --score 2-1 --half-time 1-0\n  ingest result 4242 --score 1-0 --minute 67\n  ingest result 4242 --score 1-0 --half-time 1-0 --status PAUSED\n" +
			"  ingest result 4242 --score 1-1 --extra-time 2-2 --penalties 4-3\n" +
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
			_, statusGiven := g["status"]
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
					g := maps.Clone(g)
					if !statusGiven {
						g["status"] = resultStatus(g, f.Status)
					}
					if err := resultFields.apply(g, f); err != nil {
						return err
					}
					if err := checkMinuteGiven(g, f); err != nil || goalFlags == nil {
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
	"start": model.InPlay, "resume": model.InPlay, "pause": model.Paused, "half-time": model.Paused,
	"extra-time": model.ExtraTime, "shoot-out": model.PenaltyShootout, "finish": model.Finished,
	"suspend": model.Suspended, "postpone": model.Postponed, "cancel": model.Canceled, "award": model.AwardedStatus,
}

func status() command {
	var kickoff string
	return command{name: "status", args: "FIXTURE STATUS [--kickoff TIME]",
		summary: "move a fixture to a status: schedule, time, kick-off, half-time, resume, extra-time, shoot-out, finish, suspend, postpone, cancel, award " +
			"(a move that skips states goes through them)",
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
					return model.Invalidf("status", pos[1], "must be schedule, time, kick-off, half-time, resume, extra-time, shoot-out, finish, suspend, postpone, cancel, award or a status name")
				}
			}
			return e.edit(ctx, func(ed *editor.Editor) (editor.Change, error) {
				ch, _, err := ed.PutFixture(ctx, id, true, func(f *model.Fixture) error {
					f.Status = next
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
