package editor

import (
	"context"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// TieBreakData loads a competition's disciplinary points and coefficient
// order, with the revision to write from (nil if none were entered yet).
func (e *Editor) TieBreakData(ctx context.Context, competition int) (model.TieBreakData, *events.Revision, error) {
	d, prev, err := current[model.TieBreakData](ctx, e.Store, events.Subject(events.KindTieBreakData, strconv.Itoa(competition)))
	if prev == nil {
		d.CompetitionID = competition
	}
	return d, prev, err
}

// PutTieBreakData records a competition's disciplinary points and
// coefficient order (the whole of both), after checking that every team
// it names takes part.
func (e *Editor) PutTieBreakData(ctx context.Context, d model.TieBreakData) (Change, error) {
	if err := d.Validate(); err != nil {
		return Change{}, err
	}
	c, _, err := e.Competition(ctx, d.CompetitionID)
	if err != nil {
		return Change{}, err
	}
	for _, id := range d.Teams() {
		if !c.HasTeam(id) {
			return Change{}, model.Invalidf("teams", strconv.Itoa(id), "is not a team of competition %d", c.ID)
		}
	}
	_, prev, err := e.TieBreakData(ctx, d.CompetitionID)
	if err != nil {
		return Change{}, err
	}
	return e.put(ctx, &d, prev)
}

// PutTableRules replaces a competition's table rules: tie-breakers,
// head-to-head mode, phases after the regular season, best thirds.
func (e *Editor) PutTableRules(ctx context.Context, competition int, rules model.TableRules) (Change, error) {
	c, rev, err := e.Competition(ctx, competition)
	if err != nil {
		return Change{}, err
	}
	c.Rules = rules
	return e.PutCompetition(ctx, &c, rev)
}
