package editor

import (
	"context"
	"fmt"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

func fixtureSubject(id int) string { return events.Subject(events.KindFixture, "*", strconv.Itoa(id)) }

// League returns a league code's description: built in, or added by an
// editor. An unknown code is an Invalid error naming it.
func (e *Editor) League(ctx context.Context, code model.LeagueCode) (model.League, error) {
	if l, ok := model.BuiltinLeague(code); ok {
		return l, nil
	}
	l, rev, err := current[model.League](ctx, e.Store, events.Subject(events.KindLeague, string(code)))
	if err != nil {
		return l, err
	}
	if rev == nil {
		return l, model.Invalidf("league", string(code), "is not a known league code (see the spec's appendix, or add it with `ingest league put`)")
	}
	return l, nil
}

// PutLeague adds or changes an editor's league code.
func (e *Editor) PutLeague(ctx context.Context, l model.League) (Change, error) {
	if err := l.Validate(); err != nil {
		return Change{}, err
	}
	if _, ok := model.BuiltinLeague(l.Code); ok {
		return Change{}, model.Invalidf("league", string(l.Code), "is a built-in code of the spec and cannot be changed")
	}
	_, prev, err := current[model.League](ctx, e.Store, events.Subject(events.KindLeague, string(l.Code)))
	if err != nil {
		return Change{}, err
	}
	return e.put(ctx, &l, prev)
}

// Competition loads a competition.
func (e *Editor) Competition(ctx context.Context, id int) (model.Competition, *events.Revision, error) {
	return mustExist[model.Competition](ctx, e.Store, events.Subject(events.KindCompetition, strconv.Itoa(id)), "competition", id)
}

// Team loads a team.
func (e *Editor) Team(ctx context.Context, id int) (model.Team, *events.Revision, error) {
	return mustExist[model.Team](ctx, e.Store, events.Subject(events.KindTeam, strconv.Itoa(id)), "team", id)
}

// Fixture loads a fixture by its id alone.
func (e *Editor) Fixture(ctx context.Context, id int) (model.Fixture, *events.Revision, error) {
	return mustExist[model.Fixture](ctx, e.Store, fixtureSubject(id), "fixture", id)
}

// assignID gives a new entity of kind an id, or makes sure the counter of
// kind will never hand out the id an editor chose.
// A dry run only peeks at the id the counter would hand out.
func (e *Editor) assignID(ctx context.Context, kind events.Kind, id *int) error {
	var err error
	switch {
	case *id == 0:
		*id, err = e.NextIDs(ctx, kind, 1)
	case !e.DryRun:
		err = e.Store.Reserve(ctx, kind, *id)
	}
	return err
}

// NextIDs reserves n ids of kind. A dry run reserves nothing: it hands out
// the ids a real run would, counting them locally.
func (e *Editor) NextIDs(ctx context.Context, kind events.Kind, n int) (int, error) {
	if !e.DryRun {
		return e.Store.NextIDs(ctx, kind, n)
	}
	first, err := e.Store.NextIDs(ctx, kind, 0)
	if e.dryTaken == nil {
		e.dryTaken = map[events.Kind]int{}
	}
	first += e.dryTaken[kind]
	e.dryTaken[kind] += n
	return first, err
}

// PutCompetition creates (prev nil; ID 0 allocates one) or updates a
// competition after checking its league code and teams.
// The id given to a new competition is set in c.
func (e *Editor) PutCompetition(ctx context.Context, c *model.Competition, prev *events.Revision) (Change, error) {
	if prev == nil {
		if err := e.assignID(ctx, events.KindCompetition, &c.ID); err != nil {
			return Change{}, err
		}
	}
	if err := c.Validate(); err != nil {
		return Change{}, err
	}
	if _, err := e.League(ctx, c.League); err != nil {
		return Change{}, err
	}
	for _, t := range c.Teams {
		if e.knownTeams[t.TeamID] {
			continue
		}
		if _, _, err := e.Team(ctx, t.TeamID); err != nil {
			return Change{}, err
		}
		e.known(t.TeamID)
	}
	return e.put(ctx, c, prev)
}

// PutTeam creates (prev nil; ID 0 allocates one) or updates a team. A new
// team's name becomes one of its known spellings; its id is set in t.
func (e *Editor) PutTeam(ctx context.Context, t *model.Team, prev *events.Revision) (Change, error) {
	creating := prev == nil
	if creating {
		if err := e.assignID(ctx, events.KindTeam, &t.ID); err != nil {
			return Change{}, err
		}
	}
	if err := t.Validate(); err != nil {
		return Change{}, err
	}
	ch, err := e.put(ctx, t, prev)
	if err != nil || !creating {
		return ch, err
	}
	if _, err := e.PutTeamName(ctx, t.Name, t.ID); err != nil && model.ErrorCode(err) != model.Conflict {
		return ch, err
	}
	return ch, nil
}

// PutTeamName maps a spelling of a team name to a team. A spelling already
// mapped to another team is a Conflict naming that team.
func (e *Editor) PutTeamName(ctx context.Context, name string, teamID int) (Change, error) {
	if model.NormalizeTeamName(name) == "" {
		return Change{}, model.Invalidf("name", name, "must contain a letter or digit")
	}
	if _, _, err := e.Team(ctx, teamID); err != nil && !e.DryRun {
		return Change{}, err
	}
	tn := model.TeamName{Name: name, TeamID: teamID}
	existing, prev, err := current[model.TeamName](ctx, e.Store, events.TeamNameSubject(name))
	if err != nil {
		return Change{}, err
	}
	if prev != nil && existing.TeamID != teamID {
		return Change{}, &model.Error{Code: model.Conflict, Field: "name", Value: name,
			Message: fmt.Sprintf("already names team %d (as %q)", existing.TeamID, existing.Name)}
	}
	if prev != nil {
		tn.Name = existing.Name // the first spelling seen stays the label
	}
	return e.put(ctx, &tn, prev)
}

// PutSquad replaces a team's squad. Players without an id get one; a
// player whose name is already in the squad keeps the id he had.
func (e *Editor) PutSquad(ctx context.Context, sq model.Squad) (Change, error) {
	if _, _, err := e.Team(ctx, sq.TeamID); err != nil {
		return Change{}, err
	}
	old, prev, err := current[model.Squad](ctx, e.Store, events.Subject(events.KindSquad, strconv.Itoa(sq.TeamID)))
	if err != nil {
		return Change{}, err
	}
	known := map[string]int{}
	for _, p := range old.Players {
		known[p.Name] = p.ID
	}
	missing := 0
	for i := range sq.Players {
		if sq.Players[i].ID == 0 {
			if id, ok := known[sq.Players[i].Name]; ok {
				sq.Players[i].ID = id
			} else {
				missing++
			}
		}
	}
	if missing > 0 {
		first, err := e.NextIDs(ctx, "player", missing)
		if err != nil {
			return Change{}, err
		}
		for i := range sq.Players {
			if sq.Players[i].ID == 0 {
				sq.Players[i].ID = first
				first++
			}
		}
	}
	if err := sq.Validate(); err != nil {
		return Change{}, err
	}
	return e.put(ctx, &sq, prev)
}

// CheckFixture checks a fixture against its competition and, for an edit,
// its previous state: the rules a single fixture cannot check on its own.
func CheckFixture(c *model.Competition, f *model.Fixture, prev *model.Fixture) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.CompetitionID != c.ID {
		return model.Invalidf("competition", strconv.Itoa(f.CompetitionID), "does not match competition %d", c.ID)
	}
	if prev != nil {
		if prev.CompetitionID != f.CompetitionID {
			return model.Invalidf("competition", strconv.Itoa(f.CompetitionID), "a fixture cannot move to another competition (it is in %d)", prev.CompetitionID)
		}
		if _, err := prev.Status.Path(f.Status); err != nil {
			return err
		}
	}
	// Play-off fixtures may bring in teams from outside (a relegation
	// play-off against a lower league's club); regular ones may not.
	if len(c.Teams) > 0 && f.Stage == model.Regular {
		for _, side := range []struct {
			field string
			id    int
		}{{"homeTeam", f.HomeTeamID}, {"awayTeam", f.AwayTeamID}} {
			if side.id != 0 && !c.HasTeam(side.id) {
				return model.Invalidf(side.field, strconv.Itoa(side.id), "is not a team of competition %d", c.ID)
			}
		}
	}
	if f.Stage == model.Regular && c.NumberOfMatchdays > 0 && f.Matchday > c.NumberOfMatchdays {
		return model.Invalidf("matchday", strconv.Itoa(f.Matchday), "competition %d has %d matchdays (play-off rounds may go beyond with stage PLAYOFF)", c.ID, c.NumberOfMatchdays)
	}
	if c.Type == model.TypeTournament && f.Stage == model.Regular && f.Group == "" {
		return model.Invalidf("group", "", "a group-stage fixture of a tournament needs a group")
	}
	if c.Type == model.TypeCup && f.Stage == model.Regular {
		return model.Invalidf("stage", string(f.Stage), "every fixture of a cup is a knock-out (PLAYOFF) fixture")
	}
	return nil
}

