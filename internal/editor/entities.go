package editor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// PutLeague adds or changes an editor's league code.
func (e *Editor) PutLeague(ctx context.Context, l model.League) (Change, error) {
	subject := events.Subject(events.KindLeague, string(l.Code))
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		_, rev, err := load[model.League](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, &l)
	}, false)
	if err == nil {
		e.knowLeague(l)
	}
	return ch, err
}

// EnsureLeague adds an editor's league code unless it is known already
// (an importer meeting a league beyond the appendix): any number of
// writers may ensure the same code at once. It returns the league as
// stored.
func (e *Editor) EnsureLeague(ctx context.Context, l model.League) (Change, model.League, error) {
	if known, err := e.League(ctx, l.Code); model.ErrorCode(err) != model.Invalid {
		return Change{Subject: events.Subject(events.KindLeague, string(l.Code)), Action: Unchanged}, known, err
	}
	subject := events.Subject(events.KindLeague, string(l.Code))
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.League](ctx, e, subject)
		switch {
		case err != nil:
			return plan{}, err
		case rev != nil:
			l = *cur
			return keep(subject, rev), nil
		}
		return e.newPlan(ctx, nil, &l)
	}, true)
	if err == nil {
		e.knowLeague(l)
	}
	return ch, l, err
}

// keep is the plan that leaves an entity as it is.
func keep(subject string, rev *events.Revision) plan {
	return plan{subject: subject, prev: rev, bodies: [][]byte{rev.Data}}
}

// PutCompetition creates a competition or changes one: change is applied to
// its current state. Id 0 creates one with a new id, an id nobody has yet
// creates it with that id. A new competition claims its league and season
// (one competition per league and season) and gets its league's defaults
// for whatever change leaves unset.
func (e *Editor) PutCompetition(ctx context.Context, id int, change func(*model.Competition) error) (Change, *model.Competition, error) {
	if id != 0 {
		if err := model.CheckID("id", id); err != nil {
			return Change{}, nil, err
		}
		_, rev, err := e.loadCompetition(ctx, id)
		if err != nil {
			return Change{}, nil, err
		}
		if rev != nil {
			return e.updateCompetition(ctx, id, change, false)
		}
	}
	c := model.Competition{ID: id}
	if err := change(&c); err != nil {
		return Change{}, nil, err
	}
	c.ID = id
	c.SetDefaults()
	if err := e.checkDraft(ctx, &c); err != nil {
		return Change{}, nil, err
	}
	owner, absent, err := e.keyOwner(ctx, c.League, c.Year)
	if err != nil {
		return Change{}, nil, err
	}
	if owner != 0 {
		return Change{}, nil, &model.Error{Code: model.Conflict, Field: "competition", Value: c.Key(),
			Message: fmt.Sprintf("exists as competition %d: change it with --id %d", owner, owner)}
	}
	historic, err := e.historicCompetition(ctx, c.League, c.Year)
	if err != nil {
		return Change{}, nil, err
	}
	if err := e.assignID(ctx, events.KindCompetition, &c.ID, historic); err != nil {
		return Change{}, nil, err
	}
	if _, err := e.claimKey(ctx, &c, false, absent); err != nil {
		return Change{}, nil, err
	}
	ch, err := e.createCompetition(ctx, &c)
	return ch, &c, err
}

// MergeCompetition changes an existing competition on behalf of an
// importer: after a lost race it applies change again to the winner's
// state.
func (e *Editor) MergeCompetition(ctx context.Context, id int, change func(*model.Competition) error) (Change, *model.Competition, error) {
	return e.updateCompetition(ctx, id, change, true)
}

func (e *Editor) loadCompetition(ctx context.Context, id int) (*model.Competition, *events.Revision, error) {
	return load[model.Competition](ctx, e, competitionSubject(id))
}

