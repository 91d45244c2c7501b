package editor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// playerIDs is the counter of persons' ids: a squad's players and the
// scorers of goals are persons, in one space of ids, so that a scorer who
// is a squad's player is that player.
const playerIDs events.Kind = "player"

// Persons resolves the names of scorers to persons, one team at a time
// (the team a scorer played for), and writes the persons it creates or
// changes when Save is called: an import resolves every name of a group
// of files, saves them with one batch, then writes its fixtures with the
// ids. A name is resolved once per team (the first answer is kept), by
// these rules, on the names' keys (model.NormalizePersonName):
//
//  1. a name or alias of one of the team's persons is that person;
//  2. a short form ("Kane", "Van Dijk", "M. Salah": surname alone, or an
//     initial and the surname) of the longer name of exactly one person
//     (whose name ends with that surname, and whose first name begins
//     with that initial) is that person, and becomes an alias of his;
//  3. a longer name of which the name of exactly one person is a short
//     form ("Harry Kane" after "Kane") is that person, whose name becomes
//     the longer spelling, the shorter one an alias;
//  4. else the name is a new person. Two persons that fit make a new one
//     too, with a warning (Warnings): a guess could join two players.
//
// A generational suffix (Jr) is no part of the surname: "Neymar" is short
// for "Neymar Jr". The persons are read once, with the players of every
// squad (who are persons whether or not a person was written for them).
// Persons is not safe for concurrent use.
type Persons struct {
	e        *Editor
	teams    map[int][]*person
	resolved map[teamKey]*person
	dirty    []*person
	warnings []string
}

type teamKey struct {
	team int
	key  string
}

// person is a person as Persons knows it: as stored (rev, nil if not
// written yet: new, or a squad's player only) and as changed since.
type person struct {
	model.Person
	rev   *events.Revision
	dirty bool
	// claim is the key of the name a new person was first met under,
	// claimed for its id when it is saved.
	claim string
	// words are the keys of its name and aliases, as words.
	words [][]string
}

func (p *person) index() {
	p.words = p.words[:0]
	for _, n := range append([]string{p.Name}, p.Aliases...) {
		p.words = append(p.words, personWords(n))
	}
}

// personWords are a name's key as words.
func personWords(name string) []string { return strings.Fields(model.NormalizePersonName(name)) }

