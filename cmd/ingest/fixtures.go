package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func parseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, model.Invalidf(field, s, "must be an RFC 3339 time such as 2026-03-14T15:00:00Z")
	}
	return t.UTC(), nil
}

func fixturePut(ctx context.Context, e *env, args []string) error {
	fs := e.flags("fixture put")
	id := fs.Int("id", 0, "fixture id (omit to create with a new id)")
	comp := fs.Int("competition", 0, "competition id")
	matchday := fs.Int("matchday", 0, "matchday (round) number")
	home := fs.Int("home", 0, "home team id (0: not known yet)")
	away := fs.Int("away", 0, "away team id (0: not known yet)")
	homeName := fs.String("home-placeholder", "", "label of an unknown home team, e.g. \"Winner Group A\"")
	awayName := fs.String("away-placeholder", "", "label of an unknown away team")
	kickoff := fs.String("kickoff", "", "kick-off time, RFC 3339")
	group := fs.String("group", "", "group of a tournament's group stage")
	stage := fs.String("stage", "REGULAR", "REGULAR or PLAYOFF (play-offs never count in a table)")
	statusFlag := fs.String("status", "", "status (default TIMED for a new fixture)")
	round := fs.String("round", "", "round label, e.g. Semi-finals")
	odds := fs.String("odds", "", "decimal odds home,draw,away (empty clears)")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	var f model.Fixture
	var prev *events.Revision
	if *id != 0 {
		old, rev, err := e.ed.Fixture(ctx, *id)
		if err != nil && model.ErrorCode(err) != model.NotFound {
			return err
		}
		f, prev = old, rev
		f.ID = *id
	}
	if prev == nil {
		f.Stage, f.Status = model.Regular, model.Timed
	}
	if set["competition"] {
		f.CompetitionID = *comp
	}
	if set["matchday"] {
		f.Matchday = *matchday
	}
	if set["home"] {
		f.HomeTeamID = *home
	}
	if set["away"] {
		f.AwayTeamID = *away
	}
	if set["home-placeholder"] {
		f.HomePlaceholder = *homeName
	}
	if set["away-placeholder"] {
		f.AwayPlaceholder = *awayName
	}
	if set["kickoff"] {
		if f.Kickoff, err = parseTime("kickoff", *kickoff); err != nil {
			return err
		}
	}
	if set["group"] {
		f.Group = *group
	}
	if set["stage"] {
		f.Stage = model.Stage(strings.ToUpper(*stage))
	}
	if set["round"] {
		f.Round = *round
	}
	if set["status"] {
		if f.Status, err = model.ParseStatus(*statusFlag); err != nil {
			return err
		}
	}
	if set["odds"] {
		if f.Odds, err = parseOdds(*odds); err != nil {
			return err
		}
	}
	ch, err := e.ed.PutFixture(ctx, &f, prev)
	if err == nil {
		e.print(ch)
	}
	return err
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
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, model.Invalidf("odds", s, "must be three decimal odds home,draw,away")
		}
		v[i] = x
	}
	return &model.Odds{HomeWin: v[0], Draw: v[1], AwayWin: v[2]}, nil
}

func fixtureArg(pos []string) (int, error) {
	if len(pos) == 0 {
		return 0, usagef("want a FIXTURE id")
	}
	id, err := strconv.Atoi(pos[0])
	if err != nil || id <= 0 {
		return 0, model.Invalidf("fixture", pos[0], "must be a positive integer id")
	}
	return id, nil
}