// PutFixture creates (prev nil; ID 0 allocates one, set in f) or updates a
// fixture.
func (e *Editor) PutFixture(ctx context.Context, f *model.Fixture, prev *events.Revision) (Change, error) {
	c, _, err := e.Competition(ctx, f.CompetitionID)
	if err != nil {
		return Change{}, err
	}
	var old *model.Fixture
	if prev != nil {
		o, err := events.Decode[model.Fixture](prev.Data)
		if err != nil {
			return Change{}, err
		}
		old = &o
	} else {
		if err := e.assignID(ctx, events.KindFixture, &f.ID); err != nil {
			return Change{}, err
		}
	}
	if err := CheckFixture(&c, f, old); err != nil {
		return Change{}, err
	}
	orig := prev
	if old != nil {
		if prev, err = e.StepTo(ctx, *f, *old, prev); err != nil {
			return Change{}, err
		}
	}
	ch, err := e.put(ctx, f, prev)
	if err != nil || prev == orig {
		return ch, err
	}
	// Intermediate states were recorded: describe the whole edit.
	body, err := events.Encode(f)
	if err != nil {
		return Change{}, err
	}
	ch.Action = Updated
	ch.Diff, err = Diff(orig.Data, body)
	return ch, err
}

// PutAdjustment records a points adjustment (ID 0 creates one, set in a).
func (e *Editor) PutAdjustment(ctx context.Context, a *model.Adjustment) (Change, error) {
	c, _, err := e.Competition(ctx, a.CompetitionID)
	if err != nil {
		return Change{}, err
	}
	if !c.HasTeam(a.TeamID) {
		return Change{}, model.Invalidf("team", strconv.Itoa(a.TeamID), "is not a team of competition %d", c.ID)
	}
	var prev *events.Revision
	if a.ID != 0 {
		if _, prev, err = mustExist[model.Adjustment](ctx, e.Store, events.Subject(events.KindAdjustment, strconv.Itoa(a.CompetitionID), strconv.Itoa(a.ID)), "adjustment", a.ID); err != nil {
			return Change{}, err
		}
	} else if err := e.assignID(ctx, events.KindAdjustment, &a.ID); err != nil {
		return Change{}, err
	}
	if err := a.Validate(); err != nil {
		return Change{}, err
	}
	return e.put(ctx, a, prev)
}