// Persons reads the stream's persons and squads, to resolve names with.
func (e *Editor) Persons(ctx context.Context) (*Persons, error) {
	ps := &Persons{e: e, teams: map[int][]*person{}, resolved: map[teamKey]*person{}}
	byID := map[int]bool{}
	err := e.Store.Scan(ctx, events.All(events.KindPerson), func(ev events.Event) error {
		p, err := events.Decode[model.Person](ev.Data)
		if err != nil {
			return fmt.Errorf("person %s: %w", ev.Subject, err)
		}
		byID[p.ID] = true
		ps.add(&person{Person: p, rev: &events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: slices.Clone(ev.Data)}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load persons: %w", err)
	}
	err = e.Store.Scan(ctx, events.All(events.KindSquad), func(ev events.Event) error {
		sq, err := events.Decode[model.Squad](ev.Data)
		if err != nil {
			return fmt.Errorf("squad %s: %w", ev.Subject, err)
		}
		for _, pl := range sq.Players {
			if !byID[pl.ID] {
				byID[pl.ID] = true
				ps.add(&person{Person: personOf(pl, sq.TeamID)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load squads: %w", err)
	}
	return ps, nil
}

// personOf is the person a squad's player is.
func personOf(pl model.Player, team int) model.Person {
	return model.Person{ID: pl.ID, Name: pl.Name, TeamID: team, Nationality: pl.Nationality, DateOfBirth: pl.DateOfBirth, Position: pl.Position}
}

func (ps *Persons) add(p *person) {
	p.index()
	ps.teams[p.TeamID] = append(ps.teams[p.TeamID], p)
}

// Resolve finds or makes the person name stands for among the persons of
// team. A team of 0 (not known yet) has no persons: its scorers stay
// unknown (ID gives 0).
func (ps *Persons) Resolve(team int, name string) error {
	if team == 0 {
		return nil
	}
	name = strings.TrimSpace(name)
	if err := model.CheckRequired("scorer", name, model.MaxName); err != nil {
		return err
	}
	w := personWords(name)
	if len(w) == 0 {
		return model.Invalidf("scorer", name, "must contain a letter or digit")
	}
	tk := teamKey{team, strings.Join(w, " ")}
	if _, ok := ps.resolved[tk]; ok {
		return nil
	}
	ps.resolved[tk] = ps.match(team, name, w)
	return nil
}

// ID is the person a name Resolve resolved for team stands for, once
// saved; 0 if the name was not resolved (or the team is 0).
func (ps *Persons) ID(team int, name string) int {
	if p := ps.resolved[teamKey{team, model.NormalizePersonName(name)}]; p != nil {
		return p.ID
	}
	return 0
}

// Warnings returns the warnings of the names resolved since it was last
// called: the names two persons fitted.
func (ps *Persons) Warnings() []string {
	ws := ps.warnings
	ps.warnings = nil
	return ws
}

// match applies the rules (see Persons) to a name not resolved yet.
func (ps *Persons) match(team int, name string, w []string) *person {
	var longer, shorter []*person
	for _, p := range ps.teams[team] {
		if slices.ContainsFunc(p.words, func(n []string) bool { return slices.Equal(n, w) }) {
			return p
		}
		switch {
		case slices.ContainsFunc(p.words, func(n []string) bool { return shortFor(w, n) }):
			longer = append(longer, p)
		case shortFor(p.words[0], w):
			shorter = append(shorter, p)
		}
	}
	switch {
	case len(longer) == 1:
		p := longer[0]
		p.Aliases = append(p.Aliases, name)
		ps.changed(p)
		return p
	case len(longer) == 0 && len(shorter) == 1:
		p := shorter[0]
		p.Aliases = append(p.Aliases, p.Name)
		p.Name = name
		ps.changed(p)
		return p
	}
	p := &person{Person: model.Person{Name: name, TeamID: team}, claim: strings.Join(w, " ")}
	if fit := append(longer, shorter...); len(fit) > 1 {
		var names []string
		for _, q := range fit {
			names = append(names, fmt.Sprintf("%s (%s)", q.Name, idOrNew(q.ID)))
		}
		ps.warnings = append(ps.warnings, fmt.Sprintf("scorer %q of team %d could be %s: recorded as a person of its own (make it an alias of one with `ingest person put`)",
			name, team, strings.Join(names, " or ")))
	}
	ps.add(p)
	ps.changed(p)
	return p
}

func idOrNew(id int) string {
	if id == 0 {
		return "new"
	}
	return fmt.Sprint(id)
}

func (ps *Persons) changed(p *person) {
	p.index()
	if !p.dirty {
		p.dirty = true
		ps.dirty = append(ps.dirty, p)
	}
}

// generational are the words after a surname that are no part of it.
var generational = map[string]bool{"jr": true, "jnr": true, "sr": true, "snr": true}

// surname drops a name's generational suffix ("Neymar Jr").
func surname(w []string) []string {
	if len(w) > 1 && generational[w[len(w)-1]] {
		return w[:len(w)-1]
	}
	return w
}

// shortFor reports whether short is a short form of full (both keys as
// words): full's surname ends with short's, and is longer, or short gives
// full's first name's initial first ("m salah" for "mohamed salah"), or
// the two differ only by a generational suffix ("neymar", "neymar jr").
func shortFor(short, full []string) bool {
	s, f := surname(short), surname(full)
	initial := ""
	if len(s) > 1 && utf8.RuneCountInString(s[0]) == 1 {
		initial, s = s[0], s[1:]
	}
	if len(s) > len(f) || !slices.Equal(f[len(f)-len(s):], s) {
		return false
	}
	if initial != "" {
		return len(f) > len(s) && strings.HasPrefix(f[0], initial)
	}
	return len(f) > len(s) || len(short) < len(full)
}

// Save writes the persons created or changed since it was last called,
// in one batch, and returns what it wrote. A new person's id is claimed
// by its team and the key of the name it was first met under, as an
// imported fixture's by its source (new ids from the players' counter):
// writers that meet a new name at once give it one id. A person changed
// meanwhile by another writer (or created under the id claimed) is merged
// with: its aliases and details are kept, beside this writer's.
func (ps *Persons) Save(ctx context.Context) ([]Change, error) {
	if len(ps.dirty) == 0 {
		return nil, nil
	}
	if err := ps.claimIDs(ctx); err != nil {
		return nil, err
	}
	var failed error
	var changes []Change
	b := ps.e.Batch()
	for _, p := range ps.dirty {
		want := p.Person
		want.Aliases = slices.Clone(p.Aliases)
		pl, err := ps.e.newPlan(ctx, p.rev, &want)
		if err != nil {
			return nil, fmt.Errorf("person %d (%s): %w", p.ID, p.Name, err)
		}
		redo := func(ctx context.Context) (plan, error) {
			cur, rev, err := load[model.Person](ctx, ps.e, pl.subject)
			if err != nil {
				return plan{}, err
			}
			next := want
			if cur != nil {
				next = mergePerson(*cur, want)
			}
			return ps.e.newPlan(ctx, rev, &next)
		}
		err = b.add(ctx, &op{plan: pl, redo: redoFunc(redo), done: func(ch Change, err error) {
			if err == nil {
				var stored model.Person
				if stored, err = events.Decode[model.Person](ch.after); err == nil {
					p.Person = stored
					p.rev = &events.Revision{Subject: ch.Subject, Seq: ch.Seq, Data: ch.after}
					p.index()
					changes = append(changes, ch)
				}
			}
			if err != nil && failed == nil {
				failed = fmt.Errorf("person %d (%s): %w", p.ID, p.Name, err)
			}
		}})
		if err != nil {
			return nil, err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	for _, p := range ps.dirty {
		p.dirty = false
	}
	ps.dirty = nil
	return changes, failed
}

// claimIDs gives the new persons their ids, claimed in one call for all
// their teams.
func (ps *Persons) claimIDs(ctx context.Context) error {
	var claims []SourceClaim
	at := map[int]int{} // team → its claim
	for _, p := range ps.dirty {
		if p.ID != 0 {
			continue
		}
		i, ok := at[p.TeamID]
		if !ok {
			i = len(claims)
			at[p.TeamID] = i
			claims = append(claims, SourceClaim{Competition: p.TeamID})
		}
		claims[i].Sources = append(claims[i].Sources, p.claim)
	}
	if len(claims) == 0 {
		return nil
	}
	got, err := ps.e.ClaimSources(ctx, playerIDs, claims)
	if err != nil {
		return fmt.Errorf("claim the ids of new persons of %d teams: %w", len(claims), err)
	}
	for _, p := range ps.dirty {
		if p.ID == 0 {
			p.ID = got[at[p.TeamID]].IDs[p.claim]
		}
	}
	return nil
}

// mergePerson is want written over cur, a state another writer stored
// meanwhile: cur's spellings and details are kept beside want's.
func mergePerson(cur, want model.Person) model.Person {
	next := want
	next.Aliases = slices.Clone(want.Aliases)
	for _, n := range append([]string{cur.Name}, cur.Aliases...) {
		key := model.NormalizePersonName(n)
		if key != model.NormalizePersonName(next.Name) && !slices.ContainsFunc(next.Aliases, func(a string) bool { return model.NormalizePersonName(a) == key }) {
			next.Aliases = append(next.Aliases, n)
		}
	}
	if next.Nationality == "" {
		next.Nationality = cur.Nationality
	}
	if next.DateOfBirth == nil {
		next.DateOfBirth = cur.DateOfBirth
	}
	if next.Position == "" {
		next.Position = cur.Position
	}
	return next
}

// ResolveScorers gives the goals of f that have no scorer id yet their
// scorers' person ids, each name resolved among the persons of the team
// its scorer played for (the opponent of the side an own goal counts
// for), and writes the persons created or changed: an editor's goals are
// decided as an import's are. It returns the warnings of the names two
// persons fitted.
func (e *Editor) ResolveScorers(ctx context.Context, f *model.Fixture) ([]string, error) {
	team := func(g model.Goal) int {
		if g.ScorerSide() == model.Home {
			return f.HomeTeamID
		}
		return f.AwayTeamID
	}
	var ps *Persons
	for _, g := range f.Goals {
		if g.ScorerID != 0 {
			continue
		}
		if ps == nil {
			var err error
			if ps, err = e.Persons(ctx); err != nil {
				return nil, err
			}
		}
		if err := ps.Resolve(team(g), g.Scorer); err != nil {
			return nil, err
		}
	}
	if ps == nil {
		return nil, nil
	}
	if _, err := ps.Save(ctx); err != nil {
		return nil, err
	}
	for i := range f.Goals {
		if g := &f.Goals[i]; g.ScorerID == 0 {
			g.ScorerID = ps.ID(team(*g), g.Scorer)
		}
	}
	return ps.Warnings(), nil
}

// PutPerson creates a person or changes one: change is applied to its
// current state. Id 0 creates one with a new id from the players'
// counter, an id nobody has yet creates it with that id. A new name keeps
// the former one as an alias, so that the sources that wrote it still find
// the person.
func (e *Editor) PutPerson(ctx context.Context, id int, change func(*model.Person) error) (Change, *model.Person, error) {
	subject := func(id int) string { return events.Subject(events.KindPerson, strconv.Itoa(id)) }
	if id != 0 {
		if err := model.CheckID("id", id); err != nil {
			return Change{}, nil, err
		}
		_, rev, err := load[model.Person](ctx, e, subject(id))
		if err != nil {
			return Change{}, nil, err
		}
		if rev != nil {
			return update[model.Person]{subject: subject(id), field: "person", key: id, change: change,
				clone: func(cur *model.Person) model.Person {
					next := *cur
					next.Aliases = slices.Clone(cur.Aliases)
					return next
				},
				then: func(_ context.Context, cur, next *model.Person) ([]any, error) {
					next.ID = id
					former := model.NormalizePersonName(cur.Name)
					if former != model.NormalizePersonName(next.Name) &&
						!slices.ContainsFunc(next.Aliases, func(a string) bool { return model.NormalizePersonName(a) == former }) {
						next.Aliases = append(next.Aliases, cur.Name)
					}
					return nil, nil
				}}.run(ctx, e)
		}
	}
	p := model.Person{ID: id}
	if err := change(&p); err != nil {
		return Change{}, nil, err
	}
	p.ID = id
	if err := e.checkDraft(ctx, &p); err != nil {
		return Change{}, nil, err
	}
	if err := e.assignID(ctx, playerIDs, &p.ID, 0); err != nil {
		return Change{}, nil, err
	}
	ch, err := e.run(ctx, func(ctx context.Context) (plan, error) { return e.newPlan(ctx, nil, &p) }, false)
	return ch, &p, err
}
