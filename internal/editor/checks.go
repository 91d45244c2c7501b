package editor

import (
	"context"
	"fmt"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// check applies the rules to one state of an entity before it is written:
// the entity's own (pkg/model) and those against the rest of the stream
// (its league, its teams, its competition). Fixtures are checked against
// their competition and previous state by fixtureStates before they reach
// here.
func (e *Editor) check(ctx context.Context, v any) error { return e.checkAs(ctx, v, false) }

// checkDraft is check for a new entity that has no id yet: the id is
// reserved only once everything else is valid.
func (e *Editor) checkDraft(ctx context.Context, v any) error { return e.checkAs(ctx, v, true) }

// drafted entities get their id once they are valid.
type drafted interface{ ValidateDraft() error }

type validated interface{ Validate() error }

func (e *Editor) checkAs(ctx context.Context, v any, draft bool) error {
	var err error
	if d, ok := v.(drafted); ok && draft {
		err = d.ValidateDraft()
	} else if x, ok := v.(validated); ok {
		err = x.Validate()
	} else {
		err = fmt.Errorf("editor: no rules for %T", v)
	}
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case *model.League:
		if _, ok := model.BuiltinLeague(x.Code); ok {
			return model.Invalidf("league", string(x.Code), "is a built-in code of the spec and cannot be changed")
		}
	case *model.Competition:
		if _, err := e.League(ctx, x.League); err != nil {
			return err
		}
		for _, t := range x.Teams {
			if err := e.teamExists(ctx, "teams", t.TeamID); err != nil {
				return err
			}
		}
		return nil
	case *model.TeamName:
		return e.teamExists(ctx, "team", x.TeamID)
	case *model.Squad:
		return e.teamExists(ctx, "team", x.TeamID)
	case *model.Person:
		if x.TeamID != 0 {
			return e.teamExists(ctx, "teamId", x.TeamID)
		}
	case *model.Adjustment:
		return e.takePart(ctx, x.CompetitionID, "team", []int{x.TeamID})
	case *model.TieBreakOrder:
		return e.takePart(ctx, x.CompetitionID, "teams", x.TeamIDs)
	case *model.TieBreakData:
		return e.takePart(ctx, x.CompetitionID, "teams", x.Teams())
	}
	return nil
}

// takePart refuses team ids (field) that are not teams of competition.
func (e *Editor) takePart(ctx context.Context, competition int, field string, teams []int) error {
	c, err := e.competition(ctx, competition)
	if err != nil {
		return err
	}
	for _, id := range teams {
		if !c.HasTeam(id) {
			return model.Invalidf(field, strconv.Itoa(id), "is not a team of competition %d", c.ID)
		}
	}
	return nil
}

// League returns a league code's description: built in, or added by an
// editor. An unknown code is an Invalid error naming it.
func (e *Editor) League(ctx context.Context, code model.LeagueCode) (model.League, error) {
	if l, ok := model.BuiltinLeague(code); ok {
		return l, nil
	}
	if l, ok := e.leagues[code]; ok {
		return l, nil
	}
	l, rev, err := load[model.League](ctx, e, events.Subject(events.KindLeague, string(code)))
	if err != nil {
		return model.League{}, err
	}
	if rev == nil {
		return model.League{}, model.Invalidf("league", string(code), "is not a known league code (see the spec's appendix, or add it with `ingest league put`)")
	}
	e.knowLeague(*l)
	return *l, nil
}

// knowLeague remembers a league code added by an editor (or, in a dry run,
// one that would be).
func (e *Editor) knowLeague(l model.League) {
	if e.leagues == nil {
		e.leagues = map[model.LeagueCode]model.League{}
	}
	e.leagues[l.Code] = l
}

// teamExists fails with a not-found error naming field unless the team
// exists.
func (e *Editor) teamExists(ctx context.Context, field string, id int) error {
	if e.teams[id] {
		return nil
	}
	_, rev, err := load[model.Team](ctx, e, teamSubject(id))
	if err != nil {
		return err
	}
	if rev == nil {
		return &model.Error{Code: model.NotFound, Field: field, Value: strconv.Itoa(id), Message: "no such team"}
	}
	e.knowTeam(id)
	return nil
}

// knowTeam remembers that a team exists, so that checking a competition
// does not read it again.
func (e *Editor) knowTeam(id int) {
	if e.teams == nil {
		e.teams = map[int]bool{}
	}
	e.teams[id] = true
}

func (e *Editor) competition(ctx context.Context, id int) (*model.Competition, error) {
	c, _, err := e.Competition(ctx, id)
	return c, err
}

// Competition loads a competition.
func (e *Editor) Competition(ctx context.Context, id int) (*model.Competition, *events.Revision, error) {
	return mustLoad[model.Competition](ctx, e, competitionSubject(id), "competition", id)
}

// Team loads a team.
func (e *Editor) Team(ctx context.Context, id int) (*model.Team, *events.Revision, error) {
	return mustLoad[model.Team](ctx, e, teamSubject(id), "team", id)
}

// Fixture loads a fixture by its id alone.
func (e *Editor) Fixture(ctx context.Context, id int) (*model.Fixture, *events.Revision, error) {
	return mustLoad[model.Fixture](ctx, e, fixtureSubject(id), "fixture", id)
}

func competitionSubject(id int) string {
	return events.Subject(events.KindCompetition, strconv.Itoa(id))
}
func teamSubject(id int) string    { return events.Subject(events.KindTeam, strconv.Itoa(id)) }
func fixtureSubject(id int) string { return events.Subject(events.KindFixture, "*", strconv.Itoa(id)) }
