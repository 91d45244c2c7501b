package editor

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/footdata/footballd/pkg/events"
	"github.com/footdata/footballd/pkg/model"
)

// MergeTeam folds a duplicate team into another: its competitions,
// fixtures, adjustments, tie-break orders and data, squad, persons and spellings become the
// other's, each rewritten through the one write path, and the duplicate is
// marked merged, which takes it out of every answer. Every revision names
// the merge and reason as its source, so a history says who did it and why.
// A merge that was interrupted can be run again. It returns the changes.
func (e *Editor) MergeTeam(ctx context.Context, from, into int, reason string) ([]Change, error) {
	if from == into {
		return nil, model.Invalidf("into", strconv.Itoa(into), "must be another team than --from")
	}
	if err := model.CheckRequired("reason", reason, model.MaxReason); err != nil {
		return nil, err
	}
	dup, _, err := e.Team(ctx, from)
	if err != nil {
		return nil, err
	}
	if _, _, err := e.Team(ctx, into); err != nil {
		return nil, err
	}
	if dup.MergedInto != 0 && dup.MergedInto != into {
		return nil, model.Invalidf("from", strconv.Itoa(from), "was merged into team %d already", dup.MergedInto)
	}
	saved := e.Meta
	e.Meta.Source = fmt.Sprintf("%s %d into %d: %s", saved.Source, from, into, reason)
	defer func() { e.Meta = saved }()

	w := mergeWork{e: e, from: from, into: into}
	if err := w.find(ctx); err != nil {
		return nil, err
	}
	for _, step := range []func(context.Context) error{w.addToCompetitions, w.fixtures, w.adjustments, w.orders, w.tieBreakData,
		w.removeFromCompetitions, w.squad, w.persons, w.names, w.markMerged} {
		if err := step(ctx); err != nil {
			return w.changes, err
		}
	}
	return w.changes, nil
}

// mergeWork is one merge on its way.
type mergeWork struct {
	e          *Editor
	from, into int
	changes    []Change
	comps      []int // competitions listing the duplicate
	found      []Stored[model.Fixture]
}

func (w *mergeWork) done(ch Change, err error) error {
	if err == nil && ch.Action != Unchanged {
		w.changes = append(w.changes, ch)
	}
	return err
}

