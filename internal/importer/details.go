package importer

import (
	"fmt"
	"time"

	"github.com/footdata/footballd/pkg/model"
)

// warnDetail is the kind of warning of a detail left out of a match.
const warnDetail = "a detail of a match that cannot be (a level shoot-out, a half time above full time, odds below 1, goals that do not make the score): the match is imported without it"

// checkDetails leaves out of each match of a season the details that fail
// the model's checks on their own, with a warning naming the file, line
// and field: a source's one impossible detail must not cost the match
// (openfootball's Champions League 2024-25 has two round-of-16 second legs
// with a 4-4 shoot-out). The details are the half-time, extra-time and
// shoot-out scores, the odds, the referee, the ground and the goals (last:
// they must make the score kept), tried in that order on top of
// what identifies the match (teams, date, status and full-time score): a
// match whose identity already fails is left as it is, for the writer to
// reject with its reason. The checks are the model's own (a fixture of a
// stand-in competition of the season's league, type and defaults), so what
// the writer would refuse is what is dropped here.
func checkDetails(pf *parsedFile) []Warning {
	fieldLine := pf.fieldLine
	pf.fieldLine = nil // it holds the file's bytes
	var ws []Warning
	warn := func(i int, pm *parsedMatch, field string, err error) {
		line := pm.line
		if fieldLine != nil {
			if l := fieldLine(i, field); l > 0 {
				line = l
			}
		}
		if name, ok := pf.fieldNames[field]; ok {
			field = name
		}
		ws = append(ws, Warning{File: pf.path, Kind: warnDetail,
			What: fmt.Sprintf("line %d, %s: %s v %s (%s %d, %s, %s): %v", line, field, pm.home, pm.away, pf.league.Code, pf.year,
				pm.round, pm.kickoff.Format(time.DateOnly), err)})
	}
	comp := model.Competition{ID: 1, League: pf.league.Code, Year: pf.year, Type: pf.kind}
	comp.SetDefaults()
	for i := range pf.matches {
		pm := &pf.matches[i]
		if pm.err != nil {
			continue
		}
		for _, d := range pm.dropped {
			warn(i, pm, d.field, d.err)
		}
		pm.dropped = nil
		r := pm.result
		if r.HalfTime == nil && r.ExtraTime == nil && r.Penalties == nil && pm.odds == nil && pm.referee == "" && pm.venue == "" && len(pm.goals) == 0 {
			continue
		}
		// Stand-in team ids: which teams they are is the writer's check.
		f := model.Fixture{CompetitionID: comp.ID, Matchday: max(pm.matchday, 1), Group: pm.group, Stage: pm.stage, Leg: pm.leg,
			Kickoff: pm.kickoff, HomeTeamID: 1, AwayTeamID: 2, Status: pm.status, Awarded: pm.awarded,
			Result: r, Odds: pm.odds, Referee: pm.referee, Venue: pm.venue, Goals: pm.goals}
		if f.Kickoff.IsZero() || model.CheckFixtureDraft(&comp, &f) == nil {
			// Nearly every match passes whole: one check, not one
			// per detail.
			continue
		}
		f.Result, f.Odds, f.Referee, f.Venue, f.Goals = model.Result{FullTime: r.FullTime}, nil, "", "", nil
		if model.CheckFixtureDraft(&comp, &f) != nil {
			continue
		}
		for _, d := range []struct {
			field string
			has   bool
			add   func(*model.Fixture)
			drop  func()
		}{
			{"et", r.ExtraTime != nil, func(f *model.Fixture) { f.Result.ExtraTime = r.ExtraTime }, func() { pm.result.ExtraTime = nil }},
			{"p", r.Penalties != nil, func(f *model.Fixture) { f.Result.Penalties = r.Penalties }, func() { pm.result.Penalties = nil }},
			{"odds", pm.odds != nil, func(f *model.Fixture) { f.Odds = pm.odds }, func() { pm.odds = nil }},
			{"referee", pm.referee != "", func(f *model.Fixture) { f.Referee = pm.referee }, func() { pm.referee = "" }},
			{"ground", pm.venue != "", func(f *model.Fixture) { f.Venue = pm.venue }, func() { pm.venue = "" }},
			// The goals must make the score that is kept.
			{"goals", len(pm.goals) > 0, func(f *model.Fixture) { f.Goals = pm.goals }, func() { pm.goals = nil }},
			// Half time after the goals, which it must agree with: where
			// they disagree the half time is the likelier error (the 2022
			// World Cup file has Japan v Spain 0-0 at half time, Morata
			// scoring in the 11th minute), so it is the one dropped.
			{"ht", r.HalfTime != nil, func(f *model.Fixture) { f.Result.HalfTime = r.HalfTime }, func() { pm.result.HalfTime = nil }},
		} {
			if !d.has {
				continue
			}
			with := f
			d.add(&with)
			if err := model.CheckFixtureDraft(&comp, &with); err != nil {
				d.drop()
				warn(i, pm, d.field, err)
				continue
			}
			f = with
		}
	}
	return ws
}