// PutTieBreak records the explicit order of teams level after every rule.
func (e *Editor) PutTieBreak(ctx context.Context, o model.TieBreakOrder) (Change, error) {
	if err := o.Validate(); err != nil {
		return Change{}, err
	}
	c, _, err := e.Competition(ctx, o.CompetitionID)
	if err != nil {
		return Change{}, err
	}
	for _, id := range o.TeamIDs {
		if !c.HasTeam(id) {
			return Change{}, model.Invalidf("teams", strconv.Itoa(id), "is not a team of competition %d", c.ID)
		}
	}
	_, prev, err := current[model.TieBreakOrder](ctx, e.Store, events.Subject(events.KindTieBreak, strconv.Itoa(o.CompetitionID)))
	if err != nil {
		return Change{}, err
	}
	return e.put(ctx, &o, prev)
}

// TeamByName returns the id of the team a spelling names, creating the team
// with id newID (reserved by the caller with NextIDs) if no team has it yet.
// Two importers meeting a new name at once end up with one team: the
// spelling is created first, with compare-and-set, and the loser takes the
// winner's id (its own reserved id stays unused).
func (e *Editor) TeamByName(ctx context.Context, name string, newID int) (id int, created bool, err error) {
	t := model.Team{ID: newID, Name: name}
	if err := t.Validate(); err != nil {
		return 0, false, err
	}
	subject := events.TeamNameSubject(name)
	if e.DryRun {
		tn, rev, err := current[model.TeamName](ctx, e.Store, subject)
		if err != nil || rev != nil {
			return tn.TeamID, false, err
		}
		return newID, true, nil
	}
	if _, err := e.put(ctx, &model.TeamName{Name: name, TeamID: newID}, nil); err != nil {
		if model.ErrorCode(err) != model.Conflict {
			return 0, false, err
		}
		tn, _, err := current[model.TeamName](ctx, e.Store, subject)
		e.known(tn.TeamID)
		return tn.TeamID, false, err
	}
	if _, err = e.put(ctx, &t, nil); err != nil {
		return 0, false, err
	}
	e.known(newID)
	return newID, true, nil
}

// known remembers that a team exists, so that validating a competition
// does not read it again.
func (e *Editor) known(team int) {
	if e.knownTeams == nil {
		e.knownTeams = map[int]bool{}
	}
	e.knownTeams[team] = true
}

// StepTo records the intermediate states a fixture passes through on its
// way from old to f's status (TIMED → IN_PLAY → FINISHED when a result is
// entered after the match), so that every revision follows an allowed move.
// It returns the revision the final write must start from.
func (e *Editor) StepTo(ctx context.Context, f, old model.Fixture, prev *events.Revision) (*events.Revision, error) {
	path, err := old.Status.Path(f.Status)
	if err != nil {
		return nil, err
	}
	for _, st := range path[:len(path)-1] {
		step := f
		step.Status = st
		if e.DryRun {
			continue
		}
		res, err := e.Store.Put(ctx, events.Write{Value: &step, Prev: prev, Meta: e.Meta})
		if err != nil {
			return nil, err
		}
		body, err := events.Encode(&step)
		if err != nil {
			return nil, err
		}
		prev = &events.Revision{Subject: res.Subject, Seq: res.Seq, Data: body}
	}
	return prev, nil
}