// find reads what refers to the duplicate, and refuses a merge of two
// teams that met (one club cannot have played itself).
func (w *mergeWork) find(ctx context.Context) error {
	err := w.e.Store.Scan(ctx, events.All(events.KindCompetition), func(ev events.Event) error {
		c, err := events.Decode[model.Competition](ev.Data)
		if err == nil && c.HasTeam(w.from) {
			w.comps = append(w.comps, c.ID)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("find competitions of team %d: %w", w.from, err)
	}
	err = w.e.Store.Scan(ctx, events.All(events.KindFixture), func(ev events.Event) error {
		f, err := events.Decode[model.Fixture](ev.Data)
		if err != nil || (f.HomeTeamID != w.from && f.AwayTeamID != w.from) {
			return err
		}
		if f.HomeTeamID == w.into || f.AwayTeamID == w.into {
			return model.Invalidf("into", strconv.Itoa(w.into), "played team %d in fixture %d: they are two teams, not one", w.from, f.ID)
		}
		w.found = append(w.found, Stored[model.Fixture]{Value: f,
			Rev: events.Revision{Subject: ev.Subject, Seq: ev.Seq, Data: slices.Clone(ev.Data)}})
		return nil
	})
	if err != nil && model.ErrorCode(err) != model.Invalid {
		return fmt.Errorf("find fixtures of team %d: %w", w.from, err)
	}
	return err
}

// swap returns id, or into for the duplicate.
func (w *mergeWork) swap(id int) int {
	if id == w.from {
		return w.into
	}
	return id
}

func (w *mergeWork) addToCompetitions(ctx context.Context) error {
	for _, id := range w.comps {
		ch, _, err := w.e.MergeCompetition(ctx, id, func(c *model.Competition) error {
			if !c.HasTeam(w.into) {
				c.Teams = append(c.Teams, model.CompetitionTeam{TeamID: w.into, Group: c.GroupOf(w.from)})
				sort.Slice(c.Teams, func(i, j int) bool { return c.Teams[i].TeamID < c.Teams[j].TeamID })
			}
			return nil
		})
		if err := w.done(ch, err); err != nil {
			return err
		}
	}
	return nil
}

func (w *mergeWork) removeFromCompetitions(ctx context.Context) error {
	for _, id := range w.comps {
		ch, _, err := w.e.MergeCompetition(ctx, id, func(c *model.Competition) error {
			c.Teams = slices.DeleteFunc(c.Teams, func(t model.CompetitionTeam) bool { return t.TeamID == w.from })
			return nil
		})
		if err := w.done(ch, err); err != nil {
			return err
		}
	}
	return nil
}

// fixtures rewrites the duplicate's fixtures in one batch.
func (w *mergeWork) fixtures(ctx context.Context) error {
	b := w.e.Batch()
	comps := map[int]*model.Competition{}
	var failed error
	for _, st := range w.found {
		c, ok := comps[st.Value.CompetitionID]
		if !ok {
			var err error
			if c, err = w.e.competition(ctx, st.Value.CompetitionID); err != nil {
				return err
			}
			comps[c.ID] = c
		}
		want := func(cur *model.Fixture) ([]model.Fixture, error) {
			f := *cur
			f.HomeTeamID, f.AwayTeamID = w.swap(f.HomeTeamID), w.swap(f.AwayTeamID)
			return []model.Fixture{f}, nil
		}
		err := b.Fixture(ctx, c, st.Value.ID, &st, want, func(ch Change, err error) {
			if err := w.done(ch, err); err != nil && failed == nil {
				failed = fmt.Errorf("fixture %d: %w", st.Value.ID, err)
			}
		})
		if err != nil {
			return err
		}
	}
	if err := b.Flush(ctx); err != nil {
		return err
	}
	return failed
}

func (w *mergeWork) adjustments(ctx context.Context) error {
	var ids []int
	err := w.e.Store.Scan(ctx, events.All(events.KindAdjustment), func(ev events.Event) error {
		a, err := events.Decode[model.Adjustment](ev.Data)
		if err == nil && a.TeamID == w.from {
			ids = append(ids, a.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		ch, _, err := w.e.PutAdjustment(ctx, id, func(a *model.Adjustment) error {
			a.TeamID = w.into
			return nil
		})
		if err := w.done(ch, err); err != nil {
			return err
		}
	}
	return nil
}

func (w *mergeWork) orders(ctx context.Context) error {
	var orders []model.TieBreakOrder
	err := w.e.Store.Scan(ctx, events.All(events.KindTieBreak), func(ev events.Event) error {
		o, err := events.Decode[model.TieBreakOrder](ev.Data)
		if err == nil && slices.Contains(o.TeamIDs, w.from) {
			orders = append(orders, o)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, o := range orders {
		var ids []int
		for _, id := range o.TeamIDs {
			if id = w.swap(id); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		o.TeamIDs = ids
		if err := w.done(w.e.PutTieBreak(ctx, o)); err != nil {
			return err
		}
	}
	return nil
}

// tieBreakData moves the duplicate's disciplinary points (unless the
// other has its own) and its place in a coefficient order.
func (w *mergeWork) tieBreakData(ctx context.Context) error {
	var comps []int
	err := w.e.Store.Scan(ctx, events.All(events.KindTieBreakData), func(ev events.Event) error {
		d, err := events.Decode[model.TieBreakData](ev.Data)
		if err == nil && slices.Contains(d.Teams(), w.from) {
			comps = append(comps, d.CompetitionID)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, c := range comps {
		ch, _, err := w.e.PutTieBreakData(ctx, c, func(d *model.TieBreakData) error {
			if p, ok := d.Disciplinary[w.from]; ok {
				delete(d.Disciplinary, w.from)
				if _, ok := d.Disciplinary[w.into]; !ok {
					d.Disciplinary[w.into] = p
				}
			}
			var ids []int
			for _, id := range d.Coefficients {
				if id = w.swap(id); !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			d.Coefficients = ids
			return nil
		})
		if err := w.done(ch, err); err != nil {
			return err
		}
	}
	return nil
}

// squad adds the duplicate's players the other's squad lacks (by name),
// without a shirt number either squad already gives, and empties the
// duplicate's.
func (w *mergeWork) squad(ctx context.Context) error {
	dup, _, err := load[model.Squad](ctx, w.e, events.Subject(events.KindSquad, strconv.Itoa(w.from)))
	if err != nil || dup == nil || len(dup.Players) == 0 {
		return err
	}
	to, _, err := load[model.Squad](ctx, w.e, events.Subject(events.KindSquad, strconv.Itoa(w.into)))
	if err != nil {
		return err
	}
	merged := model.Squad{TeamID: w.into}
	if to != nil {
		merged.Players = slices.Clone(to.Players)
	}
	for _, p := range dup.Players {
		if slices.ContainsFunc(merged.Players, func(q model.Player) bool { return q.Name == p.Name }) {
			continue
		}
		if p.JerseyNumber != nil && slices.ContainsFunc(merged.Players, func(q model.Player) bool {
			return q.JerseyNumber != nil && *q.JerseyNumber == *p.JerseyNumber
		}) {
			p.JerseyNumber = nil
		}
		merged.Players = append(merged.Players, p)
	}
	if err := w.done(w.e.PutSquad(ctx, merged)); err != nil {
		return err
	}
	return w.done(w.e.PutSquad(ctx, model.Squad{TeamID: w.from, Players: []model.Player{}}))
}

// persons makes the duplicate's persons (its scorers; its squad's players
// moved with the squad) the other's, among whose persons scorers' names
// are then found.
func (w *mergeWork) persons(ctx context.Context) error {
	var ids []int
	err := w.e.Store.Scan(ctx, events.All(events.KindPerson), func(ev events.Event) error {
		p, err := events.Decode[model.Person](ev.Data)
		if err == nil && p.TeamID == w.from {
			ids = append(ids, p.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		ch, _, err := w.e.PutPerson(ctx, id, func(p *model.Person) error {
			p.TeamID = w.into
			return nil
		})
		if err := w.done(ch, err); err != nil {
			return err
		}
	}
	return nil
}

// names makes every spelling of the duplicate a spelling of the other.
func (w *mergeWork) names(ctx context.Context) error {
	var names []model.TeamName
	err := w.e.Store.Scan(ctx, events.All(events.KindTeamName), func(ev events.Event) error {
		n, err := events.Decode[model.TeamName](ev.Data)
		if err == nil && n.TeamID == w.from {
			names = append(names, n)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, n := range names {
		subject := events.TeamNameSubject(n.Name)
		next := model.TeamName{Name: n.Name, TeamID: w.into}
		err := w.done(w.e.run(ctx, func(ctx context.Context) (plan, error) {
			_, rev, err := load[model.TeamName](ctx, w.e, subject)
			if err != nil {
				return plan{}, err
			}
			return w.e.newPlan(ctx, rev, &next)
		}, true))
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *mergeWork) markMerged(ctx context.Context) error {
	ch, _, err := w.e.PutTeam(ctx, w.from, func(t *model.Team) error {
		t.MergedInto = w.into
		return nil
	})
	return w.done(ch, err)
}