func (e *Editor) updateCompetition(ctx context.Context, id int, change func(*model.Competition) error, merge bool) (Change, *model.Competition, error) {
	return update[model.Competition]{subject: competitionSubject(id), field: "competition", key: id, change: change, merge: merge,
		clone: func(cur *model.Competition) model.Competition {
			next := *cur
			next.Teams = append([]model.CompetitionTeam(nil), cur.Teams...)
			return next
		},
		then: func(ctx context.Context, cur, next *model.Competition) ([]any, error) {
			next.ID = id
			if next.Key() != cur.Key() {
				// A new league or season moves the competition's claim.
				if _, err := e.claimKey(ctx, next, false, false); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}.run(ctx, e)
}

func (e *Editor) createCompetition(ctx context.Context, c *model.Competition) (Change, error) {
	return e.run(ctx, func(ctx context.Context) (plan, error) { return e.newPlan(ctx, nil, c) }, false)
}

// ClaimCompetition returns the competition of draft's league and season,
// creating it from draft when nobody has it. Any number of importers may
// claim the same season at once: one claim wins, and the others take the
// winner's competition, creating it from their own draft if the winner has
// not yet (whoever writes it first, the others find it). created tells
// whether this draft is the one stored.
func (e *Editor) ClaimCompetition(ctx context.Context, draft model.Competition) (id int, created bool, err error) {
	got, err := e.ClaimCompetitions(ctx, []model.Competition{draft})
	if err != nil {
		return 0, false, err
	}
	return got[0].ID, got[0].Created, nil
}

// ClaimedCompetition is what ClaimCompetitions gives for a draft: the id
// of its league's season, and whether the draft is the competition stored.
type ClaimedCompetition struct {
	ID      int
	Created bool
}

// ClaimCompetitions is ClaimCompetition for many seasons, each of a league
// and year of its own, with their round trips overlapping: the claims are
// read together, the new ids reserved with one counter update, and the
// claims and then the competitions written as batches, a claim decided
// again after a lost race. Every draft is checked before anything is
// written; an error names the competition. It returns what each draft
// got, in order.
func (e *Editor) ClaimCompetitions(ctx context.Context, drafts []model.Competition) ([]ClaimedCompetition, error) {
	drafts = slices.Clone(drafts)
	keys, out, exists, fresh, err := e.readClaims(ctx, drafts)
	if err != nil {
		return nil, err
	}
	if err := e.assignIDs(ctx, drafts, fresh); err != nil {
		return nil, err
	}
	var failed error
	fail := func(i int, err error) {
		if err != nil && failed == nil {
			failed = fmt.Errorf("competition %s: %w", drafts[i].Key(), err)
		}
	}
	b := e.Batch()
	for _, i := range fresh {
		decide := e.keyClaim(&drafts[i], true, keys[i].rev == nil, &out[i].ID)
		p, err := decide(ctx)
		if err != nil {
			fail(i, err)
			continue
		}
		if err := b.add(ctx, &op{plan: p, redo: redoFunc(decide), done: func(_ Change, err error) { fail(i, err) }}); err != nil {
			return nil, err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	for i := range drafts {
		if exists[i] {
			continue
		}
		drafts[i].ID = out[i].ID
		p, err := e.newPlan(ctx, nil, &drafts[i])
		if err != nil {
			fail(i, err)
			continue
		}
		err = b.add(ctx, &op{plan: p, done: func(_ Change, err error) {
			switch {
			case err == nil:
				out[i].Created = true
			case model.ErrorCode(err) != model.Conflict: // a conflict: it exists, the caller merges into it
				fail(i, err)
			}
		}})
		if err != nil {
			return nil, err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// readClaims checks the drafts (their defaults set) and reads who holds
// each one's league and season: out has the holder's id, and exists
// whether its competition is written, for the drafts held; fresh lists
// the drafts whose season nobody holds. A claim read belongs to its
// holder unless the holder has moved to another season.
func (e *Editor) readClaims(ctx context.Context, drafts []model.Competition) (keys []loaded[model.CompetitionKey], out []ClaimedCompetition, exists []bool, fresh []int, err error) {
	keySubjects := make([]string, len(drafts))
	for i := range drafts {
		d := &drafts[i]
		d.SetDefaults()
		if err := e.checkDraft(ctx, d); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("competition %s: %w", d.Key(), err)
		}
		keySubjects[i] = keySubject(d.League, d.Year)
	}
	keys, err = loadAll[model.CompetitionKey](ctx, e, keySubjects)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("read the claims of %d competitions: %w", len(drafts), err)
	}
	// A claim read belongs to its holder unless the holder has moved to
	// another season; exists tells that the holder's competition is
	// written.
	var holderSubjects []string
	for _, k := range keys {
		if k.rev != nil {
			holderSubjects = append(holderSubjects, competitionSubject(k.value.CompetitionID))
		}
	}
	holders, err := loadAll[model.Competition](ctx, e, holderSubjects)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("read the holders of %d claims: %w", len(holderSubjects), err)
	}
	out = make([]ClaimedCompetition, len(drafts))
	exists = make([]bool, len(drafts))
	h := 0
	for i, k := range keys {
		if k.rev != nil {
			c := holders[h]
			h++
			if holdsSeason(c.value, c.rev, drafts[i].League, drafts[i].Year) {
				out[i].ID, exists[i] = k.value.CompetitionID, c.rev != nil
				continue
			}
		}
		fresh = append(fresh, i)
	}
	return keys, out, exists, fresh, nil
}

// assignIDs gives the drafts of fresh their ids as assignID would, the new
// ones from one counter update.
func (e *Editor) assignIDs(ctx context.Context, drafts []model.Competition, fresh []int) error {
	var historicSubjects []string
	var historic []int // the drafts of fresh with a v1 id to check
	for _, i := range fresh {
		if id, ok := model.HistoricCompetitionID(drafts[i].League, drafts[i].Year); ok && drafts[i].ID == 0 {
			historic = append(historic, i)
			historicSubjects = append(historicSubjects, competitionSubject(id))
		}
	}
	taken, err := loadAll[model.Competition](ctx, e, historicSubjects)
	if err != nil {
		return fmt.Errorf("read %d historic competitions: %w", len(historic), err)
	}
	historicID := map[int]int{}
	for j, i := range historic {
		if taken[j].rev == nil {
			historicID[i], _ = model.HistoricCompetitionID(drafts[i].League, drafts[i].Year)
		}
	}
	var counted []int // the drafts that take an id from the counter
	for _, i := range fresh {
		if drafts[i].ID == 0 && historicID[i] == 0 {
			counted = append(counted, i)
			continue
		}
		if err := e.assignID(ctx, events.KindCompetition, &drafts[i].ID, historicID[i]); err != nil {
			return fmt.Errorf("competition %s: %w", drafts[i].Key(), err)
		}
	}
	ids, err := e.newIDs(ctx, events.KindCompetition, len(counted))
	if err != nil {
		return fmt.Errorf("reserve %d competition ids: %w", len(counted), err)
	}
	for j, i := range counted {
		drafts[i].ID = ids[j]
	}
	return nil
}

// keyOwner returns the competition that holds a league's season, 0 if none;
// absent tells that nobody ever claimed it (no claim was read at all). A
// claim whose competition has since moved to another season is stale.
func (e *Editor) keyOwner(ctx context.Context, league model.LeagueCode, year int) (id int, absent bool, err error) {
	k, rev, err := load[model.CompetitionKey](ctx, e, keySubject(league, year))
	if err != nil || rev == nil {
		return 0, err == nil, err
	}
	c, crev, err := e.loadCompetition(ctx, k.CompetitionID)
	if err != nil {
		return 0, false, err
	}
	if !holdsSeason(c, crev, league, year) {
		return 0, false, nil
	}
	return k.CompetitionID, false, nil
}

// holdsSeason reports whether the competition a season's claim points at,
// c as read at rev (nil: not written yet), still holds that season: one
// that has moved to another season leaves its claim stale.
func holdsSeason(c *model.Competition, rev *events.Revision, league model.LeagueCode, year int) bool {
	return rev == nil || (c.League == league && c.Year == year)
}

func keySubject(league model.LeagueCode, year int) string {
	return events.Subject(events.KindCompetitionKey, string(league), strconv.Itoa(year))
}

// claimKey claims c's league and season for c. A claim held by another
// competition is a conflict, unless shared: then the holder's id is
// returned (an importer joins the winner). A stale claim is taken over.
// absent says the claim was just read and did not exist: the first
// attempt writes it without reading it again (a claim made meanwhile
// makes it lose, and the next attempt reads).
func (e *Editor) claimKey(ctx context.Context, c *model.Competition, shared, absent bool) (int, error) {
	holder := 0
	_, err := e.run(ctx, e.keyClaim(c, shared, absent, &holder), true)
	return holder, err
}

// keyClaim decides claimKey's edit of the claim, each time it is called,
// setting holder to the competition that ends up holding it.
func (e *Editor) keyClaim(c *model.Competition, shared, absent bool, holder *int) func(ctx context.Context) (plan, error) {
	key := model.CompetitionKey{League: c.League, Year: c.Year, CompetitionID: c.ID}
	subject := keySubject(c.League, c.Year)
	return func(ctx context.Context) (plan, error) {
		*holder = c.ID
		if absent {
			absent = false
			return e.newPlan(ctx, nil, &key)
		}
		cur, rev, err := load[model.CompetitionKey](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		if rev != nil && cur.CompetitionID != c.ID {
			owner, _, err := e.keyOwner(ctx, c.League, c.Year)
			if err != nil {
				return plan{}, err
			}
			if owner != 0 {
				*holder = owner
				if !shared {
					return plan{}, &model.Error{Code: model.Conflict, Field: "competition", Value: c.Key(),
						Message: fmt.Sprintf("exists as competition %d: change it with --id %d", owner, owner)}
				}
				return keep(subject, rev), nil
			}
		}
		return e.newPlan(ctx, rev, &key)
	}
}

// PutTeam creates a team or changes one: change is applied to its current
// state. Id 0 creates one with a new id, an id nobody has yet creates it
// with that id. A team's name is one of its spellings, claimed for it: a
// spelling that names another team is a conflict.
func (e *Editor) PutTeam(ctx context.Context, id int, change func(*model.Team) error) (Change, *model.Team, error) {
	var cur *model.Team
	var rev *events.Revision
	if id != 0 {
		if err := model.CheckID("id", id); err != nil {
			return Change{}, nil, err
		}
		var err error
		if cur, rev, err = load[model.Team](ctx, e, teamSubject(id)); err != nil {
			return Change{}, nil, err
		}
	}
	if rev == nil {
		t := model.Team{ID: id}
		if err := change(&t); err != nil {
			return Change{}, nil, err
		}
		t.ID = id
		ch, err := e.createTeam(ctx, &t)
		return ch, &t, err
	}
	ch, next, err := update[model.Team]{subject: teamSubject(id), field: "team", key: id, change: change,
		then: func(ctx context.Context, cur, next *model.Team) ([]any, error) {
			next.ID = id
			if model.NormalizeTeamName(next.Name) == model.NormalizeTeamName(cur.Name) {
				return nil, nil
			}
			// A valid new name that another team's spelling holds is
			// refused before the team is written with it.
			if err := e.check(ctx, next); err != nil {
				return nil, err
			}
			claim, crev, err := load[model.TeamName](ctx, e, events.TeamNameSubject(next.Name))
			if err != nil {
				return nil, err
			}
			if crev != nil && claim.TeamID != id {
				return nil, e.nameTaken(ctx, next.Name, claim)
			}
			return nil, nil
		}}.run(ctx, e)
	if err == nil && model.NormalizeTeamName(next.Name) != model.NormalizeTeamName(cur.Name) {
		// A new name is a spelling importers must find the team by.
		_, err = e.PutTeamName(ctx, next.Name, id)
	}
	return ch, next, err
}

// createTeam creates t once it is valid and its name names no team yet.
func (e *Editor) createTeam(ctx context.Context, t *model.Team) (Change, error) {
	if err := e.checkDraft(ctx, t); err != nil {
		return Change{}, err
	}
	subject := events.TeamNameSubject(t.Name)
	if tn, rev, err := load[model.TeamName](ctx, e, subject); err != nil || rev != nil {
		if err == nil {
			err = e.nameTaken(ctx, t.Name, tn)
		}
		return Change{}, err
	}
	historic := 0
	if t.ID == 0 {
		var err error
		if historic, err = e.historicTeam(ctx, t.Name); err != nil {
			return Change{}, err
		}
	}
	if err := e.assignID(ctx, events.KindTeam, &t.ID, historic); err != nil {
		return Change{}, err
	}
	e.knowTeam(t.ID)
	if _, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		return e.newPlan(ctx, nil, &model.TeamName{Name: t.Name, TeamID: t.ID})
	}, false); err != nil {
		if model.ErrorCode(err) == model.Conflict {
			tn, _, lerr := load[model.TeamName](ctx, e, subject)
			if lerr == nil && tn != nil {
				err = e.nameTaken(ctx, t.Name, tn)
			}
		}
		return Change{}, err
	}
	return e.run(ctx, func(ctx context.Context) (plan, error) { return e.newPlan(ctx, nil, t) }, false)
}

// nameTaken is the conflict of a name whose key (model.NormalizeTeamName)
// another team's spelling, claim, holds: a name that only looks like that
// team's is that team's too. It names the team as it is called now (as the
// claim spells it if the team cannot be read: this is an error's message).
func (e *Editor) nameTaken(ctx context.Context, name string, claim *model.TeamName) error {
	called := claim.Name
	if t, rev, err := load[model.Team](ctx, e, teamSubject(claim.TeamID)); err == nil && rev != nil {
		called = t.Name
	}
	what := "looks like"
	if name == called {
		what = "already names"
	}
	return &model.Error{Code: model.Conflict, Field: "name", Value: name,
		Message: fmt.Sprintf("%s team %d (%s): change that team with --id %d, or add another spelling with `ingest team alias`", what, claim.TeamID, called, claim.TeamID)}
}

// PutTeamName maps a spelling of a team's name to a team. A spelling
// already mapped to another team is a conflict naming that team. Writers
// that map a spelling at once (feeds of one source recording its id for a
// club they both met) decide again against the winner: the same team is
// no change, another is that conflict.
func (e *Editor) PutTeamName(ctx context.Context, name string, teamID int) (Change, error) {
	tn := model.TeamName{Name: name, TeamID: teamID}
	// A spelling that is no valid name is refused as such, not as the
	// spelling of the team its key is.
	if err := tn.Validate(); err != nil {
		return Change{}, err
	}
	subject := events.TeamNameSubject(name)
	return e.run(ctx, func(ctx context.Context) (plan, error) {
		cur, rev, err := load[model.TeamName](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		next := tn
		if rev != nil {
			if cur.TeamID != teamID {
				return plan{}, e.nameTaken(ctx, name, cur)
			}
			next.Name = cur.Name // the first spelling seen stays the label
		}
		return e.newPlan(ctx, rev, &next)
	}, true)
}

// TeamsByName returns the ids of the teams the spellings name, creating
// the teams no team has yet: with their historic v1 ids when they had one,
// else with new ids. A spelling of a club of the historic table whose team
// exists (or is created by this call under another spelling) is claimed
// for that team: sources that spell a club differently give it one id.
// created lists the names whose teams this call created. The spellings
// are claimed first, all at once, with compare-and-set: any number of
// importers may meet a new name at once, and the losers take the winner's
// id (their own reserved ids stay unused) and make sure the winner's team
// exists.
func (e *Editor) TeamsByName(ctx context.Context, names []string) (ids map[string]int, created []string, err error) {
	teams, spelling, err := e.teamDrafts(ctx, names)
	if err != nil {
		return nil, nil, err
	}
	ids = map[string]int{}
	var failed error
	fail := func(err error) {
		if err != nil && failed == nil {
			failed = err
		}
	}
	// Each team is written once its name's claim is in, in the same
	// batch, with the winner's made sure of: a claim is written before its
	// team, and its writer may have stopped in between.
	b := e.Batch()
	for i := range teams {
		t := &teams[i]
		subject := events.TeamNameSubject(t.Name)
		e.knowTeam(t.ID)
		p, err := e.newPlan(ctx, nil, &model.TeamName{Name: t.Name, TeamID: t.ID})
		if err != nil {
			return nil, nil, err
		}
		redo := func(ctx context.Context) (plan, error) {
			cur, rev, err := load[model.TeamName](ctx, e, subject)
			if err != nil || rev == nil {
				return p, err
			}
			t.ID = cur.TeamID // the winner's
			e.knowTeam(t.ID)
			return keep(subject, rev), nil
		}
		claim := &op{plan: p, redo: redoFunc(redo), done: func(ch Change, err error) {
			fail(err)
			if err == nil && ch.Action == Created && !spelling[i] {
				created = append(created, t.Name)
			}
		}, then: &op{lost: true, redo: e.teamOnce(t, spelling[i]), done: func(_ Change, err error) { fail(err) }}}
		if err := b.add(ctx, claim); err != nil {
			return nil, nil, err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, nil, err
	}
	if failed != nil {
		return nil, nil, failed
	}
	for _, t := range teams {
		ids[t.Name] = t.ID
	}
	return ids, created, nil
}

// teamDrafts makes a valid team of each name with its id: the club's team
// for a historic name whose club has one, the historic id for a club that
// has none yet, a new id otherwise. spelling marks the names that are
// another spelling of a club whose team exists or that another name of
// the call creates.
func (e *Editor) teamDrafts(ctx context.Context, names []string) (teams []model.Team, spelling []bool, err error) {
	teams = make([]model.Team, len(names))
	var historic, historicIDs []int // the names with a historic id, and their ids
	for i, name := range names {
		teams[i] = model.Team{Name: name}
		if err := teams[i].ValidateDraft(); err != nil {
			return nil, nil, fmt.Errorf("team %q: %w", name, err)
		}
		if id, ok := model.HistoricTeamID(name); ok {
			historic = append(historic, i)
			historicIDs = append(historicIDs, id)
		}
	}
	club, free, err := e.clubTeams(ctx, historicIDs)
	if err != nil {
		return nil, nil, err
	}
	spelling = make([]bool, len(names))
	creates := map[int]bool{}
	for k, i := range historic {
		switch id := historicIDs[k]; {
		case club[id] != 0:
			teams[i].ID, spelling[i] = club[id], true
		case free[id]:
			teams[i].ID, spelling[i] = id, creates[id]
			creates[id] = true
		}
	}
	var plain []int
	for i := range teams {
		if teams[i].ID == 0 {
			plain = append(plain, i)
		}
	}
	fresh, err := e.newIDs(ctx, events.KindTeam, len(plain))
	if err != nil {
		return nil, nil, err
	}
	for j, i := range plain {
		teams[i].ID = fresh[j]
	}
	return teams, spelling, nil
}

// teamOnce decides the write of team t, whose name was just claimed: the
// first time as new, after a lost race from the team stored (which is
// kept). The team of another spelling of a club is looked for first.
func (e *Editor) teamOnce(t *model.Team, spelling bool) redoer {
	first := !spelling
	return redoFunc(func(ctx context.Context) (plan, error) {
		if !first {
			_, rev, err := load[model.Team](ctx, e, teamSubject(t.ID))
			if err != nil {
				return plan{}, err
			}
			if rev != nil {
				return keep(teamSubject(t.ID), rev), nil
			}
		}
		first = false
		return e.newPlan(ctx, nil, t)
	})
}

// NewIDs reserves n ids of kind for entities a writer is about to
// create, once they are valid.
func (e *Editor) NewIDs(ctx context.Context, kind events.Kind, n int) ([]int, error) {
	return e.newIDs(ctx, kind, n)
}

// historicCompetition is the v1 id of a league's season when it had one
// and no competition holds it yet, else 0.
func (e *Editor) historicCompetition(ctx context.Context, league model.LeagueCode, year int) (int, error) {
	id, ok := model.HistoricCompetitionID(league, year)
	if !ok {
		return 0, nil
	}
	_, rev, err := e.loadCompetition(ctx, id)
	if err != nil || rev != nil {
		return 0, err
	}
	return id, nil
}

// historicTeam is the v1 id of the team of a name when it had one and no
// team holds it yet, else 0. A name that is another spelling of a club
// whose team exists is a conflict naming that team.
func (e *Editor) historicTeam(ctx context.Context, name string) (int, error) {
	id, ok := model.HistoricTeamID(name)
	if !ok {
		return 0, nil
	}
	club, free, err := e.clubTeams(ctx, []int{id})
	switch {
	case err != nil:
		return 0, err
	case club[id] != 0:
		return 0, &model.Error{Code: model.Conflict, Field: "name", Value: name,
			Message: fmt.Sprintf("is a spelling of the club of team %d in the historic id table: change that team with --id %d, or add this spelling with `ingest team alias --team %d`", club[id], club[id], club[id])}
	case free[id]:
		return id, nil
	}
	return 0, nil
}

// clubTeams finds the teams that already stand for the clubs of historic
// ids: the team a spelling of the club is claimed for (the team of the
// id itself first), else the team holding the id if its name is a
// spelling of the club. club has them by historic id (none: the club has
// no team yet); free tells the ids no team holds. Sources that spell a
// club differently, and streams whose clubs got other ids before the
// table knew them, so keep one team per club.
func (e *Editor) clubTeams(ctx context.Context, ids []int) (club map[int]int, free map[int]bool, err error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	teamSubjects := make([]string, len(ids))
	var nameSubjects []string
	var nameIDs []int // the historic id of each name subject
	for k, id := range ids {
		teamSubjects[k] = teamSubject(id)
		for _, name := range model.HistoricTeamSpellings(id) {
			nameSubjects = append(nameSubjects, events.TeamNameSubject(name))
			nameIDs = append(nameIDs, id)
		}
	}
	held, err := loadAll[model.Team](ctx, e, teamSubjects)
	if err != nil {
		return nil, nil, fmt.Errorf("read %d historic teams: %w", len(ids), err)
	}
	claims, err := loadAll[model.TeamName](ctx, e, nameSubjects)
	if err != nil {
		return nil, nil, fmt.Errorf("read %d spellings of historic clubs: %w", len(nameSubjects), err)
	}
	club, free = map[int]int{}, map[int]bool{}
	for j, c := range claims {
		if id := nameIDs[j]; c.rev != nil && (club[id] == 0 || c.value.TeamID == id) {
			club[id] = c.value.TeamID
		}
	}
	for k, id := range ids {
		switch h := held[k]; {
		case h.rev == nil:
			free[id] = true
		case club[id] == 0 && sameClub(h.value.Name, id):
			club[id] = id
		}
	}
	return club, free, nil
}

// sameClub reports whether name, a team's, is a spelling of the club of
// historic id id.
func sameClub(name string, id int) bool {
	got, ok := model.HistoricTeamID(name)
	return ok && got == id
}

// PutSquad replaces a team's squad. Players without an id get one; a
// player whose name is already in the squad keeps the id he had.
func (e *Editor) PutSquad(ctx context.Context, sq model.Squad) (Change, error) {
	return e.putSquad(ctx, sq, false)
}

// ImportSquad is PutSquad for a squad read from a source that knows less
// than an editor may have entered: a player already in the squad also
// keeps the date of birth, contract and market value he had where the
// source gives none.
func (e *Editor) ImportSquad(ctx context.Context, sq model.Squad) (Change, error) {
	return e.putSquad(ctx, sq, true)
}

func (e *Editor) putSquad(ctx context.Context, sq model.Squad, keep bool) (Change, error) {
	subject := events.Subject(events.KindSquad, strconv.Itoa(sq.TeamID))
	if err := e.checkDraft(ctx, &sq); err != nil {
		return Change{}, err
	}
	var next model.Squad
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) {
		old, rev, err := load[model.Squad](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		var missing int
		next, missing = carrySquad(old, sq, keep)
		if err := e.checkDraft(ctx, &next); err != nil {
			return plan{}, err
		}
		if err := e.newPlayerIDs(ctx, &next, missing); err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, &next)
	}, false)
	if err != nil {
		return ch, err
	}
	return ch, e.putPlayers(ctx, next)
}

// carrySquad is the squad sq as it replaces old (nil for none): a player
// without an id keeps the one his name had in old, and with keep a player
// of old also keeps his date of birth, contract and market value where sq
// gives none. It returns how many players are still without an id.
func carrySquad(old *model.Squad, sq model.Squad, keep bool) (model.Squad, int) {
	next := model.Squad{TeamID: sq.TeamID, Players: append([]model.Player(nil), sq.Players...)}
	known := map[string]model.Player{}
	if old != nil {
		for _, p := range old.Players {
			known[p.Name] = p
		}
	}
	missing := 0
	for i := range next.Players {
		p := &next.Players[i]
		was, ok := known[p.Name]
		if keep && ok {
			p.DateOfBirth = cmp.Or(p.DateOfBirth, was.DateOfBirth)
			p.ContractUntil = cmp.Or(p.ContractUntil, was.ContractUntil)
			p.MarketValue = cmp.Or(p.MarketValue, was.MarketValue)
		}
		if p.ID == 0 {
			if ok {
				p.ID = was.ID
			} else {
				missing++
			}
		}
	}
	return next, missing
}

// newPlayerIDs gives the players of a squad that have no id a new one;
// missing is how many they are.
func (e *Editor) newPlayerIDs(ctx context.Context, sq *model.Squad, missing int) error {
	if missing == 0 {
		return nil
	}
	ids, err := e.newIDs(ctx, playerIDs, missing)
	if err != nil {
		return err
	}
	for i := range sq.Players {
		if sq.Players[i].ID == 0 {
			sq.Players[i].ID, ids = ids[0], ids[1:]
		}
	}
	return nil
}

// putPlayers writes the players of a squad as persons, under their
// players' ids: a squad's player is a person (a scorer found in the squad
// is he), and the read side has one source of persons. A person stored
// under the id keeps the spellings and details it has beside the squad's.
func (e *Editor) putPlayers(ctx context.Context, sq model.Squad) error {
	subjects := make([]string, len(sq.Players))
	for i, pl := range sq.Players {
		subjects[i] = events.Subject(events.KindPerson, strconv.Itoa(pl.ID))
	}
	stored, err := loadAll[model.Person](ctx, e, subjects)
	if err != nil {
		return fmt.Errorf("load the squad's persons: %w", err)
	}
	var failed error
	b := e.Batch()
	for i, pl := range sq.Players {
		want := personOf(pl, sq.TeamID)
		decide := func(cur *model.Person, rev *events.Revision) (plan, error) {
			next := want
			if cur != nil {
				next = mergePerson(*cur, want)
			}
			return e.newPlan(ctx, rev, &next)
		}
		p, err := decide(stored[i].value, stored[i].rev)
		if err != nil {
			return fmt.Errorf("person %d (%s): %w", pl.ID, pl.Name, err)
		}
		redo := func(ctx context.Context) (plan, error) {
			cur, rev, err := load[model.Person](ctx, e, subjects[i])
			if err != nil {
				return plan{}, err
			}
			return decide(cur, rev)
		}
		err = b.add(ctx, &op{plan: p, redo: redoFunc(redo), done: func(_ Change, err error) {
			if err != nil && failed == nil {
				failed = fmt.Errorf("person %d (%s): %w", pl.ID, pl.Name, err)
			}
		}})
		if err != nil {
			return err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return err
	}
	return failed
}

// PutAdjustment records a points adjustment or changes one: change is
// applied to its current state; id 0 creates one.
func (e *Editor) PutAdjustment(ctx context.Context, id int, change func(*model.Adjustment) error) (Change, *model.Adjustment, error) {
	if id == 0 {
		var a model.Adjustment
		if err := change(&a); err != nil {
			return Change{}, nil, err
		}
		a.ID = 0
		if err := e.checkDraft(ctx, &a); err != nil {
			return Change{}, nil, err
		}
		if err := e.assignID(ctx, events.KindAdjustment, &a.ID, 0); err != nil {
			return Change{}, nil, err
		}
		ch, err := e.run(ctx, func(ctx context.Context) (plan, error) { return e.newPlan(ctx, nil, &a) }, false)
		return ch, &a, err
	}
	return update[model.Adjustment]{subject: events.Subject(events.KindAdjustment, "*", strconv.Itoa(id)), field: "adjustment", key: id, change: change,
		then: func(_ context.Context, cur, next *model.Adjustment) ([]any, error) {
			next.ID = id
			if next.CompetitionID != cur.CompetitionID {
				return nil, model.Invalidf("competition", strconv.Itoa(next.CompetitionID), "an adjustment stays in its competition (%d); withdraw it and add a new one", cur.CompetitionID)
			}
			return nil, nil
		}}.run(ctx, e)
}

// ImportAdjustment writes an imported adjustment under the id its source
// claimed (SourceIDs): created, or brought up to date. Importers writing
// the same one at once end with it once.
func (e *Editor) ImportAdjustment(ctx context.Context, a model.Adjustment) (Change, error) {
	if err := e.checkDraft(ctx, &a); err != nil {
		return Change{}, err
	}
	subject := events.Subject(events.KindAdjustment, strconv.Itoa(a.CompetitionID), strconv.Itoa(a.ID))
	return e.run(ctx, func(ctx context.Context) (plan, error) {
		_, rev, err := load[model.Adjustment](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, &a)
	}, true)
}

// PutTieBreak records the explicit order of teams level after every rule.
func (e *Editor) PutTieBreak(ctx context.Context, o model.TieBreakOrder) (Change, error) {
	subject := events.Subject(events.KindTieBreak, strconv.Itoa(o.CompetitionID))
	return e.run(ctx, func(ctx context.Context) (plan, error) {
		_, rev, err := load[model.TieBreakOrder](ctx, e, subject)
		if err != nil {
			return plan{}, err
		}
		return e.newPlan(ctx, rev, &o)
	}, false)
}