func result(ctx context.Context, e *env, args []string) error {
	fs := e.flags("result")
	full := fs.String("score", "", "full-time (or, live, the running) score H-A")
	half := fs.String("half-time", "", "half-time score H-A")
	extra := fs.String("extra-time", "", "score after extra time H-A")
	pens := fs.String("penalties", "", "penalty shoot-out H-A")
	statusFlag := fs.String("status", "FINISHED", "FINISHED, or IN_PLAY for a live score")
	awarded := fs.String("awarded", "", "awarded winner: home, away or draw; none clears")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	id, err := fixtureArg(pos)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("unexpected argument %q", pos[1])
	}
	f, prev, err := e.ed.Fixture(ctx, id)
	if err != nil {
		return err
	}
	for _, s := range []struct {
		flag string
		val  string
		into **model.Score
	}{{"score", *full, &f.Result.FullTime}, {"half-time", *half, &f.Result.HalfTime}, {"extra-time", *extra, &f.Result.ExtraTime}, {"penalties", *pens, &f.Result.Penalties}} {
		if !set[s.flag] {
			continue
		}
		if s.val == "" {
			*s.into = nil
			continue
		}
		sc, err := model.ParseScore(s.flag, s.val)
		if err != nil {
			return err
		}
		*s.into = &sc
	}
	if !set["score"] && !set["awarded"] && f.Result.FullTime == nil {
		return usagef("want --score H-A (or --awarded SIDE)")
	}
	if f.Status, err = model.ParseStatus(*statusFlag); err != nil {
		return err
	}
	if f.Status != model.Finished && f.Status != model.InPlay {
		return model.Invalidf("status", *statusFlag, "a result is FINISHED or IN_PLAY; use `ingest status` for other moves")
	}
	if set["awarded"] {
		if *awarded == "none" || *awarded == "" {
			f.Awarded = ""
		} else if f.Awarded, err = model.ParseSide("awarded", *awarded); err != nil {
			return err
		}
	}
	ch, err := e.ed.PutFixture(ctx, &f, prev)
	if err == nil {
		e.print(ch)
	}
	return err
}

// statusWords are the verbs editors type for each status.
var statusWords = map[string]model.Status{
	"schedule": model.Scheduled, "time": model.Timed, "kickoff": model.InPlay, "kick-off": model.InPlay,
	"start": model.InPlay, "finish": model.Finished, "postpone": model.Postponed, "cancel": model.Canceled,
}

func status(ctx context.Context, e *env, args []string) error {
	fs := e.flags("status")
	kickoff := fs.String("kickoff", "", "new kick-off time, RFC 3339 (when rescheduling)")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	id, err := fixtureArg(pos)
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
	f, prev, err := e.ed.Fixture(ctx, id)
	if err != nil {
		return err
	}
	if err := f.Status.CheckTransition(next); err != nil {
		return err
	}
	f.Status = next
	if next == model.InPlay && f.Result.FullTime == nil {
		f.Result.FullTime = &model.Score{}
	}
	if set["kickoff"] {
		if f.Kickoff, err = parseTime("kickoff", *kickoff); err != nil {
			return err
		}
	}
	ch, err := e.ed.PutFixture(ctx, &f, prev)
	if err == nil {
		e.print(ch)
	}
	return err
}

func deduct(ctx context.Context, e *env, args []string) error {
	fs := e.flags("deduct")
	id := fs.Int("id", 0, "adjustment id, to change or withdraw an earlier one")
	comp := fs.Int("competition", 0, "competition id")
	team := fs.Int("team", 0, "team id")
	points := fs.Int("points", 0, "points to deduct (negative adds; 0 withdraws)")
	reason := fs.String("reason", "", "why, e.g. \"entered administration\"")
	pos, set, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if !set["points"] {
		return usagef("want --points N")
	}
	a := model.Adjustment{ID: *id, CompetitionID: *comp, TeamID: *team, Points: -*points, Reason: *reason}
	if *id != 0 {
		// Changing an adjustment: what is not given stays as it was.
		old, _, err := events.Load[model.Adjustment](ctx, e.ed.Store, events.Subject(events.KindAdjustment, "*", strconv.Itoa(*id)))
		if err != nil {
			return err
		}
		if !set["competition"] {
			a.CompetitionID = old.CompetitionID
		}
		if !set["team"] {
			a.TeamID = old.TeamID
		}
		if !set["reason"] {
			a.Reason = old.Reason
		}
	}
	ch, err := e.ed.PutAdjustment(ctx, &a)
	if err == nil {
		e.print(ch)
	}
	return err
}

func tiebreak(ctx context.Context, e *env, args []string) error {
	fs := e.flags("tiebreak")
	comp := fs.Int("competition", 0, "competition id")
	order := fs.String("order", "", "team ids, best first, comma separated")
	reason := fs.String("reason", "", "why, e.g. \"fair play\" or \"drawing of lots\"")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	ids, err := intList("order", *order)
	if err != nil {
		return err
	}
	ch, err := e.ed.PutTieBreak(ctx, model.TieBreakOrder{CompetitionID: *comp, TeamIDs: ids, Reason: *reason})
	if err == nil {
		e.print(ch)
	}
	return err
}
